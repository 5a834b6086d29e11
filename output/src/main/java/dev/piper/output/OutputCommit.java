package dev.piper.output;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * How a run publishes an output directory, so that the directory is always either a complete run's
 * output or visibly absent, never a mix (docs/SEMANTICS.md, "Output commit").
 *
 * <ol>
 *   <li>The run holds the output's lock ({@link #lock(Path)}, a {@link DirectoryLock} on {@code
 *       .NAME.lock} beside it) from before it starts to its last file; a second run is refused,
 *       naming the holder.
 *   <li>Every writer of the run (the rows and, with a report, the report) writes into the run's own
 *       staging directory beside the output, {@code .NAME.staging-RUN}, never into the output.
 *   <li>A writer that has written its part completely says so ({@link #partDone(String)}); the last
 *       part to finish publishes: it syncs every staged file to disk, moves a previous output
 *       aside, renames the staging directory to NAME (one atomic rename on one file system), syncs
 *       the parent directory and removes the previous output.
 * </ol>
 *
 * <p>A run killed at any point leaves the previous output as it was (or, killed between the two
 * renames, no output at all), and its staging directory, which the next run of the directory
 * removes once it holds the lock. {@code metadata.json} is written last inside the staging
 * directory, so even a staging directory that looks complete was complete.
 *
 * <p>Replacing an output removes only piper's own entries ({@link OutputLayout#entries()}): a
 * directory holding anything else is refused before the run (by the command) and again at publish.
 */
public final class OutputCommit implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final String STAGING = ".staging-";
    private static final String REPLACED = ".replaced-";
    private static final String DONE = ".done-";
    private static final String PUBLISHING = ".publishing";

    private final String output; // absolute, normalized
    private final String run;
    private final List<String> parts;

    private OutputCommit(Path output, String run, List<String> parts) {
        this.output = output.toAbsolutePath().normalize().toString();
        this.run = run;
        this.parts = List.copyOf(parts);
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("a run writes at least one part");
        }
    }

    /**
     * A new run into {@code output} whose writers each finish one of {@code parts} (names such as
     * {@code rows}, {@code report}); the run is named at random, so two runs never share a staging
     * directory.
     */
    public static OutputCommit start(Path output, String... parts) {
        byte[] id = new byte[6];
        new SecureRandom().nextBytes(id);
        return new OutputCommit(real(output), HexFormat.of().formatHex(id), List.of(parts));
    }

    /**
     * {@code path} absolute with its symbolic links resolved as far as it exists: an output named
     * through a link is published where the link points (a link to a larger disk stays a link), and
     * one lock guards it whichever name a run uses.
     */
    static Path real(Path path) {
        try {
            return realPath(path);
        } catch (IOException e) {
            return path.toAbsolutePath().normalize(); // unreadable on the way: the name as given
        }
    }

    /**
     * {@code path} absolute, with its symbolic links resolved as far as it exists (a path that does
     * not exist yet keeps its missing tail), for comparing places.
     *
     * @throws IOException if a part that exists cannot be resolved
     */
    public static Path realPath(Path path) throws IOException {
        Path p = path.toAbsolutePath().normalize();
        Path existing = p;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return p;
        }
        return existing.toRealPath().resolve(existing.relativize(p));
    }

    /** The directory the run publishes. */
    public Path output() {
        return Path.of(output);
    }

    /** The directory the run's writers write into. */
    public Path staging() {
        return sibling(output(), STAGING + run);
    }

    /**
     * A directory of this run's own beside the output, {@code .NAME.staging-WHAT-RUN}, for files
     * the run reads but does not publish (the label join's rows): the run removes it when it ends,
     * and the next run of the directory removes it as a leftover if this one could not.
     */
    public Path scratch(String what) {
        return sibling(output(), STAGING + what + "-" + run);
    }

    /** The lock file of output directory {@code output}: {@code .NAME.lock} beside it. */
    public static Path lockFile(Path output) {
        return sibling(real(output), ".lock");
    }

    private static Path sibling(Path output, String suffix) {
        Path parent = output.getParent() == null ? output : output.getParent();
        return parent.resolve("." + output.getFileName() + suffix);
    }

    /**
     * Locks {@code output} for a run and removes what killed runs left beside it (staging
     * directories, a previous output moved aside): with the lock held, no other run is using them.
     *
     * @throws IllegalStateException naming the holder if another run writes there
     */
    public static DirectoryLock lock(Path output) throws IOException {
        return lock(output, null);
    }

    /** Locks {@code output} and removes the leftovers beside it but run {@code keep}'s. */
    private static DirectoryLock lock(Path output, String keep) throws IOException {
        DirectoryLock lock = DirectoryLock.acquire(lockFile(output), "output directory " + output);
        try {
            removeLeftovers(real(output), keep);
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
        return lock;
    }

    /**
     * The lock a writer of this run holds while it writes: none if this JVM already holds it (the
     * command that runs the job on its embedded cluster took it), else the lock itself, taken as
     * {@link #lock(Path)} does (on a cluster the writer is the first to see the directory), leaving
     * this run's own staging directory alone.
     *
     * @return the lock to close when the writer closes, or null
     */
    public DirectoryLock lockForWriter() throws IOException {
        Path out = output();
        return DirectoryLock.isHeldHere(lockFile(out)) ? null : lock(out, run);
    }

    private static void removeLeftovers(Path output, String keep) throws IOException {
        Path parent = output.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            return;
        }
        String prefix = "." + output.getFileName();
        List<Path> stale = new ArrayList<>();
        try (Stream<Path> entries = Files.list(parent)) {
            entries.filter(
                            p -> {
                                String name = p.getFileName().toString();
                                return (name.startsWith(prefix + STAGING)
                                                || name.startsWith(prefix + REPLACED))
                                        && (keep == null || !name.endsWith("-" + keep));
                            })
                    .forEach(stale::add);
        }
        for (Path p : stale) {
            deleteRecursively(p);
        }
    }

    /**
     * Opens this run's staging directory for {@code part}'s writer: creates it, and forgets that
     * the part was done (a restarted attempt writes it again, and must not be published half
     * written).
     */
    public Path partStarted(String part) throws IOException {
        checkPart(part);
        Path staging = staging();
        Files.createDirectories(staging);
        Files.deleteIfExists(staging.resolve(DONE + part));
        return staging;
    }

    private void checkPart(String part) {
        if (!parts.contains(part)) {
            throw new IllegalArgumentException("unknown part " + part + " (parts: " + parts + ")");
        }
    }

    /**
     * Records that this run's {@code part} is completely written (its files closed); publishes the
     * output if it was the last part.
     *
     * @return whether this call published the output
     * @throws IOException if publishing failed (the output is then as it was before the run, or
     *     absent, never partly replaced)
     */
    public boolean partDone(String part) throws IOException {
        checkPart(part);
        Path staging = staging();
        Files.createFile(staging.resolve(DONE + part));
        for (String p : parts) {
            if (!Files.exists(staging.resolve(DONE + p))) {
                return false; // the part still running publishes
            }
        }
        try {
            Files.createFile(staging.resolve(PUBLISHING));
        } catch (FileAlreadyExistsException e) {
            return false; // another part saw every part done at the same time and publishes
        }
        publish();
        return true;
    }

    private void publish() throws IOException {
        Path staging = staging();
        for (String p : parts) {
            Files.delete(staging.resolve(DONE + p));
        }
        Files.delete(staging.resolve(PUBLISHING));
        syncTree(staging);
        Path out = output();
        Path replaced = null;
        if (Files.exists(out)) {
            refuseForeign(out, staging);
            replaced = sibling(out, REPLACED + run);
            Files.move(out, replaced, StandardCopyOption.ATOMIC_MOVE);
        }
        Files.move(staging, out, StandardCopyOption.ATOMIC_MOVE);
        sync(out.getParent());
        if (replaced != null) {
            deleteRecursively(replaced);
        }
    }

    /**
     * Refuses to replace {@code dir} if it is not a directory or holds anything but piper's own
     * entries; the message says where the run's output was left ({@code staging}).
     */
    static void refuseForeign(Path dir, Path staging) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException(dir + " exists and is not a directory; not replaced");
        }
        Optional<String> foreign = OutputLayout.firstForeignEntry(dir);
        if (foreign.isPresent()) {
            throw new IOException(
                    dir
                            + " holds "
                            + foreign.get()
                            + ", which is not a piper output file; not replaced (the run's output"
                            + " is left in "
                            + staging
                            + ")");
        }
    }

    /** Forces every file and directory below {@code root} (and it) to disk. */
    private static void syncTree(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                sync(p);
            }
        }
    }

    private static void sync(Path p) throws IOException {
        try (FileChannel c = FileChannel.open(p, StandardOpenOption.READ)) {
            c.force(true);
        } catch (IOException e) {
            if (!Files.isDirectory(p)) {
                throw e; // a directory cannot be opened for syncing everywhere; a file can
            }
        }
    }

    /** Deletes {@code path} and everything below it; nothing if it does not exist. */
    public static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                try {
                    Files.delete(p);
                } catch (NoSuchFileException e) {
                    // gone already
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    @Override
    public String toString() {
        return "run " + run + " of " + output + " (parts " + parts + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OutputCommit c
                && c.output.equals(output)
                && c.run.equals(run)
                && c.parts.equals(parts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(output, run, parts);
    }
}
