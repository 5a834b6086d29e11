package dev.piper.job;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.runtime.checkpoint.filemerging.FileMergingSnapshotManager;
import org.apache.flink.runtime.execution.Environment;
import org.apache.flink.runtime.state.CheckpointMetadataOutputStream;
import org.apache.flink.runtime.state.CheckpointStateOutputStream;
import org.apache.flink.runtime.state.CheckpointStateToolset;
import org.apache.flink.runtime.state.CheckpointStorage;
import org.apache.flink.runtime.state.CheckpointStorageAccess;
import org.apache.flink.runtime.state.CheckpointStorageFactory;
import org.apache.flink.runtime.state.CheckpointStorageLocation;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.CheckpointStorageWorkerView;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.runtime.state.CheckpointedStateScope;
import org.apache.flink.runtime.state.CompletedCheckpointStorageLocation;
import org.apache.flink.runtime.state.StreamStateHandle;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;

/**
 * The embedded stream's checkpoint storage: Flink's file system storage, which seals every
 * checkpoint and savepoint ({@link CheckpointDirectory#seal}) the moment its {@code _metadata} is
 * written, before the JobManager declares it complete and tells the tasks, whose Kafka sinks then
 * commit its output.
 *
 * <p>So a snapshot whose output anyone can read is always sealed, and one that loses its {@code
 * _metadata} later is known to have completed ({@link CheckpointDirectory#lostSnapshots}): a resume
 * from an older one is refused instead of committing that output again. Sealed only by the stream's
 * watcher, a checkpoint was unsealed for up to a second after its commit, and a process killed then
 * resumed silently from the older one (issue 64). Sealing costs a read of the snapshot's state
 * files (their CRC-32C) on the JobManager's I/O thread, before the commit; a seal that cannot be
 * written fails the checkpoint, so nothing is committed that a later run could not account for.
 *
 * <p>Every other call goes to the file system storage as it is. Chosen with {@code
 * execution.checkpointing.storage: dev.piper.job.SealingCheckpointStorage$Factory} ({@link
 * Streaming#configuration}); on a file system other than the local one nothing is sealed (the seal
 * is a local file beside the snapshot).
 */
public final class SealingCheckpointStorage implements CheckpointStorage {

    private static final long serialVersionUID = 1L;

    private final FileSystemCheckpointStorage files;

    SealingCheckpointStorage(FileSystemCheckpointStorage files) {
        this.files = files;
    }

    /** Makes the storage from the job's configuration, as the file system storage reads it. */
    public static final class Factory
            implements CheckpointStorageFactory<SealingCheckpointStorage> {
        @Override
        public SealingCheckpointStorage createFromConfig(
                ReadableConfig config, ClassLoader classLoader) {
            return new SealingCheckpointStorage(
                    FileSystemCheckpointStorage.createFromConfig(config, classLoader));
        }
    }

    @Override
    public CompletedCheckpointStorageLocation resolveCheckpoint(String pointer) throws IOException {
        return files.resolveCheckpoint(pointer);
    }

    @Override
    public CheckpointStorageAccess createCheckpointStorage(JobID jobId) throws IOException {
        return new Access(files.createCheckpointStorage(jobId));
    }

    /**
     * Seals the snapshot at {@code pointer} (a URI such as {@code file:/d/checkpoints/J/chk-3}), if
     * it lies on the local file system.
     *
     * @throws IOException if its seal cannot be written
     */
    static void seal(String pointer) throws IOException {
        java.net.URI uri = java.net.URI.create(pointer);
        if (!"file".equals(uri.getScheme())) {
            return;
        }
        Path snapshot = Path.of(uri);
        try {
            CheckpointDirectory.seal(snapshot);
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot seal the snapshot " + snapshot + ": " + e, e);
        }
    }

    /** The storage of one job: locations whose metadata streams seal what they finalize. */
    private static final class Access implements CheckpointStorageAccess {
        private final CheckpointStorageAccess files;

        Access(CheckpointStorageAccess files) {
            this.files = files;
        }

        @Override
        public boolean supportsHighlyAvailableStorage() {
            return files.supportsHighlyAvailableStorage();
        }

