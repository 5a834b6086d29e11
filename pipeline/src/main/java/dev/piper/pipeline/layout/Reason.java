package dev.piper.pipeline.layout;

/**
 * Why an input line was rejected. The {@link #code()} is stable: it is written into dead-letter
 * records and users filter on it. Never rename one; add new ones instead.
 */
public enum Reason {
    /** The line has no bytes (besides its line break). */
    EMPTY_LINE("empty_line"),
    /** The line is longer than the configured limit. */
    LINE_TOO_LONG("line_too_long"),
    /** The line is not valid UTF-8. */
    INVALID_UTF8("invalid_utf8"),
    /** The line does not have 40 tab-separated fields (fewer are allowed with padding). */
    WRONG_FIELD_COUNT("wrong_field_count"),
    /** The label is not a 32-bit signed decimal integer. */
    LABEL_NOT_INT32("label_not_int32"),
    /** A dense field is not a 32-bit signed decimal integer. */
    DENSE_NOT_INT32("dense_not_int32"),
    /** A categorical field is not hexadecimal. */
    CATEGORICAL_NOT_HEX("categorical_not_hex"),
    /** A categorical field's value does not fit in 64 bits. */
    CATEGORICAL_OVERFLOW("categorical_overflow"),
    /**
     * A page of the row's Parquet row group fails its checksum: the file is damaged there, and
     * every row of the row group is rejected, none read from it.
     */
    CORRUPT_PAGE("corrupt_page"),
    /** A line of JSON input is not one JSON object (a syntax error, or another kind of value). */
    INVALID_JSON("invalid_json"),
    /**
     * A named field's value has a type its column cannot hold (a boolean id, a record where a
     * number belongs, a list in a column of one id); the detail names the column, its path and the
     * value.
     */
    WRONG_TYPE("wrong_type"),
    /**
     * A line of CSV input breaks RFC 4180's quoting: a quote inside an unquoted field, a quoted
     * field that does not end on its line, or characters after a closing quote.
     */
    INVALID_CSV("invalid_csv"),
    /**
     * An Avro datum does not follow its writer schema: it ends early (truncated), has bytes after
     * its end, a varint longer than 10 bytes, a negative length, a union branch or enum symbol the
     * schema has not, or text that is not UTF-8; or a Kafka record lacks Confluent's wire-format
     * header.
     */
    INVALID_AVRO("invalid_avro"),
    /** An Avro record names a schema id the registry does not know. */
    UNKNOWN_SCHEMA("unknown_schema"),
    /**
     * A Protobuf message does not parse as the spec's message: it ends early, has a varint longer
     * than 10 bytes, a wire type its field's declared type cannot have (a message of another type,
     * most often), or a field number of 0.
     */
    INVALID_PROTOBUF("invalid_protobuf"),
    /**
     * An event's time ({@code input.timestamp}) is missing, of a type that is no time (a boolean, a
     * record), text that is neither a number nor ISO-8601 with an offset, or out of range; the
     * detail names the field and the value.
     */
    BAD_TIMESTAMP("bad_timestamp");

    private final String code;

    Reason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}
