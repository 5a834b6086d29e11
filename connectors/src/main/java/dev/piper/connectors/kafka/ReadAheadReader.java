package dev.piper.connectors.kafka;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.InputStatus;

/**
 * A source reader that keeps its splits within {@code aheadMs} of each other in event time: a split
 * whose latest record is more than that ahead of another split that is still delivering records, of
 * this reader or (told by {@link ReadAheadEnumerator}) of another reader of the source, is paused
 * until that one catches up or runs dry.
 *
 * <p>Why: the label join holds every action until the watermark, the least of every partition's,
 * passes its time. Read as fast as Kafka gives them, a clicks topic (small records) runs far ahead
 * of its impressions topic (large ones) whenever the join catches up on a backlog, and every click
 * read ahead waits in the join's state: at 600,000 impressions, 103,551 actions at once, against
 * 15,897 with a bound of 30 s, most of them what was fetched before a pause (docs/PERFORMANCE.md,
 * "The label join"). The same holds between readers: one that runs ahead of another puts its
 * impressions in the join's state to wait for the other's watermark.
 *
 * <p>Flink's watermark alignment ({@code WatermarkStrategy#withWatermarkAlignment}) pauses a split
 * ahead of the slowest split's watermark, and stalls for ever once a topic has no more records (its
 * watermark stops, and everything ahead of it stays paused): a quiet action stream is normal. Here
 * a split counts as behind only while it delivers: one that has given nothing for {@code quietMs}
 * while the reader ran dry no longer holds the others back. The split with the least latest time
 * among those delivering, of all readers, is never paused, so reading always makes progress.
 *
 * <p>A reader's hold (the least time at which one of its splits holds others back) goes to the
 * enumerator when it changes, at most every {@link #REPORT_EVERY_MS} while it moves; so the bound
 * between readers is approximate by that much reading, as it is by a fetch: records already fetched
 * when a split is paused are still emitted.
 *
 * <p>Only the reading pace changes: which records are read, their order within a partition, the
 * watermarks and so every row are the same with or without it. Flink's own pauses (alignment) pass
 * through and win: a split it paused is never resumed here.
 */
final class ReadAheadReader<T, S extends SourceSplit> extends ForwardingReader<T, S> {

    /** A record's event time, in milliseconds; {@link Long#MIN_VALUE} for a record without one. */
    @FunctionalInterface
    interface EventTime<T> extends Serializable {
        long of(T record);
    }

    /** Records between two looks at the splits' times. */
    private static final int CHECK_EVERY = 128;

    /**
     * Least wall time between two reports of this reader's hold to the other readers, unless it
     * starts or stops holding: a catching-up reader moves its hold every look.
     */
    static final long REPORT_EVERY_MS = 25;

    private final EventTime<T> time;
    private final long aheadMs;
    private final long quietMs;
    private final LongSupplier clockMs;
    private final Map<String, Split> splits = new LinkedHashMap<>();

    /**
     * Where this reader's hold goes to the other readers ({@link ReadAheadEnumerator}); or null.
     */
    private final LongConsumer report;

    /** The least hold of the other readers, as last told; {@link Long#MAX_VALUE}: none. */
    private long othersHoldMs = Long.MAX_VALUE;

    /** This reader's hold as last reported, and when (clock ms). */
    private long reportedHoldMs = Long.MAX_VALUE;

    private long reportedAtMs = Long.MIN_VALUE;

    /** This reader's hold as of the last look, reported or not yet. */
    private long lookedHoldMs = Long.MAX_VALUE;

    /** Completes {@code quietMs} after it was made: the clock's turn to wake the reader. */
    private CompletableFuture<Void> wake;

    private Output output;
    private int sinceCheck;

    /** When the reader last had nothing to give (clock ms), or {@link Long#MIN_VALUE}. */
    private long dryAtMs = Long.MIN_VALUE;

    /** The splits paused here, as of the last look: read by the metrics' thread too. */
    private volatile int pausedCount;

    /** One split's reading: its first and latest event time, and when it last delivered. */
    private static final class Split {
        final String id;
        long firstMs = Long.MIN_VALUE;
        long latestMs = Long.MIN_VALUE;
        long records;
        long recordsSeen;

        /** When it last delivered a record, or was assigned (clock ms). */
        long deliveredAtMs;

        /** The time at which it holds the others back, as of the last look; MIN_VALUE: none. */
        long holdsAtMs = Long.MIN_VALUE;

        boolean pausedHere;
        boolean pausedByFlink;

        Split(String id, long assignedAtMs) {
            this.id = id;
            this.deliveredAtMs = assignedAtMs;
        }

