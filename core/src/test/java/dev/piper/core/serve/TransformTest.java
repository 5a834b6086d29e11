package dev.piper.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.core.decode.BlockDecoder;
import dev.piper.core.decode.CriteoDecoder;
import dev.piper.pipeline.generate.ClickEvents;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The serving transform's own rules: a known key takes the snapshot's index, an unknown one its
 * column's OOV bucket, or the column's reserved index (its table size) where the column has no
 * buckets, each counted; a record the feed would reject is a dead letter; a vocabulary file that
 * cannot be read is named with its line.
 */
class TransformTest {

    @TempDir Path dir;

    private static final String SPEC =
            """
            {"name": "t", "version": 1,
             "input": {"format": "criteo-tsv", "dense": 1, "sparse": 2},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1": ["decode", "fill_missing", "neg2zero"],
               "C1": ["decode", "fill_missing", "hex2int",
                      {"op": "vocab", "min_count": 2, "oov_buckets": 10}],
               "C2": ["decode", "fill_missing", "hex2int", "vocab"]
             }}""";

    private DecodeOptions options() throws Exception {
        PipelineSpec spec = SpecParser.parse(SPEC.getBytes(StandardCharsets.UTF_8), "t");
        return SpecCompiler.decodeOptions(spec, 1024);
    }

    private void vocab(String column, String lines) throws Exception {
        Files.createDirectories(dir.resolve("vocab"));
        Files.writeString(dir.resolve("vocab").resolve(column + ".tsv"), lines);
    }

    private static byte[] line(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void knownKeysTakeTheirIndicesAndUnknownOnesTheirBucketOrTheReservedIndex() throws Exception {
        vocab("C1", "10\t171\n11\t2748\n"); // ab, abc
        vocab("C2", "0\t1\n1\t2\n");
        DecodeOptions options = options();
        VocabularySnapshot snapshot = VocabularySnapshot.read(dir, options.program());
        assertThat(snapshot.tableSize(0)).isEqualTo(12); // 10 OOV buckets, 2 entries
        assertThat(snapshot.reservedIndex(1)).isEqualTo(2);
        assertThat(snapshot.tableSize(1)).isEqualTo(3); // 2 entries and the reserved index
        Transform transform = new Transform(options, snapshot);
        Transform.Result result =
                transform.apply(
                        List.of(
                                line("1\t5\tab\t1"),
                                line("0\t-3\tff\t7"),
                                line("1\t2\tzz\t1"), // not hex: the feed's dead letter
                                line("0\t\tabc\t")));
        AssembledBlock b = result.block();
        assertThat(b.rows()).isEqualTo(3);
        assertThat(b.deadLetters()).hasSize(1);
        assertThat(b.deadLetters()[0].reason()).isEqualTo("categorical_not_hex");
        assertThat(b.deadLetters()[0].lineInBlock()).isEqualTo(2);
        VocabularyPolicy c1 = options.program().vocabPolicy(0);
        int[] ints = new int[3 * 4];
        ByteBuffer.wrap(b.rowBytes()).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(ints);
        assertThat(ints)
                .containsExactly(
                        1,
                        5,
                        10,
                        0, // known keys
                        0,
                        0,
                        c1.bucketOf(0xff),
                        2, // neg2zero; C1's bucket, C2's reserved index
                        0,
                        0,
                        11,
                        2); // missing values take their fills; C2's, key 0, has no entry
        assertThat(result.unknown()).containsExactly(1, 2); // C2's fill id 0 is no entry either
    }

    @Test
    void aVocabularyThatCannotBeReadIsNamedWithItsLine() throws Exception {
        DecodeOptions options = options();
        vocab("C1", "10\t171\n");
        assertThatThrownBy(() -> VocabularySnapshot.read(dir, options.program()))
                .hasMessageContaining("C2.tsv: no such vocabulary file; is " + dir);
        vocab("C2", "0\t1\nx\t2\n");
        assertThatThrownBy(() -> VocabularySnapshot.read(dir, options.program()))
                .hasMessageContaining("C2.tsv, line 2: not index<TAB>key");
        vocab("C2", "0\t1\n");
        vocab("C1", "3\t171\n");
        assertThatThrownBy(() -> VocabularySnapshot.read(dir, options.program()))
                .hasMessageContaining(
                        "C1.tsv, line 1: not index<TAB>key (index 3 is below the"
                                + " column's first, 10)");
    }

    /**
     * Records framed as the format carries them: the click events as Avro datums (clicks-avro, its
     * schema inline) become the rows the same events as JSON lines (clicks-json) become, their
     * string ids found in a snapshot of the JSON lines' own keys.
     */
    @Test
    void avroDatumsTransformAsTheirJsonLines() throws Exception {
        ClickEvents generator = new ClickEvents(5, 0.01, -1);
        List<byte[]> lines = new ArrayList<>();
        List<byte[]> datums = new ArrayList<>();
        GenericDatumWriter<GenericRecord> writer =
                new GenericDatumWriter<>(ClickEvents.AVRO_SCHEMA);
        for (int i = 0; i < 1000; i++) {
            ClickEvents.Event e = generator.next();
            lines.add(line(ClickEvents.json(e)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            writer.write(ClickEvents.avro(e), encoder);
            encoder.flush();
            datums.add(out.toByteArray());
        }
        DecodeOptions json = SpecCompiler.decodeOptions(Presets.named("clicks-json").spec(), 1024);
        DecodeOptions avro = SpecCompiler.decodeOptions(Presets.named("clicks-avro").spec(), 1024);
        // the vocabularies of the JSON lines' keys, in first-appearance order
        byte[] all =
                (String.join(
                                        "\n",
                                        lines.stream()
                                                .map(b -> new String(b, StandardCharsets.UTF_8))
                                                .toList())
                                + "\n")
                        .getBytes(StandardCharsets.UTF_8);
        CriteoDecoder.Decoded decoded =
                BlockDecoder.of(json, false).decode(new RawChunk(0, 0, all, all.length, -1), false);
        for (int c = 0; c < decoded.keys().length; c++) {
            KeyChunk keys = decoded.keys()[c];
            Set<Long> distinct = new LinkedHashSet<>();
            for (int i = 0; i < keys.size(); i++) {
                distinct.add(keys.keys()[i]);
            }
            StringBuilder tsv = new StringBuilder();
            int index = 0;
            for (long key : distinct) {
                tsv.append(index++).append('\t').append(Long.toUnsignedString(key)).append('\n');
            }
            vocab("C" + (c + 1), tsv.toString());
        }
        VocabularySnapshot snapshot = VocabularySnapshot.read(dir, json.program());
        AssembledBlock fromJson = new Transform(json, snapshot).apply(lines).block();
        Transform.Result fromAvro = new Transform(avro, snapshot).apply(datums);
        assertThat(fromJson.rows()).isEqualTo(1000);
        assertThat(fromAvro.unknown()).containsOnly(0L);
        assertThat(fromAvro.block().rowBytes()).isEqualTo(fromJson.rowBytes());
        assertThat(fromAvro.block().listIndices()[0]).isEqualTo(fromJson.listIndices()[0]);
        assertThat(fromAvro.block().listOffsets()[0]).isEqualTo(fromJson.listOffsets()[0]);
        assertThat(fromAvro.block().eventTimes()).isEqualTo(fromJson.eventTimes());
    }
}
