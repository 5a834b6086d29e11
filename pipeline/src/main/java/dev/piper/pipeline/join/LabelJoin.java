package dev.piper.pipeline.join;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The label join of every key in one process: {@link KeyJoin}s by key, advanced as the watermark
 * moves, with the rows each advance emits passed on in {@link JoinedRow#ORDER}. The batch job
 * replays the logs through it; the stream keeps a {@link KeyJoin} per key in keyed state instead,
 * and sorts the rows the same way downstream.
 *
 * @param <T> the impression record's type
 */
public final class LabelJoin<T> {

    private final JoinSettings settings;
    private final JoinOutput<T> out;
    private final Map<String, KeyJoin<T>> keys = new HashMap<>();
    private final Map<String, Long> due = new HashMap<>();
    private final TreeSet<Timer> timers = new TreeSet<>();
    private final List<JoinedRow<T>> rows = new ArrayList<>();
    private final JoinOutput<T> buffered;
    private long watermark = Long.MIN_VALUE;

    private record Timer(long atMs, String key) implements Comparable<Timer> {
        @Override
        public int compareTo(Timer o) {
            int c = Long.compare(atMs, o.atMs);
            return c != 0 ? c : key.compareTo(o.key);
        }
    }

    public LabelJoin(JoinSettings settings, JoinOutput<T> out) {
        this.settings = settings;
        this.out = out;
        this.buffered =
                new JoinOutput<>() {
                    @Override
                    public void row(JoinedRow<T> row) {
                        rows.add(row);
                    }

                    @Override
                    public void sampledOut(Impression<T> impression) {
                        out.sampledOut(impression);
                    }

                    @Override
                    public void rejected(Impression<T> impression, JoinReason reason) {
                        out.rejected(impression, reason);
                    }

                    @Override
                    public void joined(Action action, Impression<T> impression) {
                        out.joined(action, impression);
                    }

                    @Override
                    public void rejected(Action action, JoinReason reason) {
                        out.rejected(action, reason);
                    }
                };
    }

    /** Takes an impression read with its partition's watermark. */
    public void impression(Impression<T> impression) {
        KeyJoin<T> key = key(impression.key());
        key.impression(impression, out);
        reschedule(impression.key(), key);
    }

    /** Takes an action read with its partition's watermark. */
    public void action(Action action) {
        KeyJoin<T> key = key(action.key());
        key.action(action, out);
        reschedule(action.key(), key);
    }

    /**
     * Moves the join's watermark (the least of every partition's) to {@code watermarkMs}: the rows
     * due before it go out, in order.
     */
    public void advance(long watermarkMs) {
        if (watermarkMs <= watermark) {
            return;
        }
        watermark = watermarkMs;
        while (!timers.isEmpty() && timers.first().atMs() < watermarkMs) {
            String k = timers.pollFirst().key();
            due.remove(k);
            KeyJoin<T> key = keys.get(k);
            key.advance(watermarkMs, buffered);
            reschedule(k, key);
        }
        rows.sort(JoinedRow.ORDER);
        rows.forEach(out::row);
        rows.clear();
    }

    /** The end of every log: every row still due goes out. */
    public void finish() {
        advance(Long.MAX_VALUE);
    }

    /** The keys holding state. */
    public int keysHeld() {
        return keys.size();
    }

    /** The settings the join runs with. */
    public JoinSettings settings() {
        return settings;
    }

    private KeyJoin<T> key(String k) {
        KeyJoin<T> key = keys.get(k);
        if (key == null) {
            key = new KeyJoin<>(settings);
            key.advance(watermark, buffered);
            keys.put(k, key);
        }
        return key;
    }

    private void reschedule(String k, KeyJoin<T> key) {
        Long was = due.remove(k);
        if (was != null) {
            timers.remove(new Timer(was, k));
        }
        if (key.isEmpty()) {
            keys.remove(k);
            return;
        }
        long next = key.nextDueMs();
        if (next != Long.MAX_VALUE) {
            due.put(k, next);
            timers.add(new Timer(next, k));
        }
    }
}
