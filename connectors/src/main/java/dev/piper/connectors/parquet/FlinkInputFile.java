package dev.piper.connectors.parquet;

import java.io.IOException;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A Parquet {@link InputFile} read through Flink's file systems, so a Parquet input can live
 * wherever a text input can ({@code file://}, or any file system plugin the cluster has), without
 * Hadoop's file system layer.
 */
public final class FlinkInputFile implements InputFile {

    private final Path path;
    private final FileSystem fs;
    private final long length;

    public FlinkInputFile(String path) throws IOException {
        this.path = new Path(path);
        this.fs = this.path.getFileSystem();
        this.length = fs.getFileStatus(this.path).getLen();
    }

    @Override
    public long getLength() {
        return length;
    }

    @Override
    public SeekableInputStream newStream() throws IOException {
        FSDataInputStream in = fs.open(path);
        return new DelegatingSeekableInputStream(in) {
            @Override
            public long getPos() throws IOException {
                return in.getPos();
            }

            @Override
            public void seek(long newPos) throws IOException {
                in.seek(newPos);
            }
        };
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
