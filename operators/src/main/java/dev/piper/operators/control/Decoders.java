package dev.piper.operators.control;

import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.Lanes;
import dev.piper.core.block.RawChunk;
import dev.piper.core.control.ActiveSpec;
import dev.piper.core.cost.CostSample;
import dev.piper.core.cost.ThreadCpu;
import dev.piper.core.decode.BlockDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.operators.cost.CpuMeter;
import java.io.Serializable;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.util.Collector;

/**
 * The decoders of a job's pipelines, for the decode functions: shipped into the cluster as the
 * starting specs' bytes ({@link ActiveSpecSerializer#toBytes}), they keep one decoder per pipeline
 * there, built for the spec its pipeline decodes with and rebuilt when that spec changes. When
 * measuring (for the cost report), they time every block and hand its {@link CostSample} over,
 * counting each field's bytes in the first block and every {@code countEvery}-th after it. Not
 * thread-safe: one per subtask.
 */
final class Decoders implements Serializable {

    private static final long serialVersionUID = 1L;

    private final byte[][] startBytes;
    private final int maxRawBytes;

    /** Measuring: count the fields' bytes of every countEvery-th block; 0: not measuring. */
    private final int countEvery;

    private transient ActiveSpec[] starts;
    private transient ActiveSpec[] using;
    private transient BlockDecoder[] decoders;

    /** Measuring: blocks decoded, and the thread CPU bookkeeping (null until opened). */
    private transient long blocks;

    private transient CpuMeter meter;

    /**
     * @param starts each pipeline's starting spec, by index
     * @param maxRawBytes how many bytes of a rejected line its dead letter keeps
     */
    Decoders(ActiveSpec[] starts, int maxRawBytes) {
        this(starts, maxRawBytes, 0);
    }

    /**
     * @param countEvery measuring: count each field's bytes in every {@code countEvery}-th block
     *     (and time every block); 0 for not measuring
     */
    Decoders(ActiveSpec[] starts, int maxRawBytes, int countEvery) {
        if (countEvery < 0) {
            throw new IllegalArgumentException("countEvery must not be negative: " + countEvery);
        }
        this.countEvery = countEvery;
        this.startBytes = new byte[starts.length][];
        for (int i = 0; i < starts.length; i++) {
            startBytes[i] = ActiveSpecSerializer.toBytes(starts[i]);
        }
        this.maxRawBytes = maxRawBytes;
    }

    /** Whether the blocks' work is measured. */
    boolean measures() {
        return countEvery > 0;
    }

    /** Starts the thread's CPU bookkeeping of a measuring decoder, as its operator opens. */
    void open() {
        if (measures()) {
            meter = CpuMeter.start();
        }
    }

    /** Ends it, as its operator closes. */
    void close(RuntimeContext context) {
        if (meter != null) {
            meter.close(context);
        }
    }

    private void init() {
        if (starts == null) {
            starts = new ActiveSpec[startBytes.length];
            for (int i = 0; i < startBytes.length; i++) {
                starts[i] = ActiveSpecSerializer.fromBytes(startBytes[i]);
            }
            using = new ActiveSpec[starts.length];
            decoders = new BlockDecoder[starts.length];
        }
    }

    /** The index of {@code lane}'s pipeline, checked. */
    int pipeline(int lane) {
        int p = Lanes.pipeline(lane);
        if (p >= startBytes.length) {
            throw new IllegalStateException(
                    "lane " + lane + " belongs to pipeline " + p + " of " + startBytes.length);
        }
        return p;
    }

    /** The name of pipeline {@code p}. */
    String name(int p) {
        init();
        return starts[p].name();
    }

    /** The spec pipeline {@code p}'s blocks are decoded with: {@code active}, or its start. */
    ActiveSpec spec(int p, ActiveSpec active) {
        init();
        return active == null ? starts[p] : active;
    }

    /**
     * Decodes {@code chunk} with {@code active}, or with its pipeline's starting spec if {@code
     * active} is null: the dense part to {@code dense}, a key chunk per sparse column to {@code
     * keys}, and when measuring the block's cost sample to {@code samples}. Returns what was
     * decoded.
     */
    CriteoDecoder.Decoded decode(
            int p,
            ActiveSpec active,
            RawChunk chunk,
            Consumer<DenseChunk> dense,
            Collector<KeyChunk> keys,
            Consumer<CostSample> samples) {
        boolean measure = measures();
        long start = measure ? ThreadCpu.now() : 0;
        ActiveSpec spec = spec(p, active);
        if (using[p] == null || using[p].version() != spec.version()) {
            using[p] = spec;
            decoders[p] = BlockDecoder.of(spec.options(maxRawBytes), measure);
        }
        CriteoDecoder.Decoded decoded =
                decoders[p].decode(chunk, measure && blocks++ % countEvery == 0);
        dense.accept(decoded.dense());
        for (KeyChunk k : decoded.keys()) {
            keys.collect(k);
        }
        if (measure) {
            long end = ThreadCpu.now();
            samples.accept(decoded.costSample(p, start, end, meter.sinceLastSample(end)));
        }
        return decoded;
    }
}