        boolean hasTime() {
            return latestMs != Long.MIN_VALUE;
        }
    }

    /**
     * @param aheadMs how far in event time a split may read ahead of the most-behind delivering
     *     split, at least 1
     * @param quietMs how long a split must have delivered nothing, while the reader ran dry, before
     *     it no longer holds the others back
     * @param clockMs the wall clock, in milliseconds
     */
    ReadAheadReader(
            SourceReader<T, S> reader,
            EventTime<T> time,
            long aheadMs,
            long quietMs,
            LongSupplier clockMs) {
        this(reader, time, aheadMs, quietMs, clockMs, null);
    }

    /**
     * A reader bounded against the other readers of its source too: its hold goes to {@code report}
     * ({@link ReadAheadEnumerator.ReaderHold}), and the others' comes back as a source event
     * ({@link ReadAheadEnumerator.OthersHold}).
     */
    ReadAheadReader(
            SourceReader<T, S> reader,
            EventTime<T> time,
            long aheadMs,
            long quietMs,
            LongSupplier clockMs,
            LongConsumer report) {
        super(reader);
        if (aheadMs < 1 || quietMs < 1) {
            throw new IllegalArgumentException(
                    "read-ahead bound and quiet time are at least 1 ms, not "
                            + aheadMs
                            + " and "
                            + quietMs);
        }
        this.time = Objects.requireNonNull(time);
        this.aheadMs = aheadMs;
        this.quietMs = quietMs;
        this.clockMs = clockMs;
        this.report = report;
    }

    /** The splits this reader holds paused to bound the read-ahead: for the metric and tests. */
    int pausedHere() {
        return pausedCount;
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> out) throws Exception {
        if (output == null || output.main != out) {
            output = new Output(out);
        }
        InputStatus status = reader.pollNext(output);
        if (status == InputStatus.NOTHING_AVAILABLE) {
            dryAtMs = clockMs.getAsLong();
        }
        if (++sinceCheck >= CHECK_EVERY || status != InputStatus.MORE_AVAILABLE) {
            sinceCheck = 0;
            check();
        }
        return status;
    }

    /**
     * While a split is paused here, or the other readers are told this one holds them back, the
     * reader is also available again after {@code quietMs}: the split holding it back may have run
     * dry, or this reader's splits may have, which only a look at the clock tells. While a change
     * of its hold waits to be reported, it is available again when the report is due: a reader
     * whose splits are all paused must not leave the others waiting on a hold it has moved past.
     */
    @Override
    public CompletableFuture<Void> isAvailable() {
        CompletableFuture<Void> available = reader.isAvailable();
        boolean holding = report != null && reportedHoldMs != Long.MAX_VALUE;
        if ((pausedCount == 0 && !holding) || available.isDone()) {
            return available;
        }
        if (report != null && lookedHoldMs != reportedHoldMs) {
            long due = Math.max(1, reportedAtMs + REPORT_EVERY_MS - clockMs.getAsLong());
            return available.applyToEither(after(due), x -> null);
        }
        if (wake == null || wake.isDone()) { // one timer at a time, however often asked
            wake = after(quietMs);
        }
        return available.applyToEither(wake, x -> null);
    }

