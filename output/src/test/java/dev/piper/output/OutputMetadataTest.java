package dev.piper.output;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutputMetadataTest {

    private static ObjectNode describe(DecodeOptions options, RowsFormat format) {
        int sparse = options.program().layout().sparse();
        OutputMetadata.Vocab[] vocab = new OutputMetadata.Vocab[sparse];
        for (int c = 0; c < sparse; c++) {
            vocab[c] = new OutputMetadata.Vocab(10 + c, 0, 0);
        }
        return OutputMetadata.describe(
                options,
                format,
                new OutputMetadata.Counts(7, 6, 1, Map.of("empty_line", 1L)),
                n -> n.put("rows_file", format.file()),
                vocab);
    }

    @Test
    void criteosRowsAreDlrmsFormatAndEveryTableIsSized() {
        ObjectNode m = describe(DecodeOptions.defaults(), RowsFormat.DLRM_ROWS);
        assertThat(m.get("format").asText()).isEqualTo("piper-dlrm-criteo");
        assertThat(m.get("row_layout").asText())
                .isEqualTo(
                        "40 little-endian int32 per row: label, I1..I13, C1..C26 (ids are"
                                + " vocabulary indices)");
        assertThat(m.get("table_size").size()).isEqualTo(26);
        assertThat(m.get("table_size").get("C26").asInt()).isEqualTo(35);
        assertThat(m.get("vocab_size").get("C1").asInt()).isEqualTo(10);
        assertThat(m.get("pipeline").get("ops").get("sparse").toString())
                .isEqualTo("[\"decode\",\"fill_missing\",\"hex2int\",\"genvocab\",\"applyvocab\"]");
    }

    /**
     * PreSto's RM3: another format name, the list columns said to be in lists/ (not "C1..C42 but
     * the list columns"), and each bucketized generated column's table size (its buckets).
     */
    @Test
    void aPresetsLayoutIsWordedForItAndItsGeneratedColumnsHaveTableSizes() {
        DecodeOptions rm3 =
                SpecCompiler.decodeOptions(
                        Presets.named("rm3").spec(), DecodeOptions.DEFAULT_MAX_RAW_BYTES);
        ObjectNode m = describe(rm3, RowsFormat.DLRM_ROWS);
        assertThat(m.get("format").asText()).isEqualTo("piper-rows");
        assertThat(m.get("row_layout").asText())
                .isEqualTo(
                        "547 little-endian int32 per row: label, I1..I504, G1..G42 (ids are"
                                + " vocabulary indices); the list columns C1..C42 are in lists/");
        assertThat(m.get("table_size").size()).isEqualTo(42 + 42);
        assertThat(m.get("table_size").get("G1").asInt())
                .isEqualTo(rm3.program().bucketCount(rm3.program().layout().fieldOf("G1")))
                .isGreaterThan(1000);
        assertThat(m.get("table_size").get("C42").asInt()).isEqualTo(10 + 41);
        ObjectNode parquet = describe(rm3, RowsFormat.PARQUET);
        assertThat(parquet.get("row_layout").asText())
                .isEqualTo(
                        "one required Parquet column per field: label, I1..I504, G1..G42 (INT32,"
                                + " FLOAT for float32_columns; ids are vocabulary indices), and"
                                + " the list columns C1..C42 as required LISTs of INT32"
                                + " vocabulary indices");
    }

    @Test
    void rangesShortenRunsOfOnePrefix() {
        assertThat(OutputMetadata.ranges(List.of("label", "I1", "I2", "I3", "G1", "C1")))
                .isEqualTo("label, I1..I3, G1, C1");
        assertThat(OutputMetadata.ranges(List.of("I1", "I2", "I2_0", "I2_1", "I2_2", "I4")))
                .isEqualTo("I1, I2, I2_0..I2_2, I4");
        assertThat(OutputMetadata.ranges(List.of("C1", "C3", "C4", "C01", "C02")))
                .isEqualTo("C1, C3, C4, C01, C02");
        assertThat(OutputMetadata.ranges(List.of())).isEmpty();
    }
}
