package dev.piper.operators.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.control.ActiveSpec;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class ActiveSpecTest {

    private static PipelineSpec parse(String json) throws Exception {
        return SpecParser.parse(json.getBytes(StandardCharsets.UTF_8), "test");
    }

    /** The built-in spec at {@code version} with C3's chain replaced by {@code c3}. */
    private static PipelineSpec withC3(int version, String c3, String i5) throws Exception {
        return parse(
                """
                {"name": "dlrm-criteo", "version": %d, "input": {"format": "criteo-tsv"},
                 "columns": {
                   "label": ["decode", "fill_missing"],
                   "I1..I4": ["decode", "fill_missing", "neg2zero"],
                   "I5": %s,
                   "I6..I13": ["decode", "fill_missing", "neg2zero"],
                   "C1..C2": ["decode", "fill_missing", "hex2int", "vocab"],
                   "C3": %s,
                   "C4..C26": ["decode", "fill_missing", "hex2int", "vocab"]
                 }}
                """
                        .formatted(version, i5, c3));
    }

    private static final String PLAIN_C3 = "[\"decode\", \"fill_missing\", \"hex2int\", \"vocab\"]";
    private static final String PLAIN_I5 = "[\"decode\", \"fill_missing\", \"neg2zero\"]";
    private static final String LOG_I5 = "[\"decode\", \"fill_missing\", \"neg2zero\", \"log\"]";

    private static String modC3(long m) {
        return "[\"decode\", \"fill_missing\", \"hex2int\", {\"op\": \"modulus\", \"m\": "
                + m
                + "}, \"vocab\"]";
    }

    @Test
    void onlyColumnsWhoseChainBeforeTheVocabularyChangesStartANewEpoch() throws Exception {
        ActiveSpec v1 = ActiveSpec.initial(SpecParser.builtin());
        ActiveSpec v2 = v1.next(withC3(2, modC3(1000), LOG_I5));
        assertThat(v2.epochs()[2]).isEqualTo(1);
        assertThat(v2.epochs()).containsOnly(0, 1);
        assertThat(v1.changedFields(v2)).containsExactly("I5", "C3");
        // A dense change alone keeps every vocabulary.
        ActiveSpec v3 = v2.next(withC3(3, modC3(1000), PLAIN_I5));
        assertThat(v3.epochs()).isEqualTo(v2.epochs());
        // Another modulus is another id space; going back to the first chain is one too.
        ActiveSpec v4 = v3.next(withC3(4, modC3(999), PLAIN_I5));
        ActiveSpec v5 = v4.next(withC3(5, PLAIN_C3, PLAIN_I5));
        assertThat(v4.epochs()[2]).isEqualTo(2);
        assertThat(v5.epochs()[2]).isEqualTo(3);
        assertThat(v5.program().epoch(2)).isEqualTo(3);
        assertThat(v5.program().epoch(3)).isZero();
        assertThat(v5.options(100).program().modulus(2)).isLessThanOrEqualTo(0);
    }

    @Test
    void theCommandLinesDlrmSpecIsTheBuiltInPipeline() {
        assertThat(SpecCompiler.program(SpecCompiler.dlrm(40_000_000, false, 65536)))
                .isEqualTo(ColumnProgram.dlrm(40_000_000));
        assertThat(SpecCompiler.program(SpecCompiler.dlrm(-1, false, 65536)))
                .isEqualTo(ColumnProgram.dlrm(-1));
        assertThat(SpecCompiler.dlrm(-1, false, 65536)).isEqualTo(SpecParser.builtin());
        PipelineSpec padded = SpecCompiler.dlrm(7, true, 1000);
        assertThat(padded.output().padMissingFields()).isTrue();
        assertThat(padded.output().maxLineBytes()).isEqualTo(1000);
        assertThat(padded.column("C26").orElseThrow().chain())
                .isEqualTo("decode fill_missing hex2int modulus(7) vocab");
    }

    @Test
    void epochsAreOnePerSparseColumn() {
        assertThatThrownBy(() -> new ActiveSpec(SpecParser.builtin(), new int[3]))
                .hasMessageContaining("one per sparse column");
    }

    /**
     * Format 1, frozen: the spec as PipelineSpecSerializer writes it (int32 length 0x33, its frozen
     * Kryo bytes), then 26 epochs as int32 (C3 in epoch 1).
     */
    private static final String SMALL_FORMAT_1 =
            "00000033"
                    + "0182700263726974656f2d7473f6827480800249b501047071727343b3020570"
                    + "717475e80776646c726d2d726f77f301808004"
                    + "0000001a"
                    + "00000000".repeat(2)
                    + "00000001"
                    + "00000000".repeat(23);

    /**
     * As written now: the same, with the spec in its format 14 (PipelineSpecSerializerTest):
     * fourteen bytes longer, vocab's policy tag, the empty list of Parquet column names, the layout
     * (13 dense, 26 sparse, no lists, ',', no generated columns), no Hotline section, no field
     * paths, no CSV layout, no Avro schemas, no Protobuf message, no event time and no label join.
     */
    private static final String SMALL_WRITTEN_NOW =
            "00000041"
                    + "0e"
                    + SMALL_FORMAT_1
                            .substring(10, SMALL_FORMAT_1.indexOf("0000001a"))
                            .replace("e80776", "e8077600")
                    + "00"
                    + "0d1a002c00"
                    + "00"
                    + "00"
                    + "00"
                    + "00"
                    + "00"
                    + "00"
                    + "00"
                    + SMALL_FORMAT_1.substring(SMALL_FORMAT_1.indexOf("0000001a"));

    @Test
    void formatOneIsFrozen() throws Exception {
        int[] epochs = new int[26];
        epochs[2] = 1;
        ActiveSpec spec = new ActiveSpec(PipelineSpecSerializerTest.small(), epochs);
        ActiveSpecSerializer serializer = new ActiveSpecSerializer();
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(spec, out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(SMALL_WRITTEN_NOW);
        assertThat(
                        serializer.deserialize(
                                new DataInputDeserializer(HexFormat.of().parseHex(SMALL_FORMAT_1))))
                .isEqualTo(spec);
        assertThat(ActiveSpecSerializer.fromBytes(ActiveSpecSerializer.toBytes(spec)))
                .isEqualTo(spec);
        DataOutputSerializer copied = new DataOutputSerializer(64);
        serializer.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
    }

    @Test
    void aCorruptEpochCountIsReportedWithTheSpec() {
        byte[] bytes = HexFormat.of().parseHex(SMALL_FORMAT_1.replace("0000001a", "00000003"));
        assertThatThrownBy(
                        () ->
                                new ActiveSpecSerializer()
                                        .deserialize(new DataInputDeserializer(bytes)))
                .hasMessageContaining("3 epochs")
                .hasMessageContaining("p/2");
    }

    @Test
    void theSnapshotNamesItsFormatAndRefusesLaterOnes() throws Exception {
        var snapshot = new ActiveSpecSerializer().snapshotConfiguration();
        assertThat(snapshot.getCurrentVersion()).isEqualTo(1);
        var restored = new ActiveSpecSerializer.Snapshot();
        restored.readSnapshot(1, new DataInputDeserializer(new byte[0]), null);
        assertThat(snapshot.resolveSchemaCompatibility(restored).isCompatibleAsIs()).isTrue();
        assertThat(restored.restoreSerializer()).isEqualTo(new ActiveSpecSerializer());
        var later = new ActiveSpecSerializer.Snapshot();
        later.readSnapshot(2, new DataInputDeserializer(new byte[0]), null);
        assertThat(snapshot.resolveSchemaCompatibility(later).isIncompatible()).isTrue();
        assertThatThrownBy(later::restoreSerializer)
                .hasMessageContaining("active spec state was written in format 2")
                .hasMessageContaining("only format 1");
        @SuppressWarnings({"unchecked", "rawtypes"})
        org.apache.flink.api.common.typeutils.TypeSerializerSnapshot<ActiveSpec> other =
                (org.apache.flink.api.common.typeutils.TypeSerializerSnapshot)
                        new dev.piper.operators.control.PipelineSpecSerializer.Snapshot();
        assertThat(snapshot.resolveSchemaCompatibility(other).isIncompatible()).isTrue();
    }
}
