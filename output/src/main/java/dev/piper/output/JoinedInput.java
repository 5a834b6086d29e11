package dev.piper.output;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.core.join.JoinCounts;
import dev.piper.pipeline.join.ActionStream;
import dev.piper.pipeline.join.LabelSpec;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;

/**
 * A preprocess input made by the label join ({@code BatchLabelJoin}): the joined rows the job reads
 * as JSON lines, and beside them what the output needs of the join: its dead letters (written
 * before the job's), where each joined line's impression was read (so that a joined line the
 * decoder refuses is reported at its impression's file, line and offset), and its counts for {@code
 * metadata.json}'s {@code label_join}.
 *
 * @param deadLetters the join's dead letters, JSON lines as {@link DeadLetterFile} writes them
 * @param provenance per joined line, its impression's file (an int32 index into {@code
 *     impressionFiles}), line and byte offset (int64 each), big-endian
 * @param impressionFiles the impression files, as the dead letters name them
 * @param counts the join's counts
 * @param labels the spec's label join
 */
public record JoinedInput(
        String deadLetters,
        String provenance,
        List<String> impressionFiles,
        JoinCounts counts,
        LabelSpec labels)
        implements Serializable {

    /** Bytes per joined line in {@link #provenance}. */
    public static final int PROVENANCE_BYTES = 20;

    /** Where joined line {@code line} (1-based) was read. */
    record Origin(String file, long line, long offset) {}

    public JoinedInput {
        impressionFiles = List.copyOf(impressionFiles);
    }

    /** The file, line and offset of the impression of joined line {@code line} (from 1). */
    Origin origin(long line) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(Path.of(provenance).toFile(), "r")) {
            f.seek((line - 1) * PROVENANCE_BYTES);
            int file = f.readInt();
            return new Origin(impressionFiles.get(file), f.readLong(), f.readLong());
        }
    }

    /**
     * {@code metadata.json}'s {@code label_join}: the join's settings and counts, with {@code
     * undecoded}, the joined rows the decoder refused (their dead letters count among the run's).
     */
    void describe(ObjectNode root, long undecoded) {
        ObjectNode j = root.putObject("label_join");
        j.put("impressions", counts.impressions());
        j.put("actions", counts.actions());
        j.put("rows_emitted", counts.rows());
        j.put("first_emissions", counts.firstEmissions());
        j.put("positive_copies", counts.positiveCopies());
        j.put("rows_refused_by_decoder", undecoded);
        j.put("sampled_out", counts.sampledOut());
        j.put("actions_joined", counts.actionsJoined());
        counts.joinedByStream().forEach(j.putObject("actions_joined_by_stream")::put);
        j.put("dead_letters", counts.deadLetters());
        counts.byReason().forEach(j.putObject("dead_letters_by_reason")::put);
        j.put("key", labels.key());
        j.put("max_out_of_orderness_ms", labels.join().maxOutOfOrdernessMs());
        j.put("retention_ms", labels.join().retentionMs());
        j.put("negative_sample_rate", labels.join().negativeSampleRate());
        var streams = j.putArray("streams");
        for (ActionStream s : labels.join().streams()) {
            streams.addObject()
                    .put("name", s.name())
                    .put("window_ms", s.windowMs())
                    .put("policy", s.policy().specName());
        }
    }
}
