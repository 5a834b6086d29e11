package dev.piper.pipeline.spec;

import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.input.AvroOptions;
import dev.piper.pipeline.input.CsvOptions;
import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.input.ProtobufOptions;
import dev.piper.pipeline.join.LabelSpec;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.Chains;
import dev.piper.pipeline.ops.Chains.Kind;
import dev.piper.pipeline.ops.Op;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A preprocessing pipeline as data (PIPER's MiniPipe configuration): which input it applies to,
 * each column's operator chain, and the output. Built by {@link SpecParser}, which validates it;
 * the JSON form is documented in {@code docs/SPECS.md}.
 *
 * @param name the pipeline's name, {@code [a-z0-9][a-z0-9_-]*}
 * @param version the spec's version, from 1; a changed spec gets a higher one
 * @param input where its lines come from
 * @param columns every column of the input layout, in layout order, with its chain
 * @param output the output's options
 * @param hotline Hotline's popular / non-popular split of the rows ({@code docs/HOTLINE.md}), or
 *     null for none
 * @param labels the label join of the input's impressions with their actions ({@code labels} and
 *     {@code input.key}), or null for an input whose events carry their labels
 */
public record PipelineSpec(
        String name,
        int version,
        Input input,
        List<Column> columns,
        Output output,
        HotlineSettings hotline,
        LabelSpec labels) {

    /** A spec without Hotline's split or a label join. */
    public PipelineSpec(
            String name, int version, Input input, List<Column> columns, Output output) {
        this(name, version, input, columns, output, null, null);
    }

    /** A spec without a label join. */
    public PipelineSpec(
            String name,
            int version,
            Input input,
            List<Column> columns,
            Output output,
            HotlineSettings hotline) {
        this(name, version, input, columns, output, hotline, null);
    }

    /**
     * @param format the input format ({@code criteo-tsv}, {@code json}, {@code csv})
     * @param topic the Kafka topic the pipeline reads, if it is given one
     * @param routeField with {@code routeValue}: the pipeline takes the lines whose field has that
     *     value, if routing is used
     * @param parquetColumns for a Parquet input: the column a layout field is read from, for the
     *     fields not read from the column of their own name
     * @param layout the input's fields: a label, {@code input.dense} dense and {@code input.sparse}
     *     sparse columns (Criteo's 13 and 26 unless the spec says otherwise)
     * @param fields for an input of named fields ({@code json}, {@code csv}): the path a column is
     *     read from ({@code input.fields}), for the columns not read from the field of their own
     *     name
     * @param csv for {@code csv} input: its columns, header and delimiter; null for other formats
     * @param avro for {@code avro} input: where its writer schemas come from; null for others
     * @param protobuf for {@code protobuf} input: its message; null for other formats
     * @param eventTime the field each row's event time is read from ({@code input.timestamp}), for
     *     an input of named fields; null for none
     */
    public record Input(
            String format,
            Optional<String> topic,
            Optional<String> routeField,
            Optional<String> routeValue,
            Map<String, String> parquetColumns,
            RowLayout layout,
            Map<String, String> fields,
            CsvOptions csv,
            AvroOptions avro,
            ProtobufOptions protobuf,
            EventTime eventTime) {

        public Input {
            parquetColumns = Collections.unmodifiableMap(new LinkedHashMap<>(parquetColumns));
            fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
            Objects.requireNonNull(layout, "layout");
        }

        /** A {@link Builder} with every component at its default (see its fields). */
        public static Builder builder() {
            return new Builder();
        }

        /** A builder holding this input's components, to build one that differs in some. */
        public Builder toBuilder() {
            return new Builder()
                    .format(format)
                    .topic(topic)
                    .routeField(routeField)
                    .routeValue(routeValue)
                    .parquetColumns(parquetColumns)
                    .layout(layout)
                    .fields(fields)
                    .csv(csv)
                    .avro(avro)
                    .protobuf(protobuf)
                    .eventTime(eventTime);
        }

        /**
         * The components of an input to build, each named, with its default: the one place besides
         * the record's header that lists them.
         */
        public static final class Builder {

            private String format = "criteo-tsv";
            private Optional<String> topic = Optional.empty();
            private Optional<String> routeField = Optional.empty();
            private Optional<String> routeValue = Optional.empty();
            private Map<String, String> parquetColumns = Map.of();
            private RowLayout layout = RowLayout.CRITEO;
            private Map<String, String> fields = Map.of();
            private CsvOptions csv;
            private AvroOptions avro;
            private ProtobufOptions protobuf;
            private EventTime eventTime;

            private Builder() {}

            /** The input format's spec name; {@code criteo-tsv} unless set. */
            public Builder format(String format) {
                this.format = format;
                return this;
            }

            public Builder topic(Optional<String> topic) {
                this.topic = topic;
                return this;
            }

            public Builder routeField(Optional<String> routeField) {
                this.routeField = routeField;
                return this;
            }

            public Builder routeValue(Optional<String> routeValue) {
                this.routeValue = routeValue;
                return this;
            }

            public Builder parquetColumns(Map<String, String> parquetColumns) {
                this.parquetColumns = parquetColumns;
                return this;
            }

            /** The rows' fields; Criteo's unless set. */
            public Builder layout(RowLayout layout) {
                this.layout = layout;
                return this;
            }

            public Builder fields(Map<String, String> fields) {
                this.fields = fields;
                return this;
            }

            public Builder csv(CsvOptions csv) {
                this.csv = csv;
                return this;
            }

            /**
             * Where an Avro input's writer schemas come from; an Avro input's container file's own
             * schema unless set.
             */
            public Builder avro(AvroOptions avro) {
                this.avro = avro;
                return this;
            }

            public Builder protobuf(ProtobufOptions protobuf) {
                this.protobuf = protobuf;
                return this;
            }

            public Builder eventTime(EventTime eventTime) {
                this.eventTime = eventTime;
                return this;
            }

            public Input build() {
                return new Input(
                        format,
                        topic,
                        routeField,
                        routeValue,
                        parquetColumns,
                        layout,
                        fields,
                        csv,
                        avro == null && "avro".equals(format) ? AvroOptions.CONTAINER : avro,
                        protobuf,
                        eventTime);
            }
        }
    }

    /** One input column and its chain. */
    public record Column(String name, Kind kind, List<Op> ops) {

        /**
         * The chain as written in specs, e.g. {@code decode fill_missing hex2int modulus(1000)}
         * ({@link Chains#label}).
         */
        public String chain() {
            return Chains.label(ops);
        }
    }

    /**
     * @param format the output format ({@code dlrm-rows}: the rows of all columns concatenated,
     *     PIPER's concatenate)
     * @param padMissingFields accept lines whose trailing fields are absent
     * @param maxLineBytes longest accepted line
     */
    public record Output(String format, boolean padMissingFields, int maxLineBytes) {}

    /** The fields of the pipeline's input and output rows. */
    public RowLayout layout() {
        return input.layout();
    }

    /** The column named {@code name}, if the layout has it. */
    public Optional<Column> column(String name) {
        return columns.stream().filter(c -> c.name().equals(name)).findFirst();
    }
}
