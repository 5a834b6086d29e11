package dev.piper.connectors.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.connectors.TestReaders;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceSplit;
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
        public void handleSourceEvents(SourceEvent event) {}

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
        r.addSplits(java.util.Arrays.stream(splits).map(Split::new).toList());
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
    void refusesABoundBelowOneMillisecond() {
        assertThatThrownBy(() -> new ReadAheadReader<>(kafka, TIME, 0, 1000, clock::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1 ms");
    }
}
