package dev.piper.pipeline.hotline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.sampling.distribution.RejectionInversionZipfSampler;
import org.apache.commons.rng.simple.RandomSource;
import org.junit.jupiter.api.Test;

/** Hotline's tracking and split on seeded Zipf rows, checked row by row. */
class HotlineTest {

    /** Rows of 1 label + 2 dense + 3 scalar sparse columns, and one list column (C4). */
    private static final int ROW_INTS = 6;

    private static final int[] SCALAR = {0, 1, 2};
    private static final int[] LISTS = {3};

    /** Seeded rows: Zipf indices over per-column ranges, lists of 0..3 ids. */
    private record Rows(int rows, byte[] bytes, int[] offsets, int[] ids) {

        static Rows generate(int rows, long seed) {
            UniformRandomProvider rng = RandomSource.SPLIT_MIX_64.create(seed);
            var zipf = RejectionInversionZipfSampler.of(rng, 50_000, 1.1);
            ByteBuffer b = ByteBuffer.allocate(rows * ROW_INTS * 4).order(ByteOrder.LITTLE_ENDIAN);
            int[] offsets = new int[rows + 1];
            int[] ids = new int[rows * 3];
            int n = 0;
            for (int r = 0; r < rows; r++) {
                b.putInt(rng.nextInt(2)).putInt(rng.nextInt(100)).putInt(rng.nextInt(100));
                for (int c = 0; c < SCALAR.length; c++) {
                    b.putInt(zipf.sample() - 1 + c); // columns differ a little
                }
                int len = rng.nextInt(4);
                for (int i = 0; i < len; i++) {
                    ids[n++] = zipf.sample() - 1;
                }
                offsets[r + 1] = n;
            }
            return new Rows(rows, b.array(), offsets, Arrays.copyOf(ids, n));
        }

        /** Rows {@code from} to {@code to} as a block. */
        Split applyTo(Hotline h, int from, int to) {
            return applyTo(h, from, to, null);
        }

        /** As above, with the rows' event times ({@code times} of every row, or null). */
        Split applyTo(Hotline h, int from, int to, long[] times) {
            byte[] part = Arrays.copyOfRange(bytes, from * ROW_INTS * 4, to * ROW_INTS * 4);
            int[] off = new int[to - from + 1];
            for (int r = from; r <= to; r++) {
                off[r - from] = offsets[r] - offsets[from];
            }
            int[] part2 = Arrays.copyOfRange(ids, offsets[from], offsets[to]);
            return h.apply(
                    to - from,
                    part,
                    ROW_INTS,
                    SCALAR,
                    LISTS,
                    new int[][] {off},
                    new int[][] {part2},
                    times == null ? null : Arrays.copyOfRange(times, from, to),
                    true);
        }

        int scalar(int r, int j) {
            return ByteBuffer.wrap(bytes)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .getInt((r * ROW_INTS + 3 + j) * 4);
        }
    }

    private static HotlineSettings settings(long budget, long window, double decay) {
        return new HotlineSettings(
                budget, 4, window, 0, 0.2, 64, HotlineSettings.Tracker.EXACT, 1 << 12, decay);
    }

    /** Windows of {@code windowMs} of event time, every mini-batch of 4 rows counted. */
    private static HotlineSettings timed(long budget, long windowMs, double decay) {
        return new HotlineSettings(
                budget, 4, 0, windowMs, 1, 4, HotlineSettings.Tracker.EXACT, 1 << 12, decay);
    }

    /** Rows of one scalar sparse column holding {@code ids}, split at their {@code times}. */
    private static Split applyTimed(Hotline h, int[] ids, long[] times) {
        ByteBuffer b = ByteBuffer.allocate(ids.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int id : ids) {
            b.putInt(id);
        }
        return h.apply(
                ids.length,
                b.array(),
                1,
                new int[] {0},
                new int[0],
                new int[0][],
                new int[0][],
                times,
                true);
    }

