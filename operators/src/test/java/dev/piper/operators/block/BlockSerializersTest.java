package dev.piper.operators.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
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
        KeyChunk in = new KeyChunk(25, 77, keys, keys.length - 3);
        KeyChunk out = roundTrip(KeyChunkSerializer.INSTANCE, in);
        assertThat(out.size()).isEqualTo(keys.length - 3);
        assertThat(out.keys()).containsExactly(java.util.Arrays.copyOf(keys, keys.length - 3));
        assertThat(out.column()).isEqualTo(25);
        assertThat(out.seq()).isEqualTo(77);
    }

    @Test
    void denseChunkWithDeadLetters() throws IOException {
        int[] values = ints(14 * 3 + 14);
        DenseChunk in = new DenseChunk(8, 5, 3, values, new DeadLetter[] {LETTER, LETTER});
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
                new AssembledBlock(2, 8, 7, rows, new DeadLetter[] {LETTER}, firstNew, newKeys);
        assertThat(roundTrip(AssembledBlockSerializer.INSTANCE, in))
                .usingRecursiveComparison()
                .isEqualTo(in);
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
