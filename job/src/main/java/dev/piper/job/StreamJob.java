package dev.piper.job;

import dev.piper.connectors.kafka.CheckpointStamp;
import dev.piper.connectors.kafka.OutputEncoder;
import dev.piper.connectors.kafka.SwitchingOutputEncoder;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.FastForward;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.LogRecord;
import dev.piper.core.block.RawChunk;
import dev.piper.core.control.ActiveSpec;
import dev.piper.core.control.ControlMessage;
import dev.piper.core.control.SwitchLimits;
import dev.piper.core.cost.ReportSettings;
import dev.piper.core.join.ImpressionLines;
import dev.piper.core.join.JoinRead;
import dev.piper.operators.block.BlockTypes;
import dev.piper.operators.block.SerializerTypeInfo;
import dev.piper.operators.concat.ConcatenateFunction;
import dev.piper.operators.control.ActiveSpecSerializer;
import dev.piper.operators.control.ControlFunction;
import dev.piper.operators.control.ControlMessageSerializer;
import dev.piper.operators.control.PipelinesDecodeFunction;
import dev.piper.operators.control.SpecDecodeFunction;
import dev.piper.operators.control.SwitchTracker;
import dev.piper.operators.hotline.HotlineFunction;
import dev.piper.operators.log.LogChunkOperator;
import dev.piper.operators.order.LaneSequenceFunction;
import dev.piper.operators.resume.CatchUpOperator;
import dev.piper.operators.time.EventTimeFunction;
import dev.piper.operators.vocab.VocabularyFunction;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.input.InputFormat;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The same column-wise dataflow as {@link PreprocessJob}, fed by a partitioned log and writing to
 * one, with every input partition its own lane:
 *
 * <pre>
 * log source (records)  -> chunk: per-partition line-aligned blocks, numbered per partition,
 *                          cut by size, by linger time and before every checkpoint barrier
 *                       -> decode + stateless column ops                  (all chained, parallel)
 *   KeyChunks -> keyBy(column's placement key) -> vocabulary, blocks applied as they arrive
 *   DenseChunk + IndexChunks -> keyBy(lane, block) -> concatenate
 *                       -> keyBy(lane) -> each lane's blocks back in input order
 *                       [-> keyBy(pipeline) -> Hotline's split]
 *                       -> encode into output records -> transactional sink   (chained)
 * </pre>
 *
 * <p>A lane's blocks travel from one reader through one decoder, so each column's vocabulary
 * receives them in input order; only the join of a block's 27 parts reorders, which the per-lane
 * sequence undoes. Exactly-once comes from the checkpoint: the source's offsets, the vocabularies
 * and the sink's transactions are all part of it.
 *
 * <p>With a {@link Control control stream} (MiniPipe's run-time reconfiguration), specs arrive on
 * it, a control operator (parallelism 1) validates them, and the accepted ones are broadcast to the
 * decoders, which hold them in broadcast state and decode each block whole under the active one:
 *
 * <pre>
 * control source -> control (validate, epochs) --broadcast--> decode (as above, not chained)
 *                     \-> status                  sequence -> switch tracker -> status
 *                                                   status -> transactional status sink
 * </pre>
 */
public final class StreamJob {

    /**
     * The control stream of a reconfigurable job.
     *
     * @param source the specs, as published
     * @param statusSink where the control status records go
     */
    public record Control(Source<ControlMessage, ?, ?> source, Sink<KafkaOut> statusSink) {}

    /**
     * Settings of the log chunker, and the largest record the rows topics take ({@code
     * max.message.bytes}), which every block, also of a spec switched to, must fit.
     */
    public record Chunking(int maxBlockBytes, int maxBlockLines, long lingerMillis, int recordLimit)
            implements java.io.Serializable {

        /** Rows topics that take Kafka's default 1 MiB records. */
        public Chunking(int maxBlockBytes, int maxBlockLines, long lingerMillis) {
            this(maxBlockBytes, maxBlockLines, lingerMillis, KafkaOut.DEFAULT_RECORD_LIMIT);
        }
    }

    private final Source<LogRecord, ?, ?> source;
    private final Sink<KafkaOut> sink;
    private final StreamPipelines pipelines;
    private final int maxRawBytes;
    private final Chunking chunking;
    private UnaryOperator<DataStream<AssembledBlock>> beforeOutput = UnaryOperator.identity();
    private Control control;
    private int vocabEntriesCache; // 0: the default store
    private ReportSettings report;
    private Sink<String> reportSink;
    private HotlineSettings[] hotline; // by pipeline, null entries without a split; or null
    private FastForward fastForward; // or null
    private LabelJoinSource labelJoin; // or null

    /**
     * @param source every pipeline's input, each record in its pipeline's lanes
     * @param sink every pipeline's outputs, by {@link KafkaOut#target(int, int)}
     * @param pipelines the pipelines, their specs and topics
     * @param maxRawBytes how many bytes of a rejected line its dead letter keeps
     */
    public StreamJob(
            Source<LogRecord, ?, ?> source,
            Sink<KafkaOut> sink,
            StreamPipelines pipelines,
            int maxRawBytes,
            Chunking chunking) {
        this.source = source; // null only for a label join's job, which reads its own
        this.sink = Objects.requireNonNull(sink);
        this.pipelines = Objects.requireNonNull(pipelines);
        this.maxRawBytes = maxRawBytes;
        this.chunking = Objects.requireNonNull(chunking);
    }

    /**
     * Inserts {@code stage} between the per-lane sequence and the encoder (tests use it to inject
     * failures at chosen points of a run).
     */
    public StreamJob beforeOutput(UnaryOperator<DataStream<AssembledBlock>> stage) {
        this.beforeOutput = Objects.requireNonNull(stage);
        return this;
    }

    /**
     * Keeps each non-evicting column's vocabulary as one state entry per key behind a heap cache of
     * {@code cacheEntries} entries ({@code piper.vocab.store: entries}); 0 keeps the default.
     */
    public StreamJob withVocabularyEntries(int cacheEntries) {
        this.vocabEntriesCache = cacheEntries;
        return this;
    }

    /** Makes the job reconfigurable through {@code control}'s specs. */
    public StreamJob withControl(Control control) {
        this.control = Objects.requireNonNull(control);
        return this;
    }

    /**
     * Also measures every column's work and runs the hardware cost model over it, writing a JSON
     * report per pipeline, spec version and interval to {@code sink} ({@code
     * docs/HARDWARE_MODEL.md}); with a control stream, each version's chains are priced apart.
     */
    public StreamJob withReport(ReportSettings settings, Sink<String> sink) {
        this.report = Objects.requireNonNull(settings);
        this.reportSink = Objects.requireNonNull(sink);
        return this;
    }

    /**
     * Also splits each pipeline's rows into Hotline's popular and non-popular ones ({@link
     * HotlineFunction}, keyed by pipeline, behind the per-lane sequence): rows records carry the
     * flags and working parameters, the vocabulary topic the hot sets. Not with a control stream: a
     * switch may change the rows' shape, which a window's hot set is chosen for.
     */
    public StreamJob withHotline(HotlineSettings[] settings) {
        if (settings.length != pipelines.size()) {
            throw new IllegalArgumentException(
                    settings.length + " Hotline settings for " + pipelines.size() + " pipelines");
        }
        this.hotline = settings.clone();
        return this;
    }

    /**
     * Restored, passes over the output an earlier run committed past the snapshot ({@link
     * FastForward}): the chunker, the per-lane sequence and the vocabularies go on after it, and
     * the commit stamps above its highest.
     */
    public StreamJob withFastForward(FastForward fastForward) {
        this.fastForward = Objects.requireNonNull(fastForward);
        return this;
    }

    /**
     * The label join's input: the impressions and actions as read ({@code JoinRecordDeserializer}),
     * each source's topic (the impressions' first, then each action stream's), and how many
     * subtasks read them: at most their partitions, since a reader without a partition would hold
     * the join's watermark back for ever (0: the job's parallelism).
     */
    public record LabelJoinSource(
            Source<JoinRead, ?, ?> source,
            String[] topics,
            int readers,
            ImpressionLines.Opener lines,
            ImpressionLines.Opener deadLetterLines) {}

    /**
     * Joins the pipeline's impressions with its spec's action streams before the pipeline reads
     * them: the records of {@code join} are joined in event time by key ({@link KeyJoinOperator}),
     * put in the join's order at parallelism 1 ({@link JoinOrderOperator}), and the labelled
     * impressions are the one lane the pipeline reads (so its decoder runs at parallelism 1 too);
     * the records the join refuses go to the dead-letter topic. One pipeline, no control stream.
     */
    public StreamJob withLabelJoin(LabelJoinSource join) {
        if (pipelines.size() != 1) {
            throw new IllegalArgumentException(
                    "a label join runs in a stream of one pipeline, not "
                            + pipelines.size()
                            + "; run each pipeline with labels as a stream of its own");
        }
        if (pipelines.pipelines().get(0).start().spec().labels() == null) {
            throw new IllegalArgumentException(
                    "pipeline " + pipelines.names().get(0) + " has no labels section");
        }
        this.labelJoin = Objects.requireNonNull(join);
        return this;
    }

    /** Adds the dataflow to {@code env}. */
    public void build(StreamExecutionEnvironment env) {
        Starts starts = Starts.of(pipelines, maxRawBytes);
        int[] blockLines = new int[starts.size()];
        InputFormat.KafkaRecords[] shapes = new InputFormat.KafkaRecords[starts.size()];
        for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
            blockLines[p.index()] =
                    blockLines(chunking.maxBlockLines(), p.start().program().rowBytes());
            // a JSON event is its whole record, line breaks and all; an Avro one its bytes,
            // framed; a record of CSV (as of text) holds lines (InputFormat says which)
            shapes[p.index()] =
                    InputFormat.of(p.start().spec().input().format()).orElseThrow().records();
        }
        if (labelJoin != null && control != null) {
            throw new IllegalArgumentException(
                    "a label join does not run with a control stream: a switched spec would need"
                            + " the join's state of another spec");
        }
        DataStream<RawChunk> raw =
                labelJoin != null
                        ? joined(env, starts)
                                .transform(
                                        "chunk", BlockTypes.RAW_CHUNK, chunker(blockLines, shapes))
                                .setParallelism(1)
                                .uid("chunk")
                        : env.fromSource(
                                        source,
                                        WatermarkStrategy.noWatermarks(),
                                        "kafka-input",
                                        BlockTypes.LOG_RECORD)
                                .uid("kafka-input")
                                .transform(
                                        "chunk", BlockTypes.RAW_CHUNK, chunker(blockLines, shapes))
                                .uid("chunk");
        boolean measure = report != null;
        if (measure) {
            refuseUnpriced();
        }
        Decoded decoded = decode(env, raw, starts, blockLines, measure);
        VocabularyFunction vocabulary =
                VocabularyFunction.asArrived().named(pipelines.names().toArray(String[]::new));
        if (vocabEntriesCache > 0) {
            vocabulary = vocabulary.withEntries(vocabEntriesCache);
        }
        PreprocessJob.Columns columns =
                PreprocessJob.columns(
                        env,
                        decoded.keys(),
                        measure ? vocabulary.measured() : vocabulary,
                        starts.layouts(),
                        catchUps(starts));
        SingleOutputStreamOperator<AssembledBlock> assembled = concatenate(columns, measure);
        if (measure) {
            ColumnProgram[] programs = new ColumnProgram[starts.size()];
            for (int i = 0; i < programs.length; i++) {
                programs[i] = starts.options()[i].program();
            }
            PreprocessJob.costModel(
                    decoded.keys(), columns, assembled, programs, report, reportSink);
        }
        DataStream<AssembledBlock> ordered = order(assembled, decoded.status(), starts);
        encode(ordered, decoded.keys(), starts);
    }

    /**
     * Each pipeline's start, by its index: the spec, name, version, input topic, whether it writes
     * vocabulary records, decode options and layout.
     */
    private record Starts(
            ActiveSpec[] specs,
            String[] names,
            int[] versions,
            String[] inputTopics,
            boolean[] vocab,
            DecodeOptions[] options,
            RowLayout[] layouts) {

        static Starts of(StreamPipelines pipelines, int maxRawBytes) {
            int n = pipelines.size();
            Starts s =
                    new Starts(
                            new ActiveSpec[n],
                            new String[n],
                            new int[n],
                            new String[n],
                            new boolean[n],
                            new DecodeOptions[n],
                            new RowLayout[n]);
            for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
                int i = p.index();
                s.specs[i] = p.start();
                s.names[i] = p.name();
                s.versions[i] = p.start().version();
                s.inputTopics[i] = p.inputTopic();
                s.vocab[i] = p.vocabTopic() != null;
                s.options[i] = p.start().options(maxRawBytes);
                s.layouts[i] = p.start().spec().layout();
            }
            return s;
        }

        int size() {
            return specs.length;
        }
    }

    /** The decoders' keys, and with a control stream the accepted specs' status records. */
    private record Decoded(
            SingleOutputStreamOperator<KeyChunk> keys, DataStream<KafkaOut> status) {}

    /**
     * The vocabularies' part of the fast-forward, by {@link FastForward#columnKey}, with each
     * column's policy; empty without one.
     */
    private Map<Long, VocabularyFunction.CatchUp> catchUps(Starts starts) {
        Map<Long, VocabularyFunction.CatchUp> catchUps = new HashMap<>();
        if (fastForward == null) {
            return catchUps;
        }
        for (Map.Entry<Long, FastForward.Entries> e : fastForward.columns().entrySet()) {
            int p = (int) (e.getKey() >>> 32);
            int c = (int) (long) e.getKey();
            ColumnProgram program = starts.options()[p].program();
            if (c >= program.layout().sparse()) {
                throw new IllegalArgumentException(
                        "pipeline "
                                + starts.names()[p]
                                + ": the output committed past the snapshot has column C"
                                + (c + 1)
                                + ", which its spec has not");
            }
            catchUps.put(
                    e.getKey(),
                    new VocabularyFunction.CatchUp(p, c, program.vocabPolicy(c), e.getValue()));
        }
        return catchUps;
    }

    /** Refuses to measure a pipeline the cost report cannot price. */
    private void refuseUnpriced() {
        for (StreamPipelines.Pipeline p : pipelines.pipelines()) {
            Preprocess.reportRefusal(p.start().program(), false)
                    .ifPresent(
                            why -> {
                                throw new IllegalArgumentException(
                                        "pipeline " + p.name() + ": " + why);
                            });
        }
    }

    /**
     * The decoders: one pipeline's, several pipelines', or with a control stream the decoders of
     * the specs the control operator accepts (broadcast state).
     */
    private Decoded decode(
            StreamExecutionEnvironment env,
            DataStream<RawChunk> raw,
            Starts starts,
            int[] blockLines,
            boolean measure) {
        if (control == null && starts.size() == 1) {
            SingleOutputStreamOperator<KeyChunk> keys =
                    PreprocessJob.decode(
                            raw, starts.options()[0], measure ? report.fieldBytesEvery() : 0);
            if (labelJoin != null) {
                keys.setParallelism(1); // the joined rows are one lane: one decoder, in order
            }
            return new Decoded(keys, null);
        }
        if (control == null) {
            return new Decoded(
                    raw.process(
                                    measure
                                            ? PipelinesDecodeFunction.measured(
                                                    starts.specs(),
                                                    maxRawBytes,
                                                    report.fieldBytesEvery())
                                            : new PipelinesDecodeFunction(
                                                    starts.specs(), maxRawBytes),
                                    BlockTypes.KEY_CHUNK)
                            .name("decode")
                            .uid("decode"),
                    null);
        }
        SingleOutputStreamOperator<ActiveSpec> accepted =
                env.fromSource(
                                control.source(),
                                WatermarkStrategy.noWatermarks(),
                                "control-input",
                                ControlMessageSerializer.TYPE)
                        .setParallelism(1)
                        .uid("control-input")
                        .process(
                                new ControlFunction(
                                        starts.specs(),
                                        starts.inputTopics(),
                                        new SwitchLimits(
                                                blockLines,
                                                KafkaOut.MAX_ROW_BYTES,
                                                chunking.maxBlockBytes(),
                                                chunking.recordLimit(),
                                                measure)),
                                ACTIVE_SPEC)
                        .setParallelism(1)
                        .name("control")
                        .uid("control");
        return new Decoded(
                raw.connect(accepted.broadcast(SpecDecodeFunction.SPECS))
                        .process(
                                measure
                                        ? SpecDecodeFunction.measured(
                                                starts.specs(),
                                                maxRawBytes,
                                                report.fieldBytesEvery())
                                        : new SpecDecodeFunction(starts.specs(), maxRawBytes),
                                BlockTypes.KEY_CHUNK)
                        .name("decode")
                        .uid("decode"),
                accepted.getSideOutput(ControlFunction.STATUS));
    }

    /** Each block's rows, its dense part and its columns' indices joined by block. */
    private static SingleOutputStreamOperator<AssembledBlock> concatenate(
            PreprocessJob.Columns columns, boolean measure) {
        TypeInformation<Tuple2<Integer, Long>> blockKey = Types.TUPLE(Types.INT, Types.LONG);
        return columns.dense()
                .connect(columns.indices())
                .keyBy(new DenseByBlock(), new IndexByBlock(), blockKey)
                .process(
                        measure
                                ? ConcatenateFunction.<Tuple2<Integer, Long>>measured()
                                : new ConcatenateFunction<Tuple2<Integer, Long>>(),
                        BlockTypes.ASSEMBLED_BLOCK)
                .name("concatenate")
                .uid("concatenate");
    }

    /**
     * The blocks in each lane's order; with a control stream, tracked for the switches they
     * complete (their status records joined to {@code status}); with Hotline, split.
     */
    private DataStream<AssembledBlock> order(
            SingleOutputStreamOperator<AssembledBlock> assembled,
            DataStream<KafkaOut> status,
            Starts starts) {
        LaneSequenceFunction sequence = new LaneSequenceFunction();
        DataStream<AssembledBlock> ordered =
                fastForward == null || fastForward.lanes().isEmpty()
                        ? assembled
                                .keyBy(new ByLane(), Types.INT)
                                .process(sequence, BlockTypes.ASSEMBLED_BLOCK)
                                .name("sequence")
                                .uid("sequence")
                        : assembled
                                .keyBy(new ByLane(), Types.INT)
                                .transform(
                                        "sequence",
                                        BlockTypes.ASSEMBLED_BLOCK,
                                        new CatchUpOperator<>(
                                                sequence.withFastForward(fastForward.lanes())))
                                .uid("sequence");
        if (control != null) {
            SingleOutputStreamOperator<AssembledBlock> tracked =
                    DataStreamUtils.reinterpretAsKeyedStream(ordered, new ByLane(), Types.INT)
                            .process(
                                    new SwitchTracker(
                                            starts.names(),
                                            starts.versions(),
                                            starts.inputTopics()),
                                    BlockTypes.ASSEMBLED_BLOCK)
                            .name("switch-tracker")
                            .uid("switch-tracker");
            status.union(tracked.getSideOutput(SwitchTracker.STATUS))
                    .sinkTo(control.statusSink())
                    .setParallelism(1)
                    .name("control-status")
                    .uid("control-status");
            ordered = tracked;
        }
        if (hotline != null) {
            if (control != null) {
                throw new IllegalArgumentException(
                        "Hotline's split does not run with a control stream: a spec switch may"
                                + " change the rows' shape its hot sets are chosen for");
            }
            // one ordered view of each pipeline's rows, in the order the lanes' blocks arrive
            ordered =
                    ordered.keyBy(new PreprocessJob.ByPipeline(), Types.INT)
                            .process(
                                    new HotlineFunction(hotline, starts.layouts(), true),
                                    BlockTypes.ASSEMBLED_BLOCK)
                            .name("hotline")
                            .uid("hotline");
        }
        return ordered;
    }

    /**
     * The blocks as Kafka records into the sink; with a control stream, each with its spec's rows'
     * shape, which the decoders announce.
     */
    private void encode(
            DataStream<AssembledBlock> ordered,
            SingleOutputStreamOperator<KeyChunk> keys,
            Starts starts) {
        OutputEncoder encoder =
                new OutputEncoder(starts.inputTopics(), starts.vocab(), starts.options());
        DataStream<AssembledBlock> toEncode = eventTime(beforeOutput.apply(ordered), starts);
        SingleOutputStreamOperator<KafkaOut> encoded;
        if (control == null) {
            encoded = toEncode.flatMap(encoder, BlockTypes.KAFKA_OUT);
        } else {
            // Blocks of a switched spec are encoded with its rows' shape: the decoders announce
            // each spec they start using (again after a restore), and the encoder learns it.
            encoded =
                    DataStreamUtils.reinterpretAsKeyedStream(toEncode, new ByLane(), Types.INT)
                            .connect(
                                    keys.getSideOutput(SpecDecodeFunction.ANNOUNCED)
                                            .broadcast(SwitchingOutputEncoder.SPECS))
                            .process(
                                    new SwitchingOutputEncoder(encoder, starts.names()),
                                    BlockTypes.KAFKA_OUT);
        }
        encoded.name("encode").uid("encode");
        // with a label join, its dead letters join the pipeline's output in the same transactions
        DataStream<KafkaOut> out =
                joinDeadLetters == null ? encoded : encoded.union(joinDeadLetters);
        out
                // chained to the sink: it sees each barrier just before the sink does
                .map(
                        new CheckpointStamp(fastForward == null ? 0 : fastForward.floorStamp()),
                        BlockTypes.KAFKA_OUT)
                .name("checkpoint-stamp")
                .uid("checkpoint-stamp")
                .sinkTo(sink)
                .name("kafka-output")
                .uid("kafka-output");
    }

    /** The join's dead letters as dead-letter records, once {@link #joined} made them. */
    private DataStream<KafkaOut> joinDeadLetters;

    /** The label join in front of the pipeline: the one lane's records ({@link LabelJoinGraph}). */
    private SingleOutputStreamOperator<LogRecord> joined(
            StreamExecutionEnvironment env, Starts starts) {
        LabelJoinGraph graph =
                LabelJoinGraph.of(
                        env,
                        labelJoin.source(),
                        starts.specs()[0].spec().labels(),
                        maxRawBytes,
                        labelJoin.topics(),
                        labelJoin.readers(),
                        labelJoin.lines(),
                        labelJoin.deadLetterLines());
        joinDeadLetters = graph.deadLetters();
        return graph.rows();
    }

    /** The log chunker: per-lane blocks of the records, passing over what a fast-forward names. */
    private LogChunkOperator chunker(int[] blockLines, InputFormat.KafkaRecords[] shapes) {
        return new LogChunkOperator(
                        chunking.maxBlockBytes(), blockLines, shapes, chunking.lingerMillis())
                .withFastForward(fastForward == null ? java.util.Map.of() : fastForward.lanes());
    }

    /**
     * With a pipeline whose spec reads event times ({@code input.timestamp}): the rows' event-time
     * watermarks and their freshness gauges ({@link EventTimeFunction}); else the blocks as they
     * are.
     */
    private static DataStream<AssembledBlock> eventTime(
            DataStream<AssembledBlock> blocks, Starts starts) {
        boolean timed = false;
        for (DecodeOptions o : starts.options()) {
            timed |= o.events() != null && o.events().time() != null;
        }
        if (!timed) {
            return blocks;
        }
        return blocks.assignTimestampsAndWatermarks(EventTimeFunction.watermarks())
                .name("event-time watermarks")
                .uid("event-time-watermarks")
                .process(new EventTimeFunction(starts.names()), BlockTypes.ASSEMBLED_BLOCK)
                .name("event-time")
                .uid("event-time");
    }

    /**
     * The most lines of a block of rows of {@code rowBytes}: {@code maxLines}, or fewer so that
     * their rows fit {@link KafkaOut#MAX_ROW_BYTES}.
     */
    static int blockLines(int maxLines, int rowBytes) {
        return Math.max(1, Math.min(maxLines, KafkaOut.MAX_ROW_BYTES / rowBytes));
    }

    private static final TypeInformation<ActiveSpec> ACTIVE_SPEC =
            new SerializerTypeInfo<>(ActiveSpec.class, new ActiveSpecSerializer());

    /** Keys a block's dense part by (lane, sequence number). */
    static final class DenseByBlock implements KeySelector<DenseChunk, Tuple2<Integer, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<Integer, Long> getKey(DenseChunk chunk) {
            return Tuple2.of(chunk.lane(), chunk.seq());
        }
    }

    /** Keys a block's index chunk by (lane, sequence number). */
    static final class IndexByBlock implements KeySelector<IndexChunk, Tuple2<Integer, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<Integer, Long> getKey(IndexChunk chunk) {
            return Tuple2.of(chunk.lane(), chunk.seq());
        }
    }

    /** Keys an assembled block by its lane. */
    static final class ByLane implements KeySelector<AssembledBlock, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(AssembledBlock block) {
            return block.lane();
        }
    }
}
