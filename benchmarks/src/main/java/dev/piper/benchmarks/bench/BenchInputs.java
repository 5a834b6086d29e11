package dev.piper.benchmarks.bench;

import dev.piper.convert.TsvToAvro;
import dev.piper.convert.TsvToCsv;
import dev.piper.convert.TsvToJson;
import dev.piper.convert.TsvToParquet;
import dev.piper.core.chunk.AvroBlockChunker;
import dev.piper.pipeline.generate.CriteoAvro;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.input.AvroOptions;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The inputs {@link Bench} measures on: generated lines of a regime (Criteo's layout, or a
 * preset's), and their Parquet, JSON, CSV and Avro conversions, each made once into a temporary
 * file moved into place and cached in the data directory; and the specs that read the events as the
 * text's rows.
 */
final class BenchInputs {

    private final Path dataDir;
    private final long seed;

    /** The preset whose layout the lines have; null: Criteo's. */
    private final Presets.Preset preset;

    private final RowLayout layout;
    private final PrintStream progress;

    BenchInputs(
            Path dataDir,
            long seed,
            Presets.Preset preset,
            RowLayout layout,
            PrintStream progress) {
        this.dataDir = dataDir;
        this.seed = seed;
        this.preset = preset;
        this.layout = layout;
        this.progress = progress;
    }

    /**
     * The events spec ({@code format} json or avro) of the built-in chains: events decode to the
     * text's rows under it.
     */
    String eventsSpec(String format, String idParser) {
        String input =
                format.equals("csv")
                        ? "{\"format\": \"csv\", \"header\": true, \"columns\": [\""
                                + String.join("\", \"", TsvToCsv.columns(layout))
                                + "\"]}"
                        : "{\"format\": \"" + format + "\"}";
        return """
                {"name": "dlrm-criteo-events", "version": 1, "input": %s,
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1..I13": ["decode", "fill_missing", "neg2zero"],
                   "C1..C26": ["decode", "fill_missing", "%s", "vocab"]
                 }}
                """
                .formatted(input, idParser);
    }

    /** The decode options of {@link #eventsSpec}; Avro's with the schema of {@code file}'s. */
    DecodeOptions eventsOptions(String format, String idParser, Path file) throws IOException {
        DecodeOptions o;
        try {
            o =
                    SpecCompiler.decodeOptions(
                            SpecParser.parse(
                                    eventsSpec(format, idParser).getBytes(StandardCharsets.UTF_8),
                                    "events spec"),
                            DecodeOptions.DEFAULT_MAX_RAW_BYTES);
        } catch (SpecException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        if (!format.equals("avro")) {
            return o;
        }
        String schema;
        try (InputStream in = Files.newInputStream(file)) {
            schema = AvroBlockChunker.writerSchema(in);
        }
        return o.withEvents(o.events().withAvro(AvroOptions.CONTAINER.withSchema(schema)));
    }

    /**
     * The Avro events of a generated input ({@code piper convert --output-format avro}, no codec),
     * made once and cached.
     */
    Path avroEvents(Path tsv, boolean longIds) throws IOException {
        Path file =
                tsv.resolveSibling(
                        tsv.getFileName()
                                .toString()
                                .replace(".tsv", longIds ? "-longids.avro" : ".avro"));
        if (!Files.exists(file)) {
            progress.printf("bench: converting %s to Avro events%n", tsv.getFileName());
            Path tmp = Files.createTempFile(dataDir, "converting-", ".avro");
            Files.delete(tmp);
            TsvToAvro.Result r =
                    TsvToAvro.convert(tsv, tmp, new CriteoAvro(layout, longIds), "null", progress);
            Files.delete(TsvToAvro.rejectedFile(tmp));
            if (r.rejected() > 0) {
                throw new IllegalStateException(
                        tsv
                                + ": "
                                + r.rejected()
                                + " lines have no Avro record (generated input?)");
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        return file;
    }

    /** The CSV of a generated input ({@code piper convert --output-format csv}), made once. */
    Path csvEvents(Path tsv) throws IOException {
        return converted(
                tsv, ".csv", "CSV", (in, out) -> TsvToCsv.convert(in, out, layout, progress));
    }

    /** The JSON events of a generated input ({@code piper convert}), made once and cached. */
    Path events(Path tsv) throws IOException {
        return converted(
                tsv,
                ".jsonl",
                "JSON events",
                (in, out) -> TsvToJson.convert(in, out, layout, progress));
    }

    /** A conversion of a generated input to a file. */
    private interface Conversion {
        void convert(Path tsv, Path out) throws IOException;
    }

    /**
     * {@code tsv} converted to the file beside it ending in {@code extension} instead of .tsv, made
     * once (into a temporary file moved into place) and cached.
     */
    private Path converted(Path tsv, String extension, String what, Conversion conversion)
            throws IOException {
        Path file = tsv.resolveSibling(tsv.getFileName().toString().replace(".tsv", extension));
        if (!Files.exists(file)) {
            progress.printf("bench: converting %s to %s%n", tsv.getFileName(), what);
            Path tmp = Files.createTempFile(dataDir, "converting-", extension);
            Files.delete(tmp);
            conversion.convert(tsv, tmp);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        return file;
    }

    /**
     * The Parquet conversion of a generated input ({@code piper convert}), made once and cached.
     */
    Path parquet(Path tsv) throws IOException {
        Path file = tsv.resolveSibling(tsv.getFileName().toString().replace(".tsv", ".parquet"));
        if (!Files.exists(file)) {
            progress.printf("bench: converting %s to Parquet%n", tsv.getFileName());
            Path tmp = Files.createTempFile(dataDir, "converting-", ".parquet");
            Files.delete(tmp);
            Path dead = dataDir.resolve("converting.dead-letters.jsonl");
            TsvToParquet.convert(
                    tsv,
                    tmp,
                    dead,
                    DecodeOptions.defaults(),
                    CompressionCodecName.SNAPPY,
                    TsvToParquet.DEFAULT_ROW_GROUP_ROWS,
                    progress);
            Files.delete(dead);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        return file;
    }

    /** The generated input of {@code n} lines for {@code regime}, generated once and cached. */
    Path data(Bench.Regime regime, long n) throws IOException {
        Path file =
                dataDir.resolve(
                        String.format(
                                "%s-seed%d-scale%s-rows%d.tsv",
                                preset == null ? "criteo" : preset.name(),
                                seed,
                                BenchResults.plain(regime.scale()),
                                n));
        if (!Files.exists(file)) {
            progress.printf(
                    "bench: generating %,d lines at scale %s into %s%n",
                    n, BenchResults.plain(regime.scale()), file);
            Path tmp = Files.createTempFile(dataDir, "generating-", ".tsv");
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20)) {
                (preset == null
                                ? new CriteoGenerator(seed, regime.scale(), 0)
                                : new CriteoGenerator(
                                        layout, seed, regime.scale(), 0, preset.meanListLength()))
                        .write(out, n);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        return file;
    }
}
