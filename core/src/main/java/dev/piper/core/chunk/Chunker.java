package dev.piper.core.chunk;

import dev.piper.core.block.RawChunk;
import java.io.IOException;

/** Cuts one input stream, read from its start or a position it gave, into numbered chunks. */
public interface Chunker {

    /** The next chunk, or null at the end of the input. */
    RawChunk next() throws IOException;

    /** Where the first input not yet returned starts, to resume from (in the chunker's units). */
    long offset();

    /** Sequence number of the next chunk. */
    long nextSeq();
}
