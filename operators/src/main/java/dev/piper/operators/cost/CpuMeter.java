package dev.piper.operators.cost;

import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * The thread CPU bookkeeping of a measuring function: when it opened, and where its previous sample
 * ended, so that each {@link CostSample} carries the thread's CPU time since the previous one and
 * the function's task adds its whole busy time to {@link CostSample#TASK_CPU_ACCUMULATOR} when it
 * closes. Used from the task's thread only.
 */
public final class CpuMeter {

    private final long openedAt;
    private long lastSample;

    private CpuMeter(long now) {
        this.openedAt = now;
        this.lastSample = now;
    }

    /** A meter starting now, on the calling thread's CPU clock. */
    public static CpuMeter start() {
        return new CpuMeter(ThreadCpu.now());
    }

    /** The thread's CPU time from the previous sample's end to {@code end}, which ends this one. */
    public long sinceLastSample(long end) {
        long d = end - lastSample;
        lastSample = end;
        return d;
    }

    /** Adds the thread's CPU time since the meter started to the task CPU accumulator. */
    public void close(RuntimeContext context) {
        context.getLongCounter(CostSample.TASK_CPU_ACCUMULATOR).add(ThreadCpu.now() - openedAt);
    }
}
