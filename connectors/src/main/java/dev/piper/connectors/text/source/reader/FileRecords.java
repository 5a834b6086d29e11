package dev.piper.connectors.text.source.reader;

import dev.piper.core.chunk.AvroBlockChunker;
import dev.piper.core.chunk.DelimitedChunker;

/** What an input file holds, which says how it is cut into chunks. */
public enum FileRecords {
    /** Lines of text, read in byte ranges ({@link LineRange}; a {@code .gz} file as one stream). */
    LINES,
    /**
     * An Avro container file, read in byte ranges ({@link AvroRanges}), or from a checkpoint taken
     * before ranges block by block as one stream ({@link AvroBlockChunker}).
     */
    AVRO_CONTAINER,
    /** Length-delimited Protobuf messages, read as one stream ({@link DelimitedChunker}). */
    PROTOBUF_DELIMITED
}
