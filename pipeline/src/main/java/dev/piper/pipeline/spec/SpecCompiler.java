package dev.piper.pipeline.spec;

import dev.piper.pipeline.input.EventFields;
import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.ops.Chains;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import java.util.ArrayList;
import java.util.List;

/** Turns a validated spec into what the operators run. */
public final class SpecCompiler {

    private SpecCompiler() {}

    /** The column chains of {@code spec}, every vocabulary in epoch 0. */
    public static ColumnProgram program(PipelineSpec spec) {
        return program(spec, new int[spec.layout().sparse()]);
    }

    /** The column chains of {@code spec}, with each sparse column's vocabulary epoch. */
    public static ColumnProgram program(PipelineSpec spec, int[] epochs) {
        List<List<Op>> chains = new ArrayList<>(spec.layout().fields());
        for (PipelineSpec.Column column : spec.columns()) {
            chains.add(column.ops());
        }
        return new ColumnProgram(spec.name(), spec.version(), spec.layout(), chains, epochs);
    }

    /**
     * The built-in DLRM spec with the command line's settings: {@code maxIndRange} (if positive) as
     * every sparse column's modulus, padding and the line limit.
     */
    public static PipelineSpec dlrm(long maxIndRange, boolean padMissingFields, int maxLineBytes) {
        PipelineSpec builtin = SpecParser.builtin();
        List<PipelineSpec.Column> columns = new ArrayList<>();
        for (PipelineSpec.Column c : builtin.columns()) {
            if (c.kind() != Chains.Kind.sparse || maxIndRange <= 0) {
                columns.add(c);
                continue;
            }
            List<Op> ops = new ArrayList<>();
            for (Op op : c.ops()) {
                if (op instanceof Op.Vocab) {
                    ops.add(new IdOp.Modulus(maxIndRange));
                }
                ops.add(op);
            }
            columns.add(new PipelineSpec.Column(c.name(), c.kind(), List.copyOf(ops)));
        }
        return new PipelineSpec(
                builtin.name(),
                builtin.version(),
                builtin.input(),
                List.copyOf(columns),
                new PipelineSpec.Output(builtin.output().format(), padMissingFields, maxLineBytes));
    }

    /** The decoder settings of {@code spec}. */
    public static DecodeOptions decodeOptions(PipelineSpec spec, int maxRawBytes) {
        return decodeOptions(spec, new int[spec.layout().sparse()], maxRawBytes);
    }

    /** The decoder settings of {@code spec}, with each sparse column's vocabulary epoch. */
    public static DecodeOptions decodeOptions(PipelineSpec spec, int[] epochs, int maxRawBytes) {
        return new DecodeOptions(
                program(spec, epochs),
                spec.output().padMissingFields(),
                spec.output().maxLineBytes(),
                maxRawBytes,
                events(spec));
    }

    /**
     * Where each field of {@code spec}'s input is read from, for a format of named fields; null for
     * Criteo's positional text.
     */
    public static EventFields events(PipelineSpec spec) {
        InputFormat format =
                InputFormat.of(spec.input().format())
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "unknown input format " + spec.input().format()));
        return format.namedFields()
                ? EventFields.of(
                                format,
                                spec.layout(),
                                spec.input().fields(),
                                spec.input().csv(),
                                spec.input().avro(),
                                spec.input().protobuf())
                        .withTime(spec.input().eventTime())
                : null;
    }
}
