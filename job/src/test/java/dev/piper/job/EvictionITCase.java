package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.feed.LineProducer;
import dev.piper.feed.OutputConsumer;
import dev.piper.feed.TestKafka;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.output.OutputLayout;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.VocabularyPolicy;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Evicting vocabularies end to end (issue 27): single-id and list columns under LFU and TTL, far
 * more distinct keys than their capacities. The output is byte-identical at parallelism 1, 2 and 4
 * and on RocksDB; replaying each column's assignments file row by row, every index of every row
 * (rows.bin and the list files) names its own input line's key, no key holds two indices at once,
 * and each reuse is in the file at or before the first row that uses it. The stream, through a
 * failure and a rescale, gives the same files once consumed.
 */
class EvictionITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    private static final int LINES = 30_000;
    private static final RowLayout LAYOUT = new RowLayout(2, 4, List.of(2, 3), ',');

    /**
     * C1: TTL of 200 rows, C2: LFU, C3 (lists): LFU, C4 (lists): TTL with min_count 2; each
     * column's capacity (%d) a quarter of its distinct keys in the input.
     */
    private static final String SPEC_TEMPLATE =
            """
            {"name": "evicting", "version": 1,
             "input": {"format": "criteo-tsv", "dense": 2, "sparse": 4, "list_columns": ["C3..C4"]},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1..I2": ["decode", "fill_missing", "neg2zero"],
               "C1": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 3000},
                      {"op": "vocab", "capacity": %d, "evict": "ttl", "ttl": "200 rows",
                       "oov_buckets": 4}],
               "C2": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 3000},
                      {"op": "vocab", "capacity": %d, "evict": "lfu", "oov_buckets": 2}],
               "C3": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 2000},
                      {"op": "vocab", "capacity": %d, "evict": "lfu", "oov_buckets": 1}],
               "C4": ["decode", "fill_missing", "hex2int", {"op": "modulus", "m": 2000},
                      {"op": "vocab", "capacity": %d, "evict": "ttl", "ttl": 30,
                       "min_count": 2, "oov_buckets": 3}]
             }}
            """;

    private static final long[] MODULUS = {3000, 3000, 2000, 2000};
    private static final int[] BUCKETS = {4, 2, 1, 3};
    private static final int[] CAPACITY = new int[4];

    private static String spec;

    @TempDir static Path shared;
    @TempDir Path tmp;

    private static Path input;

    @BeforeAll
    static void generate() throws Exception {
        input = shared.resolve("lists.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(LAYOUT, 20261125, 1.0, 0.01, 4).write(out, LINES);
        }
        List<Set<Long>> distinct =
                List.of(new HashSet<>(), new HashSet<>(), new HashSet<>(), new HashSet<>());
        for (long[][] row : keysOf(input, null)) {
            for (int c = 0; c < 4; c++) {
                for (long k : row[c]) {
                    distinct.get(c).add(k);
                }
            }
        }
        for (int c = 0; c < 4; c++) {
            CAPACITY[c] = Math.max(8, distinct.get(c).size() / 4);
        }
        spec = SPEC_TEMPLATE.formatted(CAPACITY[0], CAPACITY[1], CAPACITY[2], CAPACITY[3]);
    }

    private Path preprocess(int parallelism, StateBackend backend, int blockBytes)
            throws Exception {
        Path out = Files.createTempDirectory(tmp, "out-p" + parallelism + "-");
        Preprocess.prepareOutput(out, false);
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, spec);
        conf.set(PiperOptions.BLOCK_BYTES, blockBytes);
        Preprocess.run(input, out, parallelism, backend, conf, TestClusters.QUIET);
        return out;
    }

    @Test
    void anEvictingOutputIsTheSameAtEveryParallelismAndItsAssignmentsNameEveryRowsKeys()
            throws Exception {
        // the smallest blocks allowed (~1,000 lines): assignments land in ~30 blocks of each column
        Path one = preprocess(1, StateBackend.hashmap, 65_537);
        checkAgainstInput(one);
        Map<String, String> files = SameOutput.sha256OfEveryFile(one);
        assertThat(files)
                .containsKeys(OutputLayout.assignmentsFile(0), OutputLayout.assignmentsFile(3));
        assertThat(SameOutput.sha256OfEveryFile(preprocess(2, StateBackend.hashmap, 65_537)))
                .isEqualTo(files);
        assertThat(SameOutput.sha256OfEveryFile(preprocess(4, StateBackend.hashmap, 65_537)))
                .isEqualTo(files);
        assertThat(SameOutput.sha256OfEveryFile(preprocess(2, StateBackend.rocksdb, 65_537)))
                .isEqualTo(files);
        // other block boundaries, the same rows and assignments
        assertThat(SameOutput.sha256OfEveryFile(preprocess(2, StateBackend.hashmap, 1 << 20)))
                .isEqualTo(files);
    }

    /**
     * The stream of the same lines (one input partition) through two injected failures (before and
     * after its first checkpoint) at parallelism 2, then a savepoint restored at parallelism 3 for
     * the rest: {@code consume} replays the vocabulary topic's assignment records into the batch
     * run's files, byte for byte (rows, lists, each column's assignments and final map), and those
     * name every row's own keys.
     */
    @Test
    void theStreamThroughAFailureAndARescaleConsumesToTheBatchFiles() throws Exception {
        Path batch = preprocess(2, StateBackend.hashmap, 65_537);
        checkAgainstInput(batch);
        byte[] all = Files.readAllBytes(input);
        Path[] parts = new Path[3];
        int from = 0;
        for (int i = 0; i < 3; i++) {
            int to = i == 2 ? all.length : StreamITCase.nthNewline(all, LINES * (i + 1) / 3) + 1;
            parts[i] =
                    Files.write(
                            tmp.resolve("part" + i + ".tsv"), Arrays.copyOfRange(all, from, to));
            from = to;
        }
        try (TestKafka kafka = TestKafka.start()) {
            Configuration conf =
                    Streaming.configuration(
                            2, StateBackend.hashmap, tmp.resolve("ckpt"), Duration.ofSeconds(1));
            conf.set(PiperOptions.SPEC, spec);
            conf.set(StreamOptions.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
            conf.set(StreamOptions.INPUT_TOPIC, "evict-in");
            conf.set(StreamOptions.OUTPUT_TOPIC, "evict-rows");
            conf.set(StreamOptions.VOCAB_TOPIC, "evict-vocab");
            kafka.createTopic("evict-in", 1);
            LineProducer.produce(
                    parts[0],
                    kafka.bootstrapServers(),
                    "evict-in",
                    null,
                    Map.of(),
                    TestClusters.QUIET);
            StreamTopics.prepareTopics(conf, TestClusters.QUIET);

            StreamITCase.FailureInjector.arm(27);
            CompletableFuture<StreamRunner.Result> first =
                    StreamITCase.FailureInjector.runUntilCheckpointed(conf);
            // blocks flow after the checkpoint, where the second failure waits
            LineProducer.produce(
                    parts[1],
                    kafka.bootstrapServers(),
                    "evict-in",
                    null,
                    Map.of(),
                    TestClusters.QUIET);
            String savepoint = first.get(4, TimeUnit.MINUTES).savepoint().orElseThrow();
            assertThat(StreamITCase.FailureInjector.failures()).isEqualTo(2);

            LineProducer.produce(
                    parts[2],
                    kafka.bootstrapServers(),
                    "evict-in",
                    null,
                    Map.of(),
                    TestClusters.QUIET);
            Configuration rescaled =
                    Streaming.configuration(
                            3, StateBackend.hashmap, tmp.resolve("ckpt-p3"), Duration.ofSeconds(1));
            conf.toMap()
                    .forEach(
                            (k, v) -> {
                                if (k.startsWith("piper.")) {
                                    rescaled.setString(k, v);
                                }
                            });
            rescaled.set(StreamOptions.TRANSACTIONAL_ID_PREFIX, "evict-p3");
            Streaming.restoreFrom(rescaled, Path.of(java.net.URI.create(savepoint)), false);
            StreamRunner.run(
                    Streaming.job(rescaled), rescaled, Duration.ofSeconds(2), TestClusters.QUIET);

            JsonNode meta =
                    new ObjectMapper().readTree(batch.resolve(OutputLayout.METADATA).toFile());
            Path consumed = tmp.resolve("consumed");
            OutputConsumer.Result r =
                    new OutputConsumer(
                                    kafka.bootstrapServers(),
                                    Map.of(),
                                    "evict-rows",
                                    "evict-vocab",
                                    StreamOptions.deadLetterTopic(conf))
                            .spec(PiperOptions.decodeOptions(conf)) // a spec of the test's own
                            .consume(
                                    consumed,
                                    meta.get("rows_written").asLong(),
                                    Duration.ofSeconds(20),
                                    TestClusters.QUIET);
            assertThat(r.rows()).isEqualTo(meta.get("rows_written").asLong());
            assertThat(r.deadLetters()).isEqualTo(meta.get("dead_letters").asLong());
            for (int c = 0; c < 4; c++) {
                assertThat(r.vocabSizes().get("C" + (c + 1)))
                        .isEqualTo(meta.get("vocab_size").get("C" + (c + 1)).asInt());
            }
            SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "evicting stream");
            assertThat(consumed.resolve(OutputLayout.assignmentsFile(3))).exists();
        }
    }

    /**
     * The keys of each line not in {@code rejected} (1-based line numbers; null: every line, the
     * malformed ones as well as they parse, for counting keys), per column, from the input's text:
     * hex ids (lists split at commas, an empty single field is key 0) modulo the column's modulus.
     */
    private static List<long[][]> keysOf(Path input, Set<Long> rejected) throws Exception {
        List<long[][]> keys = new ArrayList<>();
        long lineNo = 0;
        // bytes as ISO-8859-1: the generator's malformed lines hold invalid UTF-8
        String text = new String(Files.readAllBytes(input), StandardCharsets.ISO_8859_1);
        for (String line : text.substring(0, text.length() - 1).split("\n", -1)) {
            lineNo++;
            if (rejected != null && rejected.contains(lineNo)) {
                continue;
            }
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            String[] f = line.split("\t", -1);
            if (rejected == null && f.length != 1 + LAYOUT.dense() + 4) {
                continue; // counting: a malformed line
            }
            long[][] row = new long[4][];
            for (int c = 0; c < 4; c++) {
                String field = f[1 + LAYOUT.dense() + c];
                String[] ids =
                        c < 2
                                ? new String[] {field}
                                : field.isEmpty() ? new String[0] : field.split(",");
                row[c] = new long[ids.length];
                for (int i = 0; i < ids.length; i++) {
                    BigInteger id;
                    try {
                        id = ids[i].isEmpty() ? BigInteger.ZERO : new BigInteger(ids[i], 16);
                    } catch (NumberFormatException e) {
                        if (rejected == null) {
                            id = BigInteger.ZERO; // counting: a malformed id
                        } else {
                            throw e;
                        }
                    }
                    row[c][i] = id.mod(BigInteger.valueOf(MODULUS[c])).longValueExact();
                }
            }
            keys.add(row);
        }
        return keys;
    }

    /** Replays the assignments against the input's keys, row by row. */
    private static void checkAgainstInput(Path out) throws Exception {
        JsonNode meta = new ObjectMapper().readTree(out.resolve(OutputLayout.METADATA).toFile());
        long rows = meta.get("rows_written").asLong();
        assertThat(rows + meta.get("dead_letters").asLong()).isEqualTo(LINES);
        Set<Long> rejected = new HashSet<>();
        for (String line : Files.readAllLines(out.resolve(OutputLayout.DEAD_LETTERS))) {
            rejected.add(new ObjectMapper().readTree(line).get("line").asLong());
        }
        List<long[][]> keys = keysOf(input, rejected);
        assertThat(keys).hasSize((int) rows);

        int rowInts = 1 + LAYOUT.dense() + 2;
        ByteBuffer rowsBin =
                ByteBuffer.wrap(Files.readAllBytes(out.resolve(OutputLayout.ROWS)))
                        .order(ByteOrder.LITTLE_ENDIAN);
        for (int c = 0; c < 4; c++) {
            int[][] indices = new int[(int) rows][];
            if (c < 2) {
                for (int r = 0; r < rows; r++) {
                    indices[r] =
                            new int[] {rowsBin.getInt((r * rowInts + 1 + LAYOUT.dense() + c) * 4)};
                }
            } else {
                ByteBuffer lengths =
                        ByteBuffer.wrap(
                                        Files.readAllBytes(
                                                out.resolve(OutputLayout.listLengthsFile(c))))
                                .order(ByteOrder.LITTLE_ENDIAN);
                ByteBuffer values =
                        ByteBuffer.wrap(
                                        Files.readAllBytes(
                                                out.resolve(OutputLayout.listValuesFile(c))))
                                .order(ByteOrder.LITTLE_ENDIAN);
                for (int r = 0; r < rows; r++) {
                    indices[r] = new int[lengths.getInt(r * 4)];
                    for (int i = 0; i < indices[r].length; i++) {
                        indices[r][i] = values.getInt();
                    }
                }
            }
            replay(out, c, keys, indices, meta);
        }
    }

    private static void replay(Path out, int c, List<long[][]> keys, int[][] indices, JsonNode meta)
            throws Exception {
        String name = "C" + (c + 1);
        List<String> lines = Files.readAllLines(out.resolve(OutputLayout.assignmentsFile(c)));
        Map<Integer, Long> holder = new HashMap<>();
        Map<Long, Integer> indexOf = new HashMap<>();
        int next = 0;
        long reuses = 0;
        long checked = 0;
        for (int r = 0; r < indices.length; r++) {
            while (next < lines.size() && Long.parseLong(lines.get(next).split("\t", -1)[0]) == r) {
                String[] a = lines.get(next++).split("\t", -1);
                int index = Integer.parseInt(a[1]);
                long key = Long.parseUnsignedLong(a[2]);
                assertThat(index).as(name).isBetween(BUCKETS[c], BUCKETS[c] + CAPACITY[c] - 1);
                assertThat(indexOf)
                        .as(name + ": key %d holds an index already", key)
                        .doesNotContainKey(key);
                Long old = holder.put(index, key);
                if (a[3].isEmpty()) {
                    assertThat(old).as(name + ": fresh index %d was held", index).isNull();
                } else {
                    assertThat(old)
                            .as(name + ": index %d's evicted key", index)
                            .isEqualTo(Long.parseUnsignedLong(a[3]));
                    indexOf.remove(old);
                    reuses++;
                }
                indexOf.put(key, index);
            }
            long[] rowKeys = keys.get(r)[c];
            assertThat(indices[r]).as(name + " row %d", r).hasSize(rowKeys.length);
            for (int i = 0; i < rowKeys.length; i++) {
                int index = indices[r][i];
                if (index < BUCKETS[c]) {
                    assertThat(index)
                            .as(name + " row %d id %d's bucket", r, i)
                            .isEqualTo(
                                    new VocabularyPolicy(
                                                    1, BUCKETS[c], VocabularyPolicy.MAX_SIZE, null)
                                            .bucketOf(rowKeys[i]));
                } else {
                    assertThat(holder.get(index))
                            .as(name + " row %d id %d", r, i)
                            .isEqualTo(rowKeys[i]);
                    checked++;
                }
            }
        }
        assertThat(next).as(name + ": assignments after the last row").isEqualTo(lines.size());
        assertThat(reuses).as(name + " reuses of " + CAPACITY[c] + " entries").isGreaterThan(100);
        assertThat(checked).isGreaterThan(indices.length / 2);
        JsonNode policy = meta.get("vocab_policies").get(name);
        assertThat(policy.get("assignments").asLong()).isEqualTo(lines.size());
        assertThat(policy.get("evictions").asLong()).isEqualTo(reuses);
        assertThat(policy.get("table_size").asInt()).isEqualTo(BUCKETS[c] + CAPACITY[c]);
        // the vocabulary file: the key each index holds at the end
        Map<Integer, Long> last = new HashMap<>();
        for (String line : Files.readAllLines(out.resolve(OutputLayout.vocabFile(c)))) {
            String[] f = line.split("\t");
            last.put(Integer.parseInt(f[0]), Long.parseUnsignedLong(f[1]));
        }
        assertThat(last).isEqualTo(holder);
    }

    /**
     * A ttl in event time (issue 42): JSON click events with their times, the user column (C1)
     * holding 200 entries that each live 20 s unseen. The output is the same at parallelism 1 and 2
     * on RocksDB; replaying the assignments over rows.bin and event_times.bin, every reuse evicts a
     * key the column's clock (the latest event time so far) has left at least 20 s behind, and
     * every row's index is its key's.
     */
    @Test
    void aTtlInEventTimeEvictsOnlyKeysTheClockHasLeftBehind() throws Exception {
        Path events = ClickEventFiles.json(tmp.resolve("clicks.jsonl"), 5, 20_000);
        String preset = ClickEventFiles.preset();
        String userColumn =
                "\"C1\": [\"decode\", \"fill_missing\", \"hash64\", {\"op\": \"vocab\","
                        + " \"capacity\": 200, \"evict\": \"ttl\", \"ttl\": \"20s\","
                        + " \"oov_buckets\": 4}], \"C2..C5\"";
        String timedSpec = preset.replace("\"C1..C5\"", userColumn);
        assertThat(timedSpec).contains("\"20s\"");
        Path[] outs = new Path[2];
        for (int i = 0; i < 2; i++) {
            outs[i] = Files.createTempDirectory(tmp, "timed-ttl-");
            Preprocess.prepareOutput(outs[i], false);
            Configuration conf = new Configuration();
            conf.set(PiperOptions.SPEC, timedSpec);
            conf.set(PiperOptions.BLOCK_BYTES, 65_537);
            if (i == 1) {
                conf.setString("state.backend.rocksdb.localdir", tmp.resolve("rocks").toString());
            }
            Preprocess.run(
                    events,
                    outs[i],
                    i + 1,
                    i == 0 ? StateBackend.hashmap : StateBackend.rocksdb,
                    conf,
                    TestClusters.QUIET);
        }
        assertThat(SameOutput.sha256OfEveryFile(outs[1]))
                .isEqualTo(SameOutput.sha256OfEveryFile(outs[0]));

        Path out = outs[0];
        JsonNode meta = new ObjectMapper().readTree(out.resolve(OutputLayout.METADATA).toFile());
        int rows = meta.get("rows_written").asInt();
        int rowInts = meta.get("row_bytes").asInt() / Integer.BYTES;
        int c1 = 1 + meta.get("dense_columns").asInt();
        ByteBuffer rowsBin =
                ByteBuffer.wrap(Files.readAllBytes(out.resolve(OutputLayout.ROWS)))
                        .order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer times =
                ByteBuffer.wrap(Files.readAllBytes(out.resolve(OutputLayout.EVENT_TIMES)))
                        .order(ByteOrder.LITTLE_ENDIAN);
        List<String> assignments = Files.readAllLines(out.resolve(OutputLayout.assignmentsFile(0)));
        Map<Integer, Long> holder = new HashMap<>();
        Map<Long, Long> lastSeen = new HashMap<>();
        long clock = Long.MIN_VALUE;
        int next = 0;
        long reuses = 0;
        for (int r = 0; r < rows; r++) {
            clock = Math.max(clock, times.getLong(r * Long.BYTES));
            while (next < assignments.size()
                    && Long.parseLong(assignments.get(next).split("\t", -1)[0]) == r) {
                String[] a = assignments.get(next++).split("\t", -1);
                Long old = holder.put(Integer.parseInt(a[1]), Long.parseUnsignedLong(a[2]));
                if (!a[3].isEmpty()) {
                    assertThat(old).isEqualTo(Long.parseUnsignedLong(a[3]));
                    assertThat(clock - lastSeen.get(old))
                            .as(
                                    "row %d evicts key %s, last seen at %d, the clock at %d",
                                    r, a[3], lastSeen.get(old), clock)
                            .isGreaterThanOrEqualTo(20_000);
                    reuses++;
                }
            }
            int index = rowsBin.getInt((r * rowInts + c1) * Integer.BYTES);
            if (index >= 4) {
                lastSeen.put(holder.get(index), clock);
            }
        }
        assertThat(next).isEqualTo(assignments.size());
        assertThat(reuses).isGreaterThan(100);
        assertThat(meta.get("vocab_policies").get("C1").get("evictions").asLong())
                .isEqualTo(reuses);
    }
}
