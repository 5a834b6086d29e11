package dev.piper.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** What a failed job on a cluster is reported as, from the stack trace its REST API gives. */
class FlinkRestTest {

    @Test
    void theCauseIsTheInnermostKeepingTheContextItsWrapperAdded() {
        String full =
                String.join(
                        "\n",
                        "org.apache.flink.runtime.JobException: Recovery is suppressed by"
                                + " NoRestartBackoffTimeStrategy",
                        "\tat org.apache.flink.runtime...",
                        "Caused by: java.io.IOException: /data/.out.staging-1/rows.bin: No space"
                                + " left on device",
                        "\tat dev.piper.output.DirectFileOutput.writeFully(...)",
                        "Caused by: java.io.IOException: No space left on device",
                        "\tat sun.nio.ch.FileDispatcherImpl.write0(Native Method)");
        assertThat(FlinkRest.innermostCause(full))
                .isEqualTo(
                        "java.io.IOException: /data/.out.staging-1/rows.bin: No space left on"
                                + " device");
        String plain =
                String.join(
                        "\n",
                        "org.apache.flink.runtime.JobException: Recovery is suppressed",
                        "Caused by: java.lang.IllegalStateException: block 3 arrived, expected 2");
        assertThat(FlinkRest.innermostCause(plain))
                .isEqualTo("java.lang.IllegalStateException: block 3 arrived, expected 2");
        // a wrapper of another class is not context: the program's own refusal is the cause
        String refused =
                String.join(
                        "\n",
                        "org.apache.flink.client.program.ProgramInvocationException: The main"
                                + " method caused an error: piper preprocess: --input: x",
                        "Caused by: picocli.CommandLine$ParameterException: piper preprocess:"
                                + " --input: x");
        assertThat(FlinkRest.innermostCause(refused))
                .isEqualTo("picocli.CommandLine$ParameterException: piper preprocess: --input: x");
        assertThat(FlinkRest.innermostCause("java.lang.RuntimeException: only"))
                .isEqualTo("java.lang.RuntimeException: only");
    }

    @Test
    void theCauseIsTheFailureOfTheTaskNotTheEchoOfACoordinatorThatCouldNotReachIt()
            throws Exception {
        String history =
                """
                {"root-exception": "org.apache.flink.runtime.operators.coordination.TaskNotRunningException: Task is not running, but in state FAILED",
                 "exceptionHistory": {"entries": [
                   {"stacktrace": "org.apache.flink.runtime.operators.coordination.TaskNotRunningException: Task is not running, but in state FAILED\\n\\tat x",
                    "concurrentExceptions": []},
                   {"stacktrace": "java.io.IOException: corrupt.tsv.gz: Not in GZIP format\\n\\tat y",
                    "concurrentExceptions": []}]}}
                """;
        assertThat(FlinkRest.failureCause(new ObjectMapper().readTree(history)))
                .isEqualTo("java.io.IOException: corrupt.tsv.gz: Not in GZIP format");
        String concurrent =
                """
                {"exceptionHistory": {"entries": [
                   {"stacktrace": "org.apache.flink.runtime.operators.coordination.TaskNotRunningException: Task is not running",
                    "concurrentExceptions": [{"stacktrace": "java.lang.IllegalStateException: block 3 arrived, expected 2"}]}]}}
                """;
        assertThat(FlinkRest.failureCause(new ObjectMapper().readTree(concurrent)))
                .isEqualTo("java.lang.IllegalStateException: block 3 arrived, expected 2");
        // only echoes: still said, rather than nothing
        String echoOnly =
                """
                {"root-exception": "org.apache.flink.runtime.operators.coordination.TaskNotRunningException: gone"}
                """;
        assertThat(FlinkRest.failureCause(new ObjectMapper().readTree(echoOnly)))
                .isEqualTo(
                        "org.apache.flink.runtime.operators.coordination.TaskNotRunningException:"
                                + " gone");
        assertThat(FlinkRest.failureCause(new ObjectMapper().readTree("{}"))).isEmpty();
    }
}
