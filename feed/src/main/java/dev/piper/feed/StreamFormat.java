package dev.piper.feed;

import dev.piper.core.block.KafkaOut;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Names of the headers {@code bin/piper stream} puts on its vocabulary, hot-set and dead-letter
 * records, and of those its rows records share with them (the contract in {@code
 * docs/SEMANTICS.md}, "Kafka output"); the rows records' own are {@link RowsRecord}'s, beside their
 * reading. Every header value is ASCII text.
 */
public final class StreamFormat {

    /**
     * Rows records with Hotline's split (record format 3): the number of the record's first row in
     * the split's row order (rows of the Hotline operator, from 0).
     */
    public static final String HOTLINE_FIRST_ROW = "piper.hotline.first.row";

    /**
     * Hot-set records on the vocabulary topic (key {@code hotline}): the window's number; its first
     * row is {@link #HOTLINE_FIRST_ROW}.
     */
    public static final String HOTLINE_WINDOW = "piper.hotline.window";

    /** The key of hot-set records on the vocabulary topic. */
    public static final String HOTLINE_KEY = "hotline";

    /** Rows records: the block's number within its input partition, from 0 without gaps. */
    public static final String BLOCK = "piper.block";

    /** Rows and dead-letter records: the input topic. */
    public static final String INPUT_TOPIC = "piper.input.topic";

    /** Rows and dead-letter records: the input partition. */
    public static final String INPUT_PARTITION = "piper.input.partition";

    /** {@link RowsRecord#CHECKPOINT}'s value for commit stamp {@code stamp}: its decimal digits. */
    public static byte[] checkpointStamp(long stamp) {
        return Long.toString(stamp).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * {@code record} with {@link RowsRecord#CHECKPOINT} {@code stamp} ({@link #checkpointStamp})
     * after its headers. The stamp's bytes may be shared by many records: headers are never
     * changed.
     */
    public static KafkaOut withCheckpoint(KafkaOut record, byte[] stamp) {
        int n = record.headerNames().length;
        String[] names = Arrays.copyOf(record.headerNames(), n + 1);
        byte[][] values = Arrays.copyOf(record.headerValues(), n + 1);
        names[n] = RowsRecord.CHECKPOINT;
        values[n] = stamp;
        return new KafkaOut(
                record.target(), record.key(), record.value(), names, values, record.spread());
    }

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

    private StreamFormat() {}

    /**
     * Vocabulary and rows records whose columns have OOV buckets (absent: none): the buckets of the
     * record's column (a vocabulary record) or of each sparse column C1..C26 joined by {@code ,} (a
     * rows record). That is the index of a column's first entry; indices below it are buckets.
     */
    public static final String OOV_BUCKETS = "piper.oov.buckets";
}
