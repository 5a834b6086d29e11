package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README as a test: the commands of its numbered steps for the embedded, Kafka and local
 * cluster shapes, extracted from README.md and run by {@code bash} in order, in one directory, as a
 * user would from the checkout: every one must succeed, and the shapes must not collide (issue 28:
 * shape 2's consume found shape 1's {@code out}, shape 3's stream resumed shape 2's checkpoint).
 *
 * <p>What differs from a user's run, and why: {@code bin/piper} in the directory starts the command
 * line from the build under test (the real script would run Maven inside {@code mvn verify}); the
 * generated inputs have {@link #ROWS} lines instead of 1,000,000 (time); {@code JOB} is the id the
 * last {@code submit} printed; like every JVM of this module's tests, each compiles with C1 only
 * (cli/pom.xml: the suite's time, not the commands, is what that changes). Like {@code bin/piper},
 * the launcher maps a class-data archive of the command line's classes once there is one: made in
 * the background from the classes the first {@code preprocess} loaded (a static archive, {@code
 * -Xshare:dump}; a 20,000-line {@code preprocess} starts 1.5 s sooner with it). The README's ports
 * (Kafka 9092, Flink 8081 and 6123, Prometheus 9249..) must be free, as they are on a fresh
 * machine.
 */
class ReadmeITCase {

    static final int ROWS = 20_000;

    private static final Pattern STEP = Pattern.compile("^(\\d+)\\. ");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern JOB_ID = Pattern.compile("^[0-9a-f]{32}$", Pattern.MULTILINE);

    @TempDir Path work;

    /** One command of a step: its shape's heading, its step number, the command. */
    record Command(String shape, int step, String line) {}

    /**
     * The commands of the numbered steps under the headings starting with {@code shapes}, in order:
     * code spans that start with {@code bin/piper } or {@code PYTHONPATH=} (the others name options
     * or files in the prose).
     */
    static List<Command> commands(List<String> readme, List<String> shapes) {
        List<Command> commands = new ArrayList<>();
        String shape = null;
        int step = 0;
        for (String line : readme) {
            if (line.startsWith("#")) {
                String title = line.replaceFirst("^#+ ", "");
                shape = shapes.stream().filter(title::startsWith).findFirst().orElse(null);
                step = 0;
                continue;
            }
            if (shape == null) {
                continue;
            }
            Matcher s = STEP.matcher(line);
            if (s.find()) {
                step = Integer.parseInt(s.group(1));
            } else if (!line.startsWith("   ")) {
                step = 0; // prose after the steps
            }
            if (step == 0) {
                continue;
            }
            Matcher code = CODE.matcher(line);
            while (code.find()) {
                String c = code.group(1);
                if (c.startsWith("bin/piper ") || c.startsWith("PYTHONPATH=")) {
                    commands.add(new Command(shape, step, c));
                }
            }
        }
        return commands;
    }

    @Test
    void theReadmesShapesRunAsWrittenInOneDirectory() throws Exception {
        Path home = Path.of(System.getProperty("piper.home"));
        List<Command> commands =
                commands(
                        Files.readAllLines(home.resolve("README.md")),
                        List.of(
                                "1. Embedded",
                                "2. Kafka-fed",
                                "3. A Flink cluster",
                                "6. Your own events",
                                "7. Impressions and clicks"));
        // the steps as the README has them: if one moves, this list says what the test covers
        assertThat(commands.stream().map(c -> c.shape().charAt(0) + "." + c.step()).toList())
                .containsExactly(
                        "1.1", "1.2", "1.4", "1.4", "2.1", "2.2", "2.2", "2.3", "2.4", "2.5", "2.6",
                        "2.7", "2.7", "2.8", "2.9", "2.9", "2.10", "3.1", "3.2", "3.3", "3.3",
                        "3.4", "3.4", "3.5", "3.5", "6.1", "6.1", "6.2", "6.3", "6.3", "6.5", "6.5",
                        "6.6", "6.6", "7.1", "7.2", "7.3", "7.3", "7.3", "7.4", "7.5", "7.6");
        writeLauncher(home);
        Files.createSymbolicLink(work.resolve("clients"), home.resolve("clients"));

        String lastJob = null;
        Process dump = null;
        try {
            for (Command c : commands) {
                String line =
                        c.line()
                                .replace("--rows 1000000", "--rows " + ROWS)
                                .replace(
                                        "--checkpoint-every-rows 100000",
                                        "--checkpoint-every-rows " + ROWS / 2);
                if (line.contains(" JOB")) {
                    assertThat(lastJob).as("a submit printed a job id before %s", line).isNotNull();
                    line = line.replace(" JOB", " " + lastJob);
                }
                String out = run(c, line);
                if (dump == null && line.startsWith("bin/piper preprocess ")) {
                    dump = dumpClassData(home);
                }
                Matcher job = JOB_ID.matcher(out);
                while (job.find()) {
                    lastJob = job.group();
                }
            }
        } finally {
            if (dump != null) {
                dump.descendants().forEach(ProcessHandle::destroyForcibly);
                dump.destroyForcibly();
            }
            // a failed step leaves its services running: stop them (quietly if they are not)
            run(new Command("cleanup", 0, ""), "bin/piper cluster stop --dir flink || true");
            run(new Command("cleanup", 0, ""), "bin/piper kafka stop --dir kafka || true");
        }

        Path archive = work.resolve(".cds/piper.jsa");
        System.out.println(
                Files.exists(archive)
                        ? "ReadmeITCase: the commands after the class-data archive was made were given it"
                        : "ReadmeITCase: no class-data archive, the commands ran without one: "
                                + (dump == null
                                        ? "no preprocess wrote a class list"
                                        : tail(Files.readString(work.resolve(".cds/dump.log")))));

        // what the steps made, read back
        assertThat(work.resolve("out/rows.bin")).isNotEmptyFile();
        assertThat(Files.mismatch(work.resolve("out-pq/rows.bin"), work.resolve("out/rows.bin")))
                .as("shape 1 from Parquet")
                .isEqualTo(-1);
        assertThat(
                        Files.mismatch(
                                work.resolve("out-events/rows.bin"), work.resolve("out/rows.bin")))
                .as("shape 6's JSON events")
                .isEqualTo(-1);
        assertThat(Files.mismatch(work.resolve("out-avro/rows.bin"), work.resolve("out/rows.bin")))
                .as("shape 6's Avro container file")
                .isEqualTo(-1);
        assertThat(Files.readAllLines(work.resolve("out-clicks/vocab/C1.tsv")).get(0))
                .as("shape 6's click events: users named by their ids")
                .matches("0\\t[0-9]+\\tu_[0-9a-z]+");
        var clicksMeta =
                new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(work.resolve("out-clicks/metadata.json").toFile());
        long clickRows = clicksMeta.get("rows_written").asLong();
        assertThat(clickRows).as("shape 6's click events").isPositive();
        assertThat(Files.size(work.resolve("out-clicks/event_times.bin")))
                .as("shape 6's click events: a time per row")
                .isEqualTo(8 * clickRows);
        assertThat(clicksMeta.get("event_times").get("count").asLong()).isEqualTo(clickRows);
        assertThat(
                        Files.mismatch(
                                work.resolve("out-cluster/rows.bin"), work.resolve("out/rows.bin")))
                .as("shape 3's preprocess on the cluster")
                .isEqualTo(-1);
        long clicks = 0; // lines, counted as bytes: the malformed ones are not all UTF-8
        for (byte b : Files.readAllBytes(work.resolve("clicks.tsv"))) {
            clicks += b == '\n' ? 1 : 0;
        }
        var meta =
                new com.fasterxml.jackson.databind.ObjectMapper()
                        .readTree(work.resolve("out-stream/metadata.json").toFile());
        assertThat(meta.get("lines_read").asLong()).as("shape 2's consumed feed").isEqualTo(clicks);
        assertThat(work.resolve("train.json")).isNotEmptyFile();
        // shape 2's serving: the first checkpoint's vocabularies answer the three new lines
        assertThat(work.resolve("model.snapshot")).isNotEmptyFile();
        assertThat(Files.readString(work.resolve("step-2.7.log")))
                .as("shape 2's serve --request")
                .contains("\"records\":3");
        assertThat(Files.readString(work.resolve("step-2.8.log")))
                .as("shape 2's skew check")
                .contains("skew-check: no skew");
        assertThat(Files.readString(work.resolve("step-2.9.log")))
                .as(
                        "shape 2's predictions: the mid-stream checkpoint scores served rows as its own")
                .containsPattern("check-serving: [0-9]+ blocks \\([1-9][0-9]* at or before")
                .contains("predictions equal on");
        assertThat(work.resolve("ckpt-cluster/savepoints")).isDirectory();
        // shape 7: the stream's joined rows are the batch join's, but for those still waiting
        byte[] joined = Files.readAllBytes(work.resolve("out-joined/rows.bin"));
        byte[] streamed = Files.readAllBytes(work.resolve("out-joined-stream/rows.bin"));
        assertThat(streamed.length).as("shape 7's stream").isPositive().isLessThan(joined.length);
        assertThat(streamed)
                .as("shape 7's stream: the start of the batch join's rows")
                .isEqualTo(java.util.Arrays.copyOf(joined, streamed.length));
        assertThat(
                        new com.fasterxml.jackson.databind.ObjectMapper()
                                .readTree(work.resolve("out-joined/metadata.json").toFile())
                                .get("label_join")
                                .get("actions_joined")
                                .asLong())
                .as("shape 7's batch join")
                .isPositive();
    }

    /** Runs {@code line} with bash in the work directory; it must exit 0 within 5 minutes. */
    private String run(Command c, String line) throws Exception {
        Path log = work.resolve("step-" + c.shape().charAt(0) + "." + c.step() + ".log");
        ProcessBuilder pb =
                new ProcessBuilder("bash", "-c", line)
                        .directory(work.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Map<String, String> env = pb.environment();
        env.remove("PYTHONPATH");
        Process p = pb.start();
        boolean done = p.waitFor(5, TimeUnit.MINUTES);
        if (!done) {
            p.destroyForcibly();
        }
        String out = Files.exists(log) ? Files.readString(log) : "";
        if (!c.shape().equals("cleanup")) {
            assertThat(done ? p.exitValue() : -1)
                    .as("README shape %s, step %d: %s%n%s", c.shape(), c.step(), line, tail(out))
                    .isZero();
        }
        return out;
    }

    private static String tail(String text) {
        List<String> lines = text.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    /**
     * {@code bin/piper} of the work directory: the command line of the build under test, with the
     * JVM flags the real script gives it.
     */
    /**
     * The class path {@code bin/piper} runs the command line on: the packaged jar and the class
     * path files the build writes beside it, not this test's own (a dependency the CLI has only at
     * test scope would pass here and fail for a user).
     */
    private static String packagedClassPath(Path home) throws IOException {
        Path target = home.resolve("cli/target");
        Path jar;
        try (var files = Files.list(target)) {
            jar =
                    files.filter(
                                    f ->
                                            f.getFileName()
                                                    .toString()
                                                    .matches(
                                                            "piper-cli-[0-9][0-9.]*(-SNAPSHOT)?\\.jar"))
                            .findFirst()
                            .orElseThrow(
                                    () ->
                                            new IOException(
                                                    "no piper-cli jar in "
                                                            + target
                                                            + ": run the package phase first"));
        }
        return jar
                + ":"
                + Files.readString(target.resolve("cli-classpath.txt")).strip()
                + ":"
                + Files.readString(target.resolve("cli-programs-classpath.txt")).strip();
    }

    /**
     * Starts writing the class-data archive the launcher maps once it exists, from the class list
     * the last command wrote (a {@code preprocess}: Flink's classes and the job's). The archive is
     * written aside and moved into place whole; if it cannot be made, the commands run without.
     * Null when there is no class list to make it from.
     */
    private Process dumpClassData(Path home) throws IOException {
        Path cds = work.resolve(".cds");
        Path list = cds.resolve("dump.lst");
        if (!Files.exists(cds.resolve("last.lst"))) {
            return null; // the JVM wrote no class list: the commands run without an archive
        }
        Files.copy(cds.resolve("last.lst"), list);
        Path aside = cds.resolve("piper.jsa.tmp");
        List<String> command = new ArrayList<>(List.of("bash", "-c"));
        command.add("\"$@\" && mv -f '" + aside + "' '" + cds.resolve("piper.jsa") + "'");
        command.addAll(List.of("dump", PiperProcesses.java(), "-Xshare:dump"));
        command.add("-XX:SharedClassListFile=" + list);
        command.add("-XX:SharedArchiveFile=" + aside);
        command.addAll(PiperProcesses.moduleFlags());
        command.addAll(List.of("-cp", packagedClassPath(home)));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(cds.resolve("dump.log").toFile())
                .start();
    }

    private void writeLauncher(Path home) throws IOException {
        Path cds = Files.createDirectories(work.resolve(".cds"));
        Path bin = Files.createDirectories(work.resolve("bin"));
        Path piper = bin.resolve("piper");
        Files.writeString(
                piper,
                "#!/usr/bin/env bash\n"
                        + "cds=(-XX:DumpLoadedClassList='"
                        + cds.resolve("last.lst")
                        + "')\n"
                        + "if [[ -f '"
                        + cds.resolve("piper.jsa")
                        + "' ]]; then cds=(-XX:SharedArchiveFile='"
                        + cds.resolve("piper.jsa")
                        + "' -Xlog:cds=off); fi\n"
                        + "exec '"
                        + PiperProcesses.java()
                        + "' "
                        + String.join(" ", PiperProcesses.moduleFlags())
                        + " \"${cds[@]}\""
                        + " -Dlog4j.configurationFile='"
                        + home.resolve("conf/log4j2-cli.properties")
                        + "' -Dpiper.log.file='"
                        + work.resolve("piper.log")
                        + "' -Dpiper.home='"
                        + home
                        + "' -cp '"
                        + packagedClassPath(home)
                        + "' dev.piper.cli.PiperCli \"$@\"\n");
        Files.setPosixFilePermissions(piper, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
