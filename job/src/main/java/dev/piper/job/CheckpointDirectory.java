package dev.piper.job;

import dev.piper.connectors.kafka.CheckpointStamp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A stream's checkpoint directory ({@code --checkpoint-dir}): where its checkpoints and savepoints
 * are, which one a run resumes from, the superseded ones it removes, the lock that keeps a second
 * stream out, and the record of the pipelines whose state it holds.
 *
 * <pre>
 * checkpoints/&lt;job&gt;/chk-&lt;n&gt;/_metadata   retained checkpoints (the latest of each job)
 * savepoints/savepoint-.../_metadata      savepoints (stop with savepoint, --until-idle)
 * checkpoints/&lt;job&gt;/chk-&lt;n&gt;.checksums   its state files' CRC-32C and sizes (seal)
 * savepoints/savepoint-....checksums     likewise
 * pipelines.txt                           the pipelines and chains its state belongs to
 * stream-id                               the id the stream claims its output topics with
 * .lock                                   held by the stream running on it
 * </pre>
 */
public final class CheckpointDirectory {

    /** Subdirectories of the checkpoint directory. */
    static final String CHECKPOINTS = "checkpoints";

    static final String SAVEPOINTS = "savepoints";

    private static final String METADATA = "_metadata";

    private CheckpointDirectory() {}

    /**
     * What a user can do about a snapshot that cannot be restored. The directory keeps the two
     * newest checkpoints ({@link Streaming#RETAINED_CHECKPOINTS}), so there is usually an earlier
     * one; but if output was committed after it, resuming from it would commit that output again,
     * and the stream refuses to (each rows record names the checkpoint that committed it).
     */
    static final String WAYS_OUT =
            "Either move the damaged snapshot directory away, and the next run resumes from the"
                    + " newest one left (or name one with --from-savepoint) if no output was"
                    + " committed after that one, and is refused, naming the output, if some was;"
                    + " or start over into new output topics with --start-over (docs/OPERATIONS.md,"
                    + " \"Damaged checkpoint directories\")";

    /**
     * The snapshots in {@code checkpointDir} newer than {@code latest} (or all, if empty) that were
     * complete once (this program sealed them, {@link #seal}) but whose {@code _metadata} is gone.
     * An interrupted checkpoint has no {@code _metadata} either, but was never sealed; a sealed one
     * without it was removed or lost after it completed, and its output is committed, so resuming
     * from an older snapshot, or from nothing, would commit that output a second time.
     */
    public static List<Path> lostSnapshots(Path checkpointDir, Optional<Path> latest)
            throws IOException {
        FileTime after =
                latest.isPresent()
                        ? Files.getLastModifiedTime(latest.get().resolve(METADATA))
                        : FileTime.fromMillis(Long.MIN_VALUE);
        List<Path> lost = new ArrayList<>();
        for (Path seal : seals(checkpointDir)) {
            Path snapshot = sealed(seal);
            if (Files.isDirectory(snapshot)
                    && !Files.exists(snapshot.resolve(METADATA))
                    && Files.getLastModifiedTime(seal).compareTo(after) > 0) {
                lost.add(snapshot);
            }
        }
        return lost;
    }

    /**
     * The most recent complete snapshot in {@code checkpointDir}: the newest {@code _metadata} of a
     * retained checkpoint ({@code checkpoints/<job>/chk-<n>}) or savepoint ({@code
     * savepoints/savepoint-...}). A checkpoint being written when the process died has no {@code
     * _metadata} and is skipped.
     */
    public static Optional<Path> latestSnapshot(Path checkpointDir) throws IOException {
        // Flink deletes a checkpoint once a newer one subsumes it, also while this looks: a file
        // or directory gone between the listing and the look is no longer a candidate, and a walk
        // that a deletion broke is started again (a few times; each pass sees fewer old ones)
        for (int attempt = 1; ; attempt++) {
            try {
                return newestMetadata(checkpointDir);
            } catch (UncheckedIOException e) {
                if (!(e.getCause() instanceof NoSuchFileException) || attempt == 5) {
                    throw e.getCause();
                }
            } catch (NoSuchFileException e) {
                if (attempt == 5) {
                    throw e;
                }
            }
        }
    }

