package dev.piper.job;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.Lanes;
import dev.piper.core.block.RawChunk;
import dev.piper.core.cost.CostSample;
import dev.piper.core.cost.ReportSettings;
import dev.piper.operators.block.BlockTypes;
import dev.piper.operators.concat.ConcatenateFunction;
import dev.piper.operators.cost.CostModelOperator;
import dev.piper.operators.cost.CostSamples;
import dev.piper.operators.decode.ColumnDecodeFunction;
import dev.piper.operators.decode.DecodeFunction;
import dev.piper.operators.hotline.HotlineFunction;
import dev.piper.operators.order.SequenceFunction;
import dev.piper.operators.resume.CatchUpOperator;
import dev.piper.operators.vocab.ColumnPlacement;
import dev.piper.operators.vocab.VocabularyFunction;
import dev.piper.output.RowShards;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;

/**
 * The column-wise preprocessing dataflow (PIPER's, on Flink):
 *
 * <pre>
 * source (numbered line-aligned chunks)
 *   -> decode + stateless column ops, fused   (parallel)
 *        a splittable source runs at the job's parallelism with the decoder chained to it;
 *        any other runs at parallelism 1 and spreads its chunks over the decoders
 *        main output: one KeyChunk per categorical column
 *        side output: DenseChunk (labels, dense values, dead letters)
 *   KeyChunks -> keyBy(column's placement key) -> vocabulary (keyed state, blocks in sequence)
 *   DenseChunk + IndexChunks -> keyBy(block) -> concatenate into DLRM rows, sequence,
 *        [Hotline's split,] sink (parallelism 1, one chain)
 *   or, sharded output: keyBy(block, placed by shard) -> concatenate + write shards (parallel)
 *        -> blocks without their rows -> sequence, sink (parallelism 1)
 * </pre>
 *
 * <p>Concatenation runs at parallelism 1, chained to the sink: the output is written by one task
 * anyway, and a parallel concatenation would serialize every assembled row once more on its way
 * there (measured: 12% less job time at parallelism 2, docs/PERFORMANCE.md). With sharded output
 * ({@link #withShards}) the rows are written where they are assembled, in parallel, and only the
 * blocks' summaries travel to the one sink task (docs/SCALING.md).
 *
 * <p>It is assembled from its connectors: tests pass a finite source and a collecting sink; {@code
 * bin/piper preprocess} passes {@code CriteoFileSource} and {@code DlrmFileSink}.
 */
public final class PreprocessJob {

    private final Source<RawChunk, ?, ?> source; // text, or null
    private final Source<ColumnBlock, ?, ?> columnSource; // columnar (Parquet), or null
    private final boolean parallelSource;
    private final Sink<AssembledBlock> sink;
    private final DecodeOptions options;
    private ReportSettings report;
    private Sink<String> reportSink;
    private HotlineSettings hotline;
    private OneInputStreamOperator<AssembledBlock, AssembledBlock> shardWriter; // or null
    private long blocksPerShard; // 0 without a shard writer
    private int vocabEntriesCache; // 0: the default store
    private java.nio.file.Path scratch; // or null

    /** A directory the run reads but does not publish, removed when it ends (the joined rows). */
    public PreprocessJob withScratch(java.nio.file.Path dir) {
        this.scratch = dir;
        return this;
    }

    /** The directory of {@link #withScratch}, or null. */
    public java.nio.file.Path scratch() {
        return scratch;
    }

    /**
     * @param parallelSource whether the source's readers can share the input (each chunk goes to
     *     the decoder chained to its reader); otherwise one reader feeds every decoder
     */
    public PreprocessJob(
            Source<RawChunk, ?, ?> source,
            boolean parallelSource,
            Sink<AssembledBlock> sink,
            DecodeOptions options) {
        this.source = Objects.requireNonNull(source);
        this.columnSource = null;
        this.parallelSource = parallelSource;
        this.sink = Objects.requireNonNull(sink);
        this.options = Objects.requireNonNull(options);
    }

