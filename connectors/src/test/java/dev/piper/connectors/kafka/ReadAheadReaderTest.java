package dev.piper.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.connectors.TestReaders;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.core.io.InputStatus;
import org.junit.jupiter.api.Test;

class ReadAheadReaderTest {

    /** Records are their event times; a negative one has none (a dead letter). */
    private static final ReadAheadReader.EventTime<Long> TIME = t -> t < 0 ? Long.MIN_VALUE : t;

    private record Split(String splitId) implements SourceSplit {}

    /**
     * A reader as Kafka's behaves towards its output: each split's records through that split's
     * output, one record a poll from the next split that is not paused and has one.
     */
    private static final class SplitsReader implements SourceReader<Long, Split> {
        final Map<String, ArrayDeque<Long>> pending = new LinkedHashMap<>();
        final Set<String> paused = new LinkedHashSet<>();
        final List<String> calls = new ArrayList<>();
        final Map<String, SourceOutput<Long>> outputs = new LinkedHashMap<>();
        CompletableFuture<Void> available = new CompletableFuture<>();
        private int turn;

        void add(String split, long... times) {
            for (long t : times) {
                pending.computeIfAbsent(split, k -> new ArrayDeque<>()).add(t);
            }
        }

        @Override
        public void start() {}

        @Override
        public InputStatus pollNext(ReaderOutput<Long> output) {
            List<String> ids = new ArrayList<>(pending.keySet());
            for (int k = 0; k < ids.size(); k++) {
                String id = ids.get((turn + k) % ids.size());
                ArrayDeque<Long> q = pending.get(id);
                if (!paused.contains(id) && !q.isEmpty()) {
                    turn = (turn + k + 1) % ids.size();
                    outputs.computeIfAbsent(id, output::createOutputForSplit).collect(q.poll());
                    return InputStatus.MORE_AVAILABLE;
                }
            }
            return InputStatus.NOTHING_AVAILABLE;
        }

        @Override
        public List<Split> snapshotState(long checkpointId) {
            return List.of();
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return available;
        }

        @Override
        public void addSplits(List<Split> splits) {
            splits.forEach(s -> pending.putIfAbsent(s.splitId(), new ArrayDeque<>()));
        }

        @Override
        public void notifyNoMoreSplits() {}

        @Override
        public void handleSourceEvents(SourceEvent event) {
            calls.add("event " + event);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> pause, Collection<String> resume) {
            calls.add("pause " + pause + " resume " + resume);
            paused.addAll(pause);
            paused.removeAll(resume);
        }

        @Override
        public void close() {}
    }

    private final SplitsReader kafka = new SplitsReader();
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final TestReaders.Output<Long> out = new TestReaders.Output<>();

    private ReadAheadReader<Long, Split> reader(long aheadMs, long quietMs, String... splits) {
        ReadAheadReader<Long, Split> r =
                new ReadAheadReader<>(kafka, TIME, aheadMs, quietMs, clock::get);
        r.addSplits(Arrays.stream(splits).map(Split::new).toList());
        return r;
    }

    /** The holds a linked reader reported, MAX_VALUE for "none". */
    private final List<Long> reports = new ArrayList<>();

    /** A reader bounded against other readers too, its reports in {@link #reports}. */
    private ReadAheadReader<Long, Split> linked(long aheadMs, long quietMs, String... splits) {
        ReadAheadReader<Long, Split> r =
                new ReadAheadReader<>(kafka, TIME, aheadMs, quietMs, clock::get, reports::add);
        r.addSplits(Arrays.stream(splits).map(Split::new).toList());
        return r;
    }

    /** Polls {@code n} times, then looks at the splits. */
    private static void poll(ReadAheadReader<Long, Split> r, TestReaders.Output<Long> out, int n)
            throws Exception {
        for (int k = 0; k < n; k++) {
            r.pollNext(out);
        }
        r.check();
    }

