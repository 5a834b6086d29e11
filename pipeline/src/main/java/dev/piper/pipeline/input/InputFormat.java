package dev.piper.pipeline.input;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The formats a pipeline's input may have ({@code input.format} of a spec), each with how a file
 * and a Kafka record of it hold its events: the file sources, the stream's log chunker and the
 * serving transform read these, and the input-format table of {@code docs/SPECS.md} is generated
 * from them ({@link #markdownTable()}). A format's decoder is chosen in {@code core}'s {@code
 * BlockDecoder.of}, its options ({@link CsvOptions}, {@link AvroOptions}, {@link ProtobufOptions})
 * are read by the spec parser's {@code EventInputSection}.
 */
public enum InputFormat {
    /** Criteo's positional text: label, dense and categorical fields, tab-separated. */
    CRITEO_TSV(
            "criteo-tsv",
            FileFraming.LINES,
            KafkaRecords.LINES,
            "label, I1..I13, C1..C26 (or the spec's layout), tab-separated; columns by position",
            "#fields"),
    /**
     * One JSON object per line of a file, or per Kafka record; each column reads the field its
     * {@link FieldPath} names.
     */
    JSON(
            "json",
            FileFraming.LINES,
            KafkaRecords.ONE_LINE,
            "one JSON object per event, each column read from a named field",
            "#events-with-named-fields-json"),
    /**
     * Comma-separated values (RFC 4180 quoting), one record per line of a file or per Kafka record;
     * {@link CsvOptions} names the columns, each column of the layout reads the one its {@link
     * FieldPath} names.
     */
    CSV(
            "csv",
            FileFraming.LINES,
            KafkaRecords.LINES,
            "comma-separated values with RFC 4180 quoting, each column read from a named CSV"
                    + " column",
            "#csv"),
    /**
     * Avro: container files in batch, and Kafka records of one datum each, bare or in Confluent's
     * wire format; {@link AvroOptions} says where the writer schemas come from.
     */
    AVRO(
            "avro",
            FileFraming.AVRO_CONTAINER,
            KafkaRecords.FRAME,
            "Avro records of a writer schema from the spec, the container file or a registry",
            "#avro"),
    /**
     * Protobuf messages of one type ({@link ProtobufOptions}): length-delimited in a file, one per
     * Kafka record.
     */
    PROTOBUF(
            "protobuf",
            FileFraming.LENGTH_DELIMITED,
            KafkaRecords.FRAME,
            "Protobuf messages of one type, from a descriptor set",
            "#protobuf");

    /** How a file of a format holds its events; the file source cuts it into chunks so. */
    public enum FileFraming {
        /** Lines of text, a line an event; read in line-aligned byte ranges. */
        LINES("one event a line"),
        /** An Avro object container file: blocks of datums, read in ranges between sync markers. */
        AVRO_CONTAINER("an Avro container file"),
        /** Messages each preceded by its length as a varint, read as one stream. */
        LENGTH_DELIMITED("length-delimited messages");

        private final String doc;

        FileFraming(String doc) {
            this.doc = doc;
        }
    }

    /** How a Kafka record (or a serving request's record) of a format holds its events. */
    public enum KafkaRecords {
        /** Lines of text (Criteo, CSV): a record may hold several, a last line break optional. */
        LINES("one or more lines"),
        /** One event whose line breaks are whitespace (JSON): they become spaces. */
        ONE_LINE("one event, line breaks and all"),
        /** One binary event (Avro, Protobuf): the record's bytes are the event. */
        FRAME("one event's bytes");

        private final String doc;

        KafkaRecords(String doc) {
            this.doc = doc;
        }
    }

    private final String specName;
    private final FileFraming files;
    private final KafkaRecords records;
    private final String summary;
    private final String docAnchor;

    InputFormat(
            String specName,
            FileFraming files,
            KafkaRecords records,
            String summary,
            String docAnchor) {
        this.specName = specName;
        this.files = files;
        this.records = records;
        this.summary = summary;
        this.docAnchor = docAnchor;
    }

    /** The format's name in specs. */
    public String specName() {
        return specName;
    }

    /** How a file of this format holds its events. */
    public FileFraming files() {
        return files;
    }

    /** The anchor of the format's section in {@code docs/SPECS.md}, e.g. {@code #csv}. */
    public String docAnchor() {
        return docAnchor;
    }

    /** How a Kafka record, or a record of a serving request, of this format holds its events. */
    public KafkaRecords records() {
        return records;
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

    /** The input-format table of {@code docs/SPECS.md}: a row a format, from its definition. */
    public static String markdownTable() {
        StringBuilder b =
                new StringBuilder(
                        "| `input.format` | events | in a file | in a Kafka record |\n"
                                + "|---|---|---|---|\n");
        for (InputFormat f : values()) {
            b.append("| [`")
                    .append(f.specName)
                    .append("`](")
                    .append(f.docAnchor)
                    .append(") | ")
                    .append(f.summary)
                    .append(" | ")
                    .append(f.files.doc)
                    .append(" | ")
                    .append(f.records.doc)
                    .append(" |\n");
        }
        return b.toString();
    }
}
