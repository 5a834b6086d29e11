package dev.piper.operators.vocab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.pipeline.layout.CriteoLayout;
import java.util.HashSet;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ColumnPlacementTest {

    private static final double[] COSTS = CriteoLayout.vocabularyCosts();
    private static final int MAX_PARALLELISM = 128;

    private static double[] costPerSubtask(ColumnPlacement placement, int parallelism) {
        double[] load = new double[parallelism];
        for (int c = 0; c < COSTS.length; c++) {
            load[
                            KeyGroupRangeAssignment.assignKeyToParallelOperator(
                                    placement.keyOf(c), MAX_PARALLELISM, parallelism)] +=
                    COSTS[c];
        }
        return load;
    }

    private static double maxOverIdeal(double[] load) {
        double total = java.util.Arrays.stream(load).sum();
        return java.util.Arrays.stream(load).max().orElseThrow() / (total / load.length);
    }

    /** Power-of-two parallelisms get a near-even share of the expected vocabulary work. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8})
    void powerOfTwoParallelismsAreNearEven(int parallelism) {
        ColumnPlacement placement = ColumnPlacement.balanced(COSTS, MAX_PARALLELISM);
        assertThat(maxOverIdeal(costPerSubtask(placement, parallelism))).isLessThanOrEqualTo(1.3);
    }

    /**
     * No parallelism is made worse than keying by the bare column index (Flink's own hashing),
     * beyond 5%; 26 columns of unequal cost cannot always be split evenly into contiguous ranges.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void neverMuchWorseThanKeyingByColumnIndex(int parallelism) {
        ColumnPlacement placement = ColumnPlacement.balanced(COSTS, MAX_PARALLELISM);
        double[] byIndex = new double[parallelism];
        for (int c = 0; c < COSTS.length; c++) {
            byIndex[
                            KeyGroupRangeAssignment.assignKeyToParallelOperator(
                                    c, MAX_PARALLELISM, parallelism)] +=
                    COSTS[c];
        }
        assertThat(maxOverIdeal(costPerSubtask(placement, parallelism)))
                .isLessThanOrEqualTo(maxOverIdeal(byIndex) * 1.05);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void theLargestVocabulariesDoNotShareOneSubtask(int parallelism) {
        ColumnPlacement placement = ColumnPlacement.balanced(COSTS, MAX_PARALLELISM);
        Set<Integer> subtasks = new HashSet<>();
        for (int c : new int[] {2, 11, 20, 15, 3}) { // C3, C12, C21, C16, C4
            subtasks.add(
                    KeyGroupRangeAssignment.assignKeyToParallelOperator(
                            placement.keyOf(c), MAX_PARALLELISM, parallelism));
        }
        assertThat(subtasks).hasSize(parallelism);
    }

    @ParameterizedTest
    @ValueSource(ints = {26, 128, 1024})
    void keysAreDistinctKeyGroupsAndDependOnlyOnCostsAndMaxParallelism(int maxParallelism) {
        ColumnPlacement a = ColumnPlacement.balanced(COSTS, maxParallelism);
        ColumnPlacement b = ColumnPlacement.balanced(COSTS, maxParallelism);
        Set<Integer> groups = new HashSet<>();
        for (int c = 0; c < COSTS.length; c++) {
            assertThat(a.keyOf(c)).isEqualTo(b.keyOf(c));
            groups.add(KeyGroupRangeAssignment.assignToKeyGroup(a.keyOf(c), maxParallelism));
        }
        assertThat(groups).hasSize(COSTS.length);
    }
}