    @Test
    void windowsInEventTimeStartWhereTheRowsTimeCrossesAMultipleOfTheirLength() {
        Hotline h = new Hotline(timed(16, 1_000, 1), 1);
        // window 0 from 1.2 s; 2.5 s starts window 1 at 2 s; 1.9 s is late and stays in it;
        // 5.0 s starts window 2 at 5 s (no window for the empty 3 s and 4 s)
        Split sp =
                applyTimed(
                        h,
                        new int[] {5, 5, 5, 7, 5, 7},
                        new long[] {1_200, 1_300, 2_500, 1_900, 5_000, 5_999});
        assertThat(sp.windows())
                .extracting(Split.Window::number, Split.Window::firstRow, Split.Window::startMs)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0, 0L, 1_000L),
                        org.assertj.core.groups.Tuple.tuple(1, 2L, 2_000L),
                        org.assertj.core.groups.Tuple.tuple(2, 4L, 5_000L));
        // window 1's hot set: the one entry the budget holds, 5 (counted twice in window 0)
        assertThat(sp.windows().get(1).hot().indices(0)).containsExactly(5);
        assertThat(sp.popular()).containsExactly(0, 0, 1, 0, 1, 0);
        assertThat(h.progress().nextWindow()).isEqualTo(6_000);
        // before the epoch too: -0.5 s is in the window from -1 s
        Hotline early = new Hotline(timed(16, 1_000, 1), 1);
        assertThat(applyTimed(early, new int[] {1}, new long[] {-500}).windows().get(0).startMs())
                .isEqualTo(-1_000);
    }

    @Test
    void countsDecayOnceForEveryWindowLengthThatPassed() {
        Hotline h = new Hotline(timed(16, 1_000, 0.5), 1);
        applyTimed(h, new int[] {3, 3, 3, 3, 3, 3, 3, 3}, new long[] {0, 1, 2, 3, 4, 5, 6, 7});
        assertThat(h.exact().entries()).containsExactly(3L, 8L);
        applyTimed(h, new int[] {4}, new long[] {1_000}); // the next window: halved
        assertThat(h.exact().entries()).containsExactly(3L, 4L, 4L, 1L);
        applyTimed(h, new int[] {4}, new long[] {4_000}); // three lengths later: halved three times
        assertThat(h.exact().entries()).containsExactly(4L, 1L);
    }

    @Test
    void theSplitInEventTimeDoesNotDependOnHowRowsAreCutIntoBlocks() {
        Rows rows = Rows.generate(6_000, 13);
        long[] times = new long[rows.rows()];
        java.util.SplittableRandom rng = new java.util.SplittableRandom(5);
        for (int r = 0; r < times.length; r++) {
            times[r] = 1_764_230_400_000L + r * 10L + rng.nextInt(-300, 300); // out of order
        }
        HotlineSettings s =
                new HotlineSettings(
                        500 * 16,
                        4,
                        0,
                        5_000,
                        0.2,
                        64,
                        HotlineSettings.Tracker.EXACT,
                        1 << 12,
                        0.5);
        Hotline one = new Hotline(s, 4);
        Split whole = rows.applyTo(one, 0, rows.rows(), times);
        Hotline many = new Hotline(s, 4);
        ByteBuffer flags = ByteBuffer.allocate(rows.rows());
        List<Split.Window> windows = new ArrayList<>();
        int from = 0;
        for (int cut : new int[] {1, 499, 500, 2_501, 6_000}) {
            Split sp = rows.applyTo(many, from, cut, times);
            flags.put(sp.popular());
            windows.addAll(sp.windows());
            from = cut;
        }
        assertThat(windows).hasSizeGreaterThan(10).isEqualTo(whole.windows());
        assertThat(flags.array()).isEqualTo(whole.popular());
        assertThat(many.progress()).isEqualTo(one.progress());
    }

    @Test
    void windowsInEventTimeNeedTheRowsTimes() {
        Hotline h = new Hotline(timed(16, 60_000, 1), 1);
        assertThatThrownBy(() -> applyTimed(h, new int[] {1}, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "windows of 1m of event time need each row's event time"
                                + " (input.timestamp), and a block of 1 rows has none");
    }

    @Test
    void aChangeFromWindowsOfRowsToEventTimeStartsAWindowAtTheNextRow() {
        Hotline h = new Hotline(settings(16, 100, 1), 1);
        applyTimed(h, new int[] {1, 2}, null);
        h.reconfigure(timed(16, 1_000, 1));
        Split sp = applyTimed(h, new int[] {3, 4}, new long[] {500, 700});
        assertThat(sp.windows())
                .extracting(Split.Window::number, Split.Window::firstRow, Split.Window::startMs)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, 2L, 0L));
        h.reconfigure(settings(16, 100, 1));
        assertThat(applyTimed(h, new int[] {5}, null).windows())
                .extracting(Split.Window::firstRow, Split.Window::startMs)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(4L, Split.Window.NO_TIME));
    }

    @Test
    void everyRowIsPopularExactlyWhenAllItsIndicesAreInItsWindowsHotSet() {
        Rows rows = Rows.generate(20_000, 7);
        HotlineSettings s = settings(2_000 * 16, 3_000, 0.5);
        Hotline h = new Hotline(s, 4);
        List<Split> splits = new ArrayList<>();
        for (int from = 0; from < rows.rows(); from += 1_111) {
            splits.add(rows.applyTo(h, from, Math.min(rows.rows(), from + 1_111)));
        }
        List<Split.Window> windows = new ArrayList<>();
        splits.forEach(sp -> windows.addAll(sp.windows()));
        // windows cover every row, from 0, one every 3,000 rows
        assertThat(windows).hasSize(7);
        for (int w = 0; w < windows.size(); w++) {
            assertThat(windows.get(w).number()).isEqualTo(w);
            assertThat(windows.get(w).firstRow()).isEqualTo(w * 3_000L);
            assertThat(windows.get(w).hot().size()).isLessThanOrEqualTo(s.entries());
        }
        assertThat(windows.get(0).hot().size()).isZero();
        assertThat(windows.get(1).hot().size()).isPositive();
        long popular = 0;
        for (Split sp : splits) {
            List<java.util.TreeSet<Integer>> working = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                working.add(new java.util.TreeSet<>());
            }
            for (int i = 0; i < sp.rows(); i++) {
                int r = (int) sp.firstRow() + i;
                HotSet hot = windows.get(r / 3_000).hot();
                boolean all = true;
                for (int j = 0; j < 3; j++) {
                    all &= hot.contains(j, rows.scalar(r, j));
                }
                for (int k = rows.offsets()[r]; k < rows.offsets()[r + 1]; k++) {
                    all &= hot.contains(3, rows.ids()[k]);
                }
                assertThat(sp.popular()[i]).as("row %d", r).isEqualTo((byte) (all ? 1 : 0));
                popular += sp.popular()[i];
                if (!all) {
                    for (int j = 0; j < 3; j++) {
                        if (!hot.contains(j, rows.scalar(r, j))) {
                            working.get(j).add(rows.scalar(r, j));
                        }
                    }
                    for (int k = rows.offsets()[r]; k < rows.offsets()[r + 1]; k++) {
                        if (!hot.contains(3, rows.ids()[k])) {
                            working.get(3).add(rows.ids()[k]);
                        }
                    }
                }
            }
            // working parameters: the distinct non-hot indices of the block's non-popular rows
            for (int c = 0; c < 4; c++) {
                assertThat(sp.working()[c])
                        .containsExactly(
                                working.get(c).stream().mapToInt(Integer::intValue).toArray());
            }
        }
        assertThat(popular).isEqualTo(h.progress().popularRows()).isPositive();
        // 2,000 hot entries over four columns of 50,000 Zipf(1.1) ids, every index of a row
        // hot: about one row in eight after window 0 (0.125 on this seed)
        assertThat((double) popular / (rows.rows() - 3_000)).isBetween(0.1, 0.15);
    }

    @Test
    void theSplitDoesNotDependOnHowRowsAreCutIntoBlocks() {
        Rows rows = Rows.generate(12_000, 11);
        HotlineSettings s = settings(500 * 16, 2_500, 0.5);
        Hotline one = new Hotline(s, 4);
        Split whole = rows.applyTo(one, 0, rows.rows());
        Hotline many = new Hotline(s, 4);
        ByteBuffer flags = ByteBuffer.allocate(rows.rows());
        List<Split.Window> windows = new ArrayList<>();
        int from = 0;
        for (int cut : new int[] {1, 999, 2_500, 2_501, 7_000, 12_000}) {
            Split sp = rows.applyTo(many, from, cut);
            flags.put(sp.popular());
            windows.addAll(sp.windows());
            from = cut;
        }
        assertThat(flags.array()).isEqualTo(whole.popular());
        assertThat(windows).isEqualTo(whole.windows());
        assertThat(many.progress()).isEqualTo(one.progress());
        assertThat(many.exact().entries()).isEqualTo(one.exact().entries());
    }

    @Test
    void workingParametersAreTheDistinctNonHotIndicesOfNonPopularRows() {
        HotlineSettings s = settings(16, 2, 1.0); // one hot entry, windows of 2 rows
        Hotline h = new Hotline(s, 1);
        ByteBuffer b = ByteBuffer.allocate(8 * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : new int[] {5, 5, 5, 7, 5, 9, 9, 5}) {
            b.putInt(v);
        }
        Split sp = h.apply(8, b.array(), 1, new int[] {0}, new int[0], new int[0][], new int[0][]);
        // window 0 (rows 0-1): nothing hot; sampling 20% of 64-row batches: batch 0 is sampled
        // or not, the same way every run
        boolean sampled = s.sampled(0);
        int[] expectedPopular =
                sampled ? new int[] {0, 0, 1, 0, 1, 0, 0, 1} : new int[] {0, 0, 0, 0, 0, 0, 0, 0};
        for (int r = 0; r < 8; r++) {
            assertThat(sp.popular()[r]).as("row %d", r).isEqualTo((byte) expectedPopular[r]);
        }
        assertThat(sp.working()[0]).containsExactly(5, 7, 9);
        assertThat(sp.windows()).hasSize(4);
    }

    @Test
    void topEntriesBreakTiesByTheSmallerKey() {
        long[] keys = {TopEntries.key(1, 4), TopEntries.key(0, 9), TopEntries.key(0, 3), 77};
        int[] counts = {5, 5, 9, 0};
        assertThat(TopEntries.select(keys, counts, 4, 2))
                .containsExactly(TopEntries.key(0, 3), TopEntries.key(0, 9));
        assertThat(TopEntries.select(keys, counts, 4, 10)).hasSize(3);
        assertThat(TopEntries.select(keys, counts, 4, 0)).isEmpty();
    }

    @Test
    void theBoundedTrackerKeepsTheHeavyHittersThroughAStreamOfOneOffKeys() {
        SrripTracker t = new SrripTracker(1 << 10);
        ExactCounter exact = new ExactCounter();
        UniformRandomProvider rng = RandomSource.SPLIT_MIX_64.create(3);
        var zipf = RejectionInversionZipfSampler.of(rng, 1_000_000, 1.05);
        for (int i = 0; i < 200_000; i++) {
            int index = zipf.sample() - 1;
            t.access(0, index);
            exact.access(0, index);
        }
        assertThat(t.size()).isLessThanOrEqualTo(1 << 10);
        long[] top = exact.top(100);
        double capture = (double) Hotline.commonSorted(top, t.top(100)) / top.length;
        assertThat(capture).isGreaterThan(0.8);
        for (int i = 0; i < t.capacity(); i++) {
            assertThat(t.rrpvAt(i)).isBetween((byte) 0, (byte) 3);
        }
    }

    /** Small indices in a column's array, large ones (a column without vocabulary) hashed. */
    @Test
    void exactCountsListEveryEntryInKeyOrderWhereverTheyAreKept() {
        ExactCounter exact = new ExactCounter();
        int large = ExactCounter.DENSE_LIMIT + 5;
        for (int[] access : new int[][] {{2, 7}, {0, large}, {0, 3}, {2, 7}, {1, 0}, {0, 3}}) {
            exact.access(access[0], access[1]);
        }
        assertThat(exact.size()).isEqualTo(4);
        assertThat(exact.entries())
                .containsExactly(
                        TopEntries.key(0, 3), 2,
                        TopEntries.key(0, large), 1,
                        TopEntries.key(1, 0), 1,
                        TopEntries.key(2, 7), 2);
        assertThat(exact.top(2)).containsExactly(TopEntries.key(0, 3), TopEntries.key(2, 7));
        ExactCounter restored = new ExactCounter();
        long[] pairs = exact.entries();
        for (int i = 0; i < pairs.length; i += 2) {
            restored.put(pairs[i], (int) pairs[i + 1]);
        }
        assertThat(restored.entries()).isEqualTo(pairs);
        assertThat(restored.count(0, large)).isEqualTo(1);
        exact.decay(0.5);
        assertThat(exact.entries())
                .containsExactly(TopEntries.key(0, 3), 1, TopEntries.key(2, 7), 1);
        assertThat(exact.size()).isEqualTo(2);
    }

    @Test
    void decayForgetsWhatIsNoLongerAccessed() {
        ExactCounter exact = new ExactCounter();
        exact.access(0, 1);
        exact.access(0, 2);
        exact.access(0, 2);
        exact.decay(0.5);
        assertThat(exact.count(0, 1)).isZero();
        assertThat(exact.count(0, 2)).isEqualTo(1);
        assertThat(exact.size()).isEqualTo(1);
    }

    @Test
    void settingsThatCannotWorkAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> settings(15, 10, 1))
                .hasMessage("budget: 15 bytes hold no entry of dim 4 (16 bytes each)");
        assertThat(HotlineSettings.problem(1 << 20, 16, 0, 0, 0.05, 1024, 1 << 21, 0.5))
                .hasValue("window: must be a positive number of rows, not 0");
        assertThat(HotlineSettings.problem(1 << 20, 16, 10, 60_000, 0.05, 1024, 1 << 21, 0.5))
                .hasValue("window: rows or a span of event time, not both (10 rows and 60000 ms)");
        assertThat(HotlineSettings.problem(1 << 20, 16, 10, 0, 0, 1024, 1 << 21, 0.5))
                .hasValue("sample: must be a fraction in (0, 1], not 0.0");
        assertThat(HotlineSettings.problem(1 << 20, 16, 10, 0, 0.05, 1024, 1000, 0.5))
                .hasValue(
                        "tracker_entries: must be a power of two from 16 to 67108864 (or 0 for 4"
                                + " per hot entry), not 1000");
        assertThat(HotlineSettings.withBudget(1_280_000).trackerEntries()).isEqualTo(1 << 17);
        assertThat(HotlineSettings.autoTrackerEntries(1)).isEqualTo(16);
        assertThat(HotlineSettings.problem(1L << 40, 1, 10, 0, 0.05, 1024, 1 << 21, 0.5).get())
                .startsWith("budget: 1099511627776 bytes are 274877906944 entries of dim 1");
    }

    @Test
    void theSampleIsAboutItsRateAndFixedByRowNumber() {
        HotlineSettings s = HotlineSettings.withBudget(1 << 20);
        int sampled = 0;
        for (long b = 0; b < 100_000; b++) {
            if (s.sampled(b * s.sampleRows())) {
                sampled++;
                assertThat(s.sampled(b * s.sampleRows() + s.sampleRows() - 1)).isTrue();
            }
        }
        assertThat(sampled).isBetween(4_700, 5_300);
    }
}
