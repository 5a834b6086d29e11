package dev.piper.job;

import dev.piper.core.block.DeadLetter;
import dev.piper.core.join.BatchLabelJoin;
import dev.piper.core.join.JoinCounts;
import dev.piper.output.DeadLetterFile;
import dev.piper.output.JoinedInput;
import dev.piper.output.OutputCommit;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The label join in front of a batch preprocess ({@code docs/SEMANTICS.md}, "Label join"): the
 * impressions of {@code --input} and the actions of {@code --actions} are joined into the run's
 * scratch directory ({@link OutputCommit#scratch}), whose joined rows the job then reads as its
 * input, and whose dead letters and counts its writer adds to the output ({@link JoinedInput}).
 */
public final class LabelJoinInput {

    /** The joined rows, and what the output's writer needs of the join. */
    public record Joined(Path rows, JoinedInput input) {}

    private LabelJoinInput() {}

    /**
     * Each action stream's files from {@code value} ({@code NAME=PATH,...}, {@link
     * PiperOptions#LABEL_ACTIONS}), in the spec's order.
     *
     * @throws IllegalArgumentException naming the stream or file that is wrong
     */
    public static List<List<Path>> actions(String value, LabelSpec labels) {
        Map<String, List<Path>> files = new LinkedHashMap<>();
        labels.streamNames().forEach(s -> files.put(s, new ArrayList<>()));
        if (value != null && !value.isBlank()) {
            for (String part : value.split(",")) {
                int eq = part.indexOf('=');
                String name = eq < 0 ? "" : part.substring(0, eq).strip();
                if (eq < 0 || !files.containsKey(name)) {
                    throw new IllegalArgumentException(
                            "\""
                                    + part
                                    + "\" is not NAME=PATH for a stream of the spec's labels ("
                                    + String.join(", ", labels.streamNames())
                                    + ")");
                }
                Path file = Path.of(part.substring(eq + 1).strip());
                if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                    throw new IllegalArgumentException(
                            name + "=" + file + ": no readable file there");
                }
                files.get(name).add(file);
            }
        }
        List<String> missing =
                files.entrySet().stream()
                        .filter(e -> e.getValue().isEmpty())
                        .map(Map.Entry::getKey)
                        .toList();
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(
                    "no file for action stream "
                            + String.join(", ", missing)
                            + " (give NAME=PATH for every stream of the spec's labels)");
        }
        return files.values().stream().map(List::copyOf).toList();
    }

    /**
     * Joins {@code impressions} with {@code actions} into {@code commit}'s scratch directory,
     * saying what it did on {@code progress}.
     */
    public static Joined join(
            Path impressions,
            List<List<Path>> actions,
            LabelSpec labels,
            DecodeOptions options,
            OutputCommit commit,
            PrintStream progress)
            throws IOException {
        Path dir = Files.createDirectories(commit.scratch("joined"));
        Path rows = dir.resolve("rows.jsonl");
        Path provenance = dir.resolve("provenance.bin");
        Path dead = dir.resolve("dead-letters.jsonl");
        long start = System.nanoTime();
        JoinCounts counts;
        List<Path> files = impressionFiles(impressions);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(rows), 1 << 20);
                OutputStream where =
                        new BufferedOutputStream(Files.newOutputStream(provenance), 1 << 16);
                DeadLetterFile letters = new DeadLetterFile(dead)) {
            counts =
                    BatchLabelJoin.run(
                            labels,
                            options,
                            files,
                            actions,
                            out,
                            where,
                            (String source, Path f, long line, DeadLetter d) ->
                                    letters.write(d, line, source, f.toString()));
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        if (progress != null) {
            progress.printf(
                    "label join: %,d impressions and %,d actions -> %,d rows (%,d positive"
                            + " copies), %,d negatives sampled out, %,d dead letters in %.1f s%n",
                    counts.impressions(),
                    counts.actions(),
                    counts.rows(),
                    counts.positiveCopies(),
                    counts.sampledOut(),
                    counts.deadLetters(),
                    (System.nanoTime() - start) / 1e9);
        }
        return new Joined(
                rows,
                new JoinedInput(
                        dead.toString(),
                        provenance.toString(),
                        files.stream().map(Path::toString).toList(),
                        counts,
                        labels));
    }

    /**
     * The impressions' files: {@code input} itself, or the files of a directory (hidden ones aside)
     * in order of name, each a partition of the impressions as a topic's partition is.
     *
     * @throws IllegalArgumentException for a directory without files
     */
    static List<Path> impressionFiles(Path input) throws IOException {
        if (!Files.isDirectory(input)) {
            return List.of(input);
        }
        List<Path> files;
        try (var entries = Files.list(input)) {
            files =
                    entries.filter(Files::isRegularFile)
                            .filter(f -> !f.getFileName().toString().startsWith("."))
                            .sorted()
                            .toList();
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException(
                    input + ": a directory of impressions without files");
        }
        return files;
    }
}
