package dev.piper.job.source;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * The whole input file as one split, with the reading position: the byte offset, line number and
 * chunk sequence number at which reading resumes.
 */
public record FileChunkSplit(String path, long offset, long nextLine, long nextSeq)
        implements SourceSplit {

    @Override
    public String splitId() {
        return path;
    }

    public FileChunkSplit advancedTo(long newOffset, long newNextLine, long newNextSeq) {
        return new FileChunkSplit(path, newOffset, newNextLine, newNextSeq);
    }
}
