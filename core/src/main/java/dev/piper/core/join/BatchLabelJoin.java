package dev.piper.core.join;

import dev.piper.core.block.DeadLetter;
import dev.piper.core.decode.BlockDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.pipeline.join.Action;
import dev.piper.pipeline.join.Impression;
import dev.piper.pipeline.join.JoinOutput;
import dev.piper.pipeline.join.JoinReason;
import dev.piper.pipeline.join.JoinedRow;
import dev.piper.pipeline.join.LabelJoin;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.join.Position;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The label join of files ({@code preprocess} with a spec's {@code labels}): each file is one
 * partition, read in order; the files are read side by side, always the one whose latest time is
 * earliest, so the join's state stays what the stream's would be. Each impression is decoded as the
 * job will decode it (a line the decoder refuses is a dead letter here, with its own file's line
 * and offset), and the joined rows go out as JSON lines in the join's order with their labels added
 * ({@link LabelledLine}), which the preprocess job then reads as its input.
 */
public final class BatchLabelJoin {

    /** Where the join's dead letters go, with the source they are of. */
    public interface DeadLetters {
        /**
         * One rejected record: {@code source} is {@code impressions} or an action stream's name,
         * {@code file} its file, {@code line} its 1-based line there.
         */
        void write(String source, Path file, long line, DeadLetter d) throws IOException;
    }

    private final LabelSpec labels;
    private final DecodeOptions options;
    private final LabelledLine labelled;
    private final JoinCounts counts;
    private final DeadLetters dead;
    private final OutputStream joined;
    private final java.io.DataOutputStream provenance; // or null
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
    private final Map<Position, Pending> pendingActions = new HashMap<>();
    private final List<Partition> partitions = new ArrayList<>();
    private final LabelJoin<Pending> join;

    /** A record's line, where it was read. */
    private record Pending(Partition partition, LineReader.Line line) {}

    private BatchLabelJoin(
            LabelSpec labels,
            DecodeOptions options,
            OutputStream joined,
            OutputStream provenance,
            DeadLetters dead) {
        this.labels = labels;
        this.options = options;
        this.labelled = new LabelledLine(labels.streamNames());
        this.counts = new JoinCounts(labels.streamNames());
        this.dead = dead;
        this.joined = joined;
        this.provenance = provenance == null ? null : new java.io.DataOutputStream(provenance);
        this.join = new LabelJoin<>(labels.join(), new Out());
    }

    /**
     * Joins the impressions of {@code impressionFiles} with the actions of {@code actionFiles} (per
     * stream, in the spec's order), writing the rows to {@code joined} and the rejected records to
     * {@code dead}; for each row, where its impression was read to {@code provenance} (if not
     * null): the index of its file in {@code impressionFiles} (int32), its line and byte offset
     * (int64 each), big-endian.
     */
    public static JoinCounts run(
            LabelSpec labels,
            DecodeOptions options,
            List<Path> impressionFiles,
            List<List<Path>> actionFiles,
            OutputStream joined,
            OutputStream provenance,
            DeadLetters dead)
            throws IOException {
        if (actionFiles.size() != labels.sources().size()) {
            throw new IllegalArgumentException(
                    actionFiles.size()
                            + " lists of files for "
                            + labels.sources().size()
                            + " action streams");
        }
        BatchLabelJoin j = new BatchLabelJoin(labels, options, joined, provenance, dead);
        try {
            for (int f = 0; f < impressionFiles.size(); f++) {
                j.partitions.add(j.new Impressions(impressionFiles.get(f), f));
            }
            for (int s = 0; s < actionFiles.size(); s++) {
                for (int f = 0; f < actionFiles.get(s).size(); f++) {
                    j.partitions.add(j.new Actions(actionFiles.get(s).get(f), s, f));
                }
            }
            j.runAll();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            for (Partition p : j.partitions) {
                p.reader.close();
            }
        }
        if (!j.counts.addsUp()) {
            throw new IllegalStateException("the label join's counts do not add up");
        }
        return j.counts;
    }

    private void runAll() throws IOException {
        long last = Long.MIN_VALUE;
        while (true) {
            Partition next = null;
            for (Partition p : partitions) {
                if (!p.done && (next == null || p.maxTime < next.maxTime)) {
                    next = p;
                }
            }
            if (next == null) {
                break;
            }
            next.done = !next.step();
            long w = Long.MAX_VALUE;
            for (Partition p : partitions) {
                if (!p.done) {
                    w = Math.min(w, p.watermark());
                }
            }
            if (w > last && w != Long.MAX_VALUE) {
                join.advance(w);
                last = w;
            }
        }
        join.finish();
        if (provenance != null) {
            provenance.flush();
        }
    }

    /** One file: a partition of its source. */
    private abstract class Partition {
        final LineReader reader;
        final Path file;
        final String source;
        long maxTime = Long.MIN_VALUE;
        boolean done;

        /** A file whose lines longer than {@code maxLineBytes} are refused. */
        Partition(Path file, String source, int maxLineBytes) throws IOException {
            this.file = file;
            this.source = source;
            this.reader =
                    new LineReader(
                            file, maxLineBytes, Math.min(options.maxRawBytes(), maxLineBytes));
        }

        /** The latest time read, less the bound; {@link Long#MIN_VALUE} before any. */
        long watermark() {
            return PartitionTimes.watermark(maxTime, labels.join().maxOutOfOrdernessMs());
        }

        /** The watermark a record of time {@code t} is read with; the partition then knows it. */
        long readAt(long t) {
            long w = watermark();
            maxTime = Math.max(maxTime, t);
            return w;
        }

        /** Takes the next record into the join; false at the end of the file. */
        abstract boolean step() throws IOException;

        void deadLetter(LineReader.Line l, String reason, String detail) throws IOException {
            byte[] raw = l.bytes();
            int keep = Math.min(raw.length, options.maxRawBytes());
            dead.write(
                    source,
                    file,
                    l.number(),
                    new DeadLetter(
                            0,
                            l.offset(),
                            reason,
                            detail,
                            java.util.Arrays.copyOf(raw, keep),
                            keep < l.length()));
            counts.byReason.merge(reason, 1L, Long::sum);
        }
    }

    /** An impression file: decoded in chunks, as the job decodes it. */
    private final class Impressions extends Partition {
        private final int partition;
        private final BlockDecoder decoder;
        private final ImpressionKeys keys;
        private final ArrayDeque<Runnable> ready = new ArrayDeque<>();

        Impressions(Path file, int partition) throws IOException {
            super(file, "impressions", options.maxLineBytes() - labelled.extraBytes());
            this.partition = partition;
            this.decoder = BlockDecoder.of(options, false);
            this.keys = new ImpressionKeys(labels);
        }

        @Override
        boolean step() throws IOException {
            while (ready.isEmpty()) {
                if (!fill()) {
                    return false;
                }
            }
            ready.poll().run();
            return true;
        }

        /**
         * Reads and decodes the next chunk of lines, as the file source cuts them; false at the end
         * of the file. A line too long for the join is a chunk of its own, refused here.
         */
        private boolean fill() throws IOException {
            LineReader.Chunk chunk = reader.nextChunk();
            if (chunk == null) {
                return false;
            }
            List<LineReader.Line> lines = chunk.lines();
            counts.impressions += lines.size();
            if (chunk.raw().lastLineCut()) {
                LineReader.Line taken = lines.get(0);
                ready.add(() -> impressionDead(taken, tooLong(taken)));
                return true;
            }
            CriteoDecoder.Decoded d = decoder.decode(chunk.raw(), false);
            DeadLetter[] rejected = d.dense().deadLetters();
            long[] times = d.dense().eventTimes();
            int r = 0;
            int row = 0;
            for (int i = 0; i < lines.size(); i++) {
                LineReader.Line taken = lines.get(i);
                if (r < rejected.length && rejected[r].lineInBlock() == i) {
                    DeadLetter why = rejected[r++];
                    ready.add(() -> impressionDead(taken, why.reason(), why.detail()));
                } else {
                    long t = times[row++];
                    ready.add(() -> impression(taken, t));
                }
            }
            return true;
        }

        private String[] tooLong(LineReader.Line l) {
            return new String[] {
                Reason.LINE_TOO_LONG.code(),
                JoinDetails.tooLong(l.length(), options.maxLineBytes(), labelled.extraBytes())
            };
        }

        private void impressionDead(LineReader.Line l, String[] why) {
            impressionDead(l, why[0], why[1]);
        }

        private void impressionDead(LineReader.Line l, String reason, String detail) {
            counts.impressionDeadLetters++;
            try {
                deadLetter(l, reason, detail);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private void impression(LineReader.Line l, long t) {
            String k = keys.read(l.bytes(), 0, l.bytes().length);
            if (k == null) {
                impressionDead(l, keys.reason(), keys.detail());
                return;
            }
            long w = readAt(t);
            join.impression(
                    new Impression<>(
                            k, t, new Position(0, partition, l.number()), w, new Pending(this, l)));
        }
    }

    /** An action file of one stream. */
    private final class Actions extends Partition {
        private final int stream;
        private final int partition;
        private final ActionFields fields;

        Actions(Path file, int stream, int partition) throws IOException {
            super(file, labels.streamNames().get(stream), options.maxLineBytes());
            this.stream = stream;
            this.partition = partition;
            this.fields = new ActionFields(labels.sources().get(stream));
        }

        @Override
        boolean step() throws IOException {
            LineReader.Line l = reader.next();
            if (l == null) {
                return false;
            }
            counts.actions++;
            if (l.cut()) {
                actionDead(
                        l,
                        Reason.LINE_TOO_LONG.code(),
                        JoinDetails.tooLong(l.length(), options.maxLineBytes(), 0));
                return true;
            }
            ActionFields.Read read = fields.read(l.bytes());
            if (read.reason() != null) {
                actionDead(l, read.reason(), read.detail());
                return true;
            }
            Position at = new Position(1 + stream, partition, l.number());
            long w = readAt(read.timeMs());
            pendingActions.put(at, new Pending(this, l));
            join.action(
                    new Action(stream, read.key(), read.timeMs(), read.id(), read.value(), at, w));
            return true;
        }

        private void actionDead(LineReader.Line l, String reason, String detail)
                throws IOException {
            counts.actionDeadLetters++;
            deadLetter(l, reason, detail);
        }
    }

    /** The key's text: a non-empty string as it is, an integer's digits; else null. */
    static String keyText(JsonFields.Value v) {
        if (v == null) {
            return null;
        }
        return switch (v.token()) {
            case VALUE_STRING -> v.text().isEmpty() ? null : v.text();
            case VALUE_NUMBER_INT -> v.text();
            default -> null;
        };
    }

    static String badKey(String field, JsonFields.Value v) {
        return field
                + ": "
                + (v == null
                        ? "missing"
                        : "\""
                                + v.text()
                                + "\" is not a join key (a non-empty string or an"
                                + " integer)");
    }

    /** Where the join's outcomes go: rows to the joined lines, the rest counted. */
    private final class Out implements JoinOutput<Pending> {

        @Override
        public void row(JoinedRow<Pending> row) {
            LineReader.Line l = row.impression().payload().line();
            line.reset();
            labelled.write(l.bytes(), l.bytes().length, row, line);
            try {
                line.writeTo(joined);
                if (provenance != null) {
                    provenance.writeInt(
                            ((Impressions) row.impression().payload().partition()).partition);
                    provenance.writeLong(l.number());
                    provenance.writeLong(l.offset());
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (row.copyOf() < 0) {
                counts.firstEmissions++;
            } else {
                counts.positiveCopies++;
            }
        }

        @Override
        public void sampledOut(Impression<Pending> impression) {
            counts.sampledOut++;
        }

        @Override
        public void rejected(Impression<Pending> impression, JoinReason reason) {
            Impressions p = (Impressions) impression.payload().partition();
            p.impressionDead(
                    impression.payload().line(),
                    reason.code(),
                    JoinDetails.of(
                            reason,
                            impression.key(),
                            impression.timeMs(),
                            impression.watermark(),
                            labels.join()));
        }

        @Override
        public void joined(Action action, Impression<Pending> impression) {
            pendingActions.remove(action.position());
            counts.actionsJoined++;
            counts.joinedByStream.merge(labels.streamNames().get(action.stream()), 1L, Long::sum);
        }

        @Override
        public void rejected(Action action, JoinReason reason) {
            Pending p = pendingActions.remove(action.position());
            counts.actionDeadLetters++;
            try {
                p.partition()
                        .deadLetter(
                                p.line(),
                                reason.code(),
                                JoinDetails.of(
                                        reason,
                                        action.key(),
                                        action.timeMs(),
                                        action.watermark(),
                                        labels.join()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