    private static CompletableFuture<Void> after(long ms) {
        return CompletableFuture.runAsync(
                () -> {}, CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS));
    }

    /**
     * Pauses the splits too far ahead and resumes those no longer so. A split holds the others back
     * at its latest time while it delivers (or is paused here, and so would); one that has not
     * delivered yet, until it is quiet, at the earliest first time of the others (it is taken to
     * start where they did, or the first split read would run ahead of all the others).
     */
    void check() {
        long now = clockMs.getAsLong();
        long earliestStart = Long.MAX_VALUE;
        for (Split s : splits.values()) {
            if (s.records != s.recordsSeen) {
                s.recordsSeen = s.records;
                s.deliveredAtMs = now;
            }
            if (s.hasTime()) {
                earliestStart = Math.min(earliestStart, s.firstMs);
            }
        }
        for (Split s : splits.values()) {
            boolean quiet = s.deliveredAtMs < dryAtMs && now - s.deliveredAtMs >= quietMs;
            s.holdsAtMs = Long.MIN_VALUE;
            if (s.pausedHere || !quiet) {
                if (s.hasTime()) {
                    s.holdsAtMs = s.latestMs;
                } else if (earliestStart != Long.MAX_VALUE) {
                    s.holdsAtMs = earliestStart;
                }
            }
        }
        List<String> pause = new ArrayList<>();
        List<String> resume = new ArrayList<>();
        int paused = 0;
        long hold = Long.MAX_VALUE;
        for (Split s : splits.values()) {
            long least = othersHoldMs;
            for (Split behind : splits.values()) {
                if (behind != s && behind.holdsAtMs != Long.MIN_VALUE) {
                    least = Math.min(least, behind.holdsAtMs);
                }
            }
            if (s.holdsAtMs != Long.MIN_VALUE) {
                hold = Math.min(hold, s.holdsAtMs);
            }
            boolean ahead = s.hasTime() && least != Long.MAX_VALUE && s.latestMs - least > aheadMs;
            if (ahead && !s.pausedHere) {
                s.pausedHere = true;
                if (!s.pausedByFlink) {
                    pause.add(s.id);
                }
            } else if (!ahead && s.pausedHere) {
                s.pausedHere = false;
                if (!s.pausedByFlink) {
                    resume.add(s.id);
                }
            }
            paused += s.pausedHere ? 1 : 0;
        }
        pausedCount = paused;
        if (!pause.isEmpty() || !resume.isEmpty()) {
            reader.pauseOrResumeSplits(pause, resume);
        }
        report(hold, now);
    }

    /**
     * Reports this reader's {@code hold} to the other readers where it changed: at once where it
     * starts or stops holding, else at most every {@link #REPORT_EVERY_MS} (a change held back goes
     * at a later look, which {@link #isAvailable} makes sure of).
     */
    private void report(long hold, long now) {
        lookedHoldMs = hold;
        if (report == null || hold == reportedHoldMs) {
            return;
        }
        if (hold == Long.MAX_VALUE
                || reportedHoldMs == Long.MAX_VALUE
                || now - reportedAtMs >= REPORT_EVERY_MS) {
            reportedHoldMs = hold;
            reportedAtMs = now;
            report.accept(hold);
        }
    }

    /** The other readers' least hold bounds this reader's splits; other events go on. */
    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof ReadAheadEnumerator.OthersHold others) {
            othersHoldMs = others.ms();
            check();
        } else {
            reader.handleSourceEvents(event);
        }
    }

    @Override
    public void addSplits(List<S> added) {
        reader.addSplits(added);
        for (S split : added) {
            split(split.splitId());
        }
    }

    /**
     * Flink's pauses (alignment) pass through; a split paused here stays so when Flink resumes it.
     */
    @Override
    public void pauseOrResumeSplits(
            Collection<String> splitsToPause, Collection<String> splitsToResume) {
        List<String> resume = new ArrayList<>();
        for (String id : splitsToPause) {
            split(id).pausedByFlink = true;
        }
        for (String id : splitsToResume) {
            Split s = split(id);
            s.pausedByFlink = false;
            if (!s.pausedHere) {
                resume.add(id);
            }
        }
        reader.pauseOrResumeSplits(splitsToPause, resume);
    }

    private Split split(String id) {
        return splits.computeIfAbsent(id, k -> new Split(k, clockMs.getAsLong()));
    }

    /** The reader's output, each split's records timed on their way through. */
    private final class Output implements ReaderOutput<T> {
        final ReaderOutput<T> main;

        Output(ReaderOutput<T> main) {
            this.main = main;
        }

        @Override
        public void collect(T record) {
            main.collect(record);
        }

        @Override
        public void collect(T record, long timestamp) {
            main.collect(record, timestamp);
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            main.emitWatermark(watermark);
        }

        @Override
        public void markIdle() {
            main.markIdle();
        }

        @Override
        public void markActive() {
            main.markActive();
        }

        @Override
        public SourceOutput<T> createOutputForSplit(String splitId) {
            return new SplitOutput(main.createOutputForSplit(splitId), split(splitId));
        }

        @Override
        public void releaseOutputForSplit(String splitId) {
            main.releaseOutputForSplit(splitId);
        }
    }

    /** A split's output: notes each record's event time and passes it on. */
    private final class SplitOutput implements SourceOutput<T> {
        private final SourceOutput<T> out;
        private final Split split;

        SplitOutput(SourceOutput<T> out, Split split) {
            this.out = out;
            this.split = split;
        }

        @Override
        public void collect(T record) {
            note(record);
            out.collect(record);
        }

        @Override
        public void collect(T record, long timestamp) {
            note(record);
            out.collect(record, timestamp);
        }

        private void note(T record) {
            split.records++;
            long t = time.of(record);
            if (t > split.latestMs) {
                if (split.latestMs == Long.MIN_VALUE) {
                    split.firstMs = t;
                }
                split.latestMs = t;
            }
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            out.emitWatermark(watermark);
        }

        @Override
        public void markIdle() {
            out.markIdle();
        }

        @Override
        public void markActive() {
            out.markActive();
        }
    }
}
