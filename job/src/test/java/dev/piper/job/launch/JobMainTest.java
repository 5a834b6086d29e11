package dev.piper.job.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.job.args.JobOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The job jar's entry class: which program, and its arguments checked before any upload. */
class JobMainTest {

    @Test
    void checkNamesTheProgramOfValidArguments() {
        assertThat(
                        JobMain.check(
                                "stream",
                                "--input-topic",
                                "clicks",
                                "--output-topic",
                                "rows",
                                "--checkpoint-dir",
                                "/data/chk",
                                "--kafka-properties",
                                "/etc/piper/kafka.properties",
                                "--pad-missing-fields"))
                .isEqualTo("stream");
        assertThat(JobMain.check("preprocess", "--input", "/data/day_0", "--output", "/data/out"))
                .isEqualTo("preprocess");
    }

    @Test
    void checkRefusesAMissingProgramAnUnknownOptionAndHelp() {
        assertThatThrownBy(JobMain::check).hasMessage("name the job to run: preprocess or stream");
        assertThatThrownBy(() -> JobMain.check("report", "--input", "x"))
                .hasMessage("name the job to run: preprocess or stream, not 'report'");
        assertThatThrownBy(() -> JobMain.check("stream", "--checkpoint-dir", "d", "--inptu", "t"))
                .hasMessage("Unknown option: '--inptu'");
        assertThatThrownBy(() -> JobMain.check("preprocess", "--output", "o"))
                .hasMessage("Missing required option: '--input=PATH'");
        assertThatThrownBy(() -> JobMain.check("stream", "--help"))
                .hasMessage("--help and --version run no job; see 'piper stream --help'");
    }

    @Test
    void mainRefusesABadValueInOneLineNamingTheProgramAndTheOption() {
        assertThatThrownBy(
                        () ->
                                JobMain.main(
                                        new String[] {
                                            "preprocess",
                                            "--input",
                                            "/no/such/file",
                                            "--output",
                                            "/tmp/out"
                                        }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "piper preprocess: --input: /no/such/file is not a readable file (see"
                                + " 'piper preprocess --help')");
    }

    @Test
    void eachProgramDeclaresEveryOptionOnce() {
        for (List<JobOption> options : List.of(PreprocessProgram.OPTIONS, StreamProgram.OPTIONS)) {
            Set<String> names = new HashSet<>();
            for (JobOption o : options) {
                assertThat(names.add(o.name())).as(o.name()).isTrue();
            }
        }
    }
}
