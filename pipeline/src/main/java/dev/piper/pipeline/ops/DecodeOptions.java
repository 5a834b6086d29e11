package dev.piper.pipeline.ops;

import dev.piper.pipeline.input.EventFields;
import java.io.Serializable;
import java.util.Objects;

/**
 * How lines are decoded and which stateless column operators run next to the decoder.
 *
 * @param program the per-column stateless operators (neg2zero, log, modulus)
 * @param padMissingFields treat absent trailing fields as missing values instead of rejecting the
 *     line
 * @param maxLineBytes longest accepted line in bytes, without its line break
 * @param maxRawBytes how many bytes of a rejected line its dead letter keeps
 * @param events for an input of named fields (JSON), where each field is read from; null for
 *     Criteo's positional text
 */
public record DecodeOptions(
        ColumnProgram program,
        boolean padMissingFields,
        int maxLineBytes,
        int maxRawBytes,
        EventFields events)
        implements Serializable {

    public static final int DEFAULT_MAX_LINE_BYTES = 64 * 1024;
    public static final int DEFAULT_MAX_RAW_BYTES = 1024;

    public DecodeOptions {
        Objects.requireNonNull(program, "program");
        if (maxLineBytes < 1) {
            throw new IllegalArgumentException("maxLineBytes must be positive: " + maxLineBytes);
        }
        if (maxRawBytes < 0) {
            throw new IllegalArgumentException("maxRawBytes must not be negative: " + maxRawBytes);
        }
        if (events != null && !events.layout().equals(program.layout())) {
            throw new IllegalArgumentException(
                    "events of layout "
                            + events.layout()
                            + " for a program of "
                            + program.layout());
        }
    }

    /** Options for Criteo's positional text. */
    public DecodeOptions(
            ColumnProgram program, boolean padMissingFields, int maxLineBytes, int maxRawBytes) {
        this(program, padMissingFields, maxLineBytes, maxRawBytes, null);
    }

    /**
     * DLRM's pipeline with one modulus for every categorical column.
     *
     * @param maxIndRange modulus applied to categorical ids when positive (DLRM's {@code
     *     --max-ind-range}); 0 or negative keeps the id
     */
    public DecodeOptions(
            long maxIndRange, boolean padMissingFields, int maxLineBytes, int maxRawBytes) {
        this(ColumnProgram.dlrm(maxIndRange), padMissingFields, maxLineBytes, maxRawBytes);
    }

    /** DLRM's defaults: no modulus, no padding, 64 KiB lines, 1 KiB of raw bytes. */
    public static DecodeOptions defaults() {
        return new DecodeOptions(-1, false, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_RAW_BYTES);
    }

    public DecodeOptions withMaxIndRange(long m) {
        return new DecodeOptions(m, padMissingFields, maxLineBytes, maxRawBytes);
    }

    public DecodeOptions withPadMissingFields(boolean pad) {
        return new DecodeOptions(program, pad, maxLineBytes, maxRawBytes, events);
    }

    /** These options reading events as {@code fields} say (e.g. with an Avro writer schema). */
    public DecodeOptions withEvents(EventFields fields) {
        return new DecodeOptions(program, padMissingFields, maxLineBytes, maxRawBytes, fields);
    }
}