    private static Optional<Path> newestMetadata(Path checkpointDir) throws IOException {
        Path newest = null;
        FileTime newestTime = null;
        for (String sub : List.of(CHECKPOINTS, SAVEPOINTS)) {
            Path root = checkpointDir.resolve(sub);
            if (!Files.isDirectory(root)) {
                continue;
            }
            List<Path> found;
            try (Stream<Path> walk = Files.walk(root, 3)) {
                found =
                        walk.filter(p -> p.getFileName().toString().equals(METADATA))
                                .filter(Files::isRegularFile)
                                .toList();
            }
            for (Path p : found) {
                FileTime t;
                try {
                    t = Files.getLastModifiedTime(p);
                } catch (NoSuchFileException gone) {
                    continue; // subsumed and deleted since the listing
                }
                if (newestTime == null || t.compareTo(newestTime) > 0) {
                    newest = p;
                    newestTime = t;
                }
            }
        }
        return Optional.ofNullable(newest).map(Path::getParent);
    }

    /**
     * Checks that snapshot {@code snapshot} (a checkpoint or savepoint directory) can be read: its
     * {@code _metadata} loads. A truncated or damaged one is refused here, naming the file and what
     * is wrong, before anything is pruned or a job submitted, rather than failing the restored job
     * with a stack trace.
     *
     * @throws IllegalStateException naming the file and the cause
     */
    public static void checkReadable(Path snapshot) {
        metadata(snapshot);
        checkSeal(snapshot);
    }

