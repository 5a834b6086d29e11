package dev.piper.benchmarks.bench;

import dev.piper.benchmarks.bench.Bench.Regime;
import dev.piper.benchmarks.bench.Bench.Result;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The stages {@link Bench} measures in one thread without Flink: the text decoder alone and with
 * the fused column work, RAP's fused and unfused column passes, Parquet's reader and the event
 * decoders (JSON, CSV, Avro). Each gets a warm-up pass, then the best of the repeats on the full
 * and the half input; a pass that did not read every generated line measures nothing.
 */
final class SingleThreadStages {

    /** How a regime is named in results. */
    private final Function<Regime, String> label;

    private final long rows;
    private final int blockBytes;
    private final int repeat;

    /** The decode options of the text stages: the preset's spec, or the built-in spec's. */
    private final DecodeOptions options;

    private final BenchInputs inputs;
    private final PrintStream progress;

    SingleThreadStages(
            Function<Regime, String> label,
            long rows,
            int blockBytes,
            int repeat,
            DecodeOptions options,
            BenchInputs inputs,
            PrintStream progress) {
        this.label = label;
        this.rows = rows;
        this.blockBytes = blockBytes;
        this.repeat = repeat;
        this.options = options;
        this.inputs = inputs;
        this.progress = progress;
    }

    /**
     * JSON events decoded in one thread without Flink: under the hex2int spec (first verified: the
     * smaller file's decoded values must hash as its text's) and under hash64.
     */
    List<Result> eventLoops(Regime regime, Path half, Path jFull, Path jHalf, String kind)
            throws Exception {
        boolean longIds = kind.equals("avro, long ids");
        String format = kind.startsWith("avro") ? "avro" : kind;
        String name =
                longIds
                        ? "Avro events, long ids,"
                        : switch (format) {
                            case "avro" -> "Avro events";
                            case "csv" -> "CSV lines";
                            default -> "JSON events";
                        };
        progress.printf("bench %s: %s decode, no Flink%n", regime.name(), name);
        DecodeOptions hex = inputs.eventsOptions(format, "hex2int", jHalf);
        if (!SingleThreadLoops.decodedSha256(jHalf, blockBytes, hex)
                .equals(SingleThreadLoops.decodedSha256(half, blockBytes, options, true))) {
            throw new IllegalStateException(
                    jHalf + ": its decoded values differ from those of " + half);
        }
        List<Result> out = new ArrayList<>();
        // ids that are longs are no text to hash
        for (String parser : longIds ? List.of("hex2int") : List.of("hex2int", "hash64")) {
            DecodeOptions o = inputs.eventsOptions(format, parser, jHalf);
            SingleThreadLoops.decodeAny(jHalf, blockBytes, o); // warm-up
            SingleThreadLoops.Pass bestFull = null;
            SingleThreadLoops.Pass bestHalf = null;
            for (int i = 0; i < repeat; i++) {
                bestFull = faster(bestFull, SingleThreadLoops.decodeAny(jFull, blockBytes, o));
                bestHalf = faster(bestHalf, SingleThreadLoops.decodeAny(jHalf, blockBytes, o));
            }
            checkRead(bestFull, rows, jFull);
            checkRead(bestHalf, rows / 2, jHalf);
            out.add(
                    result(
                            regime,
                            name + " decode (" + parser + "), 1 thread, no Flink",
                            1,
                            Files.size(jFull),
                            Files.size(jHalf),
                            bestFull.seconds(),
                            bestHalf.seconds(),
                            parser.equals("hex2int")));
        }
        return out;
    }

    /**
     * Parquet read and decode without Flink, on as many threads as each parallelism; first
     * verified: the decoded rows of the smaller file must hash as those of its text.
     */
    List<Result> parquetLoops(
            Regime regime, Path full, Path half, Path pFull, Path pHalf, List<Integer> parallelisms)
            throws Exception {
        progress.printf("bench %s: Parquet read + column ops, no Flink%n", regime.name());
        DecodeOptions options = DecodeOptions.defaults();
        if (!ParquetLoops.rowsSha256(pHalf, Bench.PARQUET_BLOCK_ROWS, options.program())
                .equals(ParquetLoops.textRowsSha256(half, blockBytes, options))) {
            throw new IllegalStateException(
                    pHalf + ": its decoded rows differ from those of " + half);
        }
        List<Result> out = new ArrayList<>();
        for (int p : parallelisms) {
            for (int i = 0; i < 2; i++) { // warm-up: the JIT compiles the reader's loops
                ParquetLoops.read(pHalf, p, Bench.PARQUET_BLOCK_ROWS, options.program());
            }
            SingleThreadLoops.Pass bestFull = null;
            SingleThreadLoops.Pass bestHalf = null;
            for (int i = 0; i < repeat; i++) {
                bestFull =
                        faster(
                                bestFull,
                                ParquetLoops.read(
                                        pFull, p, Bench.PARQUET_BLOCK_ROWS, options.program()));
                bestHalf =
                        faster(
                                bestHalf,
                                ParquetLoops.read(
                                        pHalf, p, Bench.PARQUET_BLOCK_ROWS, options.program()));
            }
            checkRead(bestFull, rows, pFull);
            checkRead(bestHalf, rows / 2, pHalf);
            out.add(
                    result(
                            regime,
                            "Parquet read + column ops, no Flink",
                            p,
                            Files.size(pFull),
                            Files.size(pHalf),
                            bestFull.seconds(),
                            bestHalf.seconds(),
                            true));
        }
        return out;
    }

