package dev.piper.connectors.files;

import dev.piper.core.block.KafkaOut;
import dev.piper.core.control.ControlMessage;
import dev.piper.operators.control.ControlMessageSerializer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import org.apache.flink.api.common.serialization.Encoder;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.enumerate.FileEnumerator;
import org.apache.flink.connector.file.src.enumerate.NonSplittingRecursiveEnumerator;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.connector.file.src.util.SingletonResultIterator;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;

/**
 * A control directory instead of a control topic ({@code stream --control-dir D}): every {@code
 * *.json} file that appears directly in {@code D} is one control message (its path is its source in
 * the status), read once; the directory is scanned every second, and the files already read are
 * part of the checkpoint. Status records go to JSON-lines files committed with each checkpoint
 * (Flink's file sink: a file becomes visible, without its leading dot, once its checkpoint
 * completes).
 */
public final class ControlFiles {

    /** Largest spec file read; specs are a few KB. */
    static final int MAX_BYTES = 16 << 20;

    private ControlFiles() {}

    /** The source of {@code dir}'s spec files, scanned every {@code interval}. */
    public static FileSource<ControlMessage> source(java.nio.file.Path dir, Duration interval) {
        return FileSource.forBulkFileFormat(new WholeFile(), Path.fromLocalFile(dir.toFile()))
                .setFileEnumerator(new TopLevelJson())
                .monitorContinuously(interval)
                .build();
    }

    /** The sink writing status records, one JSON object per line, into {@code dir}. */
    public static FileSink<KafkaOut> statusSink(java.nio.file.Path dir) {
        return FileSink.forRowFormat(Path.fromLocalFile(dir.toFile()), new StatusLines())
                .withBucketAssigner(new BasePathBucketAssigner<>())
                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                .withOutputFileConfig(
                        OutputFileConfig.builder()
                                .withPartPrefix("status")
                                .withPartSuffix(".jsonl")
                                .build())
                .build();
    }

    /**
     * Only {@code *.json} files directly in the directory (not hidden ones, not subdirectories).
     */
    static final class TopLevelJson implements FileEnumerator.Provider {
        private static final long serialVersionUID = 1L;

        @Override
        public FileEnumerator create() {
            return new NonSplittingRecursiveEnumerator() {
                /** The directory, as a plain path (listings qualify paths differently). */
                private String root;

                @Override
                public java.util.Collection<FileSourceSplit> enumerateSplits(
                        Path[] paths, int minDesiredSplits) throws IOException {
                    root = plain(paths[0]);
                    return super.enumerateSplits(paths, minDesiredSplits);
                }

                @Override
                protected void addSplitsForPath(
                        org.apache.flink.core.fs.FileStatus status,
                        org.apache.flink.core.fs.FileSystem fs,
                        java.util.ArrayList<FileSourceSplit> target)
                        throws IOException {
                    Path p = status.getPath();
                    String name = p.getName();
                    boolean isRoot = status.isDir() && plain(p).equals(root);
                    boolean spec =
                            !status.isDir()
                                    && name.endsWith(".json")
                                    && !name.startsWith(".")
                                    && !name.startsWith("_")
                                    && plain(p.getParent()).equals(root);
                    if (isRoot || spec) {
                        super.addSplitsForPath(status, fs, target);
                    }
                }
            };
        }
    }

    private static String plain(Path p) {
        String s = p.toUri().getPath();
        return s.length() > 1 && s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    /** A whole file as one {@link ControlMessage}, emitted once (also across restores). */
    static final class WholeFile implements BulkFormat<ControlMessage, FileSourceSplit> {
        private static final long serialVersionUID = 1L;

        @Override
        public Reader<ControlMessage> createReader(Configuration config, FileSourceSplit split) {
            return new FileReader(split, false);
        }

        @Override
        public Reader<ControlMessage> restoreReader(Configuration config, FileSourceSplit split) {
            boolean emitted =
                    split.getReaderPosition().map(p -> p.getRecordsAfterOffset() > 0).orElse(false);
            return new FileReader(split, emitted);
        }

        @Override
        public boolean isSplittable() {
            return false;
        }

        @Override
        public TypeInformation<ControlMessage> getProducedType() {
            return ControlMessageSerializer.TYPE;
        }
    }

    private static final class FileReader implements BulkFormat.Reader<ControlMessage> {
        private final FileSourceSplit split;
        private boolean done;

        FileReader(FileSourceSplit split, boolean done) {
            this.split = split;
            this.done = done;
        }

        @Override
        public BulkFormat.RecordIterator<ControlMessage> readBatch() throws IOException {
            if (done) {
                return null;
            }
            done = true;
            SingletonResultIterator<ControlMessage> one = new SingletonResultIterator<>();
            one.set(read(split.path()), CheckpointedPosition.NO_OFFSET, 1);
            return one;
        }

        /** The file's message; a file that cannot be read is a message saying why. */
        private static ControlMessage read(Path path) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (InputStream in = path.getFileSystem().open(path)) {
                byte[] buffer = new byte[8192];
                int n;
                while ((n = in.read(buffer)) > 0) {
                    if (bytes.size() + n > MAX_BYTES) {
                        return ControlMessage.unreadable(
                                path.getPath(),
                                "file: larger than " + MAX_BYTES + " bytes, not a spec");
                    }
                    bytes.write(buffer, 0, n);
                }
            } catch (IOException e) {
                return ControlMessage.unreadable(path.getPath(), "file: cannot read: " + e);
            }
            return new ControlMessage(path.getPath(), bytes.toByteArray());
        }

        @Override
        public void close() {}
    }

    /** A status record's JSON value and a line break. */
    static final class StatusLines implements Encoder<KafkaOut> {
        private static final long serialVersionUID = 1L;

        @Override
        public void encode(KafkaOut status, OutputStream out) throws IOException {
            out.write(status.value());
            out.write('\n');
        }
    }
}
