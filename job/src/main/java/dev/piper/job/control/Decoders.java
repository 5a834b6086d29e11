package dev.piper.job.control;

import dev.piper.operators.block.Lanes;
import dev.piper.operators.decode.CriteoDecoder;

/**
 * One decoder per pipeline of a job, each built for the spec its pipeline decodes with and rebuilt
 * when that spec changes. Not thread-safe: one per subtask.
 */
final class Decoders {

    private final ActiveSpec[] starts;
    private final int maxRawBytes;
    private final ActiveSpec[] using;
    private final CriteoDecoder[] decoders;

    /**
     * @param starts each pipeline's starting spec, by index, as {@link
     *     ActiveSpecSerializer#toBytes} wrote them
     */
    Decoders(byte[][] starts, int maxRawBytes) {
        this.starts = new ActiveSpec[starts.length];
        for (int i = 0; i < starts.length; i++) {
            this.starts[i] = ActiveSpecSerializer.fromBytes(starts[i]);
        }
        this.maxRawBytes = maxRawBytes;
        this.using = new ActiveSpec[starts.length];
        this.decoders = new CriteoDecoder[starts.length];
    }

    /** The starting specs as shipped into the cluster. */
    static byte[][] bytes(ActiveSpec[] starts) {
        byte[][] b = new byte[starts.length][];
        for (int i = 0; i < starts.length; i++) {
            b[i] = ActiveSpecSerializer.toBytes(starts[i]);
        }
        return b;
    }

    /** The index of {@code lane}'s pipeline, checked. */
    int pipeline(int lane) {
        int p = Lanes.pipeline(lane);
        if (p >= starts.length) {
            throw new IllegalStateException(
                    "lane " + lane + " belongs to pipeline " + p + " of " + starts.length);
        }
        return p;
    }

    /** The name of pipeline {@code p}. */
    String name(int p) {
        return starts[p].name();
    }

    /**
     * The decoder of pipeline {@code p} for {@code active}, or for its starting spec if {@code
     * active} is null.
     */
    CriteoDecoder decoder(int p, ActiveSpec active) {
        ActiveSpec spec = active == null ? starts[p] : active;
        if (using[p] == null || using[p].version() != spec.version()) {
            using[p] = spec;
            decoders[p] = new CriteoDecoder(spec.options(maxRawBytes));
        }
        return decoders[p];
    }
}
