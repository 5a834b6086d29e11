package dev.piper.operators.vocab;

import dev.piper.core.block.Assignments;
import dev.piper.core.block.FastForward;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.Lanes;
import dev.piper.core.cost.CostSample;
import dev.piper.core.cost.ThreadCpu;
import dev.piper.operators.block.KeyChunkSerializer;
import dev.piper.operators.cost.CostSamples;
import dev.piper.operators.cost.CpuMeter;
import dev.piper.operators.resume.CatchUpOperator;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.state.Vocabulary;
import dev.piper.state.VocabularyEvents;
import dev.piper.state.VocabularySerializer;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * GenVocab and ApplyVocab in one pass, for one categorical column per key.
 *
 * <p>Keyed by column, so each vocabulary is owned by exactly one subtask and needs no
 * synchronisation (PIPER's column-wise dataflow). Blocks of a column arrive from parallel decoders
 * in any order. For a file (one lane, sequence numbers without gaps) they are applied strictly in
 * sequence order, the out-of-order ones waiting in keyed state. Hence an id's index is the rank of
 * its first appearance in the column's input, the same at every parallelism and on every run.
 *
 * <p>For a partitioned log ({@link #asArrived()}), each lane's blocks arrive in order over one
 * channel (from its reader's decoder) while lanes interleave. Blocks are applied in arrival order:
 * an index is the rank of the key's first appearance in the column's merged input (with one
 * partition, again the input order), and a checkpoint fixes it together with the output that used
 * it.
 *
 * <p>A column's vocabulary has epochs ({@link KeyChunk#epoch()}): a spec switch that changes the
 * column's chain before the vocabulary starts a new one, with indices from 0, while blocks decoded
 * under the old spec (from lanes that have not switched yet) still go to theirs. Epochs only grow:
 * the newest is the current vocabulary, older ones are retired but kept, so a late block of an old
 * epoch is applied to the vocabulary it was decoded for.
 *
 * <p>Each block carries its column's {@link VocabularyPolicy} (fixed within an epoch), which the
 * vocabulary applies: frequency threshold, OOV buckets, maximum size. A policy that imports a file
 * ({@link VocabularyImport}) has it read when the epoch's vocabulary is created, on the subtask
 * that owns the column; the first block applied to it reports the imported keys as its added keys,
 * so the output's vocabulary files and records hold them too.
 *
 * <p>With {@link #withEntries}, a column that does not evict keeps its vocabulary as one state
 * entry per key instead ({@link VocabularyEntries}), for vocabularies larger than memory.
 *
 * <p>With a fast-forward ({@link #withFastForward}), each column takes the entries an earlier run
 * committed past the restored snapshot ({@link FastForward#columns()}) as the operator opens
 * ({@link CatchUpOperator}), before any block: appended in index order where the vocabulary stops
 * short of them, checked against it where they overlap, so that the indices it gives next follow
 * the committed ones. A vocabulary that does not reach their first index (a gap) fails the job.
 *
 * <p>State, all keyed by column:
 *
 * <ul>
 *   <li>{@link #VOCABULARY}: the column's {@link Vocabulary} in its newest epoch, written by {@link
 *       VocabularySerializer}. On the heap backend {@code value()} returns the live object (the
 *       copy-on-write state table copies it only while a snapshot holds the old version), so the
 *       per-block cost is the lookups. On RocksDB each block reads and writes the whole vocabulary;
 *       see {@code docs/DESIGN.md} for that trade-off.
 *   <li>{@link #EPOCH}: the newest epoch (absent: 0).
 *   <li>{@link #RETIRED}: the vocabularies of older epochs, by epoch.
 *   <li>{@link #NEXT_SEQ}: the sequence number of the next block to apply.
 *   <li>{@link #PENDING}: blocks that arrived ahead of their turn.
 * </ul>
 */
public final class VocabularyFunction extends KeyedProcessFunction<Integer, KeyChunk, IndexChunk>
        implements CatchUpOperator.CatchingUp {

    private static final long serialVersionUID = 1L;

    public static final ValueStateDescriptor<Vocabulary> VOCABULARY =
            new ValueStateDescriptor<>("vocabulary", VocabularySerializer.INSTANCE);
    public static final ValueStateDescriptor<Integer> EPOCH =
            new ValueStateDescriptor<>("epoch", IntSerializer.INSTANCE);
    public static final MapStateDescriptor<Integer, Vocabulary> RETIRED =
            new MapStateDescriptor<>(
                    "retired-epochs", IntSerializer.INSTANCE, VocabularySerializer.INSTANCE);
    public static final ValueStateDescriptor<Long> NEXT_SEQ =
            new ValueStateDescriptor<>("next-seq", LongSerializer.INSTANCE);
    public static final MapStateDescriptor<Long, KeyChunk> PENDING =
            new MapStateDescriptor<>(
                    "pending", LongSerializer.INSTANCE, KeyChunkSerializer.INSTANCE);

    private final boolean inSequence;
    private final boolean measure;

    /** With {@link #withEntries}: the heap cache's entries per column and epoch; else 0. */
    private final int entriesCache;

    /** With {@link #named}: the pipelines' names, for the metrics' labels; else null. */
    private final String[] pipelineNames;

    /** By the column's key: entries committed past the restored snapshot; or empty. */
    private HashMap<Integer, CatchUp> fastForward = new HashMap<>();

    /** Per column, its vocabulary's metrics ({@link VocabularyMetrics}). */
    private transient VocabularyMetrics metrics;

    /** With {@link #withEntries}: the vocabularies of columns that do not evict; else null. */
    private transient VocabularyEntries entries;

    private transient ValueState<Vocabulary> vocabulary;
    private transient ValueState<Integer> epoch;
    private transient MapState<Integer, Vocabulary> retired;
    private transient ValueState<Long> nextSeq;
    private transient MapState<Long, KeyChunk> pending;

    /** Measuring: the thread CPU bookkeeping; null otherwise. */
    private transient CpuMeter meter;

    /** Measuring: keys the current call applied, and the newest vocabulary it touched. */
    private transient long sampleKeys;

    private transient int sampleEpoch;
    private transient long sampleEntries;

    /** Applies one lane's blocks in sequence order (file input). */
    public VocabularyFunction() {
        this(true, false, 0, null);
    }

    private VocabularyFunction(
            boolean inSequence, boolean measure, int entriesCache, String[] pipelineNames) {
        this.inSequence = inSequence;
        this.measure = measure;
        this.entriesCache = entriesCache;
        this.pipelineNames = pipelineNames == null ? null : pipelineNames.clone();
    }

    /** A copy of this function with {@code fastForward}'s field. */
    private VocabularyFunction with(
            boolean measure, int entriesCache, String[] names, Map<Integer, CatchUp> ff) {
        VocabularyFunction f = new VocabularyFunction(inSequence, measure, entriesCache, names);
        f.fastForward = new HashMap<>(ff);
        return f;
    }

    /** Applies blocks in the order they arrive (partitioned-log input). */
    public static VocabularyFunction asArrived() {
        return new VocabularyFunction(false, false, 0, null);
    }

    /**
     * This function, also emitting a {@link CostSample} per input block on {@link CostSamples#TAG}:
     * the keys it applied, the column's vocabulary entries and the CPU time it took.
     */
    public VocabularyFunction measured() {
        return with(true, entriesCache, pipelineNames, fastForward);
    }

    /**
     * This function, keeping the vocabulary of each column that does not evict as one state entry
     * per key ({@link VocabularyEntries}) behind a heap cache of {@code cacheEntries} entries per
     * column and epoch: for vocabularies larger than memory on RocksDB or ForSt. The indices are
     * the same.
     */
    public VocabularyFunction withEntries(int cacheEntries) {
        if (cacheEntries < 1) {
            throw new IllegalArgumentException(
                    "the entries' cache needs at least 1 entry, not " + cacheEntries);
        }
        return with(measure, cacheEntries, pipelineNames, fastForward);
    }

    /**
     * This function, labelling each column's metrics with its pipeline's name ({@code names} by
     * pipeline index) rather than the index.
     */
    public VocabularyFunction named(String... names) {
        return with(measure, entriesCache, names, fastForward);
    }

    /**
     * One column's entries committed past the restored snapshot ({@link FastForward#columns()}).
     *
     * @param pipeline the column's pipeline
     * @param column the column (0 for C1)
     * @param policy its vocabulary's policy
     * @param entries the entries
     */
    public record CatchUp(
            int pipeline, int column, VocabularyPolicy policy, FastForward.Entries entries)
            implements java.io.Serializable {}

    /**
     * This function, first taking into each column of {@code columns} (by the column's key) its
     * entries committed past the restored snapshot, as it opens ({@link CatchUpOperator}); for a
     * partitioned log only.
     */
    public VocabularyFunction withFastForward(Map<Integer, CatchUp> columns) {
        if (inSequence && !columns.isEmpty()) {
            throw new IllegalArgumentException("a fast-forward is for a partitioned log's input");
        }
        return with(measure, entriesCache, pipelineNames, columns);
    }

    @Override
    public void open(OpenContext openContext) {
        vocabulary = getRuntimeContext().getState(VOCABULARY);
        epoch = getRuntimeContext().getState(EPOCH);
        retired = getRuntimeContext().getMapState(RETIRED);
        nextSeq = getRuntimeContext().getState(NEXT_SEQ);
        pending = getRuntimeContext().getMapState(PENDING);
        meter = measure ? CpuMeter.start() : null;
        metrics = new VocabularyMetrics(getRuntimeContext().getMetricGroup(), pipelineNames);
        entries =
                entriesCache > 0 ? new VocabularyEntries(getRuntimeContext(), entriesCache) : null;
    }

    @Override
    public void close() throws Exception {
        if (measure) {
            meter.close(getRuntimeContext());
        }
        super.close();
    }

    @Override
    public void processElement(KeyChunk chunk, Context ctx, Collector<IndexChunk> out)
            throws Exception {
        if (!measure) {
            process(chunk, out);
            return;
        }
        long start = ThreadCpu.now();
        sampleKeys = 0;
        sampleEpoch = -1;
        sampleEntries = -1;
        process(chunk, out);
        long end = ThreadCpu.now();
        ctx.output(
                CostSamples.TAG,
                CostSample.vocabulary(
                                Lanes.pipeline(chunk.lane()),
                                chunk.column(),
                                sampleKeys,
                                sampleEntries,
                                end - start,
                                meter.sinceLastSample(end))
                        // the newest epoch it applied (one, but while a switch passes)
                        .withEpoch(Math.max(sampleEpoch, chunk.epoch())));
    }

    private void process(KeyChunk chunk, Collector<IndexChunk> out) throws Exception {
        if (!inSequence) {
            Epochs epochs = new Epochs();
            out.collect(applyCounted(epochs, chunk));
            epochs.store();
            return;
        }
        Long stored = nextSeq.value();
        long next = stored == null ? 0 : stored;
        if (chunk.seq() != next) {
            if (chunk.seq() < next) {
                throw new IllegalStateException(
                        "column "
                                + chunk.column()
                                + " received block "
                                + chunk.seq()
                                + " twice (next expected "
                                + next
                                + ")");
            }
            pending.put(chunk.seq(), chunk);
            return;
        }
        Epochs epochs = new Epochs();
        out.collect(applyCounted(epochs, chunk));
        next++;
        KeyChunk waiting;
        while ((waiting = pending.get(next)) != null) {
            pending.remove(next);
            out.collect(applyCounted(epochs, waiting));
            next++;
        }
        epochs.store();
        nextSeq.update(next);
    }

    /**
     * The vocabularies one call touches, read from state when first needed and written back once by
     * {@link #store()} (on RocksDB every write serializes a whole vocabulary).
     */
    private final class Epochs {
        private final int stored;
        private int newest;
        private Vocabulary current;
        private Map<Integer, Vocabulary> older;

        /** Vocabularies this call created, whose entries (imported ones) are not reported yet. */
        private Set<Vocabulary> created;

        Epochs() throws Exception {
            Integer e = epoch.value();
            stored = e == null ? 0 : e;
            newest = stored;
        }

        /** The vocabulary of the chunk's epoch, created if it has none yet. */
        Vocabulary of(KeyChunk chunk) throws Exception {
            return of(chunk.epoch(), chunk.policy(), chunk.column());
        }

        /** The vocabulary of epoch {@code e} of {@code column}, created if it has none yet. */
        Vocabulary of(int e, VocabularyPolicy policy, int column) throws Exception {
            if (e > newest) {
                // current is only ever unset while newest is the stored epoch
                Vocabulary old = current != null ? current : vocabulary.value();
                if (old != null) {
                    retire(newest, old);
                }
                newest = e;
                current = create(policy, column);
                return current;
            }
            if (e == newest) {
                return current(policy, column);
            }
            if (older == null) {
                older = new HashMap<>(4);
            }
            Vocabulary v = older.get(e);
            if (v == null) {
                v = retired.get(e);
                if (v == null) {
                    v = create(policy, column);
                }
                older.put(e, v);
            }
            return v;
        }

        private Vocabulary current(VocabularyPolicy policy, int column) throws Exception {
            if (current == null) {
                current = newest == stored ? vocabulary.value() : null;
                if (current == null) {
                    current = create(policy, column);
                }
            }
            return current;
        }

        /** A new vocabulary of {@code policy}: empty, or its imported entries. */
        private Vocabulary create(VocabularyPolicy policy, int column) {
            if (policy.importPath() == null) {
                return new Vocabulary();
            }
            Vocabulary v = VocabularyImport.readForColumn(policy, column);
            if (created == null) {
                created = Collections.newSetFromMap(new IdentityHashMap<>());
            }
            created.add(v);
            return v;
        }

        /** True the first time it is asked about a vocabulary this call imported. */
        boolean unreported(Vocabulary v) {
            return created != null && created.remove(v);
        }

        private void retire(int e, Vocabulary v) {
            if (older == null) {
                older = new HashMap<>(4);
            }
            older.put(e, v);
        }

        void store() throws Exception {
            if (current != null) {
                vocabulary.update(current);
            }
            if (newest != stored) {
                epoch.update(newest);
            }
            if (older != null) {
                for (Map.Entry<Integer, Vocabulary> v : older.entrySet()) {
                    retired.put(v.getKey(), v.getValue());
                }
            }
        }
    }

    @Override
    public Set<Integer> catchUpKeys() {
        return fastForward.keySet();
    }

    /**
     * Takes the entries committed past the restored snapshot into the column of {@code key}, where
     * its vocabulary stops short of them; checks those it holds already.
     */
    @Override
    public void catchUp(int key) throws Exception {
        CatchUp up = fastForward.get(key);
        FastForward.Entries e = up.entries();
        VocabularyPolicy policy = up.policy();
        String column = "column C" + (up.column() + 1);
        if (pipelineNames != null) {
            column += " of pipeline " + pipelineNames[up.pipeline()];
        }
        Epochs epochs = new Epochs();
        if (e.epoch() != epochs.newest) {
            throw new IllegalStateException(
                    column
                            + ": the entries committed past the restored snapshot are of epoch "
                            + e.epoch()
                            + ", its vocabulary's of epoch "
                            + epochs.newest);
        }
        long from = e.firstIndex() - policy.firstIndex();
        if (entries != null && !policy.evicts()) {
            entries.catchUp(e.epoch(), policy, up.column(), from, e.keys(), column);
            return;
        }
        Vocabulary v = epochs.of(e.epoch(), policy, up.column());
        int start = catchUpStart(column, v.size(), from, e.keys().length);
        for (int i = 0; i < start; i++) {
            if (v.keyAt((int) from + i) != e.keys()[i]) {
                throw mismatch(column, from + i + policy.firstIndex());
            }
        }
        for (int i = start; i < e.keys().length; i++) {
            if (v.getOrAdd(e.keys()[i]) != from + i) {
                throw mismatch(column, from + i + policy.firstIndex());
            }
        }
        // stored, an imported vocabulary made now is not reported again by the next block: its
        // entries are in the committed output
        epochs.store();
    }

    /**
     * Where in {@code count} entries committed from entry {@code from} a vocabulary of {@code size}
     * entries goes on: past those it already holds.
     *
     * @throws IllegalStateException if it does not reach {@code from}
     */
    static int catchUpStart(String column, long size, long from, int count) {
        if (size < from) {
            throw new IllegalStateException(
                    column
                            + ": the restored snapshot holds "
                            + size
                            + " vocabulary entries, but the entries committed past it start at"
                            + " entry "
                            + from
                            + ": the output between them is missing, and the stream does not go"
                            + " on from there");
        }
        return (int) Math.min(count, size - from);
    }

    static IllegalStateException mismatch(String column, long index) {
        return new IllegalStateException(
                column
                        + ": index "
                        + index
                        + " of the entries committed past the restored snapshot is not the key"
                        + " the vocabulary holds or would give it; the committed output does not"
                        + " follow from the snapshot");
    }

    /**
     * {@link #apply} (or, for a column kept as entries, {@link VocabularyEntries#apply}), counting
     * what it did for the call's cost sample when measuring.
     */
    private IndexChunk applyCounted(Epochs epochs, KeyChunk chunk) throws Exception {
        IndexChunk result;
        int size;
        if (entries != null && !chunk.policy().evicts()) {
            result = entries.apply(chunk);
            size = entries.lastSize();
        } else {
            Vocabulary vocab = epochs.of(chunk);
            result = apply(vocab, chunk, epochs.unreported(vocab));
            size = vocab.size();
        }
        metrics.count(chunk, result, size);
        if (measure) {
            sampleKeys += chunk.size();
            if (chunk.epoch() >= sampleEpoch) {
                sampleEpoch = chunk.epoch();
                sampleEntries = size;
            }
        }
        return result;
    }

    /**
     * GenVocab + ApplyVocab for one block: maps its keys to indices under the chunk's policy,
     * admitting unseen keys, and reports the keys it admitted. Shared with the single-thread loop
     * of {@code piper bench}.
     */
    public static IndexChunk apply(Vocabulary vocab, KeyChunk chunk) {
        return apply(vocab, chunk, false);
    }

    /**
     * As {@link #apply(Vocabulary, KeyChunk)}; with {@code reportAll} the block reports every entry
     * of the vocabulary as added (the first block of an imported vocabulary).
     */
    static IndexChunk apply(Vocabulary vocab, KeyChunk chunk, boolean reportAll) {
        VocabularyPolicy policy = chunk.policy();
        int[] indices = new int[chunk.size()];
        if (policy.evicts()) {
            return applyEvicting(vocab, chunk, reportAll, indices);
        }
        int before = reportAll ? 0 : vocab.size();
        vocab.apply(chunk.keys(), chunk.size(), indices, policy);
        long[] added = vocab.keysBetween(before, vocab.size());
        return new IndexChunk(
                chunk.lane(),
                chunk.column(),
                chunk.seq(),
                indices,
                chunk.size(),
                policy.firstIndex() + before,
                added,
                chunk.epoch(),
                chunk.offsets());
    }

    /**
     * An evicting vocabulary's block: its assignments (fresh and reused indices, each at its row)
     * travel with the indices; an imported vocabulary's first block reports its entries as fresh
     * assignments at row 0.
     */
    private static IndexChunk applyEvicting(
            Vocabulary vocab, KeyChunk chunk, boolean reportAll, int[] indices) {
        VocabularyPolicy policy = chunk.policy();
        int base = policy.firstIndex();
        long first = reportAll ? 0 : vocab.assignments();
        long[] importedKeys = reportAll ? vocab.keysBetween(0, vocab.size()) : new long[0];
        int imported = importedKeys.length;
        int sizeBefore = vocab.size();
        VocabularyEvents events = new VocabularyEvents();
        vocab.apply(
                chunk.keys(),
                chunk.size(),
                indices,
                policy,
                chunk.offsets(),
                chunk.times(),
                events);
        int n = imported + events.size();
        int[] at = new int[n];
        long[] keys = new long[n];
        int[] rows = new int[n];
        for (int i = 0; i < imported; i++) {
            at[i] = base + i;
            keys[i] = importedKeys[i];
        }
        int[] eventIndices = events.indices();
        long[] eventKeys = events.keys();
        int[] eventRows = events.rows();
        for (int i = 0; i < events.size(); i++) {
            at[imported + i] = base + eventIndices[i];
            keys[imported + i] = eventKeys[i];
            rows[imported + i] = eventRows[i];
        }
        Assignments assignments =
                new Assignments(first, imported + events.fresh(), at, keys, rows, events.evicted());
        return new IndexChunk(
                chunk.lane(),
                chunk.column(),
                chunk.seq(),
                indices,
                chunk.size(),
                base + sizeBefore - imported,
                keys,
                chunk.epoch(),
                chunk.offsets(),
                assignments);
    }
}
