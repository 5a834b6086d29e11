package dev.piper.core.join;

import dev.piper.pipeline.join.JoinReason;
import dev.piper.pipeline.join.ReadReason;
import dev.piper.pipeline.layout.Reason;
import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a label join took and gave: the counts that add up ({@code docs/SEMANTICS.md}, "Label
 * join"), for {@code metadata.json}'s {@code label_join}.
 *
 * <p>impressions = first emissions + sampled out + impression dead letters; actions = joined +
 * action dead letters; rows = first emissions + positive copies.
 */
public final class JoinCounts implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The reasons a record of the join's inputs can be a dead letter for, in their order. */
    public static final List<String> REASONS =
            List.of(
                    Reason.EMPTY_LINE.code(),
                    Reason.LINE_TOO_LONG.code(),
                    Reason.INVALID_UTF8.code(),
                    Reason.INVALID_JSON.code(),
                    Reason.BAD_TIMESTAMP.code(),
                    ReadReason.BAD_JOIN_KEY.code(),
                    ReadReason.BAD_ACTION_ID.code(),
                    ReadReason.BAD_ACTION_VALUE.code(),
                    ReadReason.LABELS_FIELD_TAKEN.code(),
                    JoinReason.LATE_IMPRESSION.code(),
                    JoinReason.DUPLICATE_IMPRESSION.code(),
                    JoinReason.LATE_ACTION.code(),
                    JoinReason.ACTION_AFTER_WINDOW.code(),
                    JoinReason.ORPHAN_ACTION.code(),
                    JoinReason.DUPLICATE_ACTION.code());

    long impressions;
    long actions;
    long firstEmissions;
    long positiveCopies;
    long sampledOut;
    long actionsJoined;
    long impressionDeadLetters;
    long actionDeadLetters;
    final Map<String, Long> byReason = new LinkedHashMap<>();
    final Map<String, Long> joinedByStream = new LinkedHashMap<>();

    JoinCounts(List<String> streams) {
        REASONS.forEach(r -> byReason.put(r, 0L));
        streams.forEach(s -> joinedByStream.put(s, 0L));
    }

    public long impressions() {
        return impressions;
    }

    public long actions() {
        return actions;
    }

    public long firstEmissions() {
        return firstEmissions;
    }

    public long positiveCopies() {
        return positiveCopies;
    }

    /** Rows emitted: first emissions and positive copies. */
    public long rows() {
        return firstEmissions + positiveCopies;
    }

    public long sampledOut() {
        return sampledOut;
    }

    public long actionsJoined() {
        return actionsJoined;
    }

    public long deadLetters() {
        return impressionDeadLetters + actionDeadLetters;
    }

    public long impressionDeadLetters() {
        return impressionDeadLetters;
    }

    public long actionDeadLetters() {
        return actionDeadLetters;
    }

    /** Dead letters by reason code, every reason listed. */
    public Map<String, Long> byReason() {
        return Collections.unmodifiableMap(byReason);
    }

    /** Joined actions per stream, in the spec's order. */
    public Map<String, Long> joinedByStream() {
        return Collections.unmodifiableMap(joinedByStream);
    }

    /** Whether every record is accounted for: the identities above. */
    public boolean addsUp() {
        return impressions == firstEmissions + sampledOut + impressionDeadLetters
                && actions == actionsJoined + actionDeadLetters
                && byReason.values().stream().mapToLong(Long::longValue).sum() == deadLetters();
    }
}
