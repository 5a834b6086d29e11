package dev.piper.connectors.kafka;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.Assignments;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.Lanes;
import dev.piper.core.block.Origin;
import dev.piper.feed.RowsRecord;
import dev.piper.feed.StreamFormat;
import dev.piper.output.HotlineFiles;
import dev.piper.output.NameText;
import dev.piper.output.OutputLayout;
import dev.piper.output.RawText;
import dev.piper.pipeline.hotline.Split;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * Turns an assembled block into its Kafka output records: one rows record (always, even when every
 * line was rejected, so that the offset ranges of a partition's rows records are contiguous), one
 * dead-letter record per rejected line, and, when a vocabulary topic is configured, one record per
 * column whose vocabulary the block grew. The format is documented in {@code docs/SEMANTICS.md}.
 */
public final class OutputEncoder implements FlatMapFunction<AssembledBlock, KafkaOut> {

    private static final long serialVersionUID = 1L;

    private static final String[] NO_NAMES = new String[0];
    private static final byte[][] NO_VALUES = new byte[0][];
    private static final JsonFactory JSON = new JsonFactory();

    /** Per pipeline (by index): its input topic, named in the headers and dead letters. */
    private final String[] inputTopics;

    /** Per pipeline: whether it has a vocabulary topic. */
    private final boolean[] vocab;

    /** Per pipeline: its name and a slash, the header's prefix. */
    private final String[] pipeline;

    private final int[] startVersions;
    private final String[] pipelineParams;

    /** Per pipeline: the rows' shape under each spec version it knows, by version. */
    private final List<TreeMap<Integer, Shape>> shapes;

    /**
     * What a rows record of one spec version says of its rows, and its vocabularies' buckets.
     *
     * @param rowBytes bytes of one row
     * @param rowColumns the row's slot names, joined by commas
     * @param float32Columns the float32 fields, joined, or null for none
     * @param listColumns the list columns, joined, or null for none
     * @param bucketizedColumns the label/dense/generated columns holding bucket numbers, joined, or
     *     null for none
     * @param bucketCounts their numbers of buckets, joined, or null for none
     * @param buckets per sparse column, its vocabulary's OOV buckets
     * @param evictions per sparse column, how its vocabulary evicts ({@code lfu}, {@code ttl}), or
     *     null where it does not
     */
    private record Shape(
            String format,
            int rowBytes,
            String rowColumns,
            String float32Columns,
            String listColumns,
            String bucketizedColumns,
            String bucketCounts,
            int[] buckets,
            String[] evictions)
            implements java.io.Serializable {

        static Shape of(ColumnProgram program) {
            RowLayout layout = program.layout();
            int[] buckets = new int[layout.sparse()];
            String[] evictions = new String[layout.sparse()];
            for (int c = 0; c < layout.sparse(); c++) {
                buckets[c] = program.vocabPolicy(c).oovBuckets();
                if (program.vocabPolicy(c).evicts()) {
                    evictions[c] = program.vocabPolicy(c).eviction().label();
                }
            }
            List<String> floats = program.float32Columns();
            List<String> lists = layout.listNames();
            List<String> bucketized = new java.util.ArrayList<>();
            List<String> counts = new java.util.ArrayList<>();
            for (int f = 0; f < layout.labelDenseWidth(); f++) {
                if (program.bucketCount(f) > 0) {
                    bucketized.add(layout.fieldName(f));
                    counts.add(Integer.toString(program.bucketCount(f)));
                }
            }
            return new Shape(
                    OutputLayout.format(program),
                    program.rowBytes(),
                    String.join(",", program.rowColumns()),
                    floats.isEmpty() ? null : String.join(",", floats),
                    lists.isEmpty() ? null : String.join(",", lists),
                    bucketized.isEmpty() ? null : String.join(",", bucketized),
                    counts.isEmpty() ? null : String.join(",", counts),
                    buckets,
                    evictions);
        }
    }

    /**
     * A job running one pipeline.
     *
     * @param inputTopic the topic the blocks were read from, named in the headers
     * @param vocab whether to emit vocabulary records
     * @param options the pipeline's starting decoder settings
     */
    public OutputEncoder(String inputTopic, boolean vocab, DecodeOptions options) {
        this(new String[] {inputTopic}, new boolean[] {vocab}, new DecodeOptions[] {options});
    }

    /**
     * A job running several pipelines; arrays by pipeline index.
     *
     * @param inputTopics each pipeline's input topic
     * @param vocab whether each pipeline emits vocabulary records
     * @param options each pipeline's starting decoder settings
     */
    public OutputEncoder(String[] inputTopics, boolean[] vocab, DecodeOptions[] options) {
        int n = inputTopics.length;
        if (vocab.length != n || options.length != n) {
            throw new IllegalArgumentException("one topic, flag and options per pipeline");
        }
        this.inputTopics = inputTopics.clone();
        this.vocab = vocab.clone();
        this.pipeline = new String[n];
        this.startVersions = new int[n];
        this.pipelineParams = new String[n];
        this.shapes = new ArrayList<>(n);
        for (int p = 0; p < n; p++) {
            ColumnProgram program = options[p].program();
            TreeMap<Integer, Shape> versions = new TreeMap<>();
            versions.put(program.version(), Shape.of(program));
            shapes.add(versions);
            pipeline[p] = program.name() + "/";
            startVersions[p] = program.version();
            StringBuilder params = new StringBuilder();
            program.dlrmMaxIndRange()
                    .ifPresent(m -> params.append("max_ind_range=").append(m).append(';'));
            params.append("pad_missing_fields=")
                    .append(options[p].padMissingFields())
                    .append(";max_line_bytes=")
                    .append(options[p].maxLineBytes())
                    .append(";max_raw_bytes=")
                    .append(options[p].maxRawBytes())
                    .append(";chains=")
                    .append(program.fingerprint());
            pipelineParams[p] = params.toString();
        }
    }

    /**
     * Learns the rows' shape under another spec version of pipeline {@code p} (a switch), so that
     * its blocks can be encoded.
     */
    public void learn(int p, ColumnProgram program) {
        shapes.get(p).putIfAbsent(program.version(), Shape.of(program));
    }

    /** Whether blocks of pipeline {@code p} decoded under {@code version} can be encoded. */
    public boolean knows(int p, int version) {
        return shapes.get(p).containsKey(version);
    }

    private Shape shape(int p, AssembledBlock b) {
        Shape shape = shapes.get(p).get(b.version());
        if (shape == null) {
            throw new IllegalStateException(
                    "block "
                            + b.seq()
                            + " of lane "
                            + b.lane()
                            + " was decoded under version "
                            + b.version()
                            + " of pipeline "
                            + pipeline[p]
                            + ", whose rows' shape this encoder has not learnt");
        }
        return shape;
    }

    @Override
    public void flatMap(AssembledBlock block, Collector<KafkaOut> out) {
        int p = Lanes.pipeline(block.lane());
        byte[] key = laneKey(Lanes.partition(block.lane()));
        if (block.split() != null && vocab[p]) {
            // in the block's transaction, ahead of the first row classified with them
            for (Split.Window w : block.split().windows()) {
                out.collect(hotSet(p, w));
            }
        }
        out.collect(rows(p, block, key));
        for (DeadLetter d : block.deadLetters()) {
            out.collect(deadLetter(p, block, d, key));
        }
        if (vocab[p]) {
            // the block's epochs are its version's, so are the buckets of their vocabularies
            int[] buckets = shape(p, block).buckets();
            for (int c = 0; c < block.newKeys().length; c++) {
                long[] keys = block.newKeys()[c];
                Assignments a = block.assignments() == null ? null : block.assignments()[c];
                if (a != null) {
                    if (a.size() > 0) {
                        out.collect(assignments(p, c, block, buckets[c], a));
                    }
                } else if (keys.length > 0) {
                    out.collect(vocabulary(p, c, block, buckets[c]));
                }
            }
        }
    }

    /**
     * Records of one input partition share this key (the partition, int32 big-endian), hence an
     * output partition and its order.
     */
    static byte[] laneKey(int partition) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(partition).array();
    }

    private KafkaOut rows(int p, AssembledBlock b, byte[] key) {
        Shape shape = shape(p, b);
        List<String> names = new ArrayList<>(20);
        List<byte[]> values = new ArrayList<>(20);
        Split split = b.split();
        layoutHeaders(p, b, shape, names, values);
        if (b.assignments() != null) {
            evictionHeaders(b, shape, names, values);
        }
        if (vocab[p]) {
            header(names, values, RowsRecord.VOCAB_POSITION, vocabPosition(b, shape));
        }
        header(names, values, RowsRecord.ROWS, b.rows());
        header(names, values, RowsRecord.LINES, b.lines());
        header(names, values, RowsRecord.DEAD_LETTERS, b.deadLetters().length);
        header(names, values, StreamFormat.BLOCK, b.seq());
        header(names, values, StreamFormat.INPUT_TOPIC, inputTopics[p]);
        header(names, values, StreamFormat.INPUT_PARTITION, Lanes.partition(b.lane()));
        Origin o = b.origin();
        if (o.isLog()) {
            header(
                    names,
                    values,
                    RowsRecord.INPUT_OFFSETS,
                    o.offsets()[0] + "-" + o.offsets()[o.records() - 1]);
            if (o.firstTimestamp() >= 0 && o.lastTimestamp() >= 0) {
                header(
                        names,
                        values,
                        RowsRecord.INPUT_TIMESTAMPS,
                        o.firstTimestamp() + "-" + o.lastTimestamp());
            }
        }
        int length = rowsLength(b, shape);
        if (split != null) {
            header(names, values, StreamFormat.HOTLINE_FIRST_ROW, split.firstRow());
            header(names, values, RowsRecord.HOTLINE_POPULAR, split.popularRows());
            int[] working = new int[split.working().length];
            for (int c = 0; c < working.length; c++) {
                working[c] = split.working()[c].length;
            }
            header(names, values, RowsRecord.HOTLINE_WORKING, commaJoined(working));
        }
        byte[] value;
        if (shape.listColumns() == null) {
            value =
                    b.rowBytes().length == length
                            ? b.rowBytes()
                            : Arrays.copyOf(b.rowBytes(), length);
        } else {
            header(names, values, RowsRecord.LIST_COLUMNS, shape.listColumns());
            int[] counts = new int[b.listOffsets().length];
            for (int l = 0; l < counts.length; l++) {
                int[] offsets = b.listOffsets()[l];
                counts[l] = b.rows() == 0 ? 0 : offsets[b.rows()] - offsets[0];
            }
            header(names, values, RowsRecord.LIST_VALUES, commaJoined(counts));
            value = withLists(b, length, counts);
        }
        if (split != null) {
            value = withSplit(value, split);
        }
        if (b.eventTimes() != null) {
            header(names, values, RowsRecord.EVENT_TIMES, RowsRecord.EVENT_TIMES_UNIT);
            value = withEventTimes(value, b);
        }
        return new KafkaOut(
                KafkaOut.target(p, KafkaOut.ROWS),
                key,
                value,
                names.toArray(String[]::new),
                values.toArray(byte[][]::new),
                (long) Lanes.partition(b.lane()) + b.seq());
    }

    /**
     * The headers that say what the rows are: format and record version, the row's columns, the
     * pipeline and its version, the vocabulary epochs and OOV buckets.
     */
    private void layoutHeaders(
            int p, AssembledBlock b, Shape shape, List<String> names, List<byte[]> values) {
        header(names, values, RowsRecord.FORMAT, shape.format());
        header(names, values, RowsRecord.FORMAT_VERSION, OutputLayout.FORMAT_VERSION);
        header(
                names,
                values,
                RowsRecord.RECORD_VERSION,
                b.split() == null
                        ? RowsRecord.RECORD_VERSION_WITHOUT_SPLIT
                        : RowsRecord.CURRENT_RECORD_VERSION);
        header(names, values, RowsRecord.ROW_COLUMNS, shape.rowColumns());
        if (shape.float32Columns() != null) {
            header(names, values, RowsRecord.FLOAT32_COLUMNS, shape.float32Columns());
        }
        if (shape.bucketizedColumns() != null) {
            header(names, values, RowsRecord.BUCKETIZED_COLUMNS, shape.bucketizedColumns());
            header(names, values, RowsRecord.BUCKETIZED_BUCKETS, shape.bucketCounts());
        }
        header(names, values, RowsRecord.PIPELINE, pipeline[p] + b.version());
        if (b.version() == startVersions[p]) {
            header(names, values, RowsRecord.PIPELINE_PARAMS, pipelineParams[p]);
        }
        header(names, values, RowsRecord.EPOCHS, commaJoined(b.epochs()));
        boolean anyBuckets = false;
        for (int bucket : shape.buckets()) {
            anyBuckets |= bucket > 0;
        }
        if (anyBuckets) {
            header(names, values, StreamFormat.OOV_BUCKETS, commaJoined(shape.buckets()));
        }
    }

    /**
     * An evicting stream's headers: per sparse column the assignments made before the block and by
     * it, and each column's eviction.
     */
    private static void evictionHeaders(
            AssembledBlock b, Shape shape, List<String> names, List<byte[]> values) {
        int[] buckets = shape.buckets();
        long[] before = new long[buckets.length];
        long[] own = new long[buckets.length];
        for (int c = 0; c < before.length; c++) {
            Assignments a = b.assignments()[c];
            before[c] = a != null ? a.first() : b.firstNewIndex()[c] - buckets[c];
            own[c] = a != null ? a.size() : 0;
        }
        header(names, values, RowsRecord.ASSIGNMENTS, commaJoined(before));
        header(names, values, RowsRecord.BLOCK_ASSIGNMENTS, commaJoined(own));
        String[] evictions = shape.evictions();
        StringBuilder evicting = new StringBuilder();
        for (int c = 0; c < evictions.length; c++) {
            evicting.append(c == 0 ? "" : ",").append(evictions[c] == null ? "" : evictions[c]);
        }
        header(names, values, StreamFormat.EVICT, evicting);
    }

    /**
     * Per sparse column, its vocabulary's position once the block was applied: the assignments an
     * evicting column had made, else its entries ({@link RowsRecord#VOCAB_POSITION}).
     */
    private static String vocabPosition(AssembledBlock b, Shape shape) {
        int[] buckets = shape.buckets();
        long[] after = new long[buckets.length];
        for (int c = 0; c < after.length; c++) {
            Assignments a = b.assignments() == null ? null : b.assignments()[c];
            after[c] =
                    a != null
                            ? a.first() + a.size()
                            : b.firstNewIndex()[c] - buckets[c] + b.newKeys()[c].length;
        }
        return commaJoined(after);
    }

    /** The bytes of the block's rows, which its row bytes must hold. */
    private static int rowsLength(AssembledBlock b, Shape shape) {
        int length = b.rows() * shape.rowBytes();
        if (b.rowBytes().length < length) {
            throw new IllegalStateException(
                    "block "
                            + b.seq()
                            + " of lane "
                            + b.lane()
                            + ": "
                            + b.rows()
                            + " rows in "
                            + b.rowBytes().length
                            + " bytes, not "
                            + shape.rowBytes()
                            + " a row");
        }
        return length;
    }

    /**
     * The rows, then per list column its rows' lengths and its values (a KeyedJaggedTensor's {@code
     * lengths} and {@code values}), all little-endian int32.
     */
    private static byte[] withLists(AssembledBlock b, int rowsLength, int[] counts) {
        int rows = b.rows();
        long total = rowsLength;
        for (int count : counts) {
            total += (long) (rows + count) * Integer.BYTES;
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(
                    "block " + b.seq() + " of lane " + b.lane() + ": " + total + " bytes of rows");
        }
        ByteBuffer out = ByteBuffer.allocate((int) total).order(ByteOrder.LITTLE_ENDIAN);
        out.put(b.rowBytes(), 0, rowsLength);
        for (int l = 0; l < counts.length; l++) {
            int[] offsets = b.listOffsets()[l];
            for (int r = 0; r < rows; r++) {
                out.putInt(offsets[r + 1] - offsets[r]);
            }
            if (rows > 0) {
                int[] indices = b.listIndices()[l];
                for (int i = offsets[0]; i < offsets[rows]; i++) {
                    out.putInt(indices[i]);
                }
            }
        }
        return out.array();
    }

    /**
     * The value, then Hotline's split: per sparse column its working parameters (little-endian
     * int32), then one byte per row, 1 if the row is popular.
     */
    private static byte[] withSplit(byte[] value, Split split) {
        long total = value.length + (long) split.rows();
        for (int[] w : split.working()) {
            total += (long) w.length * Integer.BYTES;
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(total + " bytes of rows and their split");
        }
        ByteBuffer out = ByteBuffer.allocate((int) total).order(ByteOrder.LITTLE_ENDIAN);
        out.put(value);
        for (int[] w : split.working()) {
            for (int index : w) {
                out.putInt(index);
            }
        }
        out.put(split.popular());
        return out.array();
    }

    /** The value, then the rows' event times: a little-endian int64 of milliseconds each. */
    private static byte[] withEventTimes(byte[] value, AssembledBlock b) {
        long[] times = b.eventTimes();
        long total = value.length + (long) times.length * Long.BYTES;
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(total + " bytes of rows and their event times");
        }
        ByteBuffer out = ByteBuffer.allocate((int) total).order(ByteOrder.LITTLE_ENDIAN);
        out.put(value);
        for (long t : times) {
            out.putLong(t);
        }
        return out.array();
    }

    /** A hot-set record: the window's hot set, on the vocabulary topic, keyed {@code hotline}. */
    private static KafkaOut hotSet(int p, Split.Window w) {
        List<String> names = new ArrayList<>(2);
        List<byte[]> values = new ArrayList<>(2);
        header(names, values, StreamFormat.HOTLINE_WINDOW, w.number());
        header(names, values, StreamFormat.HOTLINE_FIRST_ROW, w.firstRow());
        return new KafkaOut(
                KafkaOut.target(p, KafkaOut.VOCAB),
                StreamFormat.HOTLINE_KEY.getBytes(StandardCharsets.US_ASCII),
                HotlineFiles.announcement(w).getBytes(StandardCharsets.UTF_8),
                names.toArray(String[]::new),
                values.toArray(byte[][]::new));
    }

    private KafkaOut deadLetter(int p, AssembledBlock b, DeadLetter d, byte[] key) {
        Origin o = b.origin();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256 + d.raw().length);
        try (JsonGenerator g = JSON.createGenerator(bytes, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("topic", inputTopics[p]);
            g.writeNumberField("partition", Lanes.partition(b.lane()));
            if (o.isLog()) {
                int record = o.recordOfLine(d.lineInBlock());
                g.writeNumberField("offset", o.offsets()[record]);
                // Counted within the block: a record longer than a block continues in the next
                // one, whose part starts again at 0 (docs/SEMANTICS.md).
                g.writeNumberField("line_in_record", d.lineInBlock() - o.firstLines()[record]);
            }
            g.writeStringField("reason", d.reason());
            g.writeStringField("detail", d.detail());
            g.writeStringField("raw", RawText.escape(d.raw()));
            g.writeBooleanField("raw_truncated", d.rawTruncated());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new KafkaOut(
                KafkaOut.target(p, KafkaOut.DEAD_LETTERS),
                key,
                bytes.toByteArray(),
                NO_NAMES,
                NO_VALUES);
    }

    private static String commaJoined(int[] values) {
        return commaJoined(java.util.Arrays.stream(values).asLongStream().toArray());
    }

    private static String commaJoined(long[] values) {
        StringBuilder sb = new StringBuilder(2 * values.length);
        for (long v : values) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(v);
        }
        return sb.toString();
    }

    private static KafkaOut vocabulary(int p, int column, AssembledBlock b, int buckets) {
        int epoch = b.epochs()[column];
        int firstIndex = b.firstNewIndex()[column];
        long[] keys = b.newKeys()[column];
        StringBuilder text = new StringBuilder(keys.length * 16);
        int index = firstIndex;
        for (int i = 0; i < keys.length; i++) {
            text.append(index++).append('\t').append(Long.toUnsignedString(keys[i]));
            String name = b.newName(column, i);
            if (name != null) {
                NameText.append(text.append('\t'), name);
            }
            text.append('\n');
        }
        String name = CriteoLayout.sparseName(column); // C1.. in every layout
        List<String> names = new ArrayList<>(5);
        List<byte[]> values = new ArrayList<>(5);
        header(names, values, StreamFormat.COLUMN, name);
        header(names, values, StreamFormat.EPOCH, epoch);
        header(names, values, StreamFormat.FIRST_INDEX, firstIndex);
        header(names, values, StreamFormat.COUNT, keys.length);
        if (buckets > 0) {
            header(names, values, StreamFormat.OOV_BUCKETS, buckets);
        }
        return new KafkaOut(
                KafkaOut.target(p, KafkaOut.VOCAB),
                name.getBytes(StandardCharsets.US_ASCII),
                text.toString().getBytes(StandardCharsets.UTF_8),
                names.toArray(String[]::new),
                values.toArray(byte[][]::new));
    }

    /** An evicting column's assignments in one block ({@link StreamFormat#EVICT}). */
    private KafkaOut assignments(int p, int column, AssembledBlock b, int buckets, Assignments a) {
        StringBuilder text = new StringBuilder(a.size() * 32);
        for (int i = 0; i < a.size(); i++) {
            text.append(a.indices()[i])
                    .append('\t')
                    .append(Long.toUnsignedString(a.keys()[i]))
                    .append('\t')
                    .append(a.rows()[i])
                    .append('\t');
            if (a.reused(i)) {
                text.append(Long.toUnsignedString(a.evictedBy(i)));
            }
            String name = b.newName(column, i);
            if (name != null) {
                NameText.append(text.append('\t'), name);
            }
            text.append('\n');
        }
        String name = CriteoLayout.sparseName(column);
        List<String> names = new ArrayList<>(9);
        List<byte[]> values = new ArrayList<>(9);
        header(names, values, StreamFormat.COLUMN, name);
        header(names, values, StreamFormat.EPOCH, b.epochs()[column]);
        header(names, values, StreamFormat.EVICT, shape(p, b).evictions()[column]);
        header(names, values, StreamFormat.FIRST_ASSIGNMENT, a.first());
        header(names, values, StreamFormat.COUNT, a.size());
        header(names, values, StreamFormat.INPUT_PARTITION, Lanes.partition(b.lane()));
        header(names, values, StreamFormat.BLOCK, b.seq());
        if (buckets > 0) {
            header(names, values, StreamFormat.OOV_BUCKETS, buckets);
        }
        return new KafkaOut(
                KafkaOut.target(p, KafkaOut.VOCAB),
                name.getBytes(StandardCharsets.US_ASCII),
                text.toString().getBytes(StandardCharsets.UTF_8),
                names.toArray(String[]::new),
                values.toArray(byte[][]::new));
    }

    private static void header(List<String> names, List<byte[]> values, String name, Object v) {
        names.add(name);
        values.add(ascii(v));
    }

    private static byte[] ascii(Object v) {
        return String.valueOf(v).getBytes(StandardCharsets.US_ASCII);
    }
}
