package dev.piper.pipeline.join;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The label join of one key: its impressions and actions, placed in event time as the watermark
 * passes them ({@code docs/SEMANTICS.md}, "Label join").
 *
 * <p>A record that is not late (not behind its own partition's watermark when read) arrives before
 * the join's watermark, the least of every partition's, passes its time. So once the watermark is
 * past {@code t}, every record of time {@code t} or before that will ever count is here, and the
 * join takes them in the order of (time, impressions before actions, position): what it decides
 * depends on the logs only, not on the order records arrived in across partitions or on the job's
 * parallelism. At one time, the impressions come first (an action joins an impression of its own
 * time), then the actions, then the rows due (a row due at an action's time knows it), then the
 * impressions forgotten.
 *
 * @param <T> the impression record's type
 */
public final class KeyJoin<T> {

    private static final int IMPRESSION = 0;
    private static final int ACTION = 1;
    private static final int EMISSION = 2;
    private static final int FORGET = 3;

    private final JoinSettings settings;
    private final long firstEmissionDelayMs; // the settings', derived once: next() asks per step
    private final long longestWindowMs;
    private final long forgetAfterMs;
    final List<Impression<T>> arrivedImpressions = new ArrayList<>();
    final List<Action> arrivedActions = new ArrayList<>();
    final List<Placed<T>> placed = new ArrayList<>();
    long watermark = Long.MIN_VALUE;

    private static final long UNKNOWN = Long.MIN_VALUE;

    /**
     * {@link #nextDueMs()}, kept as records arrive and the key advances; {@link #UNKNOWN} until
     * found.
     */
    private long nextDueMs = UNKNOWN;

    /**
     * An impression the watermark has passed, until it is forgotten. Its payload goes once no row
     * can be made of it any more ({@link #release}): for the rest of its retention it only judges
     * the actions and impressions of its key, by its time.
     */
    static final class Placed<T> {
        Impression<T> impression;
        final Joined[] streams;
        boolean emitted;

        Placed(Impression<T> impression, int streams) {
            this.impression = impression;
            this.streams = new Joined[streams];
            for (int s = 0; s < streams; s++) {
                this.streams[s] = new Joined();
            }
        }
    }

    /** One stream's actions joined to a placed impression. */
    static final class Joined {
        long firstMs = -1;
        int count;
        double value;
        Set<String> ids;
        long copyAtMs = Long.MIN_VALUE; // a NEGATIVE_FIRST stream's positive copy, once due
        boolean copied;
    }

    public KeyJoin(JoinSettings settings) {
        this.settings = settings;
        this.firstEmissionDelayMs = settings.firstEmissionDelayMs();
        this.longestWindowMs = settings.longestWindowMs();
        this.forgetAfterMs = settings.forgetAfterMs();
    }

    /** Takes {@code impression}; one behind its partition's watermark is rejected at once. */
    public void impression(Impression<T> impression, JoinOutput<T> out) {
        if (impression.timeMs() < impression.watermark() || impression.timeMs() < watermark) {
            out.rejected(impression, JoinReason.LATE_IMPRESSION);
        } else {
            boolean alone = arrivedImpressions.isEmpty() && placed.isEmpty();
            arrivedImpressions.add(impression);
            // alone, its row is its first due; beside another, found afresh (as on a restore)
            nextDueMs =
                    alone
                            ? Math.min(nextDueMs(), impression.timeMs() + firstEmissionDelayMs)
                            : UNKNOWN;
        }
    }

    /** Takes {@code action}; one behind its partition's watermark is rejected at once. */
    public void action(Action action, JoinOutput<T> out) {
        if (action.stream() < 0 || action.stream() >= settings.streams().size()) {
            throw new IllegalArgumentException(
                    "action stream " + action.stream() + " of " + settings.streams().size());
        }
        if (action.timeMs() < action.watermark() || action.timeMs() < watermark) {
            out.rejected(action, JoinReason.LATE_ACTION);
        } else {
            arrivedActions.add(action);
            nextDueMs = Math.min(nextDueMs(), action.timeMs());
        }
    }

    /**
     * Moves the watermark to {@code watermark}: every record and row of a time before it is placed
     * and emitted, in order.
     */
    public void advance(long watermark, JoinOutput<T> out) {
        this.watermark = Math.max(this.watermark, watermark);
        if (nextDueMs != UNKNOWN && nextDueMs >= this.watermark) {
            return; // nothing due yet
        }
        Next next = new Next();
        while (true) {
            if (!next.find() || next.timeMs >= this.watermark) {
                nextDueMs = next.dueMs;
                release();
                return;
            }
            switch (next.kind) {
                case IMPRESSION -> place(arrivedImpressions.remove(next.index), out);
                case ACTION -> join(arrivedActions.remove(next.index), out);
                case EMISSION -> emit(placed.get(next.index), next.stream, out);
                default -> placed.remove(next.index);
            }
        }
    }

    /**
     * When to advance again, or {@link Long#MAX_VALUE}: the time of the next thing to do that has
     * an outcome. An impression alone in its key is placed when something else is due (an action,
     * its row), not at its own time: placing it sooner decides nothing sooner, and costs the stream
     * a look at the key's state per impression. Advancing later than the things it would do changes
     * nothing, since they are done in the same order whenever the watermark passes them.
     */
    public long nextDueMs() {
        if (nextDueMs == UNKNOWN) {
            Next next = new Next();
            next.find();
            nextDueMs = next.dueMs;
        }
        return nextDueMs;
    }

    /**
     * Drops the payload of every placed impression no row can be made of any more: its row went
     * out, and of each {@link EmitPolicy#NEGATIVE_FIRST} stream its positive copy went out too, or
     * no first action can join any more (the watermark is past the impression's window of that
     * stream, so every action of the window has been taken). Called once every record before the
     * watermark is placed, so the actions of those times are known; what the key emits is the same
     * with or without it, only its state is smaller. A {@link EmitPolicy#WAIT} impression's line
     * goes with its row; one that may have a positive copy keeps it until the key is next advanced
     * after that is decided, or until it is forgotten (no advance is scheduled for this alone).
     */
    private void release() {
        for (Placed<T> p : placed) {
            if (p.impression.payload() != null && !rowsLeft(p)) {
                Impression<T> m = p.impression;
                p.impression =
                        new Impression<>(m.key(), m.timeMs(), m.position(), m.watermark(), null);
            }
        }
    }

    /** Whether a row may still be made of {@code p}: a first emission or a positive copy. */
    private boolean rowsLeft(Placed<T> p) {
        if (!p.emitted) {
            return true;
        }
        for (int s = 0; s < p.streams.length; s++) {
            Joined j = p.streams[s];
            if (j.copyAtMs != Long.MIN_VALUE) {
                if (!j.copied) {
                    return true; // its positive copy is due
                }
            } else if (settings.streams().get(s).policy() == EmitPolicy.NEGATIVE_FIRST
                    && watermark <= p.impression.timeMs() + settings.streams().get(s).windowMs()) {
                return true; // a first action of its window may come
            }
        }
        return false;
    }

    /** Whether the key holds nothing: its state can go. */
    public boolean isEmpty() {
        return arrivedImpressions.isEmpty() && arrivedActions.isEmpty() && placed.isEmpty();
    }

    /** The impressions that arrived or are placed and not yet forgotten. */
    public int impressionsHeld() {
        return arrivedImpressions.size() + placed.size();
    }

    /** The actions that arrived and wait for the watermark. */
    public int actionsWaiting() {
        return arrivedActions.size();
    }

    /**
     * The next thing to do, found afresh by {@link #find()}: the least of every arrived record,
     * placed impression's emission, positive copy and forgetting in the order of (time, kind,
     * position, stream). One per call of {@link #advance}, not one per thing: a key is advanced
     * each time the watermark passes its next due time.
     */
    private final class Next {
        long timeMs;
        int kind;
        Position position;
        int stream;
        int index;
        boolean found;

        /** When the key must be advanced next ({@link #nextDueMs()}); MAX_VALUE if never. */
        long dueMs;

        boolean find() {
            found = false;
            dueMs = Long.MAX_VALUE;
            boolean alone = arrivedImpressions.size() == 1 && placed.isEmpty();
            for (int i = 0; i < arrivedImpressions.size(); i++) {
                Impression<T> m = arrivedImpressions.get(i);
                consider(m.timeMs(), IMPRESSION, m.position(), -1, i);
                // alone, nothing is decided before its row; beside another, whether a duplicate
                dueMs = Math.min(dueMs, m.timeMs() + (alone ? firstEmissionDelayMs : 0));
            }
            for (int i = 0; i < arrivedActions.size(); i++) {
                Action a = arrivedActions.get(i);
                consider(a.timeMs(), ACTION, a.position(), -1, i);
            }
            for (int i = 0; i < placed.size(); i++) {
                Placed<T> p = placed.get(i);
                Impression<T> m = p.impression;
                if (!p.emitted) {
                    consider(m.timeMs() + firstEmissionDelayMs, EMISSION, m.position(), -1, i);
                    continue;
                }
                for (int s = 0; s < p.streams.length; s++) {
                    Joined j = p.streams[s];
                    if (j.copyAtMs != Long.MIN_VALUE && !j.copied) {
                        consider(j.copyAtMs, EMISSION, m.position(), s, i);
                    }
                }
                consider(m.timeMs() + forgetAfterMs, FORGET, m.position(), -1, i);
            }
            return found;
        }

        private void consider(long t, int k, Position p, int s, int i) {
            if (k != IMPRESSION) {
                dueMs = Math.min(dueMs, t);
            }
            if (found && !before(t, k, p, s)) {
                return;
            }
            found = true;
            timeMs = t;
            kind = k;
            position = p;
            stream = s;
            index = i;
        }

        private boolean before(long t, int k, Position p, int s) {
            if (t != timeMs) {
                return t < timeMs;
            }
            if (k != kind) {
                return k < kind;
            }
            int c = p.compareTo(position);
            return c != 0 ? c < 0 : s < stream;
        }
    }

    private void place(Impression<T> impression, JoinOutput<T> out) {
        for (Placed<T> p : placed) {
            if (impression.timeMs() - p.impression.timeMs() <= longestWindowMs) {
                out.rejected(impression, JoinReason.DUPLICATE_IMPRESSION);
                return;
            }
        }
        placed.add(new Placed<>(impression, settings.streams().size()));
    }

    private void join(Action action, JoinOutput<T> out) {
        Placed<T> to = placed.isEmpty() ? null : placed.get(placed.size() - 1);
        if (to == null) {
            out.rejected(action, JoinReason.ORPHAN_ACTION);
            return;
        }
        ActionStream stream = settings.streams().get(action.stream());
        long since = action.timeMs() - to.impression.timeMs();
        if (since > stream.windowMs()) {
            out.rejected(action, JoinReason.ACTION_AFTER_WINDOW);
            return;
        }
        Joined j = to.streams[action.stream()];
        if (action.id() != null) {
            if (j.ids == null) {
                j.ids = new HashSet<>();
            }
            if (!j.ids.add(action.id())) {
                out.rejected(action, JoinReason.DUPLICATE_ACTION);
                return;
            }
        }
        if (j.count++ == 0) {
            j.firstMs = action.timeMs();
            if (stream.policy() == EmitPolicy.NEGATIVE_FIRST) {
                j.copyAtMs =
                        Math.max(action.timeMs(), to.impression.timeMs() + firstEmissionDelayMs);
            }
        }
        j.value += action.value();
        out.joined(action, to.impression);
    }

    private void emit(Placed<T> p, int copyOf, JoinOutput<T> out) {
        List<StreamLabel> labels = new ArrayList<>(p.streams.length);
        for (int s = 0; s < p.streams.length; s++) {
            Joined j = p.streams[s];
            boolean known = settings.streams().get(s).policy() == EmitPolicy.WAIT || s == copyOf;
            labels.add(
                    known && j.count > 0
                            ? new StreamLabel(
                                    true, j.firstMs - p.impression.timeMs(), j.count, j.value)
                            : StreamLabel.NONE);
        }
        if (copyOf >= 0) {
            p.streams[copyOf].copied = true;
            out.row(new JoinedRow<>(p.impression, p.streams[copyOf].copyAtMs, copyOf, labels, 1));
            return;
        }
        p.emitted = true;
        boolean negative = labels.stream().noneMatch(StreamLabel::label);
        double rate = settings.negativeSampleRate();
        if (negative && !NegativeSampling.keeps(p.impression.key(), rate)) {
            out.sampledOut(p.impression);
            return;
        }
        long at = p.impression.timeMs() + firstEmissionDelayMs;
        out.row(new JoinedRow<>(p.impression, at, -1, labels, negative ? 1 / rate : 1));
    }
}
