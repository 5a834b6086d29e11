package dev.piper.pipeline.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LabelJoinTest {

    private static final long BOUND = 2_000;
    private static final ActionStream CLICK = new ActionStream("click", 60_000, EmitPolicy.WAIT);
    private static final ActionStream BUY =
            new ActionStream("buy", 300_000, EmitPolicy.NEGATIVE_FIRST);

    /** One record of a generated log, in its partition's order. */
    private record Rec(
            boolean impression, int stream, String key, long timeMs, String id, double value) {}

    /** A generated log: per partition (impressions' first, then each stream's), its records. */
    private record Log(List<List<Rec>> partitions, List<Position> sources) {}

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void theRowsDependOnTheLogsOnlyAndAreTheBruteForceJoin(int seed) {
        JoinSettings settings = new JoinSettings(List.of(CLICK, BUY), BOUND, 30_000, 0.5);
        Log log = generate(seed, 3_000);
        Outcome reference = reference(settings, log);
        assertThat(reference.rows).hasSizeGreaterThan(1_000);
        assertThat(reference.rejected)
                .containsKeys(
                        "late_impression",
                        "duplicate_impression",
                        "late_action",
                        "action_after_window",
                        "orphan_action",
                        "duplicate_action");
        for (int order = 0; order < 4; order++) {
            Outcome joined = run(settings, log, new SplittableRandom(seed * 31L + order));
            assertThat(joined.rows).as("interleaving %d", order).isEqualTo(reference.rows);
            assertThat(joined.rejected).isEqualTo(reference.rejected);
            assertThat(joined.sampledOut).isEqualTo(reference.sampledOut);
            assertThat(joined.joined).isEqualTo(reference.joined);
        }
        // everything accounted: impressions = first emissions + sampled out + rejected ones,
        // actions = joined + rejected ones
        long impressions =
                log.partitions.stream().flatMap(List::stream).filter(Rec::impression).count();
        long firsts = reference.rows.stream().filter(r -> r.copyOf == -1).count();
        long rejectedImpressions =
                reference.rejected.entrySet().stream()
                        .filter(e -> e.getKey().endsWith("impression"))
                        .mapToLong(Map.Entry::getValue)
                        .sum();
        assertThat(firsts + reference.sampledOut + rejectedImpressions).isEqualTo(impressions);
        long actions =
                log.partitions.stream().flatMap(List::stream).filter(r -> !r.impression).count();
        long rejectedActions =
                reference.rejected.entrySet().stream()
                        .filter(e -> e.getKey().endsWith("action") || e.getKey().endsWith("window"))
                        .mapToLong(Map.Entry::getValue)
                        .sum();
        assertThat(reference.joined + rejectedActions).isEqualTo(actions);
    }

    @Test
    void aWaitRowCarriesItsClickAndANegativeFirstStreamEmitsAPositiveCopy() {
        JoinSettings settings = new JoinSettings(List.of(CLICK, BUY), BOUND, 0, 1);
        List<JoinedRow<String>> rows = new ArrayList<>();
        LabelJoin<String> join = new LabelJoin<>(settings, collect(rows, new Outcome()));
        join.impression(
                new Impression<>("r1", 1_000, new Position(0, 0, 0), Long.MIN_VALUE, "imp"));
        join.action(new Action(0, "r1", 5_000, "c1", 0, new Position(1, 0, 0), Long.MIN_VALUE));
        join.action(new Action(1, "r1", 200_000, "o1", 25, new Position(2, 0, 0), Long.MIN_VALUE));
        join.advance(61_000); // the click's window closes at 61,000: not yet past it
        assertThat(rows).isEmpty();
        join.advance(61_001);
        assertThat(rows).hasSize(1);
        JoinedRow<String> first = rows.get(0);
        assertThat(first.emitTimeMs()).isEqualTo(61_000);
        assertThat(first.labels())
                .containsExactly(new StreamLabel(true, 4_000, 1, 0), StreamLabel.NONE);
        assertThat(first.copyOf()).isEqualTo(-1);
        join.finish();
        assertThat(rows).hasSize(2);
        JoinedRow<String> copy = rows.get(1);
        assertThat(copy.copyOf()).isEqualTo(1);
        assertThat(copy.emitTimeMs()).isEqualTo(200_000);
        assertThat(copy.labels())
                .containsExactly(
                        new StreamLabel(true, 4_000, 1, 0), new StreamLabel(true, 199_000, 1, 25));
        assertThat(copy.weight()).isEqualTo(1);
    }

    @Test
    void anActionAtItsWindowsEndJoinsAndOneAfterItOrBeforeItsImpressionDoesNot() {
        JoinSettings settings = new JoinSettings(List.of(CLICK), BOUND, 10_000, 1);
        List<JoinedRow<String>> rows = new ArrayList<>();
        Outcome o = new Outcome();
        LabelJoin<String> join = new LabelJoin<>(settings, collect(rows, o));
        join.impression(new Impression<>("a", 1_000, new Position(0, 0, 0), Long.MIN_VALUE, "a"));
        join.impression(new Impression<>("b", 1_000, new Position(0, 0, 1), Long.MIN_VALUE, "b"));
        join.action(new Action(0, "a", 61_000, null, 0, new Position(1, 0, 0), Long.MIN_VALUE));
        join.action(new Action(0, "b", 61_001, null, 0, new Position(1, 0, 1), Long.MIN_VALUE));
        join.action(new Action(0, "b", 999, null, 0, new Position(1, 0, 2), Long.MIN_VALUE));
        join.action(new Action(0, "b", 71_001, null, 0, new Position(1, 0, 3), Long.MIN_VALUE));
        join.finish();
        assertThat(rows)
                .extracting(r -> r.impression().key(), r -> r.labels().get(0).label())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("a", true),
                        org.assertj.core.groups.Tuple.tuple("b", false));
        assertThat(o.rejected)
                .containsExactly(
                        java.util.Map.entry("action_after_window", 1L),
                        java.util.Map.entry("orphan_action", 2L));
    }

    @Test
    void negativesAreKeptByTheirKeyAndWeighTheInverseRate() {
        int kept = 0;
        for (int k = 0; k < 20_000; k++) {
            kept += NegativeSampling.keeps("r" + k, 0.25) ? 1 : 0;
        }
        assertThat(kept).isBetween(4_700, 5_300);
        assertThat(NegativeSampling.keeps("r7", 0.25))
                .isEqualTo(NegativeSampling.keeps("r7", 0.25));
        assertThat(NegativeSampling.keeps("anything", 1)).isTrue();
        // frozen: a changed hash would keep other rows than yesterday's output and replays did
        assertThat(NegativeSampling.unit("r0")).isEqualTo(0.18168352215125727);
        assertThat(NegativeSampling.unit("r1")).isEqualTo(0.756789777338189);
        assertThat(NegativeSampling.keeps("r0", 0.25)).isTrue();
        assertThat(NegativeSampling.keeps("r1", 0.75)).isFalse();
    }

    @Test
    void settingsRefuseWhatCannotJoin() {
        assertThatThrownBy(() -> new JoinSettings(List.of(), 0, 0, 1))
                .hasMessage("a label join needs at least one action stream");
        assertThatThrownBy(() -> new JoinSettings(List.of(CLICK), 0, 0, 0))
                .hasMessage("the negative sample rate is in (0, 1], not 0.0");
        assertThatThrownBy(() -> new ActionStream("click", 0, EmitPolicy.WAIT))
                .hasMessage("click: a window above 0 ms, not 0");
    }

    // --- the generated logs ---

    /**
     * {@code n} impressions on two partitions, clicks on two, purchases on one, with delays spread
     * over the windows, records out of order within the bound, and some late (beyond it),
     * duplicate, after their window, or orphan.
     */
    private static Log generate(int seed, int n) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<List<Rec>> byArrival = new ArrayList<>();
        List<List<Long>> arrival = new ArrayList<>();
        List<Position> sources =
                List.of(
                        new Position(0, 0, 0),
                        new Position(0, 1, 0),
                        new Position(1, 0, 0),
                        new Position(1, 1, 0),
                        new Position(2, 0, 0));
        for (int p = 0; p < sources.size(); p++) {
            byArrival.add(new ArrayList<>());
            arrival.add(new ArrayList<>());
        }
        long t = 1_795_737_600_000L;
        for (int i = 0; i < n; i++) {
            t += rnd.nextInt(1, 200);
            String key =
                    "r"
                            + (rnd.nextInt(50) == 0 && i > 10
                                    ? i - rnd.nextInt(1, Math.min(i, 4_000))
                                    : i);
            int part = Math.floorMod(key.hashCode(), 2);
            put(byArrival, arrival, part, new Rec(true, -1, key, t, null, 0), t, rnd);
            if (rnd.nextInt(4) == 0) {
                long delay = (long) (-Math.log(1 - rnd.nextDouble()) * 15_000);
                if (rnd.nextInt(30) == 0) {
                    delay = 60_000 + rnd.nextInt(1, 40_000); // after the window
                }
                Rec click = new Rec(false, 0, key, t + delay, "c" + i, 0);
                put(byArrival, arrival, 2 + part, click, t + delay, rnd);
                if (rnd.nextInt(20) == 0) {
                    put(byArrival, arrival, 2 + part, click, t + delay + rnd.nextInt(3_000), rnd);
                }
            }
            if (rnd.nextInt(10) == 0) {
                long delay = rnd.nextLong(1, 320_000);
                put(
                        byArrival,
                        arrival,
                        4,
                        new Rec(false, 1, key, t + delay, "o" + i, rnd.nextInt(1, 100)),
                        t + delay,
                        rnd);
            }
            if (rnd.nextInt(100) == 0) { // an orphan click
                String orphan = "x" + i;
                put(
                        byArrival,
                        arrival,
                        2 + Math.floorMod(orphan.hashCode(), 2),
                        new Rec(false, 0, orphan, t, "c" + orphan, 0),
                        t,
                        rnd);
            }
        }
        List<List<Rec>> partitions = new ArrayList<>();
        for (int p = 0; p < sources.size(); p++) {
            List<Integer> order = new ArrayList<>();
            for (int r = 0; r < byArrival.get(p).size(); r++) {
                order.add(r);
            }
            List<Long> at = arrival.get(p);
            order.sort(Comparator.comparingLong(at::get));
            partitions.add(order.stream().map(byArrival.get(p)::get).toList());
        }
        return new Log(partitions, sources);
    }

    /** Files a record at an arrival within the bound of its time, or well beyond it (late). */
    private static void put(
            List<List<Rec>> recs,
            List<List<Long>> arrival,
            int p,
            Rec r,
            long time,
            SplittableRandom rnd) {
        long at = time + rnd.nextLong(BOUND / 2);
        if (rnd.nextInt(100) == 0) {
            at = time + 10 * BOUND + rnd.nextLong(BOUND);
        }
        recs.get(p).add(r);
        arrival.get(p).add(at);
    }

    // --- the join under test, fed in one interleaving of the partitions ---

    private record Row(
            Position impression,
            String key,
            long emitTimeMs,
            int copyOf,
            List<StreamLabel> labels,
            double weight) {}

    private static final class Outcome {
        final List<Row> rows = new ArrayList<>();
        final Map<String, Long> rejected = new TreeMap<>();
        long sampledOut;
        long joined;
    }

    private static Outcome run(JoinSettings settings, Log log, SplittableRandom rnd) {
        Outcome o = new Outcome();
        List<JoinedRow<String>> rows = new ArrayList<>();
        LabelJoin<String> join = new LabelJoin<>(settings, collect(rows, o));
        int parts = log.partitions.size();
        int[] next = new int[parts];
        long[] max = new long[parts];
        java.util.Arrays.fill(max, Long.MIN_VALUE);
        while (true) {
            List<Integer> open = new ArrayList<>();
            for (int p = 0; p < parts; p++) {
                if (next[p] < log.partitions.get(p).size()) {
                    open.add(p);
                }
            }
            if (open.isEmpty()) {
                break;
            }
            int p = open.get(rnd.nextInt(open.size()));
            Rec r = log.partitions.get(p).get(next[p]);
            Position src = log.sources.get(p);
            Position at = new Position(src.source(), src.partition(), next[p]++);
            long wm = watermark(max[p]);
            if (r.impression) {
                join.impression(new Impression<>(r.key, r.timeMs, at, wm, r.key));
            } else {
                join.action(new Action(r.stream, r.key, r.timeMs, r.id, r.value, at, wm));
            }
            max[p] = Math.max(max[p], r.timeMs);
            long least = Long.MAX_VALUE;
            for (int q = 0; q < parts; q++) {
                least =
                        Math.min(
                                least,
                                next[q] == log.partitions.get(q).size()
                                        ? Long.MAX_VALUE
                                        : watermark(max[q]));
            }
            join.advance(least);
        }
        join.finish();
        rows.forEach(
                r ->
                        o.rows.add(
                                new Row(
                                        r.impression().position(),
                                        r.impression().key(),
                                        r.emitTimeMs(),
                                        r.copyOf(),
                                        r.labels(),
                                        r.weight())));
        return o;
    }

    private static long watermark(long max) {
        return max == Long.MIN_VALUE ? Long.MIN_VALUE : max - BOUND;
    }

    private static JoinOutput<String> collect(List<JoinedRow<String>> rows, Outcome o) {
        return new JoinOutput<>() {
            @Override
            public void row(JoinedRow<String> row) {
                // a payload released too soon would be missing from its row
                assertThat(row.impression().payload()).isNotNull();
                rows.add(row);
            }

            @Override
            public void sampledOut(Impression<String> impression) {
                o.sampledOut++;
            }

            @Override
            public void rejected(Impression<String> impression, JoinReason reason) {
                o.rejected.merge(reason.code(), 1L, Long::sum);
            }

            @Override
            public void joined(Action action, Impression<String> impression) {
                o.joined++;
            }

            @Override
            public void rejected(Action action, JoinReason reason) {
                o.rejected.merge(reason.code(), 1L, Long::sum);
            }
        };
    }

    // --- the brute-force join: the contract, computed record by record ---

    private record Placed(Rec rec, Position at) {}

    private static Outcome reference(JoinSettings settings, Log log) {
        Outcome o = new Outcome();
        List<Placed> impressions = new ArrayList<>();
        List<Placed> actions = new ArrayList<>();
        for (int p = 0; p < log.partitions.size(); p++) {
            long max = Long.MIN_VALUE;
            List<Rec> recs = log.partitions.get(p);
            for (int i = 0; i < recs.size(); i++) {
                Rec r = recs.get(i);
                boolean late = r.timeMs < watermark(max);
                max = Math.max(max, r.timeMs);
                Position src = log.sources.get(p);
                Placed placed = new Placed(r, new Position(src.source(), src.partition(), i));
                if (late) {
                    o.rejected.merge(
                            r.impression ? "late_impression" : "late_action", 1L, Long::sum);
                } else {
                    (r.impression ? impressions : actions).add(placed);
                }
            }
        }
        Comparator<Placed> byTime =
                Comparator.<Placed>comparingLong(x -> x.rec.timeMs).thenComparing(Placed::at);
        impressions.sort(byTime);
        actions.sort(byTime);
        long longest = settings.longestWindowMs();
        Map<String, List<Placed>> accepted = new HashMap<>();
        for (Placed m : impressions) {
            List<Placed> of = accepted.computeIfAbsent(m.rec.key, k -> new ArrayList<>());
            if (of.stream().anyMatch(x -> m.rec.timeMs - x.rec.timeMs <= longest)) {
                o.rejected.merge("duplicate_impression", 1L, Long::sum);
            } else {
                of.add(m);
            }
        }
        // per accepted impression and stream, its joined actions in order
        Map<Position, List<List<Placed>>> joined = new HashMap<>();
        for (Placed a : actions) {
            Placed to = null;
            for (Placed m : accepted.getOrDefault(a.rec.key, List.of())) {
                if (m.rec.timeMs <= a.rec.timeMs) {
                    to = m;
                }
            }
            if (to == null || a.rec.timeMs - to.rec.timeMs > settings.forgetAfterMs()) {
                o.rejected.merge("orphan_action", 1L, Long::sum);
                continue;
            }
            if (a.rec.timeMs - to.rec.timeMs > settings.streams().get(a.rec.stream).windowMs()) {
                o.rejected.merge("action_after_window", 1L, Long::sum);
                continue;
            }
            List<Placed> same =
                    joined.computeIfAbsent(
                                    to.at,
                                    k -> {
                                        List<List<Placed>> l = new ArrayList<>();
                                        settings.streams().forEach(s -> l.add(new ArrayList<>()));
                                        return l;
                                    })
                            .get(a.rec.stream);
            if (same.stream().anyMatch(x -> x.rec.id.equals(a.rec.id))) {
                o.rejected.merge("duplicate_action", 1L, Long::sum);
                continue;
            }
            same.add(a);
            o.joined++;
        }
        long d = settings.firstEmissionDelayMs();
        for (Placed m : accepted.values().stream().flatMap(List::stream).toList()) {
            List<List<Placed>> js = joined.getOrDefault(m.at, null);
            long e0 = m.rec.timeMs + d;
            List<StreamLabel> first = new ArrayList<>();
            for (int s = 0; s < settings.streams().size(); s++) {
                boolean wait = settings.streams().get(s).policy() == EmitPolicy.WAIT;
                first.add(
                        wait && js != null
                                ? label(m, js.get(s), Long.MAX_VALUE)
                                : StreamLabel.NONE);
            }
            boolean negative = first.stream().noneMatch(StreamLabel::label);
            if (!negative) {
                o.rows.add(new Row(m.at, m.rec.key, e0, -1, first, 1));
            } else if (NegativeSampling.keeps(m.rec.key, settings.negativeSampleRate())) {
                o.rows.add(
                        new Row(m.at, m.rec.key, e0, -1, first, 1 / settings.negativeSampleRate()));
            } else {
                o.sampledOut++;
            }
            for (int s = 0; s < settings.streams().size() && js != null; s++) {
                if (settings.streams().get(s).policy() == EmitPolicy.NEGATIVE_FIRST
                        && !js.get(s).isEmpty()) {
                    long at = Math.max(js.get(s).get(0).rec.timeMs, e0);
                    List<StreamLabel> copy = new ArrayList<>(first);
                    copy.set(s, label(m, js.get(s), at));
                    o.rows.add(new Row(m.at, m.rec.key, at, s, copy, 1));
                }
            }
        }
        o.rows.sort(
                Comparator.comparingLong(Row::emitTimeMs)
                        .thenComparing(Row::key)
                        .thenComparingInt(Row::copyOf));
        return o;
    }

    /** The labels of {@code actions} (in order) up to time {@code untilMs}. */
    private static StreamLabel label(Placed m, List<Placed> actions, long untilMs) {
        List<Placed> upTo = actions.stream().filter(a -> a.rec.timeMs <= untilMs).toList();
        if (upTo.isEmpty()) {
            return StreamLabel.NONE;
        }
        double value = 0;
        for (Placed a : upTo) {
            value += a.rec.value;
        }
        return new StreamLabel(true, upTo.get(0).rec.timeMs - m.rec.timeMs, upTo.size(), value);
    }
}
