package dev.piper.operators.cost;

import dev.piper.core.cost.CostSample;
import dev.piper.core.cost.ThreadCpu;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * The thread CPU bookkeeping of a measuring function: when it opened, and where its previous sample
 * ended, so that each {@link CostSample} carries the thread's CPU time since the previous one and
 * the function's task adds its whole busy time to {@link CostSamples#TASK_CPU_ACCUMULATOR} when it
 * closes. Used from the task's thread only.
 */
public final class CpuMeter {

    private final long openedAt;
    private long lastSample;

    /** CPU time of the measurement's own extra work, left out of the samples and the task's. */
    private long excluded;

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

    /**
     * Leaves the thread's CPU time from {@code from} to {@code to}, spent on the measurement's own
     * extra work after the previous sample ended, out of the next sample and out of the task's
     * time.
     */
    public void exclude(long from, long to) {
        excluded += to - from;
        lastSample += to - from;
    }

    /**
     * Adds the thread's CPU time since the meter started, less what was {@link #exclude}d, to the
     * task CPU accumulator.
     */
    public void close(RuntimeContext context) {
        context.getLongCounter(CostSamples.TASK_CPU_ACCUMULATOR)
                .add(ThreadCpu.now() - openedAt - excluded);
    }
}
