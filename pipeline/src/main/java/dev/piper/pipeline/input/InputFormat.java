package dev.piper.pipeline.input;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The formats a pipeline's input may have ({@code input.format} of a spec). */
public enum InputFormat {
    /** Criteo's positional text: label, dense and categorical fields, tab-separated. */
    CRITEO_TSV("criteo-tsv"),
    /**
     * One JSON object per line of a file, or per Kafka record; each column reads the field its
     * {@link FieldPath} names.
     */
    JSON("json"),
    /**
     * Comma-separated values (RFC 4180 quoting), one record per line of a file or per Kafka record;
     * {@link CsvOptions} names the columns, each column of the layout reads the one its {@link
     * FieldPath} names.
     */
    CSV("csv"),
    /**
     * Avro: container files in batch, and Kafka records of one datum each, bare or in Confluent's
     * wire format; {@link AvroOptions} says where the writer schemas come from.
     */
    AVRO("avro"),
    /**
     * Protobuf messages of one type ({@link ProtobufOptions}): length-delimited in a file, one per
     * Kafka record.
     */
    PROTOBUF("protobuf");

    private final String specName;

    InputFormat(String specName) {
        this.specName = specName;
    }

    /** The format's name in specs. */
    public String specName() {
        return specName;
    }

    /** Whether columns are read by name ({@code input.fields}) rather than by position. */
    public boolean namedFields() {
        return this != CRITEO_TSV;
    }

    /** The format named {@code name} in a spec, if there is one. */
    public static Optional<InputFormat> of(String name) {
        return Arrays.stream(values()).filter(f -> f.specName.equals(name)).findFirst();
    }

    /** Every format's spec name, for messages. */
    public static List<String> names() {
        return Arrays.stream(values()).map(InputFormat::specName).toList();
    }
}
