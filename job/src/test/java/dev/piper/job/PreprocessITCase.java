package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.convert.TsvToParquet;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.output.OutputLayout;
import dev.piper.output.RowShards;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The batch contract end to end on a shared MiniCluster (2 task managers x 2 slots): the job's
 * output equals {@link ReferencePreprocessor}'s byte for byte, and is the same at every
 * parallelism, block size and state backend.
 */
class PreprocessITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    private static final PrintStream QUIET = TestClusters.QUIET;
    private static final int GENERATED_ROWS = 200_000;

    @TempDir static Path shared;
    @TempDir Path tmp;

    /** 200k generated lines, 1% malformed of every kind, 64-bit ids in C3 and C16. */
    private static Path generated;

    @BeforeAll
    static void generate() throws IOException {
        generated = shared.resolve("generated.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(generated))) {
            new CriteoGenerator(20261122, 0.01, 0.01).write(out, GENERATED_ROWS);
        }
    }

    private Path preprocess(Path input, int parallelism, Configuration extra, StateBackend backend)
            throws Exception {
        Path out = Files.createTempDirectory(tmp, "out-");
        Preprocess.prepareOutput(out, false);
        Preprocess.run(input, out, parallelism, backend, extra, QUIET);
        return out;
    }

    private Path preprocess(Path input, int parallelism, Configuration extra) throws Exception {
        return preprocess(input, parallelism, extra, StateBackend.hashmap);
    }

    private static Configuration options(long maxIndRange, boolean pad) {
        Configuration conf = new Configuration();
        conf.set(PiperOptions.MAX_IND_RANGE, maxIndRange);
        conf.set(PiperOptions.PAD_MISSING_FIELDS, pad);
        return conf;
    }

    @ParameterizedTest(name = "max-ind-range {0}")
    @ValueSource(longs = {-1, 5000})
    void generatedInputMatchesTheReference(long maxIndRange) throws Exception {
        Path out = preprocess(generated, 2, options(maxIndRange, false));
        assertMatchesReference(generated, out, maxIndRange, false);
    }

    @Test
    void crlfLineEndingsAndAMissingFinalNewline() throws Exception {
        String text = Files.readString(generated, StandardCharsets.ISO_8859_1);
        String firstLines = text.substring(0, nthNewline(text, 20_000));
        Path crlf = tmp.resolve("crlf.tsv");
        Files.writeString(crlf, firstLines.replace("\n", "\r\n"), StandardCharsets.ISO_8859_1);
        Path out = preprocess(crlf, 2, options(-1, false));
        assertMatchesReference(crlf, out, -1, false);
        byte[] bytes = Files.readAllBytes(crlf);
        assertThat(new String(bytes, StandardCharsets.ISO_8859_1)).contains("\r\n");
        assertThat(bytes[bytes.length - 1])
                .as("no final line break")
                .isNotIn((byte) '\n', (byte) '\r');
    }

    @Test
    void gzipInputGivesTheSameOutputAsThePlainFile() throws Exception {
        Path gz = tmp.resolve("generated.tsv.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            Files.copy(generated, out);
        }
        Path fromGz = preprocess(gz, 2, options(-1, false));
        assertMatchesReference(generated, fromGz, -1, false);
    }

    @Test
    void realPaddleRecTrainSample() throws Exception {
        Path input = fixture("paddlerec_criteo_sample_train.tsv");
        Path out = preprocess(input, 2, options(-1, false));
        assertMatchesReference(input, out, -1, false);
        JsonNode meta = metadata(out);
        assertThat(meta.get("rows_written").asLong()).isEqualTo(100);
        assertThat(meta.get("dead_letters").asLong()).isZero();
    }

    @ParameterizedTest(name = "pad-missing-fields {0}")
    @ValueSource(booleans = {false, true})
    void realPaddleRecTestSampleWithAndWithoutPadding(boolean pad) throws Exception {
        Path input = fixture("paddlerec_criteo_sample_test.tsv");
        Path out = preprocess(input, 2, options(-1, pad));
        assertMatchesReference(input, out, -1, pad);
        JsonNode meta = metadata(out);
        assertThat(meta.get("rows_written").asLong()).isEqualTo(pad ? 100 : 61);
        assertThat(meta.get("dead_letters_by_reason").get("wrong_field_count").asLong())
                .isEqualTo(pad ? 0 : 39);
    }

    /** Parallelism 1, 2 and 4, and small blocks, give the same bytes in every output file. */
    @Test
    void identicalOutputAtEveryParallelismAndBlockSize() throws Exception {
        Map<String, String> p1 =
                SameOutput.sha256OfEveryFile(preprocess(generated, 1, options(-1, false)));
        Map<String, String> p2 =
                SameOutput.sha256OfEveryFile(preprocess(generated, 2, options(-1, false)));
        Map<String, String> p4 =
                SameOutput.sha256OfEveryFile(preprocess(generated, 4, options(-1, false)));
        Configuration smallBlocks = options(-1, false);
        // the smallest blocks allowed, a prime size: ~250 lines; ranges end mid-line
        smallBlocks.set(PiperOptions.BLOCK_BYTES, 65_537);
        Map<String, String> small =
                SameOutput.sha256OfEveryFile(preprocess(generated, 3, smallBlocks));
        assertThat(p1).hasSize(3 + 26);
        assertThat(p2).isEqualTo(p1);
        assertThat(p4).isEqualTo(p1);
        assertThat(small).isEqualTo(p1);
    }

    /**
     * Sharded output at parallelism 2 and 3: the shard files concatenated in manifest order are the
     * single run's rows.bin, every other file but metadata.json is the same, and metadata.json
     * differs only in naming the manifest. Small blocks, 16 per shard: about 50 shards.
     */
    @Test
    void shardedOutputConcatenatesToTheSingleRowsFile() throws Exception {
        Configuration plain = options(-1, false);
        plain.set(PiperOptions.BLOCK_BYTES, 65_537);
        Path single = preprocess(generated, 2, plain);
        Map<String, String> singleFiles = SameOutput.sha256OfEveryFile(single);
        JsonNode singleMeta = new ObjectMapper().readTree(single.resolve("metadata.json").toFile());
        for (int p : new int[] {2, 3}) {
            Configuration conf = options(-1, false);
            conf.set(PiperOptions.BLOCK_BYTES, 65_537);
            conf.set(PiperOptions.SHARD_BLOCKS, 16);
            Path sharded = preprocess(generated, p, conf);
            List<Path> files = RowShards.files(sharded);
            long blocks = (Files.size(generated) + 65_536) / 65_537;
            assertThat(files).hasSize((int) ((blocks + 15) / 16));
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Path f : files) {
                sha.update(Files.readAllBytes(f));
            }
            assertThat(HexFormat.of().formatHex(sha.digest()))
                    .as("the shards of parallelism %d concatenated", p)
                    .isEqualTo(singleFiles.get(OutputLayout.ROWS));
            Map<String, String> shardedFiles = SameOutput.sha256OfEveryFile(sharded);
            Map<String, String> others = new TreeMap<>(singleFiles);
            others.remove(OutputLayout.ROWS);
            others.remove(OutputLayout.METADATA);
            assertThat(shardedFiles).containsAllEntriesOf(others);
            assertThat(shardedFiles.keySet())
                    .allMatch(
                            f ->
                                    others.containsKey(f)
                                            || f.startsWith("rows/")
                                            || f.equals("metadata.json"));
            JsonNode meta = new ObjectMapper().readTree(sharded.resolve("metadata.json").toFile());
            assertThat(meta.get("rows_file").asText()).isEqualTo(OutputLayout.ROWS_MANIFEST);
            assertThat(meta.get("rows_shards").asInt()).isEqualTo(files.size());
            singleMeta
                    .fieldNames()
                    .forEachRemaining(
                            k -> {
                                if (!k.equals("rows_file")) {
                                    assertThat(meta.get(k)).as(k).isEqualTo(singleMeta.get(k));
                                }
                            });
        }
        // what sharding does not combine with is refused up front, naming the option
        Configuration parquetRows = options(-1, false);
        parquetRows.set(PiperOptions.SHARD_BLOCKS, 4);
        parquetRows.set(PiperOptions.OUTPUT_FORMAT, "parquet");
        assertThatThrownBy(() -> Preprocess.job(generated, tmp.resolve("refused"), parquetRows))
                .hasMessage(
                        "piper.output.shard-blocks: sharded output writes dlrm-rows, not parquet");
        Configuration split = options(-1, false);
        split.set(PiperOptions.SHARD_BLOCKS, 4);
        split.set(HotlineOptions.BUDGET, 1L << 20);
        assertThatThrownBy(() -> Preprocess.job(generated, tmp.resolve("refused"), split))
                .hasMessageStartingWith(
                        "piper.output.shard-blocks: sharded output does not combine with Hotline's split");
    }

    @Test
    void rocksDbStateBackendGivesIdenticalOutput() throws Exception {
        Path rocksDir = tmp.resolve("rocksdb-local");
        Configuration conf = options(5000, false);
        conf.setString("state.backend.rocksdb.localdir", rocksDir.toString());
        Path rocks = preprocess(generated, 2, conf, StateBackend.rocksdb);
        Path heap = preprocess(generated, 2, options(5000, false));
        assertThat(SameOutput.sha256OfEveryFile(rocks))
                .isEqualTo(SameOutput.sha256OfEveryFile(heap));
        assertThat(rocksDir)
                .as("RocksDB created its local directory, so it really held the state")
                .isDirectory();
    }

    /**
     * Every malformation kind is reported with its code, the counts add up, and removing the
     * rejected lines gives the same rows.bin without a single dead letter.
     */
    @Test
    void deadLettersAccountForEveryLineAndRemovingThemChangesNoRow() throws Exception {
        Path out = preprocess(generated, 2, options(-1, false));
        JsonNode meta = metadata(out);
        long lines = meta.get("lines_read").asLong();
        assertThat(lines).isEqualTo(GENERATED_ROWS);
        assertThat(meta.get("rows_written").asLong() + meta.get("dead_letters").asLong())
                .isEqualTo(lines);
        for (Reason r : Reason.values()) {
            // every reason a text line can have; a damaged Parquet page is ParquetIntegrityTest's,
            // a JSON event's own reasons JsonEventDecoderTest's, a CSV line's
            // CsvEventDecoderTest's,
            // an Avro datum's AvroEventDecoderTest's, a Protobuf message's
            // ProtobufEventDecoderTest's, an event time's EventTimeDecodingTest's
            long count = meta.get("dead_letters_by_reason").get(r.code()).asLong();
            if (r == Reason.CORRUPT_PAGE
                    || r == Reason.INVALID_JSON
                    || r == Reason.WRONG_TYPE
                    || r == Reason.INVALID_CSV
                    || r == Reason.INVALID_AVRO
                    || r == Reason.UNKNOWN_SCHEMA
                    || r == Reason.INVALID_PROTOBUF
                    || r == Reason.BAD_TIMESTAMP) {
                assertThat(count).as(r.code()).isZero();
            } else {
                assertThat(count).as(r.code()).isPositive();
            }
        }
        List<JsonNode> dead = deadLetters(out);
        assertThat(dead).hasSize((int) meta.get("dead_letters").asLong());
        assertThat(dead)
                .allSatisfy(
                        d -> {
                            assertThat(d.get("raw").asText().length())
                                    .isLessThanOrEqualTo(4 * 1024);
                            assertThat(d.get("detail").asText()).isNotEmpty();
                        });

        Set<Long> rejected = new HashSet<>();
        dead.forEach(d -> rejected.add(d.get("line").asLong()));
        Path clean = tmp.resolve("clean.tsv");
        try (OutputStream w = new BufferedOutputStream(Files.newOutputStream(clean))) {
            byte[] all = Files.readAllBytes(generated);
            long line = 1;
            int start = 0;
            for (int i = 0; i < all.length; i++) {
                if (all[i] == '\n') {
                    if (!rejected.contains(line)) {
                        w.write(all, start, i + 1 - start);
                    }
                    line++;
                    start = i + 1;
                }
            }
        }
        Path again = preprocess(clean, 2, options(-1, false));
        assertThat(metadata(again).get("dead_letters").asLong()).isZero();
        assertThat(Files.readAllBytes(again.resolve(OutputLayout.ROWS)))
                .isEqualTo(Files.readAllBytes(out.resolve(OutputLayout.ROWS)));
    }

    /**
     * A spec with per-column operators: C3 gets its own modulus, the others another one; I5 gets
     * log; I2 keeps negative values (no neg2zero). The output equals the reference run with the
     * same per-column operators, and metadata.json lists each column's chain.
     */
    @Test
    void aSpecWithPerColumnOperatorsMatchesTheReference() throws Exception {
        String spec =
                """
                {"name": "criteo-c3-log5", "version": 2, "input": {"format": "criteo-tsv"},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1": ["decode", "fill_missing", "neg2zero"],
                   "I2": ["decode", "fill_missing"],
                   "I3..I4": ["decode", "fill_missing", "neg2zero"],
                   "I5": ["decode", "fill_missing", "neg2zero", "log"],
                   "I6..I13": ["decode", "fill_missing", "neg2zero"],
                   "C1..C2": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 50000}],
                   "C3": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 1000}],
                   "C4..C26": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 50000}]
                 }}
                """
                        .replace("}]", "}, \"vocab\"]");
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        Path out = preprocess(generated, 2, conf);

        long[] modulus = new long[26];
        java.util.Arrays.fill(modulus, 50000);
        modulus[2] = 1000;
        boolean[] neg2zero = new boolean[14];
        java.util.Arrays.fill(neg2zero, 1, 14, true);
        neg2zero[2] = false;
        boolean[] log = new boolean[14];
        log[5] = true;
        ReferencePreprocessor.Result ref =
                ReferencePreprocessor.run(
                        Files.readAllBytes(generated),
                        modulus,
                        neg2zero,
                        log,
                        false,
                        DecodeOptions.DEFAULT_MAX_LINE_BYTES);
        assertRowsAndVocabulariesAre(ref, out);
        assertThat(ref.vocabFiles().get(2).lines().count()).isLessThanOrEqualTo(1000);
        JsonNode pipeline = metadata(out).get("pipeline");
        assertThat(pipeline.get("name").asText()).isEqualTo("criteo-c3-log5");
        assertThat(pipeline.get("version").asInt()).isEqualTo(2);
        assertThat(pipeline.get("columns").get("I5").asText())
                .isEqualTo("decode fill_missing neg2zero log");
        assertThat(pipeline.get("columns").get("I2").asText()).isEqualTo("decode fill_missing");
        assertThat(pipeline.get("columns").get("C3").asText())
                .isEqualTo("decode fill_missing hex2int modulus(1000) vocab");
        // I2 keeps its negative values (Criteo's I2 has some).
        java.nio.ByteBuffer rows =
                java.nio.ByteBuffer.wrap(ref.rows()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        boolean negativeI2 = false;
        for (int r = 0; r < ref.rowsWritten(); r++) {
            negativeI2 |= rows.getInt(r * 160 + 2 * 4) < 0;
        }
        assertThat(negativeI2).as("some I2 value stays negative").isTrue();
    }

    /**
     * RAP's operators in a spec (fill_null, clamp, bucketize, boxcox, cast, sigrid_hash; issue 9),
     * on a MiniCluster at parallelism 2: the output equals the reference run whose per-column
     * functions are written out plainly below (double arithmetic, SigridHash on BigInteger),
     * sharing no code with the job.
     */
    @Test
    void aSpecWithRapOperatorsMatchesTheReference() throws Exception {
        String spec =
                """
                {"name": "criteo-rap", "version": 1, "input": {"format": "criteo-tsv"},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1": ["decode", {"op": "fill_null", "value": 5}, "neg2zero", "log"],
                   "I2": ["decode", "fill_missing", {"op": "clamp", "lo": -2, "hi": 50},
                          {"op": "bucketize", "borders": [0, 1, 2, 4, 8, 16, 32]}],
                   "I3": ["decode", "fill_missing", "neg2zero", {"op": "boxcox", "lambda": 0.5}],
                   "I4": ["decode", "fill_missing", {"op": "cast", "to": "float32"},
                          {"op": "clamp", "lo": 0, "hi": 1000.5}, "log",
                          {"op": "cast", "to": "int32"}],
                   "I5..I13": ["decode", "fill_missing", "neg2zero",
                               {"op": "bucketize", "borders": [0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023]}],
                   "C1..C2": ["decode", "fill_missing", "hex2int",
                              {"op": "sigrid_hash", "salt": 7, "max": 100000}, "vocab"],
                   "C3": ["decode", {"op": "fill_null", "value": 48879}, "hex2int", "vocab"],
                   "C4..C13": ["decode", "fill_missing", "hex2int",
                               {"op": "sigrid_hash", "salt": 7, "max": 100000}, "vocab"],
                   "C14..C26": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 50000},
                                {"op": "sigrid_hash", "salt": -1, "max": 5000}, "vocab"]
                 }}
                """;
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        Path out = preprocess(generated, 2, conf);

        ReferencePreprocessor.Dense[] dense = new ReferencePreprocessor.Dense[14];
        dense[0] = f -> f.isEmpty() ? 0 : Integer.parseInt(f.replace("+", ""));
        dense[1] =
                f -> {
                    double v = Math.max(0, f.isEmpty() ? 5 : parse(f));
                    return Float.floatToRawIntBits((float) Math.log((float) v + 1f));
                };
        double[] i2Borders = {0, 1, 2, 4, 8, 16, 32};
        dense[2] = f -> bucketBelow(Math.min(Math.max(parse(f), -2), 50), i2Borders);
        dense[3] =
                f -> {
                    double v = Math.max(0, parse(f));
                    return Float.floatToRawIntBits((float) ((Math.sqrt(v) - 1) / 0.5));
                };
        dense[4] =
                f -> {
                    float v = (float) parse(f);
                    v = v < 0 ? 0f : v > 1000.5 ? 1000.5f : v;
                    return (int) (float) Math.log(v + 1f);
                };
        double[] borders = {0, 1, 3, 7, 15, 31, 63, 127, 255, 511, 1023};
        for (int j = 5; j < 14; j++) {
            dense[j] = f -> bucketBelow(Math.max(0, parse(f)), borders);
        }
        ReferencePreprocessor.Key[] keys = new ReferencePreprocessor.Key[26];
        for (int c = 0; c < 26; c++) {
            keys[c] = (id, empty) -> sigridHash(id, 7, 100000);
        }
        keys[2] = (id, empty) -> empty ? BigInteger.valueOf(48879) : id;
        for (int c = 13; c < 26; c++) {
            keys[c] = (id, empty) -> sigridHash(id.mod(BigInteger.valueOf(50000)), -1, 5000);
        }
        ReferencePreprocessor.Result ref =
                ReferencePreprocessor.run(
                        Files.readAllBytes(generated),
                        dense,
                        keys,
                        false,
                        DecodeOptions.DEFAULT_MAX_LINE_BYTES);
        assertRowsAndVocabulariesAre(ref, out);
        assertThat(ref.vocabFiles().get(20).lines().count()).isLessThanOrEqualTo(5000);
        JsonNode pipeline = metadata(out).get("pipeline");
        assertThat(pipeline.get("columns").get("I4").asText())
                .isEqualTo("decode fill_missing cast(float32) clamp(0,1000.5) log cast(int32)");
        assertThat(pipeline.get("float32_columns"))
                .extracting(JsonNode::asText)
                .containsExactly("I1", "I3");
    }

    /**
     * Another layout than Criteo's, declared by the spec: PreSto's production mix of 504 dense and
     * 42 categorical columns (RM2..RM5, without their lists yet) with its operators, log on every
     * dense column and sigrid_hash on every categorical one, on a MiniCluster at parallelism 2. The
     * output equals the reference run over the same layout, byte for byte, dead letters included;
     * and a Parquet conversion of the same lines gives the same output.
     */
    @Test
    void aSpecOfAnotherLayoutMatchesTheReference() throws Exception {
        RowLayout layout = new RowLayout(504, 42);
        Path input = tmp.resolve("wide.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(layout, 20261124, 0.01, 0.01).write(out, 10_000);
        }
        String spec =
                """
                {"name": "presto-wide", "version": 1,
                 "input": {"format": "criteo-tsv", "dense": 504, "sparse": 42},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1..I504": ["decode", "fill_missing", "neg2zero", "log"],
                   "C1..C42": ["decode", "fill_missing", "hex2int",
                               {"op": "sigrid_hash", "salt": 0, "max": 1000000}, "vocab"]
                 }}
                """;
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        Path out = preprocess(input, 2, conf);

        ReferencePreprocessor.Dense[] dense = new ReferencePreprocessor.Dense[505];
        dense[0] = f -> f.isEmpty() ? 0 : Integer.parseInt(f.replace("+", ""));
        for (int j = 1; j <= 504; j++) {
            dense[j] =
                    f ->
                            Float.floatToRawIntBits(
                                    (float) Math.log((float) Math.max(0, parse(f)) + 1f));
        }
        ReferencePreprocessor.Key[] keys = new ReferencePreprocessor.Key[42];
        java.util.Arrays.fill(
                keys, (ReferencePreprocessor.Key) (id, empty) -> sigridHash(id, 0, 1_000_000));
        ReferencePreprocessor.Result ref =
                ReferencePreprocessor.run(
                        Files.readAllBytes(input),
                        dense,
                        keys,
                        false,
                        DecodeOptions.DEFAULT_MAX_LINE_BYTES);
        assertThat(Files.readAllBytes(out.resolve(OutputLayout.ROWS)))
                .as("rows.bin")
                .isEqualTo(ref.rows());
        for (int c = 0; c < 42; c++) {
            assertThat(Files.readString(out.resolve(OutputLayout.vocabFile(c))))
                    .as("vocab C" + (c + 1))
                    .isEqualTo(ref.vocabFiles().get(c));
        }
        assertThat(Files.exists(out.resolve(OutputLayout.vocabFile(42)))).isFalse();
        List<JsonNode> letters = deadLetters(out);
        assertThat(letters).hasSize(ref.rejected().size()).isNotEmpty();
        for (int i = 0; i < letters.size(); i++) {
            assertThat(letters.get(i).get("line").asLong()).isEqualTo(ref.rejected().get(i).line());
            assertThat(letters.get(i).get("reason").asText())
                    .isEqualTo(ref.rejected().get(i).reason());
        }
        JsonNode meta = metadata(out);
        assertThat(meta.get("rows_written").asLong()).isEqualTo(ref.rowsWritten());
        assertThat(meta.get("lines_read").asLong()).isEqualTo(10_000);
        assertThat(meta.get("row_bytes").asInt()).isEqualTo(547 * 4);
        assertThat(meta.get("dense_columns").asInt()).isEqualTo(504);
        assertThat(meta.get("sparse_columns").asInt()).isEqualTo(42);
        assertThat(meta.get("vocab_size").size()).isEqualTo(42);
        assertThat(meta.get("pipeline").get("float32_columns")).hasSize(504);

        // The same lines converted to Parquet (columns of the same layout) give the same output.
        Path parquet = tmp.resolve("wide.parquet");
        TsvToParquet.convert(
                input,
                parquet,
                tmp.resolve("wide.dead-letters.jsonl"),
                new DecodeOptions(
                        ColumnProgram.raw(layout),
                        false,
                        DecodeOptions.DEFAULT_MAX_LINE_BYTES,
                        DecodeOptions.DEFAULT_MAX_RAW_BYTES),
                CompressionCodecName.SNAPPY,
                3000,
                QUIET);
        Path fromParquet = preprocess(parquet, 2, conf);
        assertThat(
                        Files.mismatch(
                                fromParquet.resolve(OutputLayout.ROWS),
                                out.resolve(OutputLayout.ROWS)))
                .isEqualTo(-1);
        for (int c = 0; c < 42; c++) {
            assertThat(
                            Files.mismatch(
                                    fromParquet.resolve(OutputLayout.vocabFile(c)),
                                    out.resolve(OutputLayout.vocabFile(c))))
                    .isEqualTo(-1);
        }
    }

    /**
     * List (multi-hot) columns on a MiniCluster at parallelism 2: C2 and C4 of a 3-dense, 4-sparse
     * layout hold lists; sigrid_hash and modulus apply to each id, firstx cuts C2's lists, ngram
     * turns C4's into bigrams. rows.bin (label, dense, C1, C3), lists/C2 and lists/C4 (lengths and
     * values) and every vocabulary equal the reference's, byte for byte, whose list functions are
     * written out below with BigInteger arithmetic.
     */
    @Test
    void listColumnsMatchTheReference() throws Exception {
        RowLayout layout = new RowLayout(3, 4, List.of(1, 3), ',');
        Path input = tmp.resolve("lists.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(layout, 20261125, 0.001, 0.01, 4).write(out, 20_000);
        }
        String spec =
                """
                {"name": "multi-hot", "version": 1,
                 "input": {"format": "criteo-tsv", "dense": 3, "sparse": 4,
                           "list_columns": ["C2", "C4"]},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1..I3": ["decode", "fill_missing", "neg2zero"],
                   "C1": ["decode", "fill_missing", "hex2int", "vocab"],
                   "C2": ["decode", "fill_missing", "hex2int",
                          {"op": "sigrid_hash", "salt": 3, "max": 5000}, {"op": "firstx", "x": 4},
                          "vocab"],
                   "C3": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 1000}, "vocab"],
                   "C4": ["decode", {"op": "fill_null", "value": 1}, "hex2int",
                          {"op": "ngram", "n": 2}, {"op": "modulus", "m": 100000}, "vocab"]
                 }}
                """;
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        Path out = preprocess(input, 2, conf);

        ReferencePreprocessor.Dense[] dense = new ReferencePreprocessor.Dense[4];
        dense[0] = f -> f.isEmpty() ? 0 : Integer.parseInt(f.replace("+", ""));
        for (int j = 1; j <= 3; j++) {
            dense[j] = f -> (int) Math.max(0, parse(f));
        }
        ReferencePreprocessor.Key[] keys = new ReferencePreprocessor.Key[4];
        keys[0] = (id, empty) -> id;
        keys[2] = (id, empty) -> id.mod(BigInteger.valueOf(1000));
        ReferencePreprocessor.ListKeys[] lists = new ReferencePreprocessor.ListKeys[4];
        lists[1] =
                (ids, empty) -> ids.stream().map(id -> sigridHash(id, 3, 5000)).limit(4).toList();
        lists[3] =
                (ids, empty) -> {
                    List<BigInteger> in = empty ? List.of(BigInteger.ONE) : ids;
                    List<BigInteger> grams = new ArrayList<>();
                    for (int i = 0; i + 2 <= in.size(); i++) {
                        grams.add(
                                hash128To64(in.get(i), in.get(i + 1))
                                        .mod(BigInteger.valueOf(100000)));
                    }
                    return grams;
                };
        ReferencePreprocessor.VocabRule[] rules = new ReferencePreprocessor.VocabRule[4];
        java.util.Arrays.fill(rules, ReferencePreprocessor.VocabRule.FIRST_APPEARANCE);
        ReferencePreprocessor.Result ref =
                ReferencePreprocessor.run(
                        Files.readAllBytes(input),
                        dense,
                        keys,
                        rules,
                        lists,
                        ',',
                        false,
                        DecodeOptions.DEFAULT_MAX_LINE_BYTES);
        assertThat(ref.rejected()).isNotEmpty();
        assertThat(ref.listValues().get(0).length).isGreaterThan(ref.listLengths().get(0).length);
        assertThat(Files.readAllBytes(out.resolve(OutputLayout.ROWS)))
                .as("rows.bin")
                .isEqualTo(ref.rows());
        for (int c = 0; c < 4; c++) {
            assertThat(Files.readString(out.resolve(OutputLayout.vocabFile(c))))
                    .as("vocab C" + (c + 1))
                    .isEqualTo(ref.vocabFiles().get(c));
        }
        int[] listColumns = {1, 3};
        for (int l = 0; l < 2; l++) {
            int c = listColumns[l];
            assertThat(Files.readAllBytes(out.resolve(OutputLayout.listLengthsFile(c))))
                    .as("lengths of C" + (c + 1))
                    .isEqualTo(ref.listLengths().get(l));
            assertThat(Files.readAllBytes(out.resolve(OutputLayout.listValuesFile(c))))
                    .as("values of C" + (c + 1))
                    .isEqualTo(ref.listValues().get(l));
        }
        List<JsonNode> letters = deadLetters(out);
        assertThat(letters)
                .extracting(d -> d.get("line").asLong())
                .containsExactlyElementsOf(
                        ref.rejected().stream().map(ReferencePreprocessor.Rejected::line).toList());
        JsonNode meta = metadata(out);
        assertThat(meta.get("row_bytes").asInt()).isEqualTo(6 * 4);
        assertThat(meta.get("list_columns"))
                .extracting(JsonNode::asText)
                .containsExactly("C2", "C4");
        assertThat(meta.get("pipeline").get("columns").get("C4").asText())
                .isEqualTo("decode fill_null(1) hex2int ngram(2) modulus(100000) vocab");

        // As Parquet: the same rows, each list column a LIST of its indices.
        conf.set(PiperOptions.OUTPUT_FORMAT, "parquet");
        Path pq = preprocess(input, 2, conf);
        assertThat(pq.resolve(OutputLayout.LISTS_DIR)).doesNotExist();
        ByteBuffer rows = ByteBuffer.wrap(ref.rows()).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer[] lengths = new ByteBuffer[2];
        ByteBuffer[] values = new ByteBuffer[2];
        for (int l = 0; l < 2; l++) {
            lengths[l] = ByteBuffer.wrap(ref.listLengths().get(l)).order(ByteOrder.LITTLE_ENDIAN);
            values[l] = ByteBuffer.wrap(ref.listValues().get(l)).order(ByteOrder.LITTLE_ENDIAN);
        }
        String[] scalar = {"label", "I1", "I2", "I3", "C1", "C3"};
        long n = 0;
        try (ParquetReader<Group> reader =
                ParquetReader.builder(
                                new GroupReadSupport(),
                                new org.apache.hadoop.fs.Path(
                                        pq.resolve(OutputLayout.ROWS_PARQUET).toUri()))
                        .build()) {
            for (Group g = reader.read(); g != null; g = reader.read(), n++) {
                for (int j = 0; j < scalar.length; j++) {
                    assertThat(g.getInteger(scalar[j], 0))
                            .as("row %d %s", n, scalar[j])
                            .isEqualTo(rows.getInt((int) (n * 24 + j * 4)));
                }
                for (int l = 0; l < 2; l++) {
                    Group list = g.getGroup(l == 0 ? "C2" : "C4", 0);
                    int count = list.getFieldRepetitionCount("list");
                    assertThat(count).as("row %d list %d", n, l).isEqualTo(lengths[l].getInt());
                    for (int i = 0; i < count; i++) {
                        assertThat(list.getGroup("list", i).getInteger("element", 0))
                                .isEqualTo(values[l].getInt());
                    }
                }
            }
        }
        assertThat(n).isEqualTo(ref.rowsWritten());
        assertThat(values[1].remaining()).isZero();
        assertThat(metadata(pq).get("list_layout").asText()).startsWith("in rows.parquet");
    }

    /** folly's hash_128_to_64(upper, lower), unsigned 64-bit arithmetic on BigInteger. */
    private static BigInteger hash128To64(BigInteger upper, BigInteger lower) {
        BigInteger a = lower.xor(upper).multiply(K_MUL).and(MASK);
        a = a.xor(a.shiftRight(47));
        BigInteger b = upper.xor(a).multiply(K_MUL).and(MASK);
        b = b.xor(b.shiftRight(47));
        return b.multiply(K_MUL).and(MASK);
    }

    /**
     * PreSto's RM1..RM5 presets end to end on a MiniCluster at parallelism 2 (issue 9): lines of
     * each preset's layout from {@code generate}'s generator (1% malformed), preprocessed with the
     * preset's spec, equal the reference run of the same mix, byte for byte: log on every dense
     * column, bucketize (the preset's 1,024 to 4,096 borders) on the generated ones, sigrid_hash
     * and vocab on every id of the sparse columns and lists.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rm1", "rm2", "rm3", "rm4", "rm5"})
    void presetsMatchTheReference(String name) throws Exception {
        Presets.Preset preset = Presets.named(name);
        PipelineSpec spec = preset.spec();
        RowLayout layout = spec.layout();
        int lines = layout.hasLists() ? 600 : 5_000;
        Path input = tmp.resolve(name + ".tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(layout, 2024, 0.001, 0.01, preset.meanListLength())
                    .write(out, lines);
        }
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, new String(preset.text(), StandardCharsets.UTF_8));
        Path out = preprocess(input, 2, conf);

        int dense = layout.dense();
        ReferencePreprocessor.Dense[] denseFns = new ReferencePreprocessor.Dense[dense + 1];
        denseFns[0] = f -> f.isEmpty() ? 0 : Integer.parseInt(f.replace("+", ""));
        for (int j = 1; j <= dense; j++) {
            denseFns[j] =
                    f ->
                            Float.floatToRawIntBits(
                                    (float) Math.log((float) Math.max(0, parse(f)) + 1f));
        }
        DenseOp.BucketizeOp bucketize =
                (DenseOp.BucketizeOp) spec.column("G1").orElseThrow().ops().get(3);
        double[] borders = bucketize.borders();
        int[] from = new int[layout.generated()];
        ReferencePreprocessor.Dense[] generated = new ReferencePreprocessor.Dense[from.length];
        for (int g = 0; g < from.length; g++) {
            from[g] = layout.generatedFrom().get(g) + 1;
            generated[g] = f -> bucketBelow(Math.max(0, parse(f)), borders);
        }
        int sparse = layout.sparse();
        ReferencePreprocessor.Key[] keys = new ReferencePreprocessor.Key[sparse];
        ReferencePreprocessor.ListKeys[] lists = new ReferencePreprocessor.ListKeys[sparse];
        for (int c = 0; c < sparse; c++) {
            if (layout.isList(c)) {
                lists[c] =
                        (ids, empty) -> ids.stream().map(id -> sigridHash(id, 0, 500_000)).toList();
            } else {
                keys[c] = (id, empty) -> sigridHash(id, 0, 500_000);
            }
        }
        ReferencePreprocessor.VocabRule[] rules = new ReferencePreprocessor.VocabRule[sparse];
        java.util.Arrays.fill(rules, ReferencePreprocessor.VocabRule.FIRST_APPEARANCE);
        ReferencePreprocessor.Result ref =
                ReferencePreprocessor.run(
                        Files.readAllBytes(input),
                        denseFns,
                        from,
                        generated,
                        keys,
                        rules,
                        lists,
                        layout.listSeparator(),
                        false,
                        DecodeOptions.DEFAULT_MAX_LINE_BYTES);
        assertThat(ref.rejected()).isNotEmpty();
        assertThat(ref.rowsWritten()).isGreaterThan(lines * 9L / 10);
        assertThat(Files.readAllBytes(out.resolve(OutputLayout.ROWS)))
                .as("rows.bin")
                .isEqualTo(ref.rows());
        for (int c = 0; c < sparse; c++) {
            assertThat(Files.readString(out.resolve(OutputLayout.vocabFile(c))))
                    .as("vocab C" + (c + 1))
                    .isEqualTo(ref.vocabFiles().get(c));
        }
        for (int l = 0; l < layout.listColumns().size(); l++) {
            int c = layout.listColumns().get(l);
            assertThat(Files.readAllBytes(out.resolve(OutputLayout.listLengthsFile(c))))
                    .as("lengths of C" + (c + 1))
                    .isEqualTo(ref.listLengths().get(l));
            assertThat(Files.readAllBytes(out.resolve(OutputLayout.listValuesFile(c))))
                    .as("values of C" + (c + 1))
                    .isEqualTo(ref.listValues().get(l));
        }
        JsonNode meta = metadata(out);
        assertThat(meta.get("lines_read").asLong()).isEqualTo(lines);
        assertThat(meta.get("rows_written").asLong() + meta.get("dead_letters").asLong())
                .isEqualTo(lines);
        assertThat(meta.get("generated_columns").size()).isEqualTo(layout.generated());
        // The same lines through Parquet (convert: lists as LIST columns; the generated columns
        // are not in the file, they decode their sources again) give the same output.
        Path parquet = tmp.resolve(name + ".parquet");
        TsvToParquet.Result converted =
                TsvToParquet.convert(
                        input,
                        parquet,
                        tmp.resolve(name + ".dead-letters.jsonl"),
                        new DecodeOptions(
                                ColumnProgram.raw(layout),
                                false,
                                DecodeOptions.DEFAULT_MAX_LINE_BYTES,
                                DecodeOptions.DEFAULT_MAX_RAW_BYTES),
                        CompressionCodecName.SNAPPY,
                        lines / 3,
                        QUIET);
        assertThat(converted.rows()).isEqualTo(ref.rowsWritten());
        Path fromParquet = preprocess(parquet, 2, conf);
        assertThat(
                        Files.mismatch(
                                fromParquet.resolve(OutputLayout.ROWS),
                                out.resolve(OutputLayout.ROWS)))
                .as("rows.bin through Parquet")
                .isEqualTo(-1);
        for (int c = 0; c < sparse; c++) {
            assertThat(
                            Files.mismatch(
                                    fromParquet.resolve(OutputLayout.vocabFile(c)),
                                    out.resolve(OutputLayout.vocabFile(c))))
                    .isEqualTo(-1);
        }
        for (int c : layout.listColumns()) {
            assertThat(
                            Files.mismatch(
                                    fromParquet.resolve(OutputLayout.listValuesFile(c)),
                                    out.resolve(OutputLayout.listValuesFile(c))))
                    .isEqualTo(-1);
        }
        // G1 (of I1, integers up to about 100) spreads over many buckets, not one
        ByteBuffer rows = ByteBuffer.wrap(ref.rows()).order(ByteOrder.LITTLE_ENDIAN);
        Set<Integer> buckets = new HashSet<>();
        for (int r = 0; r < ref.rowsWritten(); r++) {
            buckets.add(rows.getInt((r * (layout.rowBytes() / 4) + dense + 1) * 4));
        }
        assertThat(buckets.size()).isGreaterThan(50);
    }

    /**
     * onehot (drop-last) on a MiniCluster at parallelism 2: rows.bin of a spec whose I2 ends in
     * bucketize + onehot(5) is the rows of the same spec without the onehot, I2's bucket replaced
     * by its 4 indicator columns; rows.parquet has them as I2_0..I2_3.
     */
    @Test
    void onehotWidensTheRowsByItsIndicators() throws Exception {
        String base =
                """
                {"name": "oh", "version": 1, "input": {"format": "criteo-tsv"},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1": ["decode", "fill_missing", "neg2zero"],
                   "I2": ["decode", "fill_missing", {"op": "bucketize", "borders": [0, 1, 10, 100]}%s],
                   "I3..I13": ["decode", "fill_missing", "neg2zero"],
                   "C1..C26": ["decode", "fill_missing", "hex2int", "vocab"]
                 }}
                """;
        Configuration plain = new Configuration();
        plain.set(PiperOptions.SPEC, base.formatted(""));
        Path plainOut = preprocess(generated, 2, plain);
        Configuration onehot = new Configuration();
        onehot.set(PiperOptions.SPEC, base.formatted(", {\"op\": \"onehot\", \"size\": 5}"));
        Path onehotOut = preprocess(generated, 2, onehot);

        ByteBuffer rows =
                ByteBuffer.wrap(Files.readAllBytes(plainOut.resolve(OutputLayout.ROWS)))
                        .order(ByteOrder.LITTLE_ENDIAN);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        ByteBuffer value = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        int n = rows.capacity() / 160;
        int[] seen = new int[5];
        for (int r = 0; r < n; r++) {
            for (int f = 0; f < 40; f++) {
                int v = rows.getInt(r * 160 + f * 4);
                if (f == 2) {
                    seen[v]++;
                    for (int k = 0; k < 4; k++) {
                        expected.writeBytes(value.putInt(0, k == v ? 1 : 0).array());
                    }
                } else {
                    expected.writeBytes(value.putInt(0, v).array());
                }
            }
        }
        assertThat(seen).as("every bucket occurs, the last (dropped) too").doesNotContain(0);
        assertThat(Files.readAllBytes(onehotOut.resolve(OutputLayout.ROWS)))
                .isEqualTo(expected.toByteArray());
        JsonNode meta = metadata(onehotOut);
        assertThat(meta.get("row_bytes").asInt()).isEqualTo(43 * 4);
        assertThat(meta.get("onehot_columns").get("I2").asInt()).isEqualTo(4);
        assertThat(meta.get("rows_written")).isEqualTo(metadata(plainOut).get("rows_written"));

        onehot.set(PiperOptions.OUTPUT_FORMAT, "parquet");
        Path pq = preprocess(generated, 2, onehot);
        try (ParquetReader<Group> reader =
                ParquetReader.builder(
                                new GroupReadSupport(),
                                new org.apache.hadoop.fs.Path(
                                        pq.resolve(OutputLayout.ROWS_PARQUET).toUri()))
                        .build()) {
            Group g = reader.read();
            int bucket = rows.getInt(2 * 4);
            for (int k = 0; k < 4; k++) {
                assertThat(g.getInteger("I2_" + k, 0)).isEqualTo(k == bucket ? 1 : 0);
            }
            assertThat(g.getInteger("C26", 0)).isEqualTo(rows.getInt(39 * 4));
        }
    }

    /**
     * Vocabulary policies (issue 9) on a MiniCluster at parallelism 2: a frequency threshold with
     * OOV buckets, a bounded vocabulary, a warm start from a file, and all three together; and
     * RAP's mapid, an id table with a default, between a modulus and the vocabulary. The output
     * equals the reference, whose vocabularies follow SPECS.md's wording with maps of their own;
     * metadata.json describes each policy and its table size.
     */
    @Test
    void vocabularyPoliciesMatchTheReference() throws Exception {
        Path imported = tmp.resolve("C4.tsv");
        List<BigInteger> importedKeys =
                List.of(
                        BigInteger.ZERO,
                        new BigInteger("18446744073709551615"),
                        BigInteger.valueOf(12345),
                        BigInteger.valueOf(3));
        StringBuilder file = new StringBuilder();
        for (int i = 0; i < importedKeys.size(); i++) {
            file.append(2 + i).append('\t').append(importedKeys.get(i)).append('\n');
        }
        Files.writeString(imported, file);
        // a mapid table for C12: ids mod 1000 below 500 map to 7 * id; the others to the default
        Path table = tmp.resolve("ids.tsv");
        StringBuilder ids = new StringBuilder();
        for (int k = 0; k < 500; k++) {
            ids.append(k).append('\t').append(7 * k).append('\n');
        }
        Files.writeString(table, ids);
        String spec =
                """
                {"name": "criteo-vocab", "version": 1, "input": {"format": "criteo-tsv"},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1..I13": ["decode", "fill_missing", "neg2zero"],
                   "C1..C2": ["decode", "fill_missing", "hex2int",
                              {"op": "vocab", "min_count": 2, "oov_buckets": 4}],
                   "C3": ["decode", "fill_missing", "hex2int",
                          {"op": "vocab", "oov_buckets": 1, "max_size": 100}],
                   "C4": ["decode", "fill_missing", "hex2int",
                          {"op": "vocab", "oov_buckets": 2, "import": "%s"}],
                   "C5": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 50000},
                          {"op": "vocab", "min_count": 3, "oov_buckets": 8, "max_size": 1000}],
                   "C6..C11": ["decode", "fill_missing", "hex2int", "vocab"],
                   "C12": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 1000},
                           {"op": "mapid", "file": "%s", "default": 99999}, "vocab"],
                   "C13..C26": ["decode", "fill_missing", "hex2int", "vocab"]
                 }}
                """
                        .formatted(
                                imported.toString().replace("\\", "\\\\"),
                                table.toString().replace("\\", "\\\\"));
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        Path out = preprocess(generated, 2, conf);

        ReferencePreprocessor.Dense[] dense = new ReferencePreprocessor.Dense[14];
        dense[0] = f -> f.isEmpty() ? 0 : Integer.parseInt(f.replace("+", ""));
        for (int j = 1; j < 14; j++) {
            dense[j] = f -> (int) Math.max(0, parse(f));
        }
        ReferencePreprocessor.Key[] keys = new ReferencePreprocessor.Key[26];
        java.util.Arrays.fill(keys, (ReferencePreprocessor.Key) (id, empty) -> id);
        keys[4] = (id, empty) -> id.mod(BigInteger.valueOf(50000));
        keys[11] =
                (id, empty) -> {
                    BigInteger m = id.mod(BigInteger.valueOf(1000));
                    return m.intValue() < 500
                            ? m.multiply(BigInteger.valueOf(7))
                            : BigInteger.valueOf(99999);
                };
        ReferencePreprocessor.VocabRule[] rules = new ReferencePreprocessor.VocabRule[26];
        java.util.Arrays.fill(rules, ReferencePreprocessor.VocabRule.FIRST_APPEARANCE);
        rules[0] = new ReferencePreprocessor.VocabRule(2, 4, Long.MAX_VALUE, List.of());
        rules[1] = rules[0];
        rules[2] = new ReferencePreprocessor.VocabRule(1, 1, 100, List.of());
        rules[3] = new ReferencePreprocessor.VocabRule(1, 2, Long.MAX_VALUE, importedKeys);
        rules[4] = new ReferencePreprocessor.VocabRule(3, 8, 1000, List.of());
        ReferencePreprocessor.Result ref =
                ReferencePreprocessor.run(
                        Files.readAllBytes(generated),
                        dense,
                        keys,
                        rules,
                        false,
                        DecodeOptions.DEFAULT_MAX_LINE_BYTES);
        assertRowsAndVocabulariesAre(ref, out);

        // the policies took effect: rows of the bounded columns use OOV buckets; C4, bounded by
        // nothing, never does, and its rows use imported entries (key 0 is an empty field's)
        java.nio.ByteBuffer rows =
                java.nio.ByteBuffer.wrap(ref.rows()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int[] buckets = {4, 4, 1, 2, 8};
        int[] inBuckets = new int[5];
        int importedUsed = 0;
        for (int r = 0; r < ref.rowsWritten(); r++) {
            for (int c = 0; c < 5; c++) {
                inBuckets[c] += rows.getInt(r * 160 + (14 + c) * 4) < buckets[c] ? 1 : 0;
            }
            importedUsed += rows.getInt(r * 160 + (14 + 3) * 4) < 6 ? 1 : 0;
        }
        for (int c = 0; c < 5; c++) {
            if (c == 3) {
                assertThat(inBuckets[c]).as("C4 rows in an OOV bucket").isZero();
            } else {
                assertThat(inBuckets[c]).as("C%d rows in an OOV bucket", c + 1).isPositive();
            }
        }
        assertThat(importedUsed).as("C4 rows with imported entries").isPositive();
        JsonNode meta = metadata(out);
        assertThat(meta.get("vocab_size").get("C3").asInt()).isEqualTo(100);
        assertThat(ref.vocabFiles().get(3)).startsWith("2\t0\n3\t18446744073709551615\n");
        JsonNode policies = meta.get("vocab_policies");
        assertThat(policies.fieldNames())
                .toIterable()
                .containsExactly("C1", "C2", "C3", "C4", "C5");
        assertThat(policies.get("C3").get("table_size").asInt()).isEqualTo(101);
        assertThat(policies.get("C5").get("min_count").asInt()).isEqualTo(3);

        // the vocabularies as one RocksDB entry per key, behind a cache too small to hold them:
        // the same files (piper.vocab.store: entries)
        Configuration entries = new Configuration(conf);
        entries.set(PiperOptions.VOCAB_STORE, "entries");
        entries.set(PiperOptions.VOCAB_CACHE_ENTRIES, 64);
        entries.setString("state.backend.rocksdb.localdir", tmp.resolve("rocks").toString());
        assertThat(
                        SameOutput.sha256OfEveryFile(
                                preprocess(generated, 2, entries, StateBackend.rocksdb)))
                .isEqualTo(SameOutput.sha256OfEveryFile(out));
        Configuration unknown = new Configuration(conf);
        unknown.set(PiperOptions.VOCAB_STORE, "rows");
        assertThatThrownBy(() -> Preprocess.job(generated, tmp.resolve("refused"), unknown))
                .hasMessage("piper.vocab.store: value or entries, not \"rows\"");
        assertThat(policies.get("C5").get("max_size").asInt()).isEqualTo(1000);
        assertThat(policies.get("C4").get("import").asText()).isEqualTo(imported.toString());
        assertThat(policies.get("C1").get("table_size").asInt())
                .isEqualTo(4 + meta.get("vocab_size").get("C1").asInt());
        assertThat(meta.get("pipeline").get("columns").get("C1").asText())
                .isEqualTo("decode fill_missing hex2int vocab(min_count=2,oov_buckets=4)");
        // C12: 500 mapped ids and the default
        assertThat(meta.get("vocab_size").get("C12").asInt()).isEqualTo(501);
    }

    /**
     * The round trip: the generated text converted to Parquet ({@code piper convert}, small row
     * groups so that both readers share the file) and preprocessed at parallelism 2 gives the
     * text's rows.bin and vocabularies byte for byte, under DLRM with a modulus and under a spec
     * with column passes; the conversion's dead letters are the text run's.
     */
    @Test
    void parquetInputGivesTheOutputOfItsText() throws Exception {
        Path parquet = tmp.resolve("generated.parquet");
        TsvToParquet.Result converted =
                TsvToParquet.convert(
                        generated,
                        parquet,
                        tmp.resolve("converted.dead-letters.jsonl"),
                        DecodeOptions.defaults(),
                        CompressionCodecName.SNAPPY,
                        17_000,
                        QUIET);
        assertThat(converted.rowGroups()).isEqualTo(12);
        Configuration text = options(5000, false);
        Path fromText = preprocess(generated, 2, text);
        Configuration columns = options(5000, false);
        columns.set(PiperOptions.BLOCK_ROWS, 1_000);
        Path fromParquet = preprocess(parquet, 2, columns);
        assertThat(
                        Files.mismatch(
                                fromText.resolve(OutputLayout.ROWS),
                                fromParquet.resolve(OutputLayout.ROWS)))
                .isEqualTo(-1);
        for (int c = 0; c < 26; c++) {
            assertThat(
                            Files.mismatch(
                                    fromText.resolve(OutputLayout.vocabFile(c)),
                                    fromParquet.resolve(OutputLayout.vocabFile(c))))
                    .as("C%d", c + 1)
                    .isEqualTo(-1);
        }
        assertThat(
                        Files.mismatch(
                                fromText.resolve(OutputLayout.DEAD_LETTERS),
                                tmp.resolve("converted.dead-letters.jsonl")))
                .isEqualTo(-1);
        JsonNode meta = metadata(fromParquet);
        JsonNode textMeta = metadata(fromText);
        assertThat(meta.get("lines_read").asLong())
                .isEqualTo(converted.rows())
                .isEqualTo(textMeta.get("rows_written").asLong());
        assertThat(meta.get("dead_letters").asLong()).isZero();
        assertThat(converted.deadLetters()).isEqualTo(textMeta.get("dead_letters").asLong());
        assertThat(converted.lines()).isEqualTo(GENERATED_ROWS);

        String rap = rapSpec();
        Configuration rapText = new Configuration();
        rapText.set(PiperOptions.SPEC, rap);
        Configuration rapParquet = new Configuration();
        rapParquet.set(PiperOptions.SPEC, rap);
        Map<String, String> parquetSums =
                SameOutput.sha256OfEveryFile(preprocess(parquet, 2, rapParquet));
        parquetSums.remove(OutputLayout.METADATA);
        assertThat(parquetSums)
                .as("every file but the metadata, the text's dead letters none")
                .isEqualTo(
                        withEmptyDeadLetters(
                                SameOutput.sha256OfEveryFile(preprocess(generated, 2, rapText))))
                .hasSize(2 + 26);
    }

    /** The JSON text of the bundled RAP spec (column passes on every column). */
    private static String rapSpec() throws IOException {
        try (InputStream in =
                PreprocessITCase.class.getResourceAsStream("/specs/rap-criteo.json")) {
            return new String(Objects.requireNonNull(in).readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The sums of a run's files as a run without dead letters would have them. */
    private Map<String, String> withEmptyDeadLetters(Map<String, String> sums) throws Exception {
        Map<String, String> out = new TreeMap<>(sums);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        out.put(OutputLayout.DEAD_LETTERS, HexFormat.of().formatHex(sha.digest(new byte[0])));
        out.remove(OutputLayout.METADATA);
        return out;
    }

    /**
     * {@code --output-format parquet}: rows.parquet holds the rows of rows.bin value for value
     * (float32 columns as FLOAT), read back with parquet-hadoop's own example reader; the
     * vocabularies and counts are the same.
     */
    @Test
    void parquetOutputHoldsTheRowsOfRowsBin() throws Exception {
        String spec = rapSpec();
        Configuration bin = new Configuration();
        bin.set(PiperOptions.SPEC, spec);
        Path binOut = preprocess(generated, 2, bin);
        Configuration parquet = new Configuration();
        parquet.set(PiperOptions.SPEC, spec);
        parquet.set(PiperOptions.OUTPUT_FORMAT, "parquet");
        Path pqOut = preprocess(generated, 2, parquet);

        assertThat(pqOut.resolve(OutputLayout.ROWS)).doesNotExist();
        ByteBuffer rows =
                ByteBuffer.wrap(Files.readAllBytes(binOut.resolve(OutputLayout.ROWS)))
                        .order(ByteOrder.LITTLE_ENDIAN);
        JsonNode meta = metadata(pqOut);
        List<String> floats = new ArrayList<>();
        meta.get("pipeline").get("float32_columns").forEach(n -> floats.add(n.asText()));
        assertThat(floats).isNotEmpty();
        long n = 0;
        try (ParquetReader<Group> reader =
                ParquetReader.builder(
                                new GroupReadSupport(),
                                new org.apache.hadoop.fs.Path(
                                        pqOut.resolve(OutputLayout.ROWS_PARQUET).toUri()))
                        .build()) {
            Group g;
            while ((g = reader.read()) != null) {
                for (int f = 0; f < 40; f++) {
                    String name = CriteoLayout.fieldName(f);
                    int expected = rows.getInt((int) (n * 160 + f * 4));
                    int got =
                            floats.contains(name)
                                    ? Float.floatToRawIntBits(g.getFloat(name, 0))
                                    : g.getInteger(name, 0);
                    if (got != expected) {
                        assertThat(got).as("row %d %s", n, name).isEqualTo(expected);
                    }
                }
                n++;
            }
        }
        JsonNode binMeta = metadata(binOut);
        assertThat(n).isEqualTo(binMeta.get("rows_written").asLong()).isPositive();
        assertThat(meta.get("rows_written").asLong()).isEqualTo(n);
        assertThat(meta.get("dead_letters")).isEqualTo(binMeta.get("dead_letters"));
        assertThat(meta.get("rows_format").asText()).isEqualTo("parquet");
        assertThat(meta.get("rows_file").asText()).isEqualTo("rows.parquet");
        for (int c = 0; c < 26; c++) {
            assertThat(
                            Files.mismatch(
                                    pqOut.resolve(OutputLayout.vocabFile(c)),
                                    binOut.resolve(OutputLayout.vocabFile(c))))
                    .isEqualTo(-1);
        }
    }

    private static void assertRowsAndVocabulariesAre(ReferencePreprocessor.Result ref, Path out)
            throws IOException {
        assertThat(Files.readAllBytes(out.resolve(OutputLayout.ROWS)))
                .as("rows.bin")
                .isEqualTo(ref.rows());
        for (int c = 0; c < 26; c++) {
            assertThat(Files.readString(out.resolve(OutputLayout.vocabFile(c))))
                    .as("vocab C" + (c + 1))
                    .isEqualTo(ref.vocabFiles().get(c));
        }
    }

    private static double parse(String field) {
        return field.isEmpty() ? 0 : Integer.parseInt(field.replace("+", ""));
    }

    /** TorchRec's bucketize: how many borders lie strictly below {@code v}. */
    private static int bucketBelow(double v, double[] borders) {
        int n = 0;
        for (double b : borders) {
            if (b < v) {
                n++;
            }
        }
        return n;
    }

    private static final BigInteger MASK = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final BigInteger K_MUL = new BigInteger("9ddfea08eb382d69", 16);

    /** Meta's sigrid_hash on unsigned 64-bit arithmetic spelled out with BigInteger. */
    static BigInteger sigridHash(BigInteger x, long salt, long max) {
        BigInteger k = x;
        k = k.not().and(MASK).add(k.shiftLeft(21)).and(MASK);
        k = k.xor(k.shiftRight(24));
        k = k.add(k.shiftLeft(3)).add(k.shiftLeft(8)).and(MASK);
        k = k.xor(k.shiftRight(14));
        k = k.add(k.shiftLeft(2)).add(k.shiftLeft(4)).and(MASK);
        k = k.xor(k.shiftRight(28));
        k = k.add(k.shiftLeft(31)).and(MASK);
        BigInteger upper = BigInteger.valueOf(salt).and(MASK);
        BigInteger a = k.xor(upper).multiply(K_MUL).and(MASK);
        a = a.xor(a.shiftRight(47));
        BigInteger b = upper.xor(a).multiply(K_MUL).and(MASK);
        b = b.xor(b.shiftRight(47));
        b = b.multiply(K_MUL).and(MASK);
        long signed = b.longValue(); // two's complement reading of the 64 bits
        return BigInteger.valueOf(Math.floorMod(signed, max));
    }

    // ---------------------------------------------------------------------------------------

    private static void assertMatchesReference(Path input, Path out, long maxIndRange, boolean pad)
            throws IOException {
        ReferencePreprocessor.Result ref =
                ReferencePreprocessor.run(
                        Files.readAllBytes(input),
                        maxIndRange,
                        pad,
                        DecodeOptions.DEFAULT_MAX_LINE_BYTES);
        byte[] rows = Files.readAllBytes(out.resolve(OutputLayout.ROWS));
        assertThat(rows.length).isEqualTo(ref.rows().length);
        assertThat(rows).as("rows.bin").isEqualTo(ref.rows());
        for (int c = 0; c < 26; c++) {
            assertThat(Files.readString(out.resolve(OutputLayout.vocabFile(c))))
                    .as("vocab C" + (c + 1))
                    .isEqualTo(ref.vocabFiles().get(c));
        }
        List<ReferencePreprocessor.Rejected> dead = new ArrayList<>();
        for (JsonNode d : deadLetters(out)) {
            dead.add(
                    new ReferencePreprocessor.Rejected(
                            d.get("line").asLong(),
                            d.get("offset").asLong(),
                            d.get("reason").asText()));
        }
        assertThat(dead).isEqualTo(ref.rejected());
        JsonNode meta = metadata(out);
        assertThat(meta.get("lines_read").asLong()).isEqualTo(ref.linesRead());
        assertThat(meta.get("rows_written").asLong()).isEqualTo(ref.rowsWritten());
        assertThat(meta.get("dead_letters").asLong()).isEqualTo(ref.rejected().size());
        for (int c = 0; c < 26; c++) {
            long entries = ref.vocabFiles().get(c).lines().count();
            assertThat(meta.get("vocab_size").get("C" + (c + 1)).asLong()).isEqualTo(entries);
        }
    }

    private static List<JsonNode> deadLetters(Path out) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> records = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve(OutputLayout.DEAD_LETTERS))) {
            records.add(json.readTree(line));
        }
        return records;
    }

    private static JsonNode metadata(Path out) throws IOException {
        return new ObjectMapper().readTree(out.resolve(OutputLayout.METADATA).toFile());
    }

    private Path fixture(String name) throws IOException {
        Path target = tmp.resolve(name);
        try (InputStream in = getClass().getResourceAsStream("/real/" + name)) {
            assertThat(in).as("test fixture " + name).isNotNull();
            Files.copy(in, target);
        }
        return target;
    }

    private static int nthNewline(String text, int n) {
        int pos = -1;
        for (int i = 0; i < n; i++) {
            pos = text.indexOf('\n', pos + 1);
        }
        return pos;
    }
}