    @Test
    void aSplitAheadOfADeliveringOneWaitsUntilItCatchesUp() throws Exception {
        ReadAheadReader<Long, Split> r = reader(100, 1000, "clicks", "impressions");
        kafka.add("clicks", 0, 50, 500, 900, 950);
        kafka.add("impressions", 0, 10, 20);
        poll(r, out, 6); // in turn: clicks to 500, impressions to 20

        assertThat(kafka.paused).containsExactly("clicks");
        assertThat(r.pausedHere()).isEqualTo(1);

        kafka.add("impressions", 300, 850);
        poll(r, out, 1); // impressions at 300: the clicks (500) still more than 100 ahead
        assertThat(kafka.paused).containsExactly("clicks");
        poll(r, out, 1); // impressions at 850: now they are ahead of the clicks, which have more
        assertThat(kafka.paused).containsExactly("impressions");
        poll(r, out, 1); // clicks at 900
        assertThat(kafka.paused).isEmpty();
        assertThat(r.pausedHere()).isZero();
        assertThat(kafka.calls)
                .containsExactly(
                        "pause [clicks] resume []",
                        "pause [impressions] resume [clicks]",
                        "pause [] resume [impressions]");
        assertThat(out.bySplit)
                .containsExactly(
                        "clicks:0",
                        "impressions:0",
                        "clicks:50",
                        "impressions:10",
                        "clicks:500",
                        "impressions:20",
                        "impressions:300",
                        "impressions:850",
                        "clicks:900");
    }

    @Test
    void aSplitThatRanDryNoLongerHoldsTheOthersBack() throws Exception {
        ReadAheadReader<Long, Split> r = reader(100, 1000, "clicks", "impressions");
        kafka.add("clicks", 0, 5000);
        kafka.add("impressions", 0);
        poll(r, out, 3);
        assertThat(kafka.paused).containsExactly("clicks");

        // impressions have nothing more: not quiet until the reader ran dry a second after them
        clock.addAndGet(999);
        poll(r, out, 1);
        assertThat(kafka.paused).containsExactly("clicks");
        clock.addAndGet(1);
        poll(r, out, 1);
        assertThat(kafka.paused).isEmpty();
        kafka.add("clicks", 6000);
        poll(r, out, 1);
        assertThat(out.bySplit).endsWith("clicks:5000", "clicks:6000");
    }

    @Test
    void withASplitPausedTheReaderIsAvailableAgainAfterTheQuietTime() throws Exception {
        ReadAheadReader<Long, Split> r = reader(100, 20, "clicks", "impressions");
        kafka.add("clicks", 0, 5000);
        kafka.add("impressions", 0);
        poll(r, out, 3);
        assertThat(kafka.paused).containsExactly("clicks");

        // nothing arrives from Kafka: only the clock can tell the impressions ran dry
        r.isAvailable().get(10, TimeUnit.SECONDS);
        assertThat(kafka.available).isNotDone();

        clock.addAndGet(20);
        poll(r, out, 1);
        assertThat(kafka.paused).isEmpty();
        assertThat(r.isAvailable()).isSameAs(kafka.available);
    }

    @Test
    void aSplitYetToDeliverHoldsTheOthersAtWhereTheyStarted() throws Exception {
        ReadAheadReader<Long, Split> r = reader(100, 1000, "clicks", "impressions");
        kafka.add("clicks", 1000, 1050, 1101, 1200);
        poll(r, out, 3);
        assertThat(kafka.paused).containsExactly("clicks");
        assertThat(out.bySplit).containsExactly("clicks:1000", "clicks:1050", "clicks:1101");

        // quiet from its assignment on: a second, and a dry reader
        clock.addAndGet(1000);
        poll(r, out, 1);
        assertThat(kafka.paused).isEmpty();
    }