    private PreprocessJob(
            Source<ColumnBlock, ?, ?> columnSource,
            Sink<AssembledBlock> sink,
            DecodeOptions options) {
        this.source = null;
        this.columnSource = Objects.requireNonNull(columnSource);
        this.parallelSource = true;
        this.sink = Objects.requireNonNull(sink);
        this.options = Objects.requireNonNull(options);
    }

    /**
     * The job over a columnar source (Parquet, {@code ParquetFileSource}): its blocks arrive
     * parsed, and the decoder chained to each reader only runs the column program ({@link
     * ColumnDecodeFunction}). The rest of the dataflow is the text job's.
     */
    public static PreprocessJob columnar(
            Source<ColumnBlock, ?, ?> source, Sink<AssembledBlock> sink, DecodeOptions options) {
        return new PreprocessJob(source, sink, options);
    }

    /**
     * Keeps each non-evicting column's vocabulary as one state entry per key behind a heap cache of
     * {@code cacheEntries} entries ({@code piper.vocab.store: entries}); 0 keeps the default.
     */
    public PreprocessJob withVocabularyEntries(int cacheEntries) {
        this.vocabEntriesCache = cacheEntries;
        return this;
    }

    /**
     * Also measures every column's work and runs the hardware cost model over it, writing its
     * reports to {@code sink} ({@code docs/HARDWARE_MODEL.md}).
     */
    public PreprocessJob withReport(ReportSettings settings, Sink<String> sink) {
        if (columnSource != null) {
            throw new IllegalStateException(
                    "the cost report measures the decoding of text; a columnar input has none");
        }
        this.report = Objects.requireNonNull(settings);
        this.reportSink = Objects.requireNonNull(sink);
        return this;
    }

    /**
     * Also splits the rows into Hotline's popular and non-popular ones ({@link HotlineFunction},
     * parallelism 1 behind the sequence): every block reaches the sink with its split.
     */
    public PreprocessJob withHotline(HotlineSettings settings) {
        this.hotline = Objects.requireNonNull(settings);
        return this;
    }

    /**
     * Writes the rows as a sharded output ({@code RowShards}): the concatenation runs at the job's
     * parallelism, partitioned so that every block of a shard meets on one task, where {@code
     * writer} (chained to it) writes the shard's file; the blocks go on without their bytes to the
     * sequence and the sink, which must be the matching sharded sink ({@code
     * DlrmFileSink.sharded}). Not with Hotline's split, which needs the rows in order on one task.
     */
    public PreprocessJob withShards(
            OneInputStreamOperator<AssembledBlock, AssembledBlock> writer, long blocksPerShard) {
        if (blocksPerShard < 1) {
            throw new IllegalArgumentException(
                    "blocks per shard must be positive: " + blocksPerShard);
        }
        this.shardWriter = Objects.requireNonNull(writer);
        this.blocksPerShard = blocksPerShard;
        return this;
    }

    /** Maximum parallelism when the environment sets none: Flink's default for small jobs. */
    static final int DEFAULT_MAX_PARALLELISM = 128;

    /** A block's two halves after the column operators. */
    record Columns(DataStream<DenseChunk> dense, SingleOutputStreamOperator<IndexChunk> indices) {}

    /** The decoder with the stateless column operators, chained to {@code raw}. */
    static SingleOutputStreamOperator<KeyChunk> decode(
            DataStream<RawChunk> raw, DecodeOptions options) {
        return decode(raw, options, 0);
    }

    /**
     * The decoder with the stateless column operators, chained to {@code raw}; if {@code
     * countEvery} is positive, it emits a {@link CostSample} per block on {@link CostSamples#TAG},
     * counting the fields' bytes in every {@code countEvery}-th block.
     */
    static SingleOutputStreamOperator<KeyChunk> decode(
            DataStream<RawChunk> raw, DecodeOptions options, int countEvery) {
        return raw.process(
                        countEvery > 0
                                ? DecodeFunction.measured(options, countEvery)
                                : new DecodeFunction(options),
                        BlockTypes.KEY_CHUNK)
                .name("decode")
                .uid("decode");
    }