    /**
     * The commit stamp of {@code snapshot}: every committed output record stamped at most this
     * ({@code piper.checkpoint}) is part of it, every one stamped above was committed after it. Its
     * stamp operator's state ({@code CheckpointStamp}); a snapshot without one, its checkpoint id.
     *
     * @throws IllegalStateException naming the file if it cannot be read
     */
    public static long stamp(Path snapshot) {
        org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata m = metadata(snapshot);
        long stamp = -1;
        for (org.apache.flink.runtime.checkpoint.OperatorState op : m.getOperatorStates()) {
            for (org.apache.flink.runtime.checkpoint.OperatorSubtaskState sub : op.getStates()) {
                for (org.apache.flink.runtime.state.OperatorStateHandle h :
                        sub.getManagedOperatorState()) {
                    var info = h.getStateNameToPartitionOffsets().get(CheckpointStamp.STATE_NAME);
                    if (info == null || info.getOffsets().length == 0) {
                        continue;
                    }
                    try (org.apache.flink.core.fs.FSDataInputStream in = h.openInputStream()) {
                        var view = new org.apache.flink.core.memory.DataInputViewStreamWrapper(in);
                        for (long offset : info.getOffsets()) {
                            in.seek(offset);
                            stamp = Math.max(stamp, view.readLong());
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException(
                                snapshot
                                        + ": its commit stamp cannot be read ("
                                        + e.getMessage()
                                        + ")",
                                e);
                    }
                }
            }
        }
        return stamp >= 0 ? stamp : m.getCheckpointId();
    }

    private static org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata metadata(
            Path snapshot) {
        Path metadata = snapshot.resolve(METADATA);
        try (java.io.DataInputStream in =
                new java.io.DataInputStream(
                        new java.io.BufferedInputStream(Files.newInputStream(metadata)))) {
            return org.apache.flink.runtime.checkpoint.Checkpoints.loadCheckpointMetadata(
                    in, CheckpointDirectory.class.getClassLoader(), snapshot.toString());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(
                    metadata
                            + " cannot be read ("
                            + e.getClass().getSimpleName()
                            + (e.getMessage() == null ? "" : ": " + e.getMessage())
                            + "), so the snapshot is not restored. "
                            + WAYS_OUT,
                    e);
        }
    }

    /** The seals in {@code checkpointDir}, in name order. */
    private static List<Path> seals(Path checkpointDir) throws IOException {
        List<Path> seals = new ArrayList<>();
        for (String sub : List.of(CHECKPOINTS, SAVEPOINTS)) {
            Path root = checkpointDir.resolve(sub);
            if (Files.isDirectory(root)) {
                try (Stream<Path> walk = Files.walk(root, 2)) {
                    walk.filter(p -> p.getFileName().toString().endsWith(SEAL)).forEach(seals::add);
                }
            }
        }
        seals.sort(null);
        return seals;
    }

    /** The snapshot directory whose seal is {@code seal}. */
    private static Path sealed(Path seal) {
        String name = seal.getFileName().toString();
        return seal.resolveSibling(name.substring(0, name.length() - SEAL.length()));
    }

    /** A snapshot's seal: the CRC-32C and size of each of its state files, beside it. */
    static Path sealOf(Path snapshot) {
        return snapshot.resolveSibling(snapshot.getFileName() + SEAL);
    }

    private static final String SEAL = ".checksums";

    /**
     * Seals {@code snapshot}, a complete checkpoint or savepoint (its {@code _metadata} written):
     * records the CRC-32C and size of every file in it but {@code _metadata} (whose own check is
     * loading it), so that a state file damaged later (a flipped byte, a truncation) is refused
     * before a restore instead of restoring wrong state or failing deep in a task. Nothing if it is
     * sealed already. Flink keeps no checksum of its state files; the seal is written beside the
     * snapshot, outside the directory Flink deletes when it subsumes a checkpoint.
     *
     * @return whether a seal was written
     */
    public static boolean seal(Path snapshot) throws IOException {
        Path seal = sealOf(snapshot);
        if (Files.exists(seal) || !Files.isRegularFile(snapshot.resolve(METADATA))) {
            return false;
        }
        StringBuilder sb =
                new StringBuilder("# crc32c<TAB>bytes<TAB>file: the state files of ")
                        .append(snapshot.getFileName())
                        .append(", written by piper when it completed\n");
        try (Stream<Path> walk = Files.walk(snapshot)) {
            for (Path f : walk.filter(Files::isRegularFile).sorted().toList()) {
                if (!Files.exists(snapshot)) {
                    return false; // subsumed and removed by Flink meanwhile
                }
                if (f.getFileName().toString().equals(METADATA)) {
                    continue;
                }
                sb.append(Long.toHexString(crc32c(f)))
                        .append('\t')
                        .append(Files.size(f))
                        .append('\t')
                        .append(snapshot.relativize(f))
                        .append('\n');
            }
        } catch (java.nio.file.NoSuchFileException | UncheckedIOException gone) {
            if (Files.exists(snapshot)) {
                throw gone;
            }
            return false; // subsumed and removed by Flink meanwhile
        }
        Path tmp = seal.resolveSibling("." + seal.getFileName() + ".tmp");
        Files.writeString(tmp, sb, StandardCharsets.UTF_8);
        Files.move(
                tmp,
                seal,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return true;
    }

    /**
     * Seals the latest snapshot of {@code checkpointDir} ({@link #seal}), and removes the seals of
     * snapshots Flink has removed since.
     *
     * @return the snapshot sealed now, if any
     */
    public static Optional<Path> sealLatest(Path checkpointDir) throws IOException {
        for (Path seal : seals(checkpointDir)) {
            if (!Files.isDirectory(sealed(seal))) {
                Files.deleteIfExists(seal);
            }
        }
        Optional<Path> latest = latestSnapshot(checkpointDir);
        if (latest.isPresent() && seal(latest.get())) {
            return latest;
        }
        return Optional.empty();
    }

    /**
     * Checks {@code snapshot}'s state files against its seal, if it has one (a process killed right
     * after a checkpoint completed may not have sealed it).
     *
     * @throws IllegalStateException naming the damaged or missing file
     */
    static void checkSeal(Path snapshot) {
        Path seal = sealOf(snapshot);
        if (!Files.isRegularFile(seal)) {
            return;
        }
        try {
            for (String line : Files.readAllLines(seal, StandardCharsets.UTF_8)) {
                if (line.startsWith("#") || line.isBlank()) {
                    continue;
                }
                String[] f = line.split("\t", 3);
                Path file = snapshot.resolve(f[2]);
                String problem = null;
                if (!Files.isRegularFile(file)) {
                    problem = "is missing";
                } else if (Files.size(file) != Long.parseLong(f[1])) {
                    problem = "has " + Files.size(file) + " bytes, not the " + f[1] + " it had";
                } else if (crc32c(file) != Long.parseLong(f[0], 16)) {
                    problem = "does not match its checksum (CRC-32C " + f[0] + ")";
                }
                if (problem != null) {
                    throw new IllegalStateException(
                            "the state file "
                                    + file
                                    + " "
                                    + problem
                                    + ", so the snapshot is damaged and not restored (seal "
                                    + seal
                                    + "). "
                                    + WAYS_OUT);
                }
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof IllegalStateException ise) {
                throw ise;
            }
            throw new IllegalStateException(
                    "the seal " + seal + " of the snapshot cannot be read (" + e + ")", e);
        }
    }

    private static long crc32c(Path file) throws IOException {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        byte[] buffer = new byte[1 << 16];
        try (java.io.InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                crc.update(buffer, 0, n);
            }
        }
        return crc.getValue();
    }

    /**
     * The savepoint directory of the stream whose checkpoint is at {@code checkpointPath} (a URI
     * such as {@code file:/data/ckpt/checkpoints/<job>/chk-12}, as Flink reports it): {@code
     * savepoints} beside {@code checkpoints} in its checkpoint directory, where the next run looks
     * for the snapshot to resume from. Empty if the path is not laid out that way.
     */
    public static Optional<String> savepointDirectoryOf(String checkpointPath) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile(
                                "(.*)/" + CHECKPOINTS + "/[0-9a-f]{32}/chk-[0-9]+/?")
                        .matcher(checkpointPath);
        return m.matches() ? Optional.of(m.group(1) + "/" + SAVEPOINTS) : Optional.empty();
    }

