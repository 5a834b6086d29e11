package dev.piper.output;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An exclusive lock on a directory a run writes, held for as long as the run: a second run is
 * refused, naming the holder, instead of writing over the first (two runs into one output left one
 * run's {@code metadata.json} beside a mix of both runs' rows). The lock is the operating system's
 * lock on a file, released when the holder closes it or dies; the file stays, holding the last
 * holder's description (deleting it on release would let two runs lock two different files).
 */
public final class DirectoryLock implements AutoCloseable {

    /** The lock files this JVM holds (absolute, normalized): a lock is per process. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final FileChannel channel;
    private final Path file;

    private DirectoryLock(FileChannel channel, Path file) {
        this.channel = channel;
        this.file = file;
    }

    /**
     * Whether this JVM holds {@code lockFile}: a job's writer running in the process of the command
     * that locked its output (an embedded run) works under that command's lock, while on a cluster
     * it takes the lock itself.
     */
    public static boolean isHeldHere(Path lockFile) {
        return HELD.contains(lockFile.toAbsolutePath().normalize());
    }

    /**
     * Locks {@code lockFile}, creating it if needed, and writes this process's description into it.
     *
     * @param what the directory it guards, for the message
     * @throws IllegalStateException naming the holder if another run holds it
     */
    public static DirectoryLock acquire(Path lockFile, String what) throws IOException {
        Files.createDirectories(lockFile.toAbsolutePath().getParent());
        FileChannel channel =
                FileChannel.open(
                        lockFile,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by another run in this JVM
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            String holder = holder(channel);
            channel.close();
            throw new IllegalStateException(
                    what
                            + " is in use by another run ("
                            + (holder.isEmpty() ? "holder unknown" : holder)
                            + "; lock "
                            + lockFile
                            + ")");
        }
        channel.truncate(0);
        channel.write(
                ByteBuffer.wrap(
                        ("pid "
                                        + ProcessHandle.current().pid()
                                        + " ("
                                        + ManagementFactory.getRuntimeMXBean().getName()
                                        + ") since "
                                        + Instant.now()
                                        + "\n")
                                .getBytes(StandardCharsets.UTF_8)),
                0);
        channel.force(false);
        Path key = lockFile.toAbsolutePath().normalize();
        HELD.add(key);
        return new DirectoryLock(channel, key);
    }

    /** The lock file's description of its holder, one line. */
    private static String holder(FileChannel channel) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(512);
        channel.read(b, 0);
        return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8).strip();
    }

    @Override
    public void close() throws IOException {
        HELD.remove(file);
        channel.close(); // releases the lock
    }
}