    /**
     * The column-wise core that the file and the Kafka jobs share: the decoder's output and each
     * categorical column's vocabulary, keyed by the column's placement key. For blocks of several
     * pipelines (their lanes name them), of the given layouts, keyed by (pipeline, column): every
     * pipeline has its own vocabularies.
     */
    static Columns columns(
            StreamExecutionEnvironment env,
            SingleOutputStreamOperator<KeyChunk> keys,
            VocabularyFunction vocabulary,
            RowLayout[] layouts) {
        return columns(env, keys, vocabulary, layouts, Map.of());
    }

    /**
     * As {@link #columns(StreamExecutionEnvironment, SingleOutputStreamOperator,
     * VocabularyFunction, RowLayout[])}, the vocabularies first taking {@code catchUps} (by {@code
     * FastForward.columnKey}) as they open: a stream's fast-forward past committed output.
     */
    static Columns columns(
            StreamExecutionEnvironment env,
            SingleOutputStreamOperator<KeyChunk> keys,
            VocabularyFunction vocabulary,
            RowLayout[] layouts,
            Map<Long, VocabularyFunction.CatchUp> catchUps) {
        // Fixed, so that vocabulary keys (chosen from it) survive a rescaled restore: one key
        // group per vocabulary at least.
        int[] first = firstVocabularies(layouts);
        int vocabularies = first[layouts.length];
        if (env.getMaxParallelism() <= 0) {
            env.setMaxParallelism(defaultMaxParallelism(vocabularies));
        }
        double[] costs = new double[vocabularies];
        double[] criteo = CriteoLayout.vocabularyCosts();
        for (int p = 0; p < layouts.length; p++) {
            for (int c = 0; c < layouts[p].sparse(); c++) {
                // Criteo's columns by their Kaggle cardinality; other layouts' all alike
                costs[first[p] + c] = layouts[p].equals(RowLayout.CRITEO) ? criteo[c] : 1;
            }
        }
        ColumnPlacement placement = ColumnPlacement.balanced(costs, env.getMaxParallelism());
        SingleOutputStreamOperator<IndexChunk> indices;
        if (catchUps.isEmpty()) {
            indices =
                    keys.keyBy(new ByColumn(placement, first), Types.INT)
                            .process(vocabulary, BlockTypes.INDEX_CHUNK)
                            .name("vocabulary")
                            .uid("vocabulary");
        } else {
            Map<Integer, VocabularyFunction.CatchUp> byKey = new HashMap<>();
            for (VocabularyFunction.CatchUp up : catchUps.values()) {
                byKey.put(placement.keyOf(first[up.pipeline()] + up.column()), up);
            }
            indices =
                    keys.keyBy(new ByColumn(placement, first), Types.INT)
                            .transform(
                                    "vocabulary",
                                    BlockTypes.INDEX_CHUNK,
                                    new CatchUpOperator<>(vocabulary.withFastForward(byKey)))
                            .uid("vocabulary");
        }
        return new Columns(keys.getSideOutput(DecodeFunction.DENSE), indices);
    }

    /** Adds the dataflow to {@code env}. */
    public void build(StreamExecutionEnvironment env) {
        boolean measure = report != null;
        SingleOutputStreamOperator<KeyChunk> keys = keys(env, measure);
        VocabularyFunction vocabulary = new VocabularyFunction().named(options.program().name());
        if (vocabEntriesCache > 0) {
            vocabulary = vocabulary.withEntries(vocabEntriesCache);
        }
        Columns columns =
                columns(
                        env,
                        keys,
                        measure ? vocabulary.measured() : vocabulary,
                        new RowLayout[] {options.program().layout()});

        if (shardWriter != null && hotline != null) {
            throw new IllegalStateException(
                    "sharded output and Hotline's split do not combine: the split needs every row"
                            + " in order on one task");
        }
        SingleOutputStreamOperator<AssembledBlock> assembled =
                columns.dense()
                        .connect(columns.indices())
                        .keyBy(new DenseBySeq(blocksPerShard), new IndexBySeq(blocksPerShard))
                        .process(
                                measure
                                        ? ConcatenateFunction.<Long>measured()
                                        : new ConcatenateFunction<Long>(),
                                BlockTypes.ASSEMBLED_BLOCK)
                        .name("concatenate")
                        .uid("concatenate");
        if (shardWriter == null) {
            assembled.setParallelism(1);
        }
        if (measure) {
            costModel(
                    keys,
                    columns,
                    assembled,
                    new ColumnProgram[] {options.program()},
                    report,
                    reportSink);
        }

        write(assembled);
    }

