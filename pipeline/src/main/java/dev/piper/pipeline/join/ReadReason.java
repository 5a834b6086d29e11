package dev.piper.pipeline.join;

/**
 * Why a record of the join's inputs could not be taken at all (before the join's own {@link
 * JoinReason}s): each becomes a dead letter with its {@link #code()}, as do lines that are not JSON
 * ({@code invalid_json}) or whose time is no time ({@code bad_timestamp}).
 */
public enum ReadReason {
    /** The join key is missing, empty, or neither a string nor an integer. */
    BAD_JOIN_KEY("bad_join_key"),
    /** An action's id is neither a string nor an integer. */
    BAD_ACTION_ID("bad_action_id"),
    /** An action's value is not a finite number. */
    BAD_ACTION_VALUE("bad_action_value"),
    /** An impression already has a top-level field {@code labels}, which the join writes. */
    LABELS_FIELD_TAKEN("labels_field_taken");

    private final String code;

    ReadReason(String code) {
        this.code = code;
    }

    /** The reason's code in dead letters and metrics. */
    public String code() {
        return code;
    }
}
