package dev.piper.pipeline.join;

/**
 * Why a record did not join: each is counted and becomes a dead letter with its {@link #code()}.
 */
public enum JoinReason {
    /** An impression behind its partition's watermark: out of order beyond the declared bound. */
    LATE_IMPRESSION("late_impression", true),
    /** An impression whose key had an impression in the longest window before it. */
    DUPLICATE_IMPRESSION("duplicate_impression", true),
    /** An action behind its partition's watermark: out of order beyond the declared bound. */
    LATE_ACTION("late_action", false),
    /** An action after its impression's window (within the retention past it). */
    ACTION_AFTER_WINDOW("action_after_window", false),
    /** An action no impression of its key at or before its time (within the retention) had. */
    ORPHAN_ACTION("orphan_action", false),
    /** An action whose id an earlier action of its stream for the same impression had. */
    DUPLICATE_ACTION("duplicate_action", false);

    private final String code;
    private final boolean impression;

    JoinReason(String code, boolean impression) {
        this.code = code;
        this.impression = impression;
    }

    /** The reason's code in dead letters and metrics. */
    public String code() {
        return code;
    }

    /** Whether the record is an impression (else an action). */
    public boolean impression() {
        return impression;
    }
}
