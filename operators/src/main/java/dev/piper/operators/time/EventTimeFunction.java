package dev.piper.operators.time;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.Lanes;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The stream's event time ({@code input.timestamp}): each block of rows passes on unchanged, and
 * per pipeline two gauges say how fresh the rows written are, measured from their events' times
 * rather than from when their records reached Kafka: {@value #LAG} (the wall clock minus the latest
 * event time of a row passed) and {@value #WATERMARK_LAG} (the wall clock minus this subtask's
 * event-time watermark, which {@link #watermarks} makes from the blocks: a block's timestamp is its
 * latest row's time). Gauges are registered in the group {@value #PIPELINE} = the pipeline's name,
 * by the subtask that sees its first timed block; before that, and for a pipeline without event
 * time, there are none.
 */
public final class EventTimeFunction extends ProcessFunction<AssembledBlock, AssembledBlock> {

    private static final long serialVersionUID = 1L;

    static final String PIPELINE = "pipeline";
    static final String LAG = "piperEventTimeLagMs";
    static final String WATERMARK_LAG = "piperWatermarkLagMs";

    /** How long a subtask without blocks holds the watermark back before it is idle. */
    static final Duration IDLENESS = Duration.ofMinutes(1);

    /** No event time seen yet. */
    static final long NONE = Long.MIN_VALUE;

    private final String[] pipelineNames;
    private final Clock clock;

    /** The time of day in milliseconds, shipped with the function. */
    interface Clock extends LongSupplier, java.io.Serializable {}

    /** Per pipeline: the latest event time of a row passed, or {@link #NONE}. */
    private transient long[] latest;

    private transient long watermark;
    private transient MetricGroup group;

    /**
     * @param pipelineNames the pipelines' names, by index
     */
    public EventTimeFunction(String[] pipelineNames) {
        this(pipelineNames, System::currentTimeMillis);
    }

    /** As above, reading the time of day from {@code clock} (tests). */
    EventTimeFunction(String[] pipelineNames, Clock clock) {
        this.pipelineNames = pipelineNames.clone();
        this.clock = clock;
    }

    /**
     * The watermarks of a stream of blocks: each block's timestamp is its latest row's event time
     * (a block without rows or times keeps the one before), the watermark follows the latest seen,
     * and a subtask without blocks for {@link #IDLENESS} does not hold the others back.
     */
    public static WatermarkStrategy<AssembledBlock> watermarks() {
        return WatermarkStrategy.<AssembledBlock>forBoundedOutOfOrderness(Duration.ZERO)
                .withTimestampAssigner((b, previous) -> latestTime(b, previous))
                .withIdleness(IDLENESS);
    }

    /** The latest event time of {@code b}'s rows, or {@code otherwise} without any. */
    static long latestTime(AssembledBlock b, long otherwise) {
        long[] times = b.eventTimes();
        if (times == null || times.length == 0) {
            return otherwise == TimestampAssigner.NO_TIMESTAMP ? NONE : otherwise;
        }
        long max = times[0];
        for (long t : times) {
            max = Math.max(max, t);
        }
        return max;
    }

    @Override
    public void open(OpenContext context) {
        latest = new long[pipelineNames.length];
        java.util.Arrays.fill(latest, NONE);
        watermark = NONE;
        group = getRuntimeContext().getMetricGroup();
    }

    @Override
    public void processElement(AssembledBlock b, Context ctx, Collector<AssembledBlock> out) {
        long t = latestTime(b, NONE);
        if (t != NONE) {
            int p = Lanes.pipeline(b.lane());
            if (latest[p] == NONE) {
                register(p);
            }
            latest[p] = Math.max(latest[p], t);
        }
        watermark = ctx.timerService().currentWatermark();
        out.collect(b);
    }

    private void register(int p) {
        MetricGroup g = group.addGroup(PIPELINE, pipelineNames[p]);
        g.gauge(LAG, (Gauge<Long>) () -> lag(p));
        g.gauge(WATERMARK_LAG, (Gauge<Long>) this::watermarkLag);
    }

    /** The wall clock minus pipeline {@code p}'s latest event time, or -1 before one. */
    long lag(int p) {
        long t = latest[p];
        return t == NONE ? -1 : clock.getAsLong() - t;
    }

    /** The wall clock minus the watermark, or -1 before there is one. */
    long watermarkLag() {
        long w = watermark;
        return w == NONE || w == Long.MIN_VALUE ? -1 : clock.getAsLong() - w;
    }
}