    /** Resource of the spec whose column passes the fusion measurement runs. */
    static final String RAP_SPEC = "/specs/rap-criteo.json";

    /**
     * RAP's horizontal fusion: decoding under {@link #RAP_SPEC} with its column passes fused and
     * with one pass per column and operator, alternating; both must decode the same values (sha256
     * of every decoded value of the smaller input, outside the timing).
     */
    List<Result> fusion(Regime regime, Path full, Path half) throws IOException {
        progress.printf("bench %s: column passes fused and unfused%n", regime.name());
        DecodeOptions options;
        try (InputStream in = Bench.class.getResourceAsStream(RAP_SPEC)) {
            PipelineSpec spec = SpecParser.parse(in.readAllBytes(), RAP_SPEC);
            options = SpecCompiler.decodeOptions(spec, DecodeOptions.DEFAULT_MAX_RAW_BYTES);
        } catch (SpecException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        Loop fused = (input, b, o) -> SingleThreadLoops.decode(input, b, o, true);
        Loop unfused = (input, b, o) -> SingleThreadLoops.decode(input, b, o, false);
        fused.run(half, blockBytes, options);
        unfused.run(half, blockBytes, options);
        SingleThreadLoops.Pass[] best = new SingleThreadLoops.Pass[4];
        for (int i = 0; i < repeat; i++) {
            best[0] = faster(best[0], fused.run(full, blockBytes, options));
            best[1] = faster(best[1], unfused.run(full, blockBytes, options));
            best[2] = faster(best[2], fused.run(half, blockBytes, options));
            best[3] = faster(best[3], unfused.run(half, blockBytes, options));
        }
        long fullBytes = Files.size(full);
        long halfBytes = Files.size(half);
        boolean same =
                SingleThreadLoops.decodedSha256(half, blockBytes, options, true)
                        .equals(SingleThreadLoops.decodedSha256(half, blockBytes, options, false));
        if (!same) {
            throw new IllegalStateException(
                    "regime " + regime.name() + ": fused and unfused column passes decode apart");
        }
        return List.of(
                result(
                        regime,
                        "decode + RAP column ops fused, 1 thread",
                        1,
                        fullBytes,
                        halfBytes,
                        best[0].seconds(),
                        best[2].seconds(),
                        true),
                result(
                        regime,
                        "decode + RAP column ops, a pass per column",
                        1,
                        fullBytes,
                        halfBytes,
                        best[1].seconds(),
                        best[3].seconds(),
                        true));
    }

    private static SingleThreadLoops.Pass faster(
            SingleThreadLoops.Pass best, SingleThreadLoops.Pass run) {
        return best == null || run.seconds() < best.seconds() ? run : best;
    }

    /** A single-thread loop over one input file. */
    interface Loop {
        SingleThreadLoops.Pass run(Path input, int blockBytes, DecodeOptions options)
                throws IOException;
    }

    record LoopResult(Result result, SingleThreadLoops.Pass full, SingleThreadLoops.Pass half) {}

    /** One warm-up pass, then the best of the repeats on each input. */
    LoopResult loop(Regime regime, String stage, Path full, Path half, Loop loop)
            throws IOException {
        loop.run(half, blockBytes, options);
        SingleThreadLoops.Pass bestFull = best(loop, full, options);
        SingleThreadLoops.Pass bestHalf = best(loop, half, options);
        checkRead(bestFull, rows, full);
        checkRead(bestHalf, rows / 2, half);
        Result r =
                result(
                        regime,
                        stage,
                        1,
                        Files.size(full),
                        Files.size(half),
                        bestFull.seconds(),
                        bestHalf.seconds(),
                        true);
        return new LoopResult(r, bestFull, bestHalf);
    }

    /** A pass that did not see every generated line (a truncated cached input) measures nothing. */
    private static void checkRead(SingleThreadLoops.Pass pass, long expected, Path input) {
        if (pass.lines() != expected || pass.rows() != expected) {
            throw new IllegalStateException(
                    input
                            + ": a pass read "
                            + pass.lines()
                            + " lines and "
                            + pass.rows()
                            + " rows, expected "
                            + expected
                            + " of each; delete it to regenerate");
        }
    }

    private SingleThreadLoops.Pass best(Loop loop, Path input, DecodeOptions options)
            throws IOException {
        SingleThreadLoops.Pass best = null;
        for (int i = 0; i < repeat; i++) {
            SingleThreadLoops.Pass p = loop.run(input, blockBytes, options);
            if (best == null || p.seconds() < best.seconds()) {
                best = p;
            }
        }
        return best;
    }

    Result result(
            Regime regime,
            String stage,
            int parallelism,
            long fullBytes,
            long halfBytes,
            double tFull,
            double tHalf,
            boolean verified) {
        return Result.marginal(
                label.apply(regime),
                regime.scale(),
                stage,
                parallelism,
                rows,
                fullBytes,
                halfBytes,
                tFull,
                tHalf,
                verified);
    }
}
