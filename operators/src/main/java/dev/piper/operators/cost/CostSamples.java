package dev.piper.operators.cost;

import dev.piper.core.cost.CostSample;
import dev.piper.operators.block.SerializerTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.OutputTag;

/**
 * How {@link CostSample}s travel through a Flink job: their type information, the side output the
 * measuring operators emit them on, and the accumulator of the tasks' busy CPU time.
 */
public final class CostSamples {

    /** Type information with the dedicated serializer (no Kryo). */
    public static final TypeInformation<CostSample> TYPE =
            new SerializerTypeInfo<>(CostSample.class, CostSampleSerializer.INSTANCE);

    /**
     * The accumulator (a {@code LongCounter}) the measuring operators add their task thread's CPU
     * time to, from their {@code open} to their {@code close}: the tasks' busy CPU time measured
     * apart from the samples, which the samples' attribution can be checked against.
     */
    public static final String TASK_CPU_ACCUMULATOR = "piper.task-cpu-nanos";

    /** The side output the measuring operators emit their samples on. */
    public static final OutputTag<CostSample> TAG = new OutputTag<>("cost", TYPE);

    private CostSamples() {}
}
