package dev.piper.operators.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.Assignments;
import dev.piper.core.block.BlockNames;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.LogRecord;
import dev.piper.core.block.Origin;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.hotline.HotSet;
import dev.piper.pipeline.hotline.Split;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.VocabularyPolicy;
import java.io.IOException;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class BlockSerializersTest {

    private static final SplittableRandom RANDOM = new SplittableRandom(5);

    private static long[] longs(int n) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = RANDOM.nextLong();
        }
        return a;
    }

    private static int[] ints(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = RANDOM.nextInt();
        }
        return a;
    }

    private static final DeadLetter LETTER =
            new DeadLetter(
                    12,
                    3456,
                    "label_not_int32",
                    "label: \"x\"",
                    new byte[] {'x', (byte) 0xff},
                    true);

    /**
     * Serializes, deserializes, copies view to view, and checks the snapshot restores the same
     * serializer.
     */
    private static <T> T roundTrip(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16);
        serializer.serialize(value, out);
        byte[] bytes = out.getCopyOfBuffer();
        DataOutputSerializer copied = new DataOutputSerializer(16);
        serializer.copy(new DataInputDeserializer(bytes), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(bytes);

        DataOutputSerializer snap = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(snap, serializer.snapshotConfiguration());
        TypeSerializerSnapshot<T> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(snap.getCopyOfBuffer()),
                        BlockSerializersTest.class.getClassLoader());
        assertThat(restored.restoreSerializer()).isEqualTo(serializer);
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAsIs())
                .isTrue();
        return serializer.deserialize(new DataInputDeserializer(bytes));
    }

    @Test
    void rawChunkKeepsOnlyItsMeaningfulBytes() throws IOException {
        byte[] data = "abc\ndef\nJUNK".getBytes();
        RawChunk in = new RawChunk(4, 100, data, 8, -1);
        RawChunk out = roundTrip(RawChunkSerializer.INSTANCE, in);
        assertThat(out.data()).containsExactly("abc\ndef\n".getBytes());
        assertThat(out).usingRecursiveComparison().ignoringFields("data").isEqualTo(in);
    }

    @Test
    void keyChunkAcrossSeveralPieces() throws IOException {
        long[] keys = longs(3 * ArrayIO.PIECE_BYTES / 8 + 5);
        KeyChunk in =
                KeyChunk.builder().column(25).seq(77).keys(keys).size(keys.length - 3).build();
        KeyChunk out = roundTrip(KeyChunkSerializer.INSTANCE, in);
        assertThat(out.size()).isEqualTo(keys.length - 3);
        assertThat(out.keys()).containsExactly(java.util.Arrays.copyOf(keys, keys.length - 3));
        assertThat(out.column()).isEqualTo(25);
        assertThat(out.seq()).isEqualTo(77);
    }

    @Test
    void denseChunkWithDeadLetters() throws IOException {
        int[] values = ints(14 * 3 + 14);
        DenseChunk in =
                DenseChunk.builder()
                        .seq(8)
                        .lines(5)
                        .rows(3)
                        .labelDense(values)
                        .deadLetters(new DeadLetter[] {LETTER, LETTER})
                        .build();
        DenseChunk out = roundTrip(DenseChunkSerializer.INSTANCE, in);
        assertThat(out.labelDense()).containsExactly(java.util.Arrays.copyOf(values, 42));
        assertThat(out).usingRecursiveComparison().ignoringFields("labelDense").isEqualTo(in);
    }

    @Test
    void indexChunk() throws IOException {
        IndexChunk in = new IndexChunk(3, 5, ints(20000), 20000, 17, longs(300));
        assertThat(roundTrip(IndexChunkSerializer.INSTANCE, in))
                .usingRecursiveComparison()
                .isEqualTo(in);
    }

    @Test
    void assembledBlock() throws IOException {
        long[][] newKeys = new long[26][];
        int[] firstNew = new int[26];
        for (int c = 0; c < 26; c++) {
            newKeys[c] = longs(c);
            firstNew[c] = c * 3;
        }
        byte[] rows = new byte[160 * 7];
        RANDOM.nextBytes(rows);
        AssembledBlock in =
                AssembledBlock.builder()
                        .seq(2)
                        .lines(8)
                        .rows(7)
                        .rowBytes(rows)
                        .deadLetters(new DeadLetter[] {LETTER})
                        .newKeys(firstNew, newKeys)
                        .build();
        assertThat(roundTrip(AssembledBlockSerializer.INSTANCE, in))
                .usingRecursiveComparison()
                .isEqualTo(in);
    }

    private static final Origin ORIGIN =
            new Origin(
                    new long[] {900, 902, 907},
                    new int[] {0, 1, 3},
                    1_700_000_000_000L,
                    1_700_000_000_250L);

    @Test
    void logChunksKeepTheirLaneAndOrigin() throws IOException {
        byte[] data = "a\nb\nc\nd\n".getBytes();
        RawChunk raw = new RawChunk(7, 900, 0, data, data.length, -1, ORIGIN);
        assertThat(roundTrip(RawChunkSerializer.INSTANCE, raw))
                .usingRecursiveComparison()
                .isEqualTo(raw);
        DenseChunk dense =
                DenseChunk.builder()
                        .lane(7)
                        .seq(900)
                        .lines(4)
                        .rows(3)
                        .labelDense(ints(42))
                        .deadLetters(new DeadLetter[] {LETTER})
                        .origin(ORIGIN)
                        .version(5)
                        .build();
        assertThat(roundTrip(DenseChunkSerializer.INSTANCE, dense))
                .usingRecursiveComparison()
                .isEqualTo(dense);
        KeyChunk keys =
                KeyChunk.builder()
                        .lane(7)
                        .column(2)
                        .seq(900)
                        .keys(longs(3))
                        .size(3)
                        .epoch(4)
                        .build();
        assertThat(roundTrip(KeyChunkSerializer.INSTANCE, keys))
                .usingRecursiveComparison()
                .isEqualTo(keys);
        KeyChunk bounded =
                KeyChunk.builder()
                        .lane(7)
                        .column(2)
                        .seq(900)
                        .keys(longs(3))
                        .size(3)
                        .epoch(4)
                        .policy(new VocabularyPolicy(1, 8, 1000, null))
                        .build();
        assertThat(roundTrip(KeyChunkSerializer.INSTANCE, bounded))
                .usingRecursiveComparison()
                .isEqualTo(bounded);
        IndexChunk indices = new IndexChunk(7, 2, 900, ints(3), 3, 0, longs(2), 4);
        assertThat(roundTrip(IndexChunkSerializer.INSTANCE, indices))
                .usingRecursiveComparison()
                .isEqualTo(indices);
        long[][] newKeys = new long[26][];
        java.util.Arrays.setAll(newKeys, c -> longs(1));
        AssembledBlock block =
                AssembledBlock.builder()
                        .lane(7)
                        .seq(900)
                        .lines(4)
                        .rows(3)
                        .rowBytes(new byte[480])
                        .deadLetters(new DeadLetter[] {LETTER})
                        .newKeys(new int[26], newKeys)
                        .origin(ORIGIN)
                        .version(5)
                        .epochs(ints(26))
                        .build();
        assertThat(roundTrip(AssembledBlockSerializer.INSTANCE, block))
                .usingRecursiveComparison()
                .isEqualTo(block);
    }

    @Test
    void logRecord() throws IOException {
        LogRecord in = new LogRecord(3, 1L << 40, 1_700_000_000_123L, "1\t2\n".getBytes());
        assertThat(roundTrip(LogRecordSerializer.INSTANCE, in))
                .usingRecursiveComparison()
                .isEqualTo(in);
        assertThat(LogRecordSerializer.FORMAT).isEqualTo(1);
        assertThat(bytes(LogRecordSerializer.INSTANCE, new LogRecord(1, 2, 3, new byte[] {'a'})))
                .isEqualTo("00000001000000000000000200000000000000030000000161");
    }

    @Test
    void fileChunksReadBackWithTheSharedNoneOrigin() throws IOException {
        RawChunk raw = new RawChunk(1, 2, new byte[1], 1, -1);
        assertThat(roundTrip(RawChunkSerializer.INSTANCE, raw).origin()).isSameAs(Origin.NONE);
    }

    /**
     * Frozen bytes: the formats are written down in the serializers' class comments; a change that
     * alters these bytes must raise the format version (and this test's expectations).
     */
    @Test
    void formatsAreFrozen() throws IOException {
        assertThat(RawChunkSerializer.FORMAT).isEqualTo(3);
        assertThat(
                        bytes(
                                RawChunkSerializer.INSTANCE,
                                new RawChunk(
                                        1,
                                        2,
                                        3,
                                        "x\n".getBytes(),
                                        2,
                                        -1,
                                        new Origin(new long[] {2}, new int[] {0}, 5, 6))))
                .isEqualTo(RAW_FROZEN);
        assertThat(KeyChunkSerializer.FORMAT).isEqualTo(6);
        assertThat(
                        bytes(
                                KeyChunkSerializer.INSTANCE,
                                KeyChunk.builder()
                                        .lane(1)
                                        .column(2)
                                        .seq(3)
                                        .keys(new long[] {4})
                                        .size(1)
                                        .epoch(5)
                                        .build()))
                .isEqualTo(KEY_FROZEN);
        assertThat(
                        bytes(
                                KeyChunkSerializer.INSTANCE,
                                KeyChunk.builder()
                                        .lane(1)
                                        .column(2)
                                        .seq(3)
                                        .keys(new long[] {4})
                                        .size(1)
                                        .epoch(5)
                                        .policy(new VocabularyPolicy(2, 3, 100, "/v"))
                                        .build()))
                .isEqualTo(KEY_POLICY_FROZEN);
        assertThat(IndexChunkSerializer.FORMAT).isEqualTo(5);
        assertThat(
                        bytes(
                                IndexChunkSerializer.INSTANCE,
                                new IndexChunk(1, 2, 3, new int[] {4}, 1, 5, new long[] {6}, 7)))
                .isEqualTo(INDEX_FROZEN);
        assertThat(DenseChunkSerializer.FORMAT).isEqualTo(7);
        int[] dense = new int[14];
        dense[0] = 1;
        dense[13] = -1;
        assertThat(
                        bytes(
                                DenseChunkSerializer.INSTANCE,
                                DenseChunk.builder()
                                        .lane(1)
                                        .seq(2)
                                        .lines(2)
                                        .rows(1)
                                        .labelDense(dense)
                                        .deadLetters(
                                                new DeadLetter[] {
                                                    new DeadLetter(
                                                            1, 9, "r", "d", new byte[] {'z'}, false)
                                                })
                                        .origin(Origin.NONE)
                                        .version(6)
                                        .build()))
                .isEqualTo(DENSE_FROZEN);
        assertThat(AssembledBlockSerializer.FORMAT).isEqualTo(10);
        assertThat(
                        bytes(
                                AssembledBlockSerializer.INSTANCE,
                                AssembledBlock.builder()
                                        .lane(1)
                                        .seq(2)
                                        .lines(1)
                                        .rows(1)
                                        .rowBytes(new byte[] {7, 8})
                                        .deadLetters(new DeadLetter[0])
                                        .newKeys(new int[] {3}, new long[][] {{4}})
                                        .origin(Origin.NONE)
                                        .version(5)
                                        .epochs(new int[] {6})
                                        .build()))
                .isEqualTo(ASSEMBLED_FROZEN);
    }

    @Test
    void columnBlockOfAnotherLayout() throws IOException {
        ColumnBlock in =
                new ColumnBlock(
                        0,
                        1,
                        0,
                        3,
                        3,
                        ints(3 * 5),
                        new long[][] {longs(3), longs(3), longs(3)},
                        new DeadLetter[0]);
        ColumnBlock out = roundTrip(ColumnBlockSerializer.INSTANCE, in);
        assertThat(out).usingRecursiveComparison().isEqualTo(in);
        assertThat(out.keys()).hasNumberOfRows(3);
        // C2 a list column: rows of 2, 0 and 1 ids
        ColumnBlock lists =
                new ColumnBlock(
                        0,
                        1,
                        0,
                        3,
                        3,
                        ints(3 * 5),
                        new long[][] {longs(3), {7, 8, 9, 0}, longs(3)},
                        new DeadLetter[0],
                        new int[][] {null, {0, 2, 2, 3}, null});
        ColumnBlock back = roundTrip(ColumnBlockSerializer.INSTANCE, lists);
        assertThat(back.offsets()[1]).containsExactly(0, 2, 2, 3);
        assertThat(back.keys()[1]).containsExactly(7, 8, 9);
        assertThat(back.offsets()[0]).isNull();
    }

    @Test
    void columnBlockWithDeadLetters() throws IOException {
        long[][] keys = new long[26][];
        for (int c = 0; c < 26; c++) {
            keys[c] = longs(70);
        }
        ColumnBlock in =
                new ColumnBlock(
                        0,
                        9,
                        36_864,
                        72,
                        70,
                        ints(70 * 14),
                        keys,
                        new DeadLetter[] {LETTER, LETTER});
        assertThat(roundTrip(ColumnBlockSerializer.INSTANCE, in))
                .usingRecursiveComparison()
                .isEqualTo(in);
    }

    /** A block of events: its strings and event times travel with it. */
    @Test
    void columnBlockWithNamesAndEventTimes() throws IOException {
        dev.piper.core.block.BlockNames names =
                new dev.piper.core.block.BlockNames(
                        new long[][] {{11, 12}, null},
                        new int[][] {{2, -1}, null},
                        new byte[][] {
                            "ab".getBytes(java.nio.charset.StandardCharsets.UTF_8), null
                        });
        ColumnBlock in =
                new ColumnBlock(
                        0,
                        4,
                        100,
                        3,
                        2,
                        ints(2 * 3),
                        new long[][] {longs(2), longs(2)},
                        new DeadLetter[] {LETTER},
                        new int[2][],
                        names,
                        new long[] {1_764_230_400_000L, 1_764_230_400_123L});
        assertThat(roundTrip(ColumnBlockSerializer.INSTANCE, in))
                .usingRecursiveComparison()
                .isEqualTo(in);
    }

    /** Format 4 of a one-row block with one dead letter, no names and no event times. */
    @Test
    void columnBlockBytesAreFrozen() throws IOException {
        long[][] keys = new long[26][1];
        keys[0][0] = 0xabcdL;
        int[] labelDense = new int[14];
        labelDense[1] = -5;
        ColumnBlock block =
                new ColumnBlock(
                        0,
                        3,
                        4096,
                        2,
                        1,
                        labelDense,
                        keys,
                        new DeadLetter[] {
                            new DeadLetter(1, -1, "dense_not_int32", "I1", new byte[] {'1'}, false)
                        });
        String hex = bytes(ColumnBlockSerializer.INSTANCE, block);
        assertThat(hex).isEqualTo(COLUMN_BLOCK_FROZEN);
        assertThat(
                        ColumnBlockSerializer.INSTANCE.deserialize(
                                new DataInputDeserializer(java.util.HexFormat.of().parseHex(hex))))
                .usingRecursiveComparison()
                .isEqualTo(block);
    }

    private static <T> String bytes(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(16);
        serializer.serialize(value, out);
        return java.util.HexFormat.of().formatHex(out.getCopyOfBuffer());
    }

    /**
     * lane, seq, firstRow, lines, rows; 14 ints (label 0, I1 -5); C1's one key 0xabcd, C2..C26 a
     * zero each; one dead letter.
     */
    private static final String COLUMN_BLOCK_FROZEN =
            "00000000"
                    + "0000000000000003"
                    + "0000000000001000"
                    + "00000002"
                    + "00000001"
                    + "0000000e"
                    + "00000000"
                    + "fbffffff"
                    + "00000000".repeat(12)
                    + "0000001a" // 26 key arrays
                    + "00000001cdab000000000000"
                    + "000000010000000000000000".repeat(25)
                    + "00000001"
                    + "00000001"
                    + "ffffffffffffffff"
                    + "000f"
                    + "64656e73655f6e6f745f696e743332" // dense_not_int32
                    + "0002"
                    + "4931"
                    + "00000001"
                    + "31"
                    + "00"
                    + "ffffffff".repeat(26) // no list columns
                    + "00000000" // no names
                    + "00"; // no event times

    private static final String RAW_FROZEN =
            "0000000100000000000000020000000000000003ffffffffffffffff00000002780a000000010200000000000000000000010000000000000000000000050000000000000006";

    /** Format 4 of the key chunk of {@link #formatsAreFrozen}: no offsets. */
    private static final String KEY_FROZEN_4 =
            "0000000100000002000000000000000300000001040000000000000000000005" + "00";

    /** Format 5: format 4 and -1, a column of one id per row. */
    private static final String KEY_FROZEN_5 = KEY_FROZEN_4 + "ffffffff";

    /** Format 6: format 5 and -1, no event times. */
    private static final String KEY_FROZEN = KEY_FROZEN_5 + "ffffffff";

    /** The same chunk under a vocabulary policy: min_count 2, 3 OOV buckets, 100 entries, "/v". */
    private static final String KEY_POLICY_FROZEN =
            "0000000100000002000000000000000300000001040000000000000000000005"
                    + "01"
                    + "00000002"
                    + "00000003"
                    + "00000064"
                    + "01"
                    + "0002"
                    + "2f76"
                    + "ffffffff"
                    + "ffffffff";

    /** A list column's chunk: rows [4, 5] and [], offsets 0, 2, 2. */
    private static final String KEY_LIST_FROZEN =
            "00000001"
                    + "00000002"
                    + "0000000000000003"
                    + "00000002"
                    + "0400000000000000"
                    + "0500000000000000"
                    + "00000000" // epoch
                    + "00" // default policy
                    + "00000003"
                    + "00000000"
                    + "02000000"
                    + "02000000"
                    + "ffffffff"; // no event times

    /** Format 3 of the index chunk of {@link #formatsAreFrozen}: no offsets. */
    private static final String INDEX_FROZEN_3 =
            "0000000100000002000000000000000300000001040000000000000500000001060000000000000000000007";

    /** Format 4: format 3 and -1, a column of one id per row. */
    private static final String INDEX_FROZEN_4 = INDEX_FROZEN_3 + "ffffffff";

    /** Format 5: format 4 and 0, no assignments (a vocabulary that does not evict). */
    private static final String INDEX_FROZEN = INDEX_FROZEN_4 + "00";

    /**
     * Format 5 of an evicting column's chunk: indices [9, 8], first new index 10, keys [6, 7];
     * assignments from number 5: fresh index 9 to key 6 at row 0, then index 8 to key 7 at row 1,
     * evicting key 3.
     */
    private static final String INDEX_EVICTING_FROZEN =
            "00000001"
                    + "00000002"
                    + "0000000000000003"
                    + ("00000002" + "09000000" + "08000000")
                    + "0000000a"
                    + ("00000002" + "0600000000000000" + "0700000000000000")
                    + "00000000"
                    + "ffffffff"
                    + "01"
                    + "0000000000000005"
                    + "00000001"
                    + ("00000002" + "09000000" + "08000000")
                    + ("00000002" + "0600000000000000" + "0700000000000000")
                    + ("00000002" + "00000000" + "01000000")
                    + ("00000001" + "0300000000000000");

    /** A key chunk under an evicting policy: capacity 50, LFU, no ttl (tag 2). */
    private static final String KEY_EVICTING_FROZEN =
            "0000000100000002000000000000000300000001040000000000000000000005"
                    + "02"
                    + "00000001"
                    + "00000003"
                    + "20000000"
                    + "00"
                    + "00000032"
                    + "01"
                    + "0000000000000000" // no ttl in rows
                    + "0000000000000000" // nor in event time
                    + "ffffffff"
                    + "ffffffff";

    /**
     * A key chunk under a ttl in event time, 1 hour (capacity 50, TTL), with its row's event time
     * (1,000 ms).
     */
    private static final String KEY_TIMED_FROZEN =
            "0000000100000002000000000000000300000001040000000000000000000005"
                    + "02"
                    + "00000001"
                    + "00000003"
                    + "20000000"
                    + "00"
                    + "00000032"
                    + "02"
                    + "0000000000000000"
                    + "000000000036ee80"
                    + "ffffffff"
                    + ("00000001" + "e803000000000000");

    /** Format 6 holds a ttl in event time and the rows' times; format 5's bytes migrate. */
    @Test
    void keyChunksWithEventTimesAreFrozenAndFormat5Migrates() throws IOException {
        VocabularyPolicy timed =
                new VocabularyPolicy(
                        1,
                        3,
                        VocabularyPolicy.MAX_SIZE,
                        null,
                        50,
                        VocabularyPolicy.Eviction.TTL,
                        0,
                        3_600_000);
        KeyChunk key =
                KeyChunk.builder()
                        .lane(1)
                        .column(2)
                        .seq(3)
                        .keys(new long[] {4})
                        .size(1)
                        .epoch(5)
                        .policy(timed)
                        .build()
                        .withTimes(new long[] {1_000});
        assertThat(bytes(KeyChunkSerializer.INSTANCE, key)).isEqualTo(KEY_TIMED_FROZEN);
        KeyChunk back = roundTrip(KeyChunkSerializer.INSTANCE, key);
        assertThat(back.policy()).isEqualTo(timed);
        assertThat(back.times()).containsExactly(1_000L);
        TypeSerializerSnapshot<KeyChunk> keys5 =
                restoredSnapshot(KeyChunkSerializer.Snapshot.class, 5);
        KeyChunk five =
                keys5.restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        java.util.HexFormat.of().parseHex(KEY_FROZEN_5)));
        assertThat(bytes(KeyChunkSerializer.INSTANCE, five)).isEqualTo(KEY_FROZEN);
        assertThat(bytes(keys5.restoreSerializer(), five)).isEqualTo(KEY_FROZEN_5);
        assertThatThrownBy(() -> bytes(keys5.restoreSerializer(), key))
                .hasMessageContaining("event times");
    }

    private static Assignments frozenAssignments() {
        return new Assignments(
                5, 1, new int[] {9, 8}, new long[] {6, 7}, new int[] {0, 1}, new long[] {3});
    }

    /** Format 4 of the dense chunk of {@link #formatsAreFrozen}: Criteo's layout, implied. */
    private static final String DENSE_FROZEN_4 =
            "00000001000000000000000200000002000000010000000e01000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffff00000001000000010000000000000009000172000164000000017a000000000000000000ffffffffffffffffffffffffffffffff00000006";

    /**
     * Format 5: format 4 and the layout: 13 dense, 26 sparse columns, no lists, ',', no generated
     * columns; then no onehot sizes.
     */
    private static final String DENSE_FROZEN_5 =
            DENSE_FROZEN_4
                    + "0000000d"
                    + "0000001a"
                    + "00000000"
                    + "002c"
                    + "00000000"
                    + "00000000"; // no onehot

    /** Format 6: format 5, then no names (0 columns). */
    private static final String DENSE_FROZEN_6 = DENSE_FROZEN_5 + "00000000";

    /** Format 7: format 6, then no event times. */
    private static final String DENSE_FROZEN = DENSE_FROZEN_6 + "00";

    /** Format 5: no list columns (a count of 0 after the epochs). */
    private static final String ASSEMBLED_FROZEN_5 =
            "00000001000000000000000200000001000000010000000207080000000000000001000000030000000104000000000000000000000000000000ffffffffffffffffffffffffffffffff000000050000000106000000"
                    + "00000000";

    /** Format 6: format 5, then no split. */
    private static final String ASSEMBLED_FROZEN_6 = ASSEMBLED_FROZEN_5 + "00";

    /** Format 7: format 6, then no assignments (no column evicts). */
    private static final String ASSEMBLED_FROZEN_7 = ASSEMBLED_FROZEN_6 + "00000000";

    /** Format 8: format 7, then no names (0 columns). */
    private static final String ASSEMBLED_FROZEN_8 = ASSEMBLED_FROZEN_7 + "00000000";

    /** Format 9: format 8, then no event times. */
    private static final String ASSEMBLED_FROZEN_9 = ASSEMBLED_FROZEN_8 + "00";

    /** Format 10: format 9, then no window starts in event time. */
    private static final String ASSEMBLED_FROZEN = ASSEMBLED_FROZEN_9 + "00000000";

    /**
     * Format 6 with a split: first row 3, the row popular, no working parameters in its one column,
     * window 1 from row 3 with capture 0.5 and index 4 hot.
     */
    private static final String ASSEMBLED_SPLIT_FROZEN_6 =
            ASSEMBLED_FROZEN_5
                    + "01"
                    + "0000000000000003"
                    + ("00000001" + "01")
                    + "00000001"
                    + ("00000001" + "00000000")
                    + "00000001"
                    + ("00000001" + "0000000000000003" + "3fe0000000000000")
                    + ("00000001" + "00000001" + "04000000");

    /** Format 10 of the same: no assignments, no names, no event times, a window of rows. */
    private static final String ASSEMBLED_SPLIT_FROZEN =
            ASSEMBLED_SPLIT_FROZEN_6 + "00000000" + "00000000" + "00" + "00000000";

    private static AssembledBlock frozenAssembled() {
        return AssembledBlock.builder()
                .lane(1)
                .seq(2)
                .lines(1)
                .rows(1)
                .rowBytes(new byte[] {7, 8})
                .deadLetters(new DeadLetter[0])
                .newKeys(new int[] {3}, new long[][] {{4}})
                .origin(Origin.NONE)
                .version(5)
                .epochs(new int[] {6})
                .build();
    }

    /** A block's Hotline split is frozen too, and blocks in flight of format 5 migrate. */
    @Test
    void assembledBlocksWithASplitAreFrozenAndFormat5Migrates() throws IOException {
        AssembledBlock split =
                frozenAssembled()
                        .withSplit(
                                new Split(
                                        3,
                                        new byte[] {1},
                                        1,
                                        new int[][] {{}},
                                        java.util.List.of(
                                                new Split.Window(
                                                        1,
                                                        3,
                                                        Split.Window.NO_TIME,
                                                        new HotSet(new int[][] {{4}}),
                                                        0.5))));
        assertThat(bytes(AssembledBlockSerializer.INSTANCE, split))
                .isEqualTo(ASSEMBLED_SPLIT_FROZEN);
        AssembledBlock read =
                AssembledBlockSerializer.INSTANCE.deserialize(
                        new DataInputDeserializer(
                                java.util.HexFormat.of().parseHex(ASSEMBLED_SPLIT_FROZEN)));
        assertThat(read.split().windows()).isEqualTo(split.split().windows());
        assertThat(read.split().popular()).isEqualTo(new byte[] {1});

        DataOutputSerializer old = new DataOutputSerializer(64);
        old.writeUTF(AssembledBlockSerializer.Snapshot.class.getName());
        old.writeInt(5);
        TypeSerializerSnapshot<AssembledBlock> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(old.getCopyOfBuffer()),
                        BlockSerializersTest.class.getClassLoader());
        assertThat(
                        AssembledBlockSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAfterMigration())
                .isTrue();
        AssembledBlock migrated =
                restored.restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        java.util.HexFormat.of().parseHex(ASSEMBLED_FROZEN_5)));
        assertThat(bytes(AssembledBlockSerializer.INSTANCE, migrated)).isEqualTo(ASSEMBLED_FROZEN);
        assertThat(bytes(restored.restoreSerializer(), migrated)).isEqualTo(ASSEMBLED_FROZEN_5);
    }

    /**
     * Format 10: a split whose window is in event time ends with the window's start (1 hour, 3.6M
     * ms); format 9 reads the bytes before it and cannot write it.
     */
    @Test
    void aWindowInEventTimeIsFrozenAndFormat9CannotHoldIt() throws IOException {
        Split.Window w = new Split.Window(1, 3, 3_600_000, new HotSet(new int[][] {{4}}), 0.5);
        AssembledBlock block =
                frozenAssembled()
                        .withSplit(new Split(3, new byte[] {1}, 1, new int[][] {{}}, List.of(w)));
        String hex =
                ASSEMBLED_SPLIT_FROZEN_6
                        + "00000000"
                        + "00000000"
                        + "00"
                        + "00000001"
                        + "000000000036ee80";
        assertThat(bytes(AssembledBlockSerializer.INSTANCE, block)).isEqualTo(hex);
        AssembledBlock read =
                AssembledBlockSerializer.INSTANCE.deserialize(
                        new DataInputDeserializer(java.util.HexFormat.of().parseHex(hex)));
        assertThat(read.split().windows()).containsExactly(w);
        AssembledBlock nine =
                AssembledBlockSerializer.Format9.INSTANCE.deserialize(
                        new DataInputDeserializer(
                                java.util.HexFormat.of().parseHex(ASSEMBLED_FROZEN_9)));
        assertThat(bytes(AssembledBlockSerializer.INSTANCE, nine)).isEqualTo(ASSEMBLED_FROZEN);
        assertThatThrownBy(() -> bytes(AssembledBlockSerializer.Format9.INSTANCE, block))
                .hasMessageContaining("windows in event time");
    }

    /**
     * A dense chunk of another layout: two rows of a label, two dense values and one generated from
     * I2; 3 sparse columns, C1 and C3 lists.
     */
    @Test
    void denseChunkOfAnotherLayoutIsFrozen() throws IOException {
        DenseChunk chunk =
                DenseChunk.builder()
                        .lane(0)
                        .seq(7)
                        .lines(2)
                        .rows(2)
                        .labelDense(new int[] {1, 2, 3, 3, 0, -4, 5, 5})
                        .deadLetters(new DeadLetter[0])
                        .origin(Origin.NONE)
                        .version(1)
                        .layout(
                                new RowLayout(
                                        2, 3, java.util.List.of(0, 2), '|', java.util.List.of(1)))
                        .build();
        String hex = bytes(DenseChunkSerializer.INSTANCE, chunk);
        assertThat(hex)
                .isEqualTo(
                        "00000000"
                                + "0000000000000007"
                                + "00000002"
                                + "00000002"
                                + "00000008"
                                + "01000000"
                                + "02000000"
                                + "03000000"
                                + "03000000"
                                + "00000000"
                                + "fcffffff"
                                + "05000000"
                                + "05000000"
                                + "00000000" // no dead letters
                                + "0000000000000000" // no origin
                                + "ff".repeat(16)
                                + "00000001"
                                + "00000002"
                                + "00000003"
                                + "00000002" // two list columns, C1 and C3
                                + "00000000"
                                + "00000002"
                                + "007c" // '|'
                                + "00000001" // one generated column, of I2
                                + "00000001"
                                + "00000000" // no onehot
                                + "00000000" // no names
                                + "00"); // no event times
        assertThat(roundTrip(DenseChunkSerializer.INSTANCE, chunk))
                .usingRecursiveComparison()
                .isEqualTo(chunk);
        byte[] corrupt =
                java.util.HexFormat.of()
                        .parseHex(hex.replace("0000000200000003", "0000000300000003"));
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                DenseChunkSerializer.INSTANCE.deserialize(
                                        new DataInputDeserializer(corrupt)))
                .hasMessageContaining(
                        "8 values for 2 rows of 3 dense, 3 sparse, 1 generated (lists");
    }

    /**
     * Dense chunks of format 4 (before layouts) wait in the concatenation's state of older
     * savepoints: they restore by migration, in Criteo's layout.
     */
    @Test
    void denseChunksOfFormat4MigrateInCriteosLayout() throws IOException {
        DataOutputSerializer old = new DataOutputSerializer(64);
        old.writeUTF(DenseChunkSerializer.Snapshot.class.getName());
        old.writeInt(4);
        TypeSerializerSnapshot<DenseChunk> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(old.getCopyOfBuffer()),
                        BlockSerializersTest.class.getClassLoader());
        assertThat(
                        DenseChunkSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAfterMigration())
                .isTrue();
        DenseChunk read =
                restored.restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        java.util.HexFormat.of().parseHex(DENSE_FROZEN_4)));
        assertThat(read.layout()).isEqualTo(RowLayout.CRITEO);
        assertThat(bytes(DenseChunkSerializer.INSTANCE, read)).isEqualTo(DENSE_FROZEN);
        assertThat(bytes(restored.restoreSerializer(), read)).isEqualTo(DENSE_FROZEN_4);
    }

    /**
     * An evicting column's chunks: the key chunk's policy (tag 2), the index chunk's and the
     * assembled block's assignments (formats 5 and 7); state of the formats before (index chunk 4,
     * assembled block 6) migrates, and those formats refuse to write assignments.
     */
    @Test
    void evictingChunksAreFrozenAndEarlierFormatsMigrate() throws IOException {
        VocabularyPolicy lfu =
                new VocabularyPolicy(
                        1,
                        3,
                        VocabularyPolicy.MAX_SIZE,
                        null,
                        50,
                        VocabularyPolicy.Eviction.LFU,
                        0);
        KeyChunk key =
                KeyChunk.builder()
                        .lane(1)
                        .column(2)
                        .seq(3)
                        .keys(new long[] {4})
                        .size(1)
                        .epoch(5)
                        .policy(lfu)
                        .build();
        assertThat(bytes(KeyChunkSerializer.INSTANCE, key)).isEqualTo(KEY_EVICTING_FROZEN);
        assertThat(roundTrip(KeyChunkSerializer.INSTANCE, key).policy()).isEqualTo(lfu);

        IndexChunk index =
                new IndexChunk(
                        1,
                        2,
                        3,
                        new int[] {9, 8},
                        2,
                        10,
                        new long[] {6, 7},
                        0,
                        null,
                        frozenAssignments());
        assertThat(bytes(IndexChunkSerializer.INSTANCE, index)).isEqualTo(INDEX_EVICTING_FROZEN);
        assertThat(roundTrip(IndexChunkSerializer.INSTANCE, index))
                .usingRecursiveComparison()
                .isEqualTo(index);
        TypeSerializerSnapshot<IndexChunk> index4 =
                restoredSnapshot(IndexChunkSerializer.Snapshot.class, 4);
        assertThat(
                        IndexChunkSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(index4)
                                .isCompatibleAfterMigration())
                .isTrue();
        IndexChunk old =
                index4.restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        java.util.HexFormat.of().parseHex(INDEX_FROZEN_4)));
        assertThat(bytes(IndexChunkSerializer.INSTANCE, old)).isEqualTo(INDEX_FROZEN);
        assertThat(bytes(index4.restoreSerializer(), old)).isEqualTo(INDEX_FROZEN_4);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> bytes(index4.restoreSerializer(), index))
                .hasMessageContaining("format 4 has no evicting vocabularies");

        AssembledBlock block =
                frozenAssembled().withAssignments(new Assignments[] {frozenAssignments()});
        String blockBytes =
                ASSEMBLED_FROZEN_6
                        + "00000001"
                        + INDEX_EVICTING_FROZEN.substring(
                                INDEX_EVICTING_FROZEN.indexOf("ffffffff01") + 8)
                        + "00000000" // no names
                        + "00" // no event times
                        + "00000000"; // no window starts
        assertThat(bytes(AssembledBlockSerializer.INSTANCE, block)).isEqualTo(blockBytes);
        assertThat(roundTrip(AssembledBlockSerializer.INSTANCE, block).assignments()[0])
                .usingRecursiveComparison()
                .isEqualTo(frozenAssignments());
        TypeSerializerSnapshot<AssembledBlock> assembled6 =
                restoredSnapshot(AssembledBlockSerializer.Snapshot.class, 6);
        AssembledBlock six =
                assembled6
                        .restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        java.util.HexFormat.of().parseHex(ASSEMBLED_FROZEN_6)));
        assertThat(bytes(AssembledBlockSerializer.INSTANCE, six)).isEqualTo(ASSEMBLED_FROZEN);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> bytes(assembled6.restoreSerializer(), block))
                .hasMessageContaining("format 6 has no evicting vocabularies");
    }

    /**
     * The original strings of hash64 columns: a dense chunk's (format 6) and an assembled block's
     * (format 8), frozen; state of the formats before (dense chunk 5, assembled block 7) migrates,
     * and those formats refuse to write names.
     */
    @Test
    void namesAreFrozenAndEarlierFormatsMigrate() throws IOException {
        int[] dense = new int[14];
        dense[0] = 1;
        dense[13] = -1;
        DenseChunk plain =
                DenseChunk.builder()
                        .lane(1)
                        .seq(2)
                        .lines(2)
                        .rows(1)
                        .labelDense(dense)
                        .deadLetters(
                                new DeadLetter[] {
                                    new DeadLetter(1, 9, "r", "d", new byte[] {'z'}, false)
                                })
                        .origin(Origin.NONE)
                        .version(6)
                        .build();
        long[][] keys = new long[26][];
        int[][] lengths = new int[26][];
        byte[][] text = new byte[26][];
        keys[1] = new long[] {7, 8, 0};
        lengths[1] = new int[] {4, 2, -1};
        text[1] = "u_9fü".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        DenseChunk named =
                DenseChunk.builder()
                        .lane(plain.lane())
                        .seq(plain.seq())
                        .lines(plain.lines())
                        .rows(plain.rows())
                        .labelDense(plain.labelDense())
                        .deadLetters(plain.deadLetters())
                        .origin(plain.origin())
                        .version(plain.version())
                        .layout(plain.layout())
                        .onehot(plain.onehot())
                        .names(new BlockNames(keys, lengths, text))
                        .build();
        String columns = "0000001a" + "ffffffff";
        String rest = "ffffffff".repeat(24);
        String namedBytes =
                DENSE_FROZEN_5
                        + columns
                        + ("00000003"
                                + "0700000000000000"
                                + "0800000000000000"
                                + "0000000000000000")
                        + ("00000003" + "04000000" + "02000000" + "ffffffff")
                        + ("00000006" + "755f3966c3bc")
                        + rest
                        + "00"; // no event times
        assertThat(bytes(DenseChunkSerializer.INSTANCE, named)).isEqualTo(namedBytes);
        DenseChunk back = roundTrip(DenseChunkSerializer.INSTANCE, named);
        assertThat(back.names().keys()[1]).containsExactly(7, 8, 0);
        assertThat(back.names().strings(1)).containsExactly("u_9f", "ü", null);
        assertThat(back.names().has(0)).isFalse();
        TypeSerializerSnapshot<DenseChunk> dense5 =
                restoredSnapshot(DenseChunkSerializer.Snapshot.class, 5);
        DenseChunk five =
                dense5.restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        java.util.HexFormat.of().parseHex(DENSE_FROZEN_5)));
        assertThat(five.names()).isNull();
        assertThat(bytes(DenseChunkSerializer.INSTANCE, five)).isEqualTo(DENSE_FROZEN);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> bytes(dense5.restoreSerializer(), named))
                .hasMessageContaining("format 5 has no names");

        AssembledBlock block = frozenAssembled().withNewNames(new String[][] {{"a\tb"}});
        String blockBytes =
                ASSEMBLED_FROZEN_7
                        + "00000001"
                        + "00000001"
                        + "00000003"
                        + "610962"
                        + "00"
                        + "00000000";
        assertThat(bytes(AssembledBlockSerializer.INSTANCE, block)).isEqualTo(blockBytes);
        assertThat(roundTrip(AssembledBlockSerializer.INSTANCE, block).newName(0, 0))
                .isEqualTo("a\tb");
        TypeSerializerSnapshot<AssembledBlock> assembled7 =
                restoredSnapshot(AssembledBlockSerializer.Snapshot.class, 7);
        AssembledBlock seven =
                assembled7
                        .restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        java.util.HexFormat.of().parseHex(ASSEMBLED_FROZEN_7)));
        assertThat(seven.newNames()).isNull();
        assertThat(bytes(AssembledBlockSerializer.INSTANCE, seven)).isEqualTo(ASSEMBLED_FROZEN);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> bytes(assembled7.restoreSerializer(), block))
                .hasMessageContaining("format 7 has no names");
    }

    /** A list column's key chunk, and its index chunk, keep their offsets (formats 5 and 4). */
    @Test
    void listChunksAreFrozen() throws IOException {
        KeyChunk keys =
                KeyChunk.builder()
                        .lane(1)
                        .column(2)
                        .seq(3)
                        .keys(new long[] {4, 5, 99})
                        .size(2)
                        .epoch(0)
                        .policy(VocabularyPolicy.FIRST_APPEARANCE)
                        .offsets(new int[] {0, 2, 2})
                        .build();
        assertThat(keys.rows()).isEqualTo(2);
        assertThat(bytes(KeyChunkSerializer.INSTANCE, keys)).isEqualTo(KEY_LIST_FROZEN);
        KeyChunk back = roundTrip(KeyChunkSerializer.INSTANCE, keys);
        assertThat(back.offsets()).containsExactly(0, 2, 2);
        assertThat(back.keys()).containsExactly(4, 5);
        IndexChunk indices =
                new IndexChunk(
                        1, 2, 3, new int[] {0, 1}, 2, 0, new long[] {4, 5}, 0, new int[] {0, 2, 2});
        assertThat(bytes(IndexChunkSerializer.INSTANCE, indices))
                .isEqualTo(
                        INDEX_FROZEN_3
                                        .replace(
                                                "0000000104000000", // one index, 4
                                                "000000020000000001000000")
                                        .replace(
                                                "00000005000000010600000000000000", // first 5, key
                                                // 6
                                                "00000000000000020400000000000000"
                                                        + "0500000000000000")
                                        .replace("00000007", "00000000")
                                + "00000003000000000200000002000000"
                                + "00");
        assertThat(roundTrip(IndexChunkSerializer.INSTANCE, indices))
                .usingRecursiveComparison()
                .isEqualTo(indices);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                KeyChunk.builder()
                                        .lane(1)
                                        .column(2)
                                        .seq(3)
                                        .keys(new long[] {4})
                                        .size(1)
                                        .epoch(0)
                                        .policy(VocabularyPolicy.FIRST_APPEARANCE)
                                        .offsets(new int[] {0, 2})
                                        .build())
                .hasMessageContaining("offsets must end at its 1 keys");
    }

    /**
     * Key chunks of format 4 wait in the vocabulary state, index chunks of format 3 in the
     * concatenation's, of savepoints taken before list columns: both restore by migration.
     */
    @Test
    void keyAndIndexChunksBeforeListsMigrate() throws IOException {
        TypeSerializerSnapshot<KeyChunk> keys4 =
                restoredSnapshot(KeyChunkSerializer.Snapshot.class, 4);
        assertThat(
                        KeyChunkSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(keys4)
                                .isCompatibleAfterMigration())
                .isTrue();
        KeyChunk key =
                keys4.restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        java.util.HexFormat.of().parseHex(KEY_FROZEN_4)));
        assertThat(key)
                .usingRecursiveComparison()
                .isEqualTo(
                        KeyChunk.builder()
                                .lane(1)
                                .column(2)
                                .seq(3)
                                .keys(new long[] {4})
                                .size(1)
                                .epoch(5)
                                .build());
        assertThat(bytes(KeyChunkSerializer.INSTANCE, key)).isEqualTo(KEY_FROZEN);

        TypeSerializerSnapshot<IndexChunk> index3 =
                restoredSnapshot(IndexChunkSerializer.Snapshot.class, 3);
        assertThat(
                        IndexChunkSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(index3)
                                .isCompatibleAfterMigration())
                .isTrue();
        IndexChunk index =
                index3.restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        java.util.HexFormat.of().parseHex(INDEX_FROZEN_3)));
        assertThat(index.offsets()).isNull();
        assertThat(bytes(IndexChunkSerializer.INSTANCE, index)).isEqualTo(INDEX_FROZEN);
        assertThat(bytes(index3.restoreSerializer(), index)).isEqualTo(INDEX_FROZEN_3);
    }

    private static <T> TypeSerializerSnapshot<T> restoredSnapshot(Class<?> snapshot, int format)
            throws IOException {
        DataOutputSerializer old = new DataOutputSerializer(64);
        old.writeUTF(snapshot.getName());
        old.writeInt(format);
        return TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(old.getCopyOfBuffer()),
                BlockSerializersTest.class.getClassLoader());
    }

    /** An assembled block's lists travel with it. */
    @Test
    void assembledBlockWithListsRoundTrips() throws IOException {
        AssembledBlock block =
                AssembledBlock.builder()
                        .lane(0)
                        .seq(4)
                        .lines(2)
                        .rows(2)
                        .rowBytes(new byte[16])
                        .deadLetters(new DeadLetter[0])
                        .newKeys(new int[] {0, 0}, new long[][] {{7}, {8, 9}})
                        .origin(Origin.NONE)
                        .version(1)
                        .epochs(new int[2])
                        .lists(new int[][] {{0, 1, 3}}, new int[][] {{0, 1, 2}})
                        .build();
        assertThat(roundTrip(AssembledBlockSerializer.INSTANCE, block))
                .usingRecursiveComparison()
                .isEqualTo(block);
    }

    @Test
    void stateOfAnotherFormatIsIncompatibleAndNamesBothFormats() throws IOException {
        DataOutputSerializer old = new DataOutputSerializer(64);
        old.writeUTF(RawChunkSerializer.Snapshot.class.getName());
        old.writeInt(2);
        TypeSerializerSnapshot<RawChunk> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(old.getCopyOfBuffer()),
                        BlockSerializersTest.class.getClassLoader());
        assertThat(
                        RawChunkSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isIncompatible())
                .isTrue();
        org.assertj.core.api.Assertions.assertThatThrownBy(restored::restoreSerializer)
                .hasMessageContaining("format 2")
                .hasMessageContaining("only format 3");
    }

    /**
     * Key chunks of format 3 (before vocabulary policies) wait in the vocabulary operator's state
     * of older savepoints: they restore by migration, read as chunks under the default policy.
     */
    @Test
    void keyChunksOfFormat3MigrateUnderTheDefaultPolicy() throws IOException {
        DataOutputSerializer old = new DataOutputSerializer(64);
        old.writeUTF(KeyChunkSerializer.Snapshot.class.getName());
        old.writeInt(3);
        TypeSerializerSnapshot<KeyChunk> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(old.getCopyOfBuffer()),
                        BlockSerializersTest.class.getClassLoader());
        assertThat(
                        KeyChunkSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAfterMigration())
                .isTrue();
        String format3 = KEY_FROZEN_4.substring(0, KEY_FROZEN_4.length() - 2); // without policy
        KeyChunk read =
                restored.restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        java.util.HexFormat.of().parseHex(format3)));
        assertThat(read)
                .usingRecursiveComparison()
                .isEqualTo(
                        KeyChunk.builder()
                                .lane(1)
                                .column(2)
                                .seq(3)
                                .keys(new long[] {4})
                                .size(1)
                                .epoch(5)
                                .build());
        assertThat(bytes(restored.restoreSerializer(), read)).isEqualTo(format3);

        DataOutputSerializer older = new DataOutputSerializer(64);
        older.writeUTF(KeyChunkSerializer.Snapshot.class.getName());
        older.writeInt(2);
        TypeSerializerSnapshot<KeyChunk> two =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(older.getCopyOfBuffer()),
                        BlockSerializersTest.class.getClassLoader());
        assertThat(
                        KeyChunkSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(two)
                                .isIncompatible())
                .isTrue();
    }

    /**
     * Event times are frozen: the dense chunk's and the assembled block's last fields, true, the
     * count and each time as an int64; chunks and blocks of the formats before them migrate with
     * none, and those formats refuse to hold any.
     */
    @Test
    void eventTimesAreFrozenAndEarlierFormatsMigrate() throws IOException {
        int[] dense = new int[14];
        dense[0] = 1;
        dense[13] = -1;
        DenseChunk timed =
                DenseChunk.builder()
                        .lane(1)
                        .seq(2)
                        .lines(2)
                        .rows(1)
                        .labelDense(dense)
                        .deadLetters(
                                new DeadLetter[] {
                                    new DeadLetter(1, 9, "r", "d", new byte[] {'z'}, false)
                                })
                        .origin(Origin.NONE)
                        .version(6)
                        .layout(RowLayout.CRITEO)
                        .eventTimes(new long[] {1_795_766_400_123L})
                        .build();
        String times = "01" + "00000001" + "7bb4041ca2010000"; // little-endian
        assertThat(bytes(DenseChunkSerializer.INSTANCE, timed)).isEqualTo(DENSE_FROZEN_6 + times);
        DenseChunk back =
                DenseChunkSerializer.INSTANCE.deserialize(
                        new DataInputDeserializer(
                                java.util.HexFormat.of().parseHex(DENSE_FROZEN_6 + times)));
        assertThat(back.eventTimes()).containsExactly(1_795_766_400_123L);
        DenseChunk six =
                DenseChunkSerializer.Format6.INSTANCE.deserialize(
                        new DataInputDeserializer(
                                java.util.HexFormat.of().parseHex(DENSE_FROZEN_6)));
        assertThat(six.eventTimes()).isNull();
        assertThat(bytes(DenseChunkSerializer.INSTANCE, six)).isEqualTo(DENSE_FROZEN);
        assertThatThrownBy(() -> bytes(DenseChunkSerializer.Format6.INSTANCE, timed))
                .hasMessageContaining("event times");

        AssembledBlock block = frozenAssembled().withEventTimes(new long[] {-5});
        String blockTimes = "01" + "00000001" + "fbffffffffffffff";
        assertThat(bytes(AssembledBlockSerializer.INSTANCE, block))
                .isEqualTo(ASSEMBLED_FROZEN_8 + blockTimes + "00000000");
        assertThat(
                        AssembledBlockSerializer.INSTANCE
                                .deserialize(
                                        new DataInputDeserializer(
                                                java.util.HexFormat.of()
                                                        .parseHex(
                                                                ASSEMBLED_FROZEN_8
                                                                        + blockTimes
                                                                        + "00000000")))
                                .eventTimes())
                .containsExactly(-5L);
        AssembledBlock eight =
                AssembledBlockSerializer.Format8.INSTANCE.deserialize(
                        new DataInputDeserializer(
                                java.util.HexFormat.of().parseHex(ASSEMBLED_FROZEN_8)));
        assertThat(eight.eventTimes()).isNull();
        assertThat(bytes(AssembledBlockSerializer.INSTANCE, eight)).isEqualTo(ASSEMBLED_FROZEN);
        assertThatThrownBy(() -> bytes(AssembledBlockSerializer.Format8.INSTANCE, block))
                .hasMessageContaining("event times");
    }

    @Test
    void typeInfoCreatesTheDedicatedSerializer() {
        assertThat(
                        BlockTypes.KEY_CHUNK.createSerializer(
                                new org.apache.flink.api.common.serialization
                                        .SerializerConfigImpl()))
                .isSameAs(KeyChunkSerializer.INSTANCE);
        assertThat(BlockTypes.KEY_CHUNK)
                .isEqualTo(new SerializerTypeInfo<>(KeyChunk.class, KeyChunkSerializer.INSTANCE));
        assertThat(BlockTypes.KEY_CHUNK).isNotEqualTo(BlockTypes.INDEX_CHUNK);
    }
}
