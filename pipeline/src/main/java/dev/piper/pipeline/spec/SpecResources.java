package dev.piper.pipeline.spec;

import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.ops.VocabularyPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The memory a program's resources take in a job, from its spec alone, so that a spec the job
 * cannot hold is refused before it runs (issue 23: 12 million {@code bucketize} borders validated,
 * then the job died of OutOfMemoryError at 6.8 GB).
 *
 * <ul>
 *   <li>Every decoder holds its own copy of the operators' tables: {@code bucketize} borders (8
 *       bytes each) and {@code mapid} tables (about {@value #MAPID_ENTRY_BYTES} bytes an id,
 *       counted from the file's lines; a file used by several columns is read once).
 *   <li>Each vocabulary holds at most its bound of entries, about {@value #VOCAB_ENTRY_BYTES} bytes
 *       each on the heap ({@value #EVICTING_ENTRY_BYTES} evicting): {@code max_size} or {@code
 *       capacity}, or the key range its chain leaves ({@code modulus}, {@code sigrid_hash});
 *       without either, it grows with the input's distinct ids and has no bound here.
 * </ul>
 *
 * <p>{@link #problem(long, int)} refuses a program whose fixed part (every decoder's tables plus
 * the bounded vocabularies) would take more than half of the memory the job has; the other half is
 * Flink's, the blocks' and unbounded vocabularies'.
 */
public final class SpecResources {

    /** A {@code mapid} entry in a primitive long-to-long hash table (fastutil, load 0.75). */
    public static final int MAPID_ENTRY_BYTES = 24;

    /** A vocabulary entry on the heap: key, index, table slack (state/Vocabulary). */
    public static final int VOCAB_ENTRY_BYTES = 24;

    /**
     * An evicting vocabulary's entry: the above plus its place in the eviction order (state's
     * VocabularyEvictionTest bounds the whole at 52 bytes with JOL).
     */
    public static final int EVICTING_ENTRY_BYTES = 52;

    /** One resource: what it is, and its bytes per decoder or in all. */
    public record Item(String what, long bytes, boolean perDecoder) {}

    private final List<Item> items;
    private final List<String> unbounded;

    private SpecResources(List<Item> items, List<String> unbounded) {
        this.items = List.copyOf(items);
        this.unbounded = List.copyOf(unbounded);
    }

    /**
     * The resources of {@code program}; {@code mapid} and {@code import} files are read (lines
     * counted) where this runs.
     *
     * @throws UncheckedIOException if such a file cannot be read
     */
    public static SpecResources of(ColumnProgram program) {
        List<Item> items = new ArrayList<>();
        List<String> unbounded = new ArrayList<>();
        Map<String, Long> mapidFiles = new LinkedHashMap<>();
        var layout = program.layout();
        for (int f = 0; f < layout.fields(); f++) {
            for (Op op : program.chain(f)) {
                if (op instanceof DenseOp.BucketizeOp b) {
                    items.add(
                            new Item(
                                    layout.fieldName(f)
                                            + " bucketize: "
                                            + b.borders().length
                                            + " borders",
                                    8L * b.borders().length,
                                    true));
                } else if (op instanceof IdOp.MapIdOp m && !mapidFiles.containsKey(m.file())) {
                    mapidFiles.put(m.file(), lines(Path.of(m.file())));
                }
            }
        }
        mapidFiles.forEach(
                (file, entries) ->
                        items.add(
                                new Item(
                                        "mapid " + file + ": " + entries + " ids",
                                        MAPID_ENTRY_BYTES * entries,
                                        true)));
        for (int c = 0; c < layout.sparse(); c++) {
            VocabularyPolicy policy = program.vocabPolicy(c);
            long bound = Long.MAX_VALUE;
            if (policy.entryBound() < VocabularyPolicy.MAX_SIZE) {
                bound = policy.entryBound();
            }
            long keys = program.keyBound(c);
            if (keys > 0) {
                bound = Math.min(bound, keys);
            }
            String name = CriteoLayout.sparseName(c);
            if (bound == Long.MAX_VALUE) {
                unbounded.add(name);
                continue;
            }
            items.add(
                    new Item(
                            name + " vocabulary: at most " + bound + " entries",
                            (policy.evicts() ? EVICTING_ENTRY_BYTES : VOCAB_ENTRY_BYTES) * bound,
                            false));
        }
        return new SpecResources(items, unbounded);
    }

    private static long lines(Path file) {
        long n = 0;
        byte[] buffer = new byte[1 << 16];
        boolean pending = false;
        try (InputStream in = Files.newInputStream(file)) {
            int read;
            while ((read = in.read(buffer)) > 0) {
                for (int i = 0; i < read; i++) {
                    if (buffer[i] == '\n') {
                        n++;
                    }
                }
                pending = buffer[read - 1] != '\n';
            }
        } catch (IOException e) {
            throw new UncheckedIOException("mapid: cannot read " + file + ": " + e.getMessage(), e);
        }
        return pending ? n + 1 : n;
    }

    /** The resources, largest first. */
    public List<Item> items() {
        return items.stream().sorted(Comparator.comparingLong(Item::bytes).reversed()).toList();
    }

    /** The sparse columns whose vocabulary has no bound (it grows with the input). */
    public List<String> unboundedVocabularies() {
        return unbounded;
    }

    /** The bytes of the fixed part with {@code decoders} decoders. */
    public long fixedBytes(int decoders) {
        long total = 0;
        for (Item i : items) {
            total += i.perDecoder() ? i.bytes() * decoders : i.bytes();
        }
        return total;
    }

    /**
     * Why the job cannot hold the program with {@code memory} bytes of heap and {@code decoders}
     * decoders, naming the largest resources; empty if it can.
     */
    public Optional<String> problem(long memory, int decoders) {
        long fixed = fixedBytes(decoders);
        if (fixed <= memory / 2) {
            return Optional.empty();
        }
        StringBuilder sb =
                new StringBuilder("its tables and bounded vocabularies need about ")
                        .append(mib(fixed))
                        .append(" with ")
                        .append(decoders)
                        .append(decoders == 1 ? " decoder" : " decoders")
                        .append(", more than half of the ")
                        .append(mib(memory))
                        .append(" of heap the job has; the largest: ");
        List<Item> largest = items().subList(0, Math.min(3, items.size()));
        for (int i = 0; i < largest.size(); i++) {
            Item it = largest.get(i);
            sb.append(i == 0 ? "" : ", ")
                    .append(it.what())
                    .append(" (")
                    .append(mib(it.bytes()))
                    .append(it.perDecoder() ? " per decoder)" : ")");
        }
        return Optional.of(sb.toString());
    }

    /** {@code bytes} in MiB, for messages. */
    public static String mib(long bytes) {
        return String.format("%,.1f MiB", bytes / 1048576.0);
    }
}
