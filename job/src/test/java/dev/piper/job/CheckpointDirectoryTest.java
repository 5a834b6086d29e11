package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointDirectoryTest {

    @TempDir Path dir;

    private Path snapshot(String relative, long epochSecond) throws Exception {
        Path d = Files.createDirectories(dir.resolve(relative));
        Path metadata = Files.writeString(d.resolve("_metadata"), "x");
        Files.setLastModifiedTime(metadata, FileTime.from(Instant.ofEpochSecond(epochSecond)));
        return d;
    }

    @Test
    void snapshotsSupersededByTheOneRestoredAreRemoved() throws Exception {
        snapshot("checkpoints/aaaa/chk-3", 1000);
        Files.createDirectories(dir.resolve("checkpoints/aaaa/shared"));
        snapshot("savepoints/savepoint-aaaa-1", 2000);
        Path keep = snapshot("checkpoints/bbbb/chk-7", 3000);
        Files.createDirectories(
                dir.resolve("checkpoints/cccc/shared")); // a job that never completed one
        Path newer = snapshot("savepoints/savepoint-dddd-2", 4000); // newer: never removed

        assertThat(CheckpointDirectory.pruneSuperseded(dir, keep))
                .containsExactlyInAnyOrder(
                        dir.resolve("checkpoints/aaaa"),
                        dir.resolve("checkpoints/cccc"),
                        dir.resolve("savepoints/savepoint-aaaa-1"));
        assertThat(keep.resolve("_metadata")).exists();
        assertThat(newer.resolve("_metadata")).exists();
        assertThat(dir.resolve("checkpoints/aaaa")).doesNotExist();
    }

    /**
     * Issue 23: a flipped byte in a state file restored silently (or failed deep in a task). A
     * sealed snapshot's files are checked before a restore; the damaged or missing one is named.
     */
    @Test
    void aSealedSnapshotWhoseStateFileChangedIsRefusedNamingTheFile() throws Exception {
        Path chk = snapshot("checkpoints/aaaa/chk-3", 1000);
        Path state = Files.write(chk.resolve("0b1c-state"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        Files.writeString(chk.resolve("other-state"), "vocabulary");
        assertThat(CheckpointDirectory.sealLatest(dir)).contains(chk);
        assertThat(CheckpointDirectory.sealLatest(dir)).as("sealed once").isEmpty();
        Path seal = dir.resolve("checkpoints/aaaa/chk-3.checksums");
        assertThat(Files.readString(seal)).contains("\t8\t0b1c-state\n");
        CheckpointDirectory.checkSeal(chk); // intact

        byte[] bytes = Files.readAllBytes(state);
        bytes[4] ^= 0x10;
        Files.write(state, bytes);
        assertThatThrownBy(() -> CheckpointDirectory.checkSeal(chk))
                .hasMessageStartingWith(
                        "the state file " + state + " does not match its checksum (CRC-32C ")
                .hasMessageContaining("so the snapshot is damaged and not restored (seal " + seal);
        Files.write(state, new byte[] {1, 2, 3});
        assertThatThrownBy(() -> CheckpointDirectory.checkSeal(chk))
                .hasMessageStartingWith(
                        "the state file " + state + " has 3 bytes, not the 8 it had");
        Files.delete(state);
        assertThatThrownBy(() -> CheckpointDirectory.checkSeal(chk))
                .hasMessageStartingWith("the state file " + state + " is missing");

        // Flink removes a subsumed checkpoint: its seal goes with it
        Path next = snapshot("checkpoints/aaaa/chk-4", 2000);
        Preprocess.deleteRecursively(chk);
        assertThat(CheckpointDirectory.sealLatest(dir)).contains(next);
        assertThat(seal).doesNotExist();
        assertThat(dir.resolve("checkpoints/aaaa/chk-4.checksums")).exists();
        // an unsealed snapshot (killed before sealing) is checked by its _metadata only
        CheckpointDirectory.checkSeal(snapshot("savepoints/savepoint-aaaa-1", 3000));
    }

    @Test
    void aCheckpointDirectoryServesOneStreamAtATime() throws Exception {
        try (CheckpointDirectory.Lock held = CheckpointDirectory.lock(dir)) {
            // A second lock from this JVM overlaps the first: the file lock refuses it as it
            // would refuse another process.
            assertThatThrownBy(() -> CheckpointDirectory.lock(dir))
                    .isInstanceOf(java.nio.channels.OverlappingFileLockException.class);
        }
        // Released: the next stream may take it.
        CheckpointDirectory.lock(dir).close();
    }

    @Test
    void anEmptyDirectoryHasNoSnapshot() throws Exception {
        assertThat(CheckpointDirectory.latestSnapshot(dir)).isEmpty();
        assertThat(CheckpointDirectory.latestSnapshot(dir.resolve("absent"))).isEmpty();
    }

    @Test
    void theNewestCompleteCheckpointOrSavepointWins() throws Exception {
        snapshot("checkpoints/aaaa/chk-3", 1000);
        Path savepoint = snapshot("savepoints/savepoint-aaaa-1", 2000);
        assertThat(CheckpointDirectory.latestSnapshot(dir)).contains(savepoint);

        Path newer = snapshot("checkpoints/bbbb/chk-7", 3000);
        // A checkpoint interrupted before its metadata was written does not count.
        Files.createDirectories(dir.resolve("checkpoints/bbbb/chk-8"));
        Files.writeString(dir.resolve("checkpoints/bbbb/chk-8/some-state"), "x");
        assertThat(CheckpointDirectory.latestSnapshot(dir)).contains(newer);
    }

    /**
     * Flink deletes a subsumed checkpoint while {@code piper stream} (or a test) looks for the
     * newest: the look never fails for a checkpoint that vanished under it, and finds one that
     * stays. A thread writes and deletes checkpoints as fast as it can while another looks.
     */
    @Test
    void checkpointsDeletedWhileTheLookRunsAreNotAnError() throws Exception {
        Path kept = snapshot("checkpoints/aaaa/chk-1", 4_000_000_000L); // newer than any written
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> churnFailed = new AtomicReference<>();
        Thread churn =
                new Thread(
                        () -> {
                            try {
                                for (int n = 2; !stop.get(); n++) {
                                    Path d = snapshot("checkpoints/aaaa/chk-" + n, 500);
                                    Files.delete(d.resolve("_metadata"));
                                    Files.delete(d);
                                }
                            } catch (Throwable t) {
                                churnFailed.set(t);
                            }
                        });
        churn.start();
        try {
            for (int i = 0; i < 3000; i++) {
                assertThat(CheckpointDirectory.latestSnapshot(dir)).contains(kept);
            }
        } finally {
            stop.set(true);
            churn.join();
        }
        assertThat(churnFailed.get()).isNull();
    }

    /**
     * Issue 23: a damaged snapshot is refused before a restore, naming its file: the frozen
     * savepoint of build 0.1 reads; truncated, or with a byte flipped in its header, it does not.
     */
    @Test
    void aDamagedSnapshotIsRefusedNamingItsFile() throws Exception {
        Path frozen = Path.of("src/test/resources/savepoints/stream-0.1");
        Path copy = dir.resolve("savepoint");
        try (Stream<Path> files = Files.walk(frozen)) {
            for (Path f : files.toList()) {
                Path to = copy.resolve(frozen.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
        CheckpointDirectory.checkReadable(copy);

        Path metadata = copy.resolve("_metadata");
        byte[] bytes = Files.readAllBytes(metadata);
        Files.write(metadata, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        assertThatThrownBy(() -> CheckpointDirectory.checkReadable(copy))
                .hasMessageStartingWith(metadata + " cannot be read (")
                .hasMessageContaining("so the snapshot is not restored");

        byte[] flipped = bytes.clone();
        flipped[0] ^= 0x5a; // the magic number
        Files.write(metadata, flipped);
        assertThatThrownBy(() -> CheckpointDirectory.checkReadable(copy))
                .hasMessageStartingWith(metadata + " cannot be read (");
    }

    /**
     * Issue 40: a checkpoint whose {@code _metadata} was deleted looked like one interrupted while
     * it was written, and the stream started over (or resumed from an older one), committing its
     * output again. A sealed one completed: without its {@code _metadata} it is reported as lost,
     * when it is newer than the snapshot that would be restored.
     */
    @Test
    void aSealedSnapshotWithoutMetadataIsLostAnInterruptedOneIsNot() throws Exception {
        Path older = snapshot("checkpoints/aaaa/chk-6", 1000);
        CheckpointDirectory.seal(older);
        Files.setLastModifiedTime(
                dir.resolve("checkpoints/aaaa/chk-6.checksums"),
                FileTime.from(Instant.ofEpochSecond(1001)));
        Path newest = snapshot("checkpoints/aaaa/chk-7", 2000);
        Files.writeString(newest.resolve("state"), "vocabulary");
        CheckpointDirectory.seal(newest);
        Files.setLastModifiedTime(
                dir.resolve("checkpoints/aaaa/chk-7.checksums"),
                FileTime.from(Instant.ofEpochSecond(2001)));
        Files.createDirectories(dir.resolve("checkpoints/aaaa/chk-8")); // interrupted, unsealed
        assertThat(CheckpointDirectory.lostSnapshots(dir, Optional.of(newest))).isEmpty();

        Files.delete(newest.resolve("_metadata"));
        assertThat(CheckpointDirectory.latestSnapshot(dir)).contains(older);
        assertThat(CheckpointDirectory.lostSnapshots(dir, Optional.of(older)))
                .containsExactly(newest);
        assertThat(CheckpointDirectory.lostSnapshots(dir, Optional.empty()))
                .containsExactly(newest);

        // An older snapshot half removed (Flink discarding a subsumed one) is not a loss.
        Files.delete(older.resolve("_metadata"));
        Path restored = snapshot("savepoints/savepoint-aaaa-1", 3000);
        assertThat(CheckpointDirectory.lostSnapshots(dir, Optional.of(restored))).isEmpty();
    }

    /** A directory's stream id is made once and read back; another directory has another. */
    @Test
    void aDirectoryKeepsItsStreamId() throws Exception {
        String id = CheckpointDirectory.streamId(dir);
        assertThat(id).matches("[0-9a-f-]{36}");
        assertThat(CheckpointDirectory.streamId(dir)).isEqualTo(id);
        Path other = Files.createDirectories(dir.resolve("other"));
        assertThat(CheckpointDirectory.streamId(other)).isNotEqualTo(id);
        Files.writeString(other.resolve("stream-id"), "\n");
        assertThatThrownBy(() -> CheckpointDirectory.streamId(other))
                .hasMessageStartingWith(other.resolve("stream-id") + " is empty");
    }
}
