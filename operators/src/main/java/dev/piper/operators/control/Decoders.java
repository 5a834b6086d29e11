package dev.piper.operators.control;

import dev.piper.operators.block.DenseChunk;
import dev.piper.operators.block.KeyChunk;
import dev.piper.operators.block.Lanes;
import dev.piper.operators.block.RawChunk;
import dev.piper.operators.decode.CriteoDecoder;
import java.io.Serializable;
import java.util.function.Consumer;
import org.apache.flink.util.Collector;

/**
 * The decoders of a job's pipelines, for the decode functions: shipped into the cluster as the
 * starting specs' bytes ({@link ActiveSpecSerializer#toBytes}), they keep one decoder per pipeline
 * there, built for the spec its pipeline decodes with and rebuilt when that spec changes. Not
 * thread-safe: one per subtask.
 */
final class Decoders implements Serializable {

    private static final long serialVersionUID = 1L;

    private final byte[][] startBytes;
    private final int maxRawBytes;
    private final boolean measure;

    private transient ActiveSpec[] starts;
    private transient ActiveSpec[] using;
    private transient CriteoDecoder[] decoders;

    /**
     * @param starts each pipeline's starting spec, by index
     * @param maxRawBytes how many bytes of a rejected line its dead letter keeps
     */
    Decoders(ActiveSpec[] starts, int maxRawBytes) {
        this(starts, maxRawBytes, false);
    }

    /**
     * @param measure whether the decoders time their log pass (for the cost report)
     */
    Decoders(ActiveSpec[] starts, int maxRawBytes, boolean measure) {
        this.measure = measure;
        this.startBytes = new byte[starts.length][];
        for (int i = 0; i < starts.length; i++) {
            startBytes[i] = ActiveSpecSerializer.toBytes(starts[i]);
        }
        this.maxRawBytes = maxRawBytes;
    }

    private void init() {
        if (starts == null) {
            starts = new ActiveSpec[startBytes.length];
            for (int i = 0; i < startBytes.length; i++) {
                starts[i] = ActiveSpecSerializer.fromBytes(startBytes[i]);
            }
            using = new ActiveSpec[starts.length];
            decoders = new CriteoDecoder[starts.length];
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
     * keys}; with {@code countFields}, each field's bytes are counted. Returns what was decoded.
     */
    CriteoDecoder.Decoded decode(
            int p,
            ActiveSpec active,
            RawChunk chunk,
            boolean countFields,
            Consumer<DenseChunk> dense,
            Collector<KeyChunk> keys) {
        ActiveSpec spec = spec(p, active);
        if (using[p] == null || using[p].version() != spec.version()) {
            using[p] = spec;
            decoders[p] = new CriteoDecoder(spec.options(maxRawBytes), measure);
        }
        CriteoDecoder.Decoded decoded = decoders[p].decode(chunk, countFields);
        dense.accept(decoded.dense());
        for (KeyChunk k : decoded.keys()) {
            keys.collect(k);
        }
        return decoded;
    }
}
