package dev.piper.feed;

import dev.piper.core.block.KafkaOut;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Names of the headers {@code bin/piper stream} puts on its output records (the contract in {@code
 * docs/SEMANTICS.md}, "Kafka output"). Every header value is ASCII text.
 */
public final class StreamFormat {

    /** Rows records: the output format's name, as in the batch {@code metadata.json}. */
    public static final String FORMAT = "piper.format";

    /** Rows records: the output format's version. */
    public static final String FORMAT_VERSION = "piper.format.version";

    /**
     * Rows records: the version of the record format: 2 (rows of any layout, list columns after
     * them); a record without it is version 1, Criteo's 40 columns only.
     */
    public static final String RECORD_VERSION = "piper.record.version";

    /** The record format this build writes: 3 with Hotline's split, else 2. */
    public static final int CURRENT_RECORD_VERSION = 3;

    /** The record format of rows without Hotline's split. */
    public static final int RECORD_VERSION_WITHOUT_SPLIT = 2;

    /**
     * Rows records with Hotline's split (record format 3): the number of the record's first row in
     * the split's row order (rows of the Hotline operator, from 0).
     */
    public static final String HOTLINE_FIRST_ROW = "piper.hotline.first.row";

    /** Rows records with Hotline's split: how many of its rows are popular. */
    public static final String HOTLINE_POPULAR = "piper.hotline.popular";

    /**
     * Rows records with Hotline's split: per sparse column, the number of its working parameters
     * (distinct non-hot indices of the non-popular rows) in the value, joined by {@code ,}.
     */
    public static final String HOTLINE_WORKING = "piper.hotline.working";

    /**
     * Hot-set records on the vocabulary topic (key {@code hotline}): the window's number; its first
     * row is {@link #HOTLINE_FIRST_ROW}.
     */
    public static final String HOTLINE_WINDOW = "piper.hotline.window";

    /** The key of hot-set records on the vocabulary topic. */
    public static final String HOTLINE_KEY = "hotline";

    /**
     * Rows records: the names of a row's int32 slots, in order, joined by {@code ,}: {@code
     * label,I1,..,C1,..} (onehot slots {@code I3_0}, {@code I3_1}..; list columns are not in it).
     */
    public static final String ROW_COLUMNS = "piper.row.columns";

    /** Rows records whose rows hold float32 bits: those fields' names, joined by {@code ,}. */
    public static final String FLOAT32_COLUMNS = "piper.float32.columns";

    /** The row's label/dense/generated columns that hold bucket numbers (bucketize ends them). */
    public static final String BUCKETIZED_COLUMNS = "piper.bucketized.columns";

    /** Per bucketized column, its number of buckets (its embedding table's rows). */
    public static final String BUCKETIZED_BUCKETS = "piper.bucketized.buckets";

    /**
     * Rows records of a layout with list columns: their names, joined by {@code ,}; their lengths
     * and values follow the rows in the value, in this order.
     */
    public static final String LIST_COLUMNS = "piper.list.columns";

    /** Rows records of a layout with list columns: per list column, its number of values. */
    public static final String LIST_VALUES = "piper.list.values";

    /** Rows records: the pipeline that produced the rows, {@code name/version}. */
    public static final String PIPELINE = "piper.pipeline";

    /**
     * Rows records: the pipeline's parameters, {@code key=value} joined by {@code ;}; only on rows
     * of the spec the job started with (a spec received on the control topic is on the status
     * topic, with its acceptance).
     */
    public static final String PIPELINE_PARAMS = "piper.pipeline.params";

    /**
     * Rows records: per sparse column (C1..C26 in Criteo's layout, list columns included), the
     * vocabulary epoch its indices belong to, joined by {@code ,}.
     */
    public static final String EPOCHS = "piper.epochs";

    /** Rows records: number of rows in the value. */
    public static final String ROWS = "piper.rows";

    /** Rows records: number of input lines the block held (rows + dead letters). */
    public static final String LINES = "piper.lines";

    /** Rows records: number of the block's lines that became dead letters. */
    public static final String DEAD_LETTERS = "piper.dead.letters";

    /** Rows records: the block's number within its input partition, from 0 without gaps. */
    public static final String BLOCK = "piper.block";

    /** Rows and dead-letter records: the input topic. */
    public static final String INPUT_TOPIC = "piper.input.topic";

    /** Rows and dead-letter records: the input partition. */
    public static final String INPUT_PARTITION = "piper.input.partition";

    /** Rows records: first and last input offset of the block, {@code first-last}, inclusive. */
    public static final String INPUT_OFFSETS = "piper.input.offsets";