    /**
     * Removes the snapshots in {@code checkpointDir} that {@code keep} supersedes: the directories
     * of earlier jobs' checkpoints (a job's directory goes whole, with its shared state, unless it
     * holds {@code keep}) and savepoints older than {@code keep}. Restoring any of them would
     * replay input whose output is already committed; removing them keeps the directory from
     * growing by one retained checkpoint per restart.
     *
     * @return the removed directories
     */
    public static List<Path> pruneSuperseded(Path checkpointDir, Path keep) throws IOException {
        FileTime kept = Files.getLastModifiedTime(keep.resolve(METADATA));
        List<Path> removed = new ArrayList<>();
        for (String sub : List.of(CHECKPOINTS, SAVEPOINTS)) {
            Path root = checkpointDir.resolve(sub);
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> entries = Files.list(root)) {
                for (Path entry : entries.filter(Files::isDirectory).sorted().toList()) {
                    if (keep.startsWith(entry) || !newestMetadataBefore(entry, kept)) {
                        continue;
                    }
                    Preprocess.deleteRecursively(entry);
                    Files.deleteIfExists(sealOf(entry));
                    removed.add(entry);
                }
            }
        }
        return removed;
    }

    /** Whether every {@code _metadata} under {@code dir} (there may be none) is older than t. */
    private static boolean newestMetadataBefore(Path dir, FileTime t) throws IOException {
        try (Stream<Path> walk = Files.walk(dir, 2)) {
            for (Path p : walk.filter(p -> p.getFileName().toString().equals(METADATA)).toList()) {
                if (Files.getLastModifiedTime(p).compareTo(t) >= 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Takes {@code checkpointDir}'s lock until the returned lock is closed, so that two streams
     * never share a checkpoint directory (their snapshots would overwrite each other's history).
     *
     * @throws IllegalStateException if another process holds it
     */
    public static Lock lock(Path checkpointDir) throws IOException {
        FileChannel channel =
                FileChannel.open(
                        checkpointDir.resolve(".lock"),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            channel.close();
            throw new IllegalStateException(
                    checkpointDir + " is in use by another piper stream (its .lock is held)");
        }
        return new Lock(channel);
    }

    /** A held checkpoint-directory lock; closing it (or the process ending) releases it. */
    public static final class Lock implements AutoCloseable {
        private final FileChannel channel;

        private Lock(FileChannel channel) {
            this.channel = channel;
        }

        @Override
        public void close() throws IOException {
            channel.close(); // releases the lock
        }
    }

    /** The file holding the id of the stream a checkpoint directory serves. */
    static final String STREAM_ID_FILE = "stream-id";

    /**
     * The id of the stream that {@code checkpointDir} serves, made on its first use: the stream's
     * identity when it claims its output topics ({@code OutputClaims}), kept when the directory is
     * moved or restored from a copy, while another directory is another stream.
     */
    public static String streamId(Path checkpointDir) throws IOException {
        Path file = checkpointDir.resolve(STREAM_ID_FILE);
        if (!Files.exists(file)) {
            Path tmp = checkpointDir.resolve("." + STREAM_ID_FILE + ".tmp");
            Files.writeString(tmp, java.util.UUID.randomUUID() + "\n", StandardCharsets.UTF_8);
            try {
                Files.move(tmp, file); // not replacing: a concurrent first use keeps the first id
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                Files.deleteIfExists(tmp);
            }
        }
        String id = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (id.isEmpty()) {
            throw new IllegalStateException(
                    file
                            + " is empty: it names the stream this directory serves; restore it"
                            + " from a copy, or delete it to make this directory a new stream");
        }
        return id;
    }

    /** The file in a checkpoint directory naming the pipelines its snapshots hold. */
    static final String PIPELINES_FILE = "pipelines.txt";

    /**
     * Checks that {@code pipelines} can use the snapshots in {@code checkpointDir}, recording them
     * there on first use ({@code pipelines.txt}: per pipeline its name, starting version and a
     * fingerprint of its column chains). Lanes and vocabulary keys come from the pipelines'
     * indices, and each vocabulary's ids from its column's chain, so a directory serves one set of
     * pipelines with the same chains for its life. A new starting spec whose chains are unchanged
     * (another version, other padding or line limit) is accepted.
     *
     * @throws IllegalArgumentException if its snapshots were taken with other pipelines, or with
     *     other column chains
     */
    public static void checkPipelines(Path checkpointDir, StreamPipelines pipelines)
            throws IOException {
        Path file = checkpointDir.resolve(PIPELINES_FILE);
        List<String> lines = new ArrayList<>();
        for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
            lines.add(p.name() + "\t" + p.start().version() + "\t" + chainsFingerprint(p));
        }
        if (Files.exists(file)) {
            List<String> recorded = Files.readAllLines(file);
            boolean single = recorded.size() == 1 && lines.size() == 1;
            boolean sameNames = recorded.size() == lines.size();
            for (int i = 0; sameNames && i < lines.size(); i++) {
                sameNames = field(recorded.get(i), 0).equals(field(lines.get(i), 0));
            }
            // One pipeline is always index 0, whatever its name.
            if (!single && !sameNames) {
                throw new IllegalArgumentException(
                        "--checkpoint-dir "
                                + checkpointDir
                                + " holds the state of pipelines "
                                + recorded.stream().map(l -> field(l, 0)).toList()
                                + ", not "
                                + pipelines.names()
                                + "; a job's pipelines are fixed for the life of its checkpoint"
                                + " directory (their state is keyed by position): use a new one");
            }
            for (int i = 0; i < lines.size(); i++) {
                String was = field(recorded.get(i), 2);
                if (!was.isEmpty() && !was.equals(field(lines.get(i), 2))) {
                    throw new IllegalArgumentException(
                            "--checkpoint-dir "
                                    + checkpointDir
                                    + " holds the state of pipeline "
                                    + field(recorded.get(i), 0)
                                    + "/"
                                    + field(recorded.get(i), 1)
                                    + ", whose column chains differ from "
                                    + pipelines.get(i).name()
                                    + "/"
                                    + pipelines.get(i).start().version()
                                    + "'s: its vocabularies would mix two id spaces. Switch a"
                                    + " running stream with --control-topic (docs/SPECS.md), or"
                                    + " start this spec with a new checkpoint directory");
                }
            }
        }
        Files.write(file, lines);
    }

    private static String field(String line, int i) {
        String[] parts = line.split("\t", -1);
        return i < parts.length ? parts[i] : "";
    }

    /** A short hash of every column's chain, the part of a spec that defines its ids. */
    static String chainsFingerprint(StreamPipelines.Pipeline p) {
        var program = dev.piper.pipeline.spec.SpecCompiler.program(p.start().spec());
        StringBuilder chains = new StringBuilder();
        for (int f = 0; f < program.layout().fields(); f++) {
            chains.append(program.chainOf(f)).append(';');
        }
        try {
            byte[] digest =
                    java.security.MessageDigest.getInstance("SHA-256")
                            .digest(chains.toString().getBytes(StandardCharsets.UTF_8));
            return "chains-sha256:" + java.util.HexFormat.of().formatHex(digest, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