    /** The input, read and decoded into each column's keys: Parquet row groups or text. */
    private SingleOutputStreamOperator<KeyChunk> keys(
            StreamExecutionEnvironment env, boolean measure) {
        SingleOutputStreamOperator<KeyChunk> keys;
        if (columnSource != null) {
            keys =
                    env.fromSource(
                                    columnSource,
                                    WatermarkStrategy.noWatermarks(),
                                    "parquet-input",
                                    BlockTypes.COLUMN_BLOCK)
                            .uid("parquet-input")
                            .process(
                                    new ColumnDecodeFunction(options.program()),
                                    BlockTypes.KEY_CHUNK)
                            .name("decode")
                            .uid("decode");
        } else {
            SingleOutputStreamOperator<RawChunk> input =
                    env.fromSource(
                                    source,
                                    WatermarkStrategy.noWatermarks(),
                                    "criteo-input",
                                    BlockTypes.RAW_CHUNK)
                            .uid("criteo-input");
            DataStream<RawChunk> raw = input;
            if (!parallelSource) {
                raw = input.setParallelism(1).rebalance();
            }
            keys = decode(raw, options, measure ? report.fieldBytesEvery() : 0);
        }
        return keys;
    }

    /**
     * Writes the assembled blocks: through the shard writers if sharded, in sequence, split by
     * Hotline if asked, into the output.
     */
    private void write(SingleOutputStreamOperator<AssembledBlock> assembled) {
        DataStream<AssembledBlock> written = assembled;
        if (shardWriter != null) {
            written =
                    assembled
                            .transform("write shards", BlockTypes.ASSEMBLED_BLOCK, shardWriter)
                            .uid("write-shards");
        }
        DataStream<AssembledBlock> ordered =
                written.process(new SequenceFunction(), BlockTypes.ASSEMBLED_BLOCK)
                        .setParallelism(1)
                        .name("sequence")
                        .uid("sequence");
        if (hotline != null) {
            // one task, so every key is its own: the split stays chained to the sequence
            ordered =
                    DataStreamUtils.reinterpretAsKeyedStream(ordered, new ByPipeline(), Types.INT)
                            .process(
                                    new HotlineFunction(
                                            new HotlineSettings[] {hotline},
                                            new RowLayout[] {options.program().layout()},
                                            false),
                                    BlockTypes.ASSEMBLED_BLOCK)
                            .setParallelism(1)
                            .name("hotline")
                            .uid("hotline");
        }
        ordered.sinkTo(sink).setParallelism(1).name("output").uid("output");
    }

    /**
     * The cost model (parallelism 1) over the measuring operators' samples, its reports to {@code
     * sink}.
     */
    static void costModel(
            SingleOutputStreamOperator<KeyChunk> keys,
            Columns columns,
            SingleOutputStreamOperator<AssembledBlock> assembled,
            ColumnProgram[] programs,
            ReportSettings settings,
            Sink<String> sink) {
        keys.getSideOutput(CostSamples.TAG)
                .union(
                        columns.indices().getSideOutput(CostSamples.TAG),
                        assembled.getSideOutput(CostSamples.TAG))
                .transform("cost-model", Types.STRING, new CostModelOperator(programs, settings))
                .setParallelism(1)
                .uid("cost-model")
                .sinkTo(sink)
                .setParallelism(1)
                .name("report")
                .uid("report");
    }

