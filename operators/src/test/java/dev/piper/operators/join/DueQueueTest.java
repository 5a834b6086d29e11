package dev.piper.operators.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The join's queue of due keys against {@code java.util.PriorityQueue} on the same entries. */
class DueQueueTest {

    private record Entry(long at, String key) {}

    @Test
    void itGivesTheEntriesInTheOrderOfTheirTimes() {
        SplittableRandom rnd = new SplittableRandom(42);
        DueQueue q = new DueQueue();
        PriorityQueue<Entry> expected = new PriorityQueue<>(Comparator.comparingLong(Entry::at));
        List<Long> taken = new ArrayList<>();
        List<Long> expectedTaken = new ArrayList<>();
        for (int step = 0; step < 20_000; step++) {
            if (rnd.nextInt(3) > 0 || q.isEmpty()) { // mostly adds, in a nearly sorted order
                long at = step * 10L + rnd.nextInt(5_000);
                q.add(at, "k" + step);
                expected.add(new Entry(at, "k" + step));
            } else {
                assertThat(q.firstTime()).isEqualTo(expected.peek().at());
                taken.add(q.firstTime());
                q.removeFirst();
                expectedTaken.add(expected.poll().at());
            }
            assertThat(q.size()).isEqualTo(expected.size());
        }
        while (!q.isEmpty()) {
            taken.add(q.firstTime());
            q.removeFirst();
            expectedTaken.add(expected.poll().at());
        }
        assertThat(taken).isEqualTo(expectedTaken);
    }

    @Test
    void theKeyGoesWithItsTime() {
        DueQueue q = new DueQueue();
        q.add(30, "c");
        q.add(10, "a");
        q.add(20, "b");
        List<String> keys = new ArrayList<>();
        while (!q.isEmpty()) {
            keys.add(q.firstTime() + q.firstKey());
            q.removeFirst();
        }
        assertThat(keys).containsExactly("10a", "20b", "30c");
        assertThatThrownBy(q::firstTime)
                .isInstanceOf(NoSuchElementException.class)
                .hasMessage("no key is queued");
    }
}
