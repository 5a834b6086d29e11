package dev.piper.job.args;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;

/** The job jar's own argument parser and the typed reading both parsers share. */
class JobArgsTest {

    enum Backend {
        hashmap,
        rocksdb
    }

    private static final List<JobOption> OPTIONS =
            List.of(
                    JobOption.required("--input", "PATH", "in"),
                    JobOption.value("--parallelism", "N", "2", "tasks"),
                    JobOption.value("--linger", "DURATION", "200ms", "wait"),
                    JobOption.value("--backend", "B", "hashmap", "where"),
                    JobOption.flag("--overwrite", "replace"),
                    JobOption.repeatable("--flink-conf", "KEY=VALUE", "conf"));

    private static JobArgs parse(String... args) {
        return JobArgs.parse(OPTIONS, List.of(args));
    }

    @Test
    void valuesComeAsGivenOrAsTheirDefaultsTyped() {
        JobArgs args =
                parse(
                        "--input",
                        "/data/day_0",
                        "--parallelism=4",
                        "--overwrite",
                        "--flink-conf",
                        "a=1",
                        "--flink-conf=b=x=y");
        assertThat(args.path("--input")).isEqualTo(Path.of("/data/day_0"));
        assertThat(args.integer("--parallelism")).isEqualTo(4);
        assertThat(args.given("--parallelism")).isTrue();
        assertThat(args.duration("--linger", "")).isEqualTo(Duration.ofMillis(200));
        assertThat(args.given("--linger")).isFalse();
        assertThat(args.choice("--backend", Backend.class)).isEqualTo(Backend.hashmap);
        assertThat(args.flag("--overwrite")).isTrue();
        assertThat(args.keyValues("--flink-conf")).isEqualTo(Map.of("a", "1", "b", "x=y"));
    }

    @Test
    void eachMistakeIsNamed() {
        assertThatThrownBy(() -> parse("--input", "x", "--inptu", "y"))
                .isInstanceOf(JobArgumentException.class)
                .hasMessage("Unknown option: '--inptu'");
        assertThatThrownBy(() -> parse("--input", "x", "stray"))
                .hasMessage("Unmatched argument at index 2: 'stray'");
        assertThatThrownBy(() -> parse("--input"))
                .hasMessage("Missing required parameter for option '--input=PATH'");
        assertThatThrownBy(() -> parse("--parallelism", "2"))
                .hasMessage("Missing required option: '--input=PATH'");
        assertThatThrownBy(() -> parse("--input", "x", "--input", "y"))
                .hasMessage("option '--input=PATH' should be specified only once");
        assertThatThrownBy(() -> parse("--input", "x", "--overwrite=yes"))
                .hasMessage("--overwrite is a flag and takes no value");
    }

    @Test
    void aValueThatDoesNotConvertIsNamedWhenRead() {
        JobArgs args =
                parse("--input", "x", "--parallelism", "two", "--linger", "0s", "--backend", "s3");
        assertThatThrownBy(() -> args.integer("--parallelism"))
                .hasMessage("Invalid value for option '--parallelism': 'two' is not an int");
        assertThatThrownBy(() -> args.duration("--linger", ""))
                .hasMessage("--linger: '0s' is not a positive duration such as 5s or 500ms");
        assertThatThrownBy(() -> args.choice("--backend", Backend.class))
                .hasMessage(
                        "Invalid value for option '--backend': expected one of [hashmap, rocksdb]"
                                + " (case-sensitive) but was 's3'");
    }

    @Test
    void aBareNumberTakesTheUnitItIsGiven() {
        assertThat(parse("--input", "x", "--linger", "3").duration("--linger", "s"))
                .isEqualTo(Duration.ofSeconds(3));
        // without one, Flink's own rule: milliseconds
        assertThat(parse("--input", "x", "--linger", "3").duration("--linger", ""))
                .isEqualTo(Duration.ofMillis(3));
    }

    @Test
    void anOptionThatNamesASettingSetsItAsGivenWithTheSettingsOwnTypeCheck() {
        ConfigOption<Duration> linger =
                ConfigOptions.key("piper.test.linger")
                        .durationType()
                        .defaultValue(Duration.ofMillis(200));
        ConfigOption<Integer> lines =
                ConfigOptions.key("piper.test.lines").intType().defaultValue(4096);
        List<JobOption> options =
                List.of(
                        JobOption.setting("--linger", "DURATION", linger, "wait"),
                        JobOption.setting("--lines", "N", lines, "rows"));
        assertThat(options.get(0).defaultValue()).isEqualTo("200ms");
        assertThat(options.get(1).defaultValue()).isEqualTo("4096");
        Configuration conf = JobArgs.parse(options, List.of("--linger", "2s")).settings();
        assertThat(conf.get(linger)).isEqualTo(Duration.ofSeconds(2));
        assertThat(conf.contains(lines)).as("not given: the setting's default").isFalse();
        assertThatThrownBy(() -> JobArgs.parse(options, List.of("--lines", "many")).settings())
                .isInstanceOf(JobArgumentException.class)
                .hasMessageStartingWith("Invalid value for option '--lines': 'many' (");
    }

    @Test
    void anOptionIsDeclaredOnceAndAFlagTakesNoValue() {
        assertThatThrownBy(
                        () ->
                                JobArgs.parse(
                                        List.of(
                                                JobOption.flag("--a", "x"),
                                                JobOption.flag("--a", "y")),
                                        List.of()))
                .hasMessage("option declared twice: --a");
        assertThatThrownBy(() -> new JobOption("--a", null, "1", false, false, "x", null))
                .hasMessage("--a: a flag has no default and no value");
        assertThatThrownBy(() -> JobOption.flag("a", "x"))
                .hasMessage("an option's name starts with --: a");
    }
}