    @Test
    void theMostBehindDeliveringSplitIsNeverPaused() throws Exception {
        ReadAheadReader<Long, Split> r = reader(100, 1000, "a", "b", "c");
        kafka.add("a", 0, 1000, 1001, 1002);
        kafka.add("b", 0, 500, 501, 502);
        kafka.add("c", 0, 10, 20, 30, 40, 50, 60);
        poll(r, out, 6);
        assertThat(kafka.paused).containsExactlyInAnyOrder("a", "b");

        poll(r, out, 6); // c alone reads on
        assertThat(out.bySplit).endsWith("c:60");
        assertThat(kafka.paused).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void recordsWithoutATimeDoNotMoveTheirSplit() throws Exception {
        ReadAheadReader<Long, Split> r = reader(100, 1000, "clicks", "impressions");
        kafka.add("clicks", 0, 50);
        kafka.add("impressions", -1, -1, -1);
        poll(r, out, 5);
        assertThat(kafka.paused).isEmpty(); // impressions hold the clicks at where they started

        kafka.add("clicks", 200);
        poll(r, out, 1);
        assertThat(kafka.paused).containsExactly("clicks");
    }

    @Test
    void flinksPausesPassThroughAndWin() throws Exception {
        ReadAheadReader<Long, Split> r = reader(100, 1000, "clicks", "impressions");
        kafka.add("clicks", 0, 900);
        kafka.add("impressions", 0, 850);
        poll(r, out, 3);
        assertThat(kafka.paused).containsExactly("clicks");

        // Flink resumes the clicks (alignment): they stay paused, being too far ahead
        r.pauseOrResumeSplits(List.of(), List.of("clicks"));
        assertThat(kafka.paused).containsExactly("clicks");

        // the impressions catch up, and Flink pauses them: the clicks resume, the impressions not
        r.pollNext(out);
        r.pauseOrResumeSplits(List.of("impressions"), List.of());
        r.check();
        assertThat(kafka.paused).containsExactly("impressions");
        assertThat(kafka.calls).last().isEqualTo("pause [] resume [clicks]");

        r.pauseOrResumeSplits(List.of(), List.of("impressions"));
        assertThat(kafka.paused).isEmpty();
    }

    @Test
    void aSplitAheadOfAnotherReadersHoldWaitsUntilThatReaderCatchesUp() throws Exception {
        ReadAheadReader<Long, Split> r = linked(100, 1000, "impressions-0");
        kafka.add("impressions-0", 0, 50, 200, 250);
        poll(r, out, 2);
        r.handleSourceEvents(new ReadAheadEnumerator.OthersHold(0));
        assertThat(kafka.paused).isEmpty(); // 50 is within 100 of the other reader's 0

        poll(r, out, 1); // 200: the reader's only split, paused all the same
        assertThat(kafka.paused).containsExactly("impressions-0");
        poll(r, out, 1);
        assertThat(out.bySplit).last().isEqualTo("impressions-0:200");

        r.handleSourceEvents(new ReadAheadEnumerator.OthersHold(150));
        assertThat(kafka.paused).isEmpty();
        r.handleSourceEvents(new ReadAheadEnumerator.OthersHold(Long.MAX_VALUE)); // none holds
        poll(r, out, 1);
        assertThat(out.bySplit).last().isEqualTo("impressions-0:250");
        assertThat(kafka.calls)
                .containsExactly(
                        "pause [impressions-0] resume []", "pause [] resume [impressions-0]");
    }

    @Test
    void reportsItsHoldAtOnceWhereItStartsOrStopsHoldingElseAtMostEvery25Ms() throws Exception {
        ReadAheadReader<Long, Split> r = linked(100, 1000, "a");
        kafka.add("a", 0, 10, 20);
        poll(r, out, 1);
        assertThat(reports).containsExactly(0L); // starts holding: at once
        poll(r, out, 1);
        assertThat(reports).containsExactly(0L); // moved to 10 within 25 ms: not yet

        clock.addAndGet(ReadAheadReader.REPORT_EVERY_MS);
        poll(r, out, 1);
        assertThat(reports).containsExactly(0L, 20L);

        // a runs dry: a second after the reader found nothing, it holds nothing, told at once
        poll(r, out, 1);
        clock.addAndGet(1000);
        poll(r, out, 1);
        assertThat(reports).containsExactly(0L, 20L, Long.MAX_VALUE);
        assertThat(r.isAvailable()).isSameAs(kafka.available); // holding nothing, no timer
    }

    @Test
    void whileItsMovedHoldWaitsToBeReportedTheReaderIsAvailableWhenTheReportIsDue()
            throws Exception {
        ReadAheadReader<Long, Split> r = linked(100, 60_000, "a");
        kafka.add("a", 0, 10);
        poll(r, out, 1);
        poll(r, out, 1); // at 10 within 25 ms of the report of 0
        assertThat(reports).containsExactly(0L);

        // nothing more from Kafka, the quiet time a minute: only the report's turn wakes it
        r.isAvailable().get(10, TimeUnit.SECONDS);
        assertThat(kafka.available).isNotDone();
        clock.addAndGet(ReadAheadReader.REPORT_EVERY_MS);
        poll(r, out, 1);
        assertThat(reports).containsExactly(0L, 10L);
    }

    @Test
    void whileItHoldsOthersADryReaderIsAvailableAgainAfterTheQuietTime() throws Exception {
        ReadAheadReader<Long, Split> r = linked(100, 20, "a");
        kafka.add("a", 0);
        poll(r, out, 2);
        assertThat(reports).containsExactly(0L);

        r.isAvailable().get(10, TimeUnit.SECONDS); // the clock's turn: a may have run dry
        assertThat(kafka.available).isNotDone();
        clock.addAndGet(20);
        poll(r, out, 1);
        assertThat(reports).containsExactly(0L, Long.MAX_VALUE);
    }

    @Test
    void otherSourceEventsGoToTheReaderUnderneath() {
        ReadAheadReader<Long, Split> r = linked(100, 1000, "a");
        r.handleSourceEvents(new ReadAheadEnumerator.ReaderHold(5));
        assertThat(kafka.calls).containsExactly("event ReaderHold[ms=5]");
    }

    /**
     * Two readers of two splits each, one read three times as fast: linked through the enumerator
     * they stay within the bound of each other (plus what one reads between two looks and a
     * report's delay) and both read everything; unlinked, the fast one runs far ahead.
     */
    @Test
    void twoLinkedReadersStayWithinTheBoundOfEachOtherAndReadEverything() throws Exception {
        long bound = 5_000;
        Drift linked = drift(bound, true);
        assertThat(linked.delivered).isEqualTo(4 * 3_000);
        assertThat(linked.widest).isLessThan(bound + 4_000);

        Drift alone = drift(bound, false);
        assertThat(alone.delivered).isEqualTo(4 * 3_000);
        assertThat(alone.widest).isGreaterThan(3 * bound);
    }

    /** What {@link #drift} saw: records delivered, the widest gap between the readers' times. */
    private record Drift(long delivered, long widest) {}

    private Drift drift(long bound, boolean link) throws Exception {
        Random random = new Random(42);
        SplitsReader[] kafkas = {new SplitsReader(), new SplitsReader()};
        List<ReadAheadReader<Long, Split>> readers = new ArrayList<>();
        ArrayDeque<Runnable> events = new ArrayDeque<>();
        // an event to a reader is handed over after the readers' turn, as the coordinator's RPC
        TestEnumeratorContext<Split> coordinator =
                new TestEnumeratorContext<>(
                        (subtask, event) ->
                                events.add(() -> readers.get(subtask).handleSourceEvents(event)));
        ReadAheadEnumerator<Split, String> enumerator =
                new ReadAheadEnumerator<>(new NoSplits(), coordinator);
        List<TestReaders.Output<Long>> outs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            int subtask = i;
            LongConsumer report =
                    hold ->
                            events.add(
                                    () ->
                                            enumerator.handleSourceEvent(
                                                    subtask,
                                                    new ReadAheadEnumerator.ReaderHold(hold)));
            var r =
                    new ReadAheadReader<>(
                            kafkas[i], TIME, bound, 1000, clock::get, link ? report : null);
            for (String split : List.of("impressions-" + i, "clicks-" + i)) {
                r.addSplits(List.of(new Split(split)));
                long t = 0;
                for (int k = 0; k < 3_000; k++) {
                    kafkas[i].add(split, t += random.nextInt(20));
                }
            }
            readers.add(r);
            outs.add(new TestReaders.Output<>());
            coordinator.register(i);
            enumerator.addReader(i);
        }
        long widest = 0;
        long[] latest = {Long.MIN_VALUE, Long.MIN_VALUE};
        int[] seen = new int[2];
        int all = 4 * 3_000;
        for (int step = 0; step < 200_000 && seen[0] + seen[1] < all; step++) {
            clock.incrementAndGet();
            for (int k = 0; k < 3; k++) {
                readers.get(0).pollNext(outs.get(0)); // the fast reader
            }
            readers.get(1).pollNext(outs.get(1));
            while (!events.isEmpty()) {
                events.poll().run();
            }
            for (int i = 0; i < 2; i++) {
                List<Long> records = outs.get(i).records;
                for (; seen[i] < records.size(); seen[i]++) {
                    latest[i] = Math.max(latest[i], records.get(seen[i]));
                }
            }
            boolean bothRead = latest[0] != Long.MIN_VALUE && latest[1] != Long.MIN_VALUE;
            if (bothRead && seen[0] + seen[1] < all) {
                widest = Math.max(widest, Math.abs(latest[0] - latest[1]));
            }
        }
        return new Drift(seen[0] + seen[1], widest);
    }

    /** An enumerator with nothing to assign: the readers above already have their splits. */
    private static final class NoSplits implements SplitEnumerator<Split, String> {
        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtaskId, String host) {}

        @Override
        public void addSplitsBack(List<Split> splits, int subtaskId) {}

        @Override
        public void addReader(int subtaskId) {}

        @Override
        public String snapshotState(long checkpointId) {
            return "";
        }

        @Override
        public void close() {}
    }

    @Test
    void refusesABoundBelowOneMillisecond() {
        assertThatThrownBy(() -> new ReadAheadReader<>(kafka, TIME, 0, 1000, clock::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1 ms");
    }
}
