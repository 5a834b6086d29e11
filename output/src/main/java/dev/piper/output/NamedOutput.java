package dev.piper.output;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file's stream whose write errors name the file: the operating system says only "No space left
 * on device" or "Disk quota exceeded", and a job's error must say where.
 */
public final class NamedOutput extends FilterOutputStream {

    private final Path file;

    private NamedOutput(OutputStream out, Path file) {
        super(out);
        this.file = file;
    }

    /** Creates (or truncates) {@code file} for writing. */
    public static OutputStream open(Path file) throws IOException {
        return new NamedOutput(Files.newOutputStream(file), file);
    }

    private IOException named(IOException e) {
        return new IOException(file + ": " + e.getMessage(), e);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        try {
            out.write(b, off, len);
        } catch (IOException e) {
            throw named(e);
        }
    }

    @Override
    public void write(int b) throws IOException {
        try {
            out.write(b);
        } catch (IOException e) {
            throw named(e);
        }
    }

    @Override
    public void flush() throws IOException {
        try {
            out.flush();
        } catch (IOException e) {
            throw named(e);
        }
    }
}