    /**
     * The maximum parallelism of a job with {@code vocabularies} sparse columns over all its
     * pipelines when the environment sets none: {@link #DEFAULT_MAX_PARALLELISM}, or the power of
     * two that gives every vocabulary its own key group.
     */
    static int defaultMaxParallelism(int vocabularies) {
        return Math.max(DEFAULT_MAX_PARALLELISM, Integer.highestOneBit(vocabularies - 1) << 1);
    }

    /**
     * The number of pipeline {@code p}'s first vocabulary: the sparse columns of the pipelines
     * before it ({@code pipelines + 1} entries, the last all vocabularies). With Criteo's layout
     * everywhere, pipeline {@code p}'s column {@code c} is vocabulary {@code p * 26 + c}, as before
     * layouts, so the keys of a savepoint's vocabularies stay the same.
     */
    static int[] firstVocabularies(RowLayout[] layouts) {
        int[] first = new int[layouts.length + 1];
        for (int p = 0; p < layouts.length; p++) {
            first[p + 1] = first[p] + layouts[p].sparse();
        }
        return first;
    }

    /**
     * Keys a categorical column's blocks by the placement key of (its lane's pipeline, column):
     * vocabulary {@code first[pipeline] + column}; a column beyond the pipeline's starting layout
     * (after a switch to a wider one) by a key of its own outside the placement.
     */
    static final class ByColumn implements KeySelector<KeyChunk, Integer> {
        private static final long serialVersionUID = 1L;

        private final ColumnPlacement placement;
        private final int[] first;

        ByColumn(ColumnPlacement placement, int[] first) {
            this.placement = placement;
            this.first = first;
        }

        @Override
        public Integer getKey(KeyChunk chunk) {
            int p = Lanes.pipeline(chunk.lane());
            int c = chunk.column();
            if (first[p] + c < first[p + 1]) {
                return placement.keyOf(first[p] + c);
            }
            // A column beyond the starting layout's (a spec switch to another layout): a key of
            // its own, negative so that no placed vocabulary has it.
            return -1 - (p * RowLayout.MAX_SPARSE + c);
        }
    }

    /** Keys an assembled block by its lane's pipeline (Hotline's state is per pipeline). */
    static final class ByPipeline implements KeySelector<AssembledBlock, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(AssembledBlock block) {
            return Lanes.pipeline(block.lane());
        }
    }

    /**
     * The key of block {@code seq} in the concatenation: the sequence number itself, or for a
     * sharded output ({@code blocksPerShard > 0}) a key placed by the block's shard ({@link
     * RowShards#concatenationKey}).
     */
    static long blockKey(long seq, long blocksPerShard) {
        return blocksPerShard > 0 ? RowShards.concatenationKey(seq, blocksPerShard) : seq;
    }

    /** Keys a block's dense part by its sequence number ({@link #blockKey}). */
    static final class DenseBySeq implements KeySelector<DenseChunk, Long> {
        private static final long serialVersionUID = 1L;
        private final long blocksPerShard;

        /**
         * @param blocksPerShard 0, or a sharded output's blocks per shard
         */
        DenseBySeq(long blocksPerShard) {
            this.blocksPerShard = blocksPerShard;
        }

        @Override
        public Long getKey(DenseChunk chunk) {
            return blockKey(chunk.seq(), blocksPerShard);
        }
    }

    /** Keys a block's categorical index chunk by its sequence number ({@link #blockKey}). */
    static final class IndexBySeq implements KeySelector<IndexChunk, Long> {
        private static final long serialVersionUID = 1L;
        private final long blocksPerShard;

        /**
         * @param blocksPerShard 0, or a sharded output's blocks per shard
         */
        IndexBySeq(long blocksPerShard) {
            this.blocksPerShard = blocksPerShard;
        }

        @Override
        public Long getKey(IndexChunk chunk) {
            return blockKey(chunk.seq(), blocksPerShard);
        }
    }
}
