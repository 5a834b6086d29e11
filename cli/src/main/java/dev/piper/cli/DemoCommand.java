package dev.piper.cli;

import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.job.Preprocess;
import dev.piper.pipeline.generate.CriteoGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code piper demo}: the first thing a new user runs. */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Generate a Criteo-like sample, preprocess it on an embedded Flink cluster,",
            "and print what came out and where it is."
        })
final class DemoCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--rows",
            defaultValue = "100000",
            paramLabel = "N",
            description = "Lines to generate (default: ${DEFAULT-VALUE}).")
    long rows;

    @Option(
            names = "--parallelism",
            defaultValue = "2",
            paramLabel = "N",
            description = "Job parallelism (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description =
                    "Where to put the sample and the output (default: a new temporary directory).")
    Path dir;

    /** The bytes of the files below {@code dir}. */
    private static long sizeOf(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            long total = 0;
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                total += Files.size(f);
            }
            return total;
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path base =
                dir != null
                        ? Files.createDirectories(dir)
                        : Files.createTempDirectory("piper-demo-");
        Path input = base.resolve("criteo-sample.tsv");
        Path output = base.resolve("out");
        CriteoGenerator generator = new CriteoGenerator(42, 0.01, 0.001);
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(input), 1 << 20)) {
            GenerateCommand.generate(generator, os, rows, System.err);
        }
        out.printf(
                "Generated %,d Criteo-like lines (%,d malformed on purpose) into %s%n",
                rows, generator.badLines(), input);
        Preprocess.prepareOutput(output, true);
        Preprocess.Summary s =
                Preprocess.run(
                        input,
                        output,
                        parallelism,
                        StateBackend.hashmap,
                        new Configuration(),
                        System.err);
        out.printf(
                "Preprocessed at parallelism %d in %.1f s (the job itself %.1f s, %,.0f lines/s)%n%n",
                parallelism, s.seconds(), s.jobSeconds(), s.rowsPerSecond());
        out.printf("  lines read     %,12d%n", s.linesRead());
        out.printf("  rows written   %,12d%n", s.rowsWritten());
        out.printf("  dead letters   %,12d%n", s.deadLetters());
        for (Map.Entry<String, Long> e : s.deadLettersByReason().entrySet()) {
            if (e.getValue() > 0) {
                out.printf("    %-22s %,8d%n", e.getKey(), e.getValue());
            }
        }
        out.printf("%n  vocabulary sizes%n");
        int i = 0;
        StringBuilder line = new StringBuilder();
        for (Map.Entry<String, Integer> e : s.vocabSizes().entrySet()) {
            line.append(String.format("    %-4s %,9d", e.getKey(), e.getValue()));
            if (++i % 4 == 0) {
                out.println(line);
                line.setLength(0);
            }
        }
        if (line.length() > 0) {
            out.println(line);
        }
        out.printf("%nOutput in %s:%n", output);
        out.printf("  rows.bin            %,d rows x 40 little-endian int32%n", s.rowsWritten());
        out.printf("  vocab/C1..C26.tsv   index<TAB>key, one line per vocabulary entry%n");
        out.printf("  dead-letters.jsonl  one JSON record per rejected line%n");
        out.printf("  metadata.json       counts, vocabulary and table sizes, the pipeline%n");
        if (dir == null) {
            // the sample stays for the reader to look at; the system's temp cleaner, or rm, ends it
            out.printf(
                    "%nThese files (%,.1f MB) are in a temporary directory that piper does not"
                            + " remove: rm -r %s when done, or pass --dir DIR to choose where they"
                            + " go.%n",
                    sizeOf(base) / 1e6, base);
        }
        return 0;
    }
}