    /** Rows records: timestamps (ms) of the block's first and last input record, {@code a-b}. */
    public static final String INPUT_TIMESTAMPS = "piper.input.timestamps";

    /**
     * Rows records of a stream: the id of the checkpoint whose completion committed the record
     * ({@code CheckpointStamp} in {@code connectors}); a resume from an older snapshot is refused
     * by it.
     */
    public static final String CHECKPOINT = "piper.checkpoint";

    /** {@link #CHECKPOINT}'s value for commit stamp {@code stamp}: its decimal digits. */
    public static byte[] checkpointStamp(long stamp) {
        return Long.toString(stamp).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * {@code record} with {@link #CHECKPOINT} {@code stamp} ({@link #checkpointStamp}) after its
     * headers. The stamp's bytes may be shared by many records: headers are never changed.
     */
    public static KafkaOut withCheckpoint(KafkaOut record, byte[] stamp) {
        int n = record.headerNames().length;
        String[] names = Arrays.copyOf(record.headerNames(), n + 1);
        byte[][] values = Arrays.copyOf(record.headerValues(), n + 1);
        names[n] = CHECKPOINT;
        values[n] = stamp;
        return new KafkaOut(
                record.target(), record.key(), record.value(), names, values, record.spread());
    }

    /**
     * Rows records of a spec with {@code input.timestamp}: {@code ms}, the unit of the rows' event
     * times that end the value, a little-endian int64 of milliseconds since the epoch each.
     */
    public static final String EVENT_TIMES = "piper.event.times";

    /** The value of {@link #EVENT_TIMES}. */
    public static final String EVENT_TIMES_UNIT = "ms";

    /** Vocabulary records: the column, {@code C1}..{@code C26} (also the record key). */
    public static final String COLUMN = "piper.column";

    /** Vocabulary records: the index of the record's first entry. */
    public static final String FIRST_INDEX = "piper.first.index";

    /** Vocabulary records: the vocabulary epoch the entries belong to. */
    public static final String EPOCH = "piper.epoch";

    /** Vocabulary records: the number of entries in the record. */
    public static final String COUNT = "piper.count";

    /**
     * Vocabulary records of an evicting column ({@code lfu} or {@code ttl}; absent: the column does
     * not evict). Their value lines are {@code index<TAB>key<TAB>row<TAB>evicted key}: from row
     * {@code row} of the rows record of the same input partition and block ({@link
     * #INPUT_PARTITION}, {@link #BLOCK}) on, {@code index} names {@code key}, evicting the key
     * after the last tab (empty for an index no key held before). Rows records carry it beside
     * {@link #ASSIGNMENTS}: per sparse column (C1.., comma-separated) how it evicts, empty where it
     * does not.
     */
    public static final String EVICT = "piper.evict";

    /**
     * Vocabulary records of an evicting column: the number of the record's first assignment; a
     * column's assignments (per epoch) are numbered from 0 without gaps.
     */
    public static final String FIRST_ASSIGNMENT = "piper.first.assignment";

    /**
     * Rows records, when a sparse column evicts: per sparse column (C1.., comma-separated), the
     * assignments its vocabulary made before the block (for a column that does not evict, its
     * entries before the block). A reader that has applied that many of a column's assignments,
     * then the block's own at their rows, knows the key of every index of the block.
     */
    public static final String ASSIGNMENTS = "piper.assignments";

    /**
     * Rows records, beside {@link #ASSIGNMENTS}: per sparse column (C1.., comma-separated) the
     * assignments its vocabulary made while applying this block (0 for a column that does not
     * evict), so a reader knows how many of the block's own to wait for.
     */
    public static final String BLOCK_ASSIGNMENTS = "piper.block.assignments";

    /**
     * Rows records of a job with a vocabulary topic: per sparse column (C1.., comma-separated, list
     * columns included), its vocabulary's position once this block was applied, in the block's
     * epoch ({@link #EPOCHS}): the assignments it had made for an evicting column, else its entries
     * (OOV buckets not counted). The vocabulary records up to that position (entries below {@code
     * buckets + position}, assignments numbered below it) are the vocabulary a serving snapshot of
     * this record holds ({@code piper vocab snapshot}).
     */
    public static final String VOCAB_POSITION = "piper.vocab.position";

    private StreamFormat() {}

    /**
     * Vocabulary and rows records whose columns have OOV buckets (absent: none): the buckets of the
     * record's column (a vocabulary record) or of each sparse column C1..C26 joined by {@code ,} (a
     * rows record). That is the index of a column's first entry; indices below it are buckets.
     */
    public static final String OOV_BUCKETS = "piper.oov.buckets";
}
