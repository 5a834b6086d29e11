package dev.piper.connectors.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.convert.TsvToParquet;
import java.util.Map;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

/** Binding the Criteo layout to a file's columns, and every refusal naming field and column. */
class ParquetLayoutTest {

    /** The convert schema with {@code label} replaced by {@code replacement}. */
    private static MessageType schemaWith(String replacement) {
        String s = TsvToParquet.schema().toString();
        return MessageTypeParser.parseMessageType(s.replace("optional int32 label;", replacement));
    }

    @Test
    void theConvertSchemaBindsByName() {
        ParquetLayout layout = ParquetLayout.bind(TsvToParquet.schema(), Map.of(), "f");
        assertThat(layout.binding(0).kind()).isEqualTo(ParquetLayout.Kind.INT32);
        assertThat(layout.binding(13).column()).isEqualTo("I13");
        assertThat(layout.binding(14).kind()).isEqualTo(ParquetLayout.Kind.ID_INT64);
        assertThat(layout.projection().getFieldCount()).isEqualTo(40);
    }

    @Test
    void columnsAreMappedAndOthersLeftOut() {
        MessageType schema = schemaWith("required int64 click; optional binary extra (STRING);");
        ParquetLayout layout = ParquetLayout.bind(schema, Map.of("label", "click"), "f");
        assertThat(layout.binding(0).column()).isEqualTo("click");
        assertThat(layout.binding(0).kind()).isEqualTo(ParquetLayout.Kind.INT64);
        assertThat(layout.projection().containsField("extra")).isFalse();
        assertThat(layout.projection().containsField("click")).isTrue();
    }

    @Test
    void idsMayBeInt32OrHexText() {
        String s =
                TsvToParquet.schema()
                        .toString()
                        .replace("optional int64 C1 (INTEGER(64,false));", "optional int32 C1;")
                        .replace(
                                "optional int64 C2 (INTEGER(64,false));",
                                "required binary C2 (STRING);");
        ParquetLayout layout =
                ParquetLayout.bind(MessageTypeParser.parseMessageType(s), Map.of(), "f");
        assertThat(layout.binding(14).kind()).isEqualTo(ParquetLayout.Kind.ID_INT32);
        assertThat(layout.binding(15).kind()).isEqualTo(ParquetLayout.Kind.ID_HEX);
    }

    @Test
    void refusalsNameFieldAndColumn() {
        assertThatThrownBy(() -> ParquetLayout.bind(schemaWith(""), Map.of(), "/d/x.parquet"))
                .hasMessageStartingWith("/d/x.parquet: field label: no such column")
                .hasMessageContaining("input.parquet_columns")
                .hasMessageContaining("the file has I1, I2");
        assertThatThrownBy(
                        () ->
                                ParquetLayout.bind(
                                        TsvToParquet.schema(), Map.of("label", "click"), "f"))
                .hasMessageStartingWith(
                        "f: field label (Parquet column \"click\"): no such column");
        assertThatThrownBy(
                        () ->
                                ParquetLayout.bind(
                                        schemaWith("optional double label;"), Map.of(), "f"))
                .hasMessage(
                        "f: field label: type DOUBLE cannot hold a Criteo integer (INT32 or INT64"
                                + " expected)");
        assertThatThrownBy(
                        () ->
                                ParquetLayout.bind(
                                        schemaWith("repeated int32 label;"), Map.of(), "f"))
                .hasMessage("f: field label: repeated; one value per row needed");
        assertThatThrownBy(
                        () ->
                                ParquetLayout.bind(
                                        schemaWith("optional group label { optional int32 v; }"),
                                        Map.of(),
                                        "f"))
                .hasMessage("f: field label: a group, not a value column");
        String floatId =
                TsvToParquet.schema()
                        .toString()
                        .replace("optional int64 C7 (INTEGER(64,false));", "optional float C7;");
        assertThatThrownBy(
                        () ->
                                ParquetLayout.bind(
                                        MessageTypeParser.parseMessageType(floatId), Map.of(), "f"))
                .hasMessage(
                        "f: field C7: type FLOAT cannot hold a categorical id (INT64, INT32 or"
                                + " BINARY hex text expected)");
        assertThatThrownBy(() -> ParquetLayout.bind(TsvToParquet.schema(), Map.of("I1", "I2"), "f"))
                .hasMessage(
                        "f: fields I1 and I2 would both read column \"I2\"; give one another"
                                + " column in input.parquet_columns");
    }
}
