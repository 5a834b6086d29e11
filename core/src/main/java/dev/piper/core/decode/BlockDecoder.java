package dev.piper.core.decode;

import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.ops.DecodeOptions;

/**
 * Decodes a block of input lines into the block's parts (PIPER's decoder with the column operators
 * fused next to it): Criteo's positional text ({@link CriteoDecoder}) or events of named fields
 * ({@link JsonEventDecoder}, {@link CsvEventDecoder}, {@link AvroEventDecoder}, {@link
 * ProtobufEventDecoder}). Every line becomes a row or a dead letter. Not thread-safe; one per
 * decoding subtask.
 */
public interface BlockDecoder {

    /**
     * Decodes every line of {@code chunk}. With {@code countFields}, also counts each field's bytes
     * where the format can ({@link CriteoDecoder.Decoded#fieldBytes()}; empty where it cannot).
     */
    CriteoDecoder.Decoded decode(RawChunk chunk, boolean countFields);

    /**
     * What each kind of field of {@code chunk} costs to parse (nanoseconds of dense and of
     * categorical fields), for the cost report; zeros where the format does not split its parse by
     * field.
     */
    long[] measureKinds(RawChunk chunk);

    /** The decoder of {@code options}' input format. */
    static BlockDecoder of(DecodeOptions options, boolean measure) {
        if (options.events() == null) {
            return new CriteoDecoder(options, measure);
        }
        return switch (options.events().format()) {
            case CSV -> new CsvEventDecoder(options, measure);
            case JSON -> new JsonEventDecoder(options, measure);
            case AVRO -> new AvroEventDecoder(options, measure);
            case PROTOBUF -> new ProtobufEventDecoder(options, measure);
            case CRITEO_TSV -> throw new IllegalArgumentException("positional text has no events");
        };
    }
}
