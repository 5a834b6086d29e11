package dev.piper.job.spec;

import dev.piper.operators.decode.ColumnProgram;
import dev.piper.operators.decode.DecodeOptions;
import dev.piper.operators.ops.Chains;
import dev.piper.operators.ops.IdMap;
import dev.piper.operators.ops.Op;
import dev.piper.operators.vocab.VocabularyImport;
import java.io.IOException;
import java.nio.file.Path;
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
                    ops.add(new Op.Modulus(maxIndRange));
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

    /**
     * Reads every file {@code spec} names (vocabularies to import, mapid tables) as the operators
     * will, and returns what keeps one from being read (each naming its column), or nothing. The
     * operators read the files where they run: this check is for jobs that start on this machine.
     */
    public static List<String> fileProblems(PipelineSpec spec) {
        List<String> problems = new ArrayList<>();
        for (PipelineSpec.Column c : spec.columns()) {
            for (Op op : c.ops()) {
                try {
                    if (op instanceof Op.Vocab v && v.policy().importPath() != null) {
                        VocabularyImport.read(v.policy());
                    } else if (op instanceof Op.MapIdOp m) {
                        IdMap.read(Path.of(m.file()));
                    }
                } catch (IOException e) {
                    String what = op instanceof Op.Vocab ? "vocab import" : op.name();
                    problems.add("columns." + c.name() + ": " + what + ": " + e.getMessage());
                }
            }
        }
        return problems;
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
                maxRawBytes);
    }
}
