package dev.piper.connectors.text;

import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;

/** Opening a text input through Flink's file systems. */
public final class TextFiles {

    private TextFiles() {}

    /**
     * Opens {@code file} positioned at {@code offset}. A {@code .gz} file is decompressed on the
     * fly; its offsets count decompressed bytes, so resuming re-reads and skips.
     */
    public static InputStream open(String file, long offset) throws IOException {
        Path path = new Path(file);
        FSDataInputStream in = path.getFileSystem().open(path);
        if (file.endsWith(".gz")) {
            InputStream gz = new GZIPInputStream(in, 1 << 16);
            gz.skipNBytes(offset);
            return gz;
        }
        if (offset > 0) { // a pipe cannot seek, and is only ever read from its start
            in.seek(offset);
        }
        return in;
    }
}