        @Override
        public boolean hasDefaultSavepointLocation() {
            return files.hasDefaultSavepointLocation();
        }

        @Override
        public CompletedCheckpointStorageLocation resolveCheckpoint(String pointer)
                throws IOException {
            return files.resolveCheckpoint(pointer);
        }

        @Override
        public void initializeBaseLocationsForCheckpoint() throws IOException {
            files.initializeBaseLocationsForCheckpoint();
        }

        @Override
        public CheckpointStorageLocation initializeLocationForCheckpoint(long checkpointId)
                throws IOException {
            return new Location(files.initializeLocationForCheckpoint(checkpointId));
        }

        @Override
        public CheckpointStorageLocation initializeLocationForSavepoint(
                long checkpointId, String externalLocationPointer) throws IOException {
            return new Location(
                    files.initializeLocationForSavepoint(checkpointId, externalLocationPointer));
        }

        @Override
        public CheckpointStreamFactory resolveCheckpointStorageLocation(
                long checkpointId, CheckpointStorageLocationReference reference)
                throws IOException {
            return files.resolveCheckpointStorageLocation(checkpointId, reference);
        }

        @Override
        public CheckpointStateOutputStream createTaskOwnedStateStream() throws IOException {
            return files.createTaskOwnedStateStream();
        }

        @Override
        public CheckpointStateToolset createTaskOwnedCheckpointStateToolset() {
            return files.createTaskOwnedCheckpointStateToolset();
        }

        @Override
        public CheckpointStorageWorkerView toFileMergingStorage(
                FileMergingSnapshotManager manager, Environment environment) throws IOException {
            return files.toFileMergingStorage(manager, environment);
        }
    }

    /** A checkpoint's or savepoint's location whose metadata stream seals it once finalized. */
    private static final class Location implements CheckpointStorageLocation {
        private final CheckpointStorageLocation files;

        Location(CheckpointStorageLocation files) {
            this.files = files;
        }

        @Override
        public CheckpointMetadataOutputStream createMetadataOutputStream() throws IOException {
            return new SealingMetadataStream(files.createMetadataOutputStream());
        }

        @Override
        public void disposeOnFailure() throws IOException {
            files.disposeOnFailure();
        }

        @Override
        public CheckpointStorageLocationReference getLocationReference() {
            return files.getLocationReference();
        }

        @Override
        public CheckpointStateOutputStream createCheckpointStateOutputStream(
                CheckpointedStateScope scope) throws IOException {
            return files.createCheckpointStateOutputStream(scope);
        }

        @Override
        public boolean canFastDuplicate(StreamStateHandle handle, CheckpointedStateScope scope)
                throws IOException {
            return files.canFastDuplicate(handle, scope);
        }

        @Override
        public List<StreamStateHandle> duplicate(
                List<StreamStateHandle> handles, CheckpointedStateScope scope) throws IOException {
            return files.duplicate(handles, scope);
        }

        @Override
        public void reusePreviousStateHandle(Collection<? extends StreamStateHandle> handles) {
            files.reusePreviousStateHandle(handles);
        }

        @Override
        public boolean couldReuseStateHandle(StreamStateHandle handle) {
            return files.couldReuseStateHandle(handle);
        }
    }

    /** The {@code _metadata} stream: once the file is finalized, the snapshot is sealed. */
    private static final class SealingMetadataStream extends CheckpointMetadataOutputStream {
        private final CheckpointMetadataOutputStream files;

        SealingMetadataStream(CheckpointMetadataOutputStream files) {
            this.files = files;
        }

        @Override
        public CompletedCheckpointStorageLocation closeAndFinalizeCheckpoint() throws IOException {
            CompletedCheckpointStorageLocation done = files.closeAndFinalizeCheckpoint();
            seal(done.getExternalPointer());
            return done;
        }

        @Override
        public long getPos() throws IOException {
            return files.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            files.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            files.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            files.flush();
        }

        @Override
        public void sync() throws IOException {
            files.sync();
        }

        @Override
        public void close() throws IOException {
            files.close();
        }
    }
}
