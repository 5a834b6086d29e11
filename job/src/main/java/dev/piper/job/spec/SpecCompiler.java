package dev.piper.job.spec;

import dev.piper.operators.decode.ColumnProgram;
import dev.piper.operators.decode.CriteoLayout;
import dev.piper.operators.decode.DecodeOptions;

/** Turns a validated spec into what the operators run. */
public final class SpecCompiler {

    private SpecCompiler() {}

    /** The per-column stateless operators of {@code spec}. */
    public static ColumnProgram program(PipelineSpec spec) {
        long[] modulus = new long[CriteoLayout.SPARSE];
        boolean[] neg2zero = new boolean[CriteoLayout.LABEL_DENSE_WIDTH];
        boolean[] log = new boolean[CriteoLayout.LABEL_DENSE_WIDTH];
        int f = 0;
        for (PipelineSpec.Column column : spec.columns()) {
            long m = -1;
            for (Op op : column.ops()) {
                if (op instanceof Op.Modulus mod) {
                    m = mod.m();
                } else if (op instanceof Op.Neg2Zero) {
                    neg2zero[f] = true;
                } else if (op instanceof Op.Log) {
                    log[f] = true;
                }
            }
            if (f > CriteoLayout.DENSE) {
                modulus[f - 1 - CriteoLayout.DENSE] = m;
            }
            f++;
        }
        return new ColumnProgram(spec.name(), spec.version(), modulus, neg2zero, log);
    }

    /** The decoder settings of {@code spec}. */
    public static DecodeOptions decodeOptions(PipelineSpec spec, int maxRawBytes) {
        return new DecodeOptions(
                program(spec),
                spec.output().padMissingFields(),
                spec.output().maxLineBytes(),
                maxRawBytes);
    }
}
