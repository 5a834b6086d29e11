package dev.piper.core.control;

import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A pipeline's spec as the job runs it: the validated spec and each sparse column's vocabulary
 * epoch. The spec a job starts with has epoch 0 everywhere; each accepted switch {@link #next
 * advances} the epoch of every sparse column whose chain before the vocabulary changed, and keeps
 * the others, so their vocabularies (and ids) carry over.
 *
 * @param spec the spec
 * @param epochs per sparse column of the spec's layout (C1..), its vocabulary epoch
 */
public record ActiveSpec(PipelineSpec spec, int[] epochs) {

    public ActiveSpec {
        Objects.requireNonNull(spec);
        if (epochs.length != spec.layout().sparse()) {
            throw new IllegalArgumentException(
                    epochs.length + " epochs; one per sparse column expected");
        }
        epochs = epochs.clone();
    }

    /** A job's starting spec: every vocabulary in epoch 0. */
    public static ActiveSpec initial(PipelineSpec spec) {
        return new ActiveSpec(spec, new int[spec.layout().sparse()]);
    }

    public String name() {
        return spec.name();
    }

    public int version() {
        return spec.version();
    }

    @Override
    public int[] epochs() {
        return epochs.clone();
    }

    /** The column operators, with the epochs. */
    public ColumnProgram program() {
        return SpecCompiler.program(spec, epochs);
    }

    /** The decoder settings. */
    public DecodeOptions options(int maxRawBytes) {
        return SpecCompiler.decodeOptions(spec, epochs, maxRawBytes);
    }

    /**
     * {@code newer} as the successor of this spec: sparse columns whose chain differs (its
     * vocabulary policy included) get the next epoch, the others keep theirs. A spec of another
     * input layout starts every sparse column of its own in a new epoch above all the current ones:
     * a column's place means another field now, and since every epoch a column ever had is at most
     * the current maximum (each layout switch lifts all columns above it), even a column that comes
     * back after a layout without it gets ids of its own.
     */
    public ActiveSpec next(PipelineSpec newer) {
        ColumnProgram before = program();
        ColumnProgram after = SpecCompiler.program(newer);
        if (!after.layout().equals(before.layout())) {
            int top = 0;
            for (int e : epochs) {
                top = Math.max(top, e);
            }
            int[] all = new int[after.layout().sparse()];
            Arrays.fill(all, top + 1);
            return new ActiveSpec(newer, all);
        }
        int[] next = epochs.clone();
        for (int c = 0; c < next.length; c++) {
            int f = before.layout().sparseField(c);
            if (!before.chainOf(f).equals(after.chainOf(f))) {
                next[c]++;
            }
        }
        return new ActiveSpec(newer, next);
    }

    /**
     * The fields (label, I1.., C1..) whose stateless chain differs between this and {@code o}; all
     * of {@code o}'s when its input layout is another.
     */
    public List<String> changedFields(ActiveSpec o) {
        ColumnProgram a = program();
        ColumnProgram b = o.program();
        List<String> changed = new ArrayList<>();
        if (!a.layout().equals(b.layout())) {
            for (int f = 0; f < b.layout().fields(); f++) {
                changed.add(b.layout().fieldName(f));
            }
            return changed;
        }
        for (int f = 0; f < Math.min(a.layout().fields(), b.layout().fields()); f++) {
            if (!a.chainOf(f).equals(b.chainOf(f))) {
                changed.add(a.layout().fieldName(f));
            }
        }
        return changed;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ActiveSpec a && spec.equals(a.spec) && Arrays.equals(epochs, a.epochs);
    }

    @Override
    public int hashCode() {
        return 31 * spec.hashCode() + Arrays.hashCode(epochs);
    }

    @Override
    public String toString() {
        return spec.name() + "/" + spec.version() + " epochs " + Arrays.toString(epochs);
    }
}
