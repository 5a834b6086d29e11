package dev.piper.pipeline.join;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What one key's join keeps of a placed impression, and for how long. */
class KeyJoinTest {

    private static final ActionStream CLICK = new ActionStream("click", 60_000, EmitPolicy.WAIT);
    private static final ActionStream BUY =
            new ActionStream("buy", 300_000, EmitPolicy.NEGATIVE_FIRST);

    private final List<JoinedRow<String>> rows = new ArrayList<>();

    @Test
    void aWaitImpressionsLineGoesWithItsRowAndItsTimeStaysForTheRetention() {
        KeyJoin<String> join = new KeyJoin<>(new JoinSettings(List.of(CLICK), 0, 30_000, 1));
        join.impression(impression(1_000, 0), out());
        join.advance(61_000, out());
        assertThat(rows).isEmpty();
        join.advance(61_001, out()); // its row, at its window's close
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).impression().payload()).isEqualTo("line");
        assertThat(join.placed.get(0).impression.payload()).isNull();
        assertThat(join.placed.get(0).impression.timeMs()).isEqualTo(1_000);
        assertThat(join.impressionsHeld()).isEqualTo(1);
        // still judges its key: a click after the window is late for it, not an orphan
        List<JoinReason> refused = new ArrayList<>();
        join.action(new Action(0, "r1", 70_000, null, 0, at(1, 0), 0), out(refused));
        join.advance(91_000, out(refused));
        assertThat(refused).containsExactly(JoinReason.ACTION_AFTER_WINDOW);
        assertThat(join.isEmpty()).isFalse();
        join.advance(91_001, out(refused)); // forgotten at its window + retention
        assertThat(join.isEmpty()).isTrue();
        assertThat(rows).hasSize(1);
    }

    @Test
    void aNegativeFirstImpressionKeepsItsLineWhileItsPositiveCopyMayStillCome() {
        JoinSettings settings = new JoinSettings(List.of(CLICK, BUY), 0, 30_000, 1);
        KeyJoin<String> bought = new KeyJoin<>(settings);
        KeyJoin<String> not = new KeyJoin<>(settings);
        bought.impression(impression(1_000, 0), out());
        not.impression(impression(1_000, 1), out());
        bought.action(new Action(1, "r1", 100_000, "o1", 5, at(2, 0), 0), out());
        for (KeyJoin<String> join : List.of(bought, not)) {
            join.advance(61_001, out()); // the first rows: negative for the purchase
            assertThat(join.placed.get(0).impression.payload()).isEqualTo("line");
        }
        bought.advance(100_001, out()); // the purchase and its positive copy
        assertThat(rows).hasSize(3);
        assertThat(rows.get(2).copyOf()).isEqualTo(1);
        assertThat(rows.get(2).impression().payload()).isEqualTo("line");
        assertThat(bought.placed.get(0).impression.payload()).isNull();
        // no purchase: a purchase of time 301,000 would still join; the line goes when the key is
        // next advanced past that (here by a late click; else when it is forgotten)
        not.action(new Action(0, "r1", 301_000, null, 0, at(1, 1), 0), out());
        not.advance(301_001, out());
        assertThat(not.placed.get(0).impression.payload()).isNull();
        assertThat(rows).hasSize(3);
    }

    private static Impression<String> impression(long time, long offset) {
        return new Impression<>("r1", time, at(0, offset), Long.MIN_VALUE, "line");
    }

    private static Position at(int source, long offset) {
        return new Position(source, 0, offset);
    }

    private JoinOutput<String> out() {
        return out(new ArrayList<>());
    }

    private JoinOutput<String> out(List<JoinReason> refused) {
        return new JoinOutput<>() {
            @Override
            public void row(JoinedRow<String> row) {
                rows.add(row);
            }

            @Override
            public void sampledOut(Impression<String> impression) {
                throw new AssertionError("every negative is kept at rate 1");
            }

            @Override
            public void rejected(Impression<String> impression, JoinReason reason) {
                refused.add(reason);
            }

            @Override
            public void joined(Action action, Impression<String> impression) {}

            @Override
            public void rejected(Action action, JoinReason reason) {
                refused.add(reason);
            }
        };
    }
}
