package dev.piper.core.block;

/**
 * One record for the Kafka sink: which of the job's output topics it goes to, its key, value and
 * headers (names and values in parallel arrays).
 *
 * @param target which topic: {@code pipeline * KINDS + kind}, the kind being {@link #ROWS}, {@link
 *     #DEAD_LETTERS}, {@link #VOCAB} or {@link #STATUS}
 * @param spread which partition of its topic the record goes to: -1 for Kafka's partitioner on the
 *     key, otherwise partition {@code spread} modulo the topic's partition count
 */
public record KafkaOut(
        int target,
        byte[] key,
        byte[] value,
        String[] headerNames,
        byte[][] headerValues,
        long spread) {

    /** A record partitioned by its key. */
    public KafkaOut(
            int target, byte[] key, byte[] value, String[] headerNames, byte[][] headerValues) {
        this(target, key, value, headerNames, headerValues, BY_KEY);
    }

    /** {@link #spread()} of a record partitioned by its key. */
    public static final long BY_KEY = -1;

    /**
     * Bytes of rows one rows record holds at most: under Kafka's default 1 MiB record limit with
     * room for the headers. Criteo's 4,096 rows of 160 bytes (640 KiB) fit; wider rows come in
     * fewer to a block.
     */
    public static final int MAX_ROW_BYTES = (1 << 20) - (64 << 10);

    /** Kafka's default record limit (a broker's {@code message.max.bytes}, about 1 MiB). */
    public static final int DEFAULT_RECORD_LIMIT = 1 << 20;

    /**
     * The largest rows record of blocks of at most {@code blockBytes} input bytes: within Kafka's
     * default 1 MiB without list columns; with them, the rows and 4 bytes of list values or lengths
     * per input byte at most (every id and every list field takes at least one byte of its line, a
     * separator or a tab).
     */
    public static int maxRecordBytes(int blockBytes, boolean lists) {
        if (!lists) {
            return DEFAULT_RECORD_LIMIT;
        }
        return (int) Math.min(Integer.MAX_VALUE - (1 << 20), (1L << 20) + 4L * blockBytes);
    }

    public static final int ROWS = 0;
    public static final int DEAD_LETTERS = 1;
    public static final int VOCAB = 2;
    public static final int STATUS = 3;

    /** Kinds of output per pipeline. */
    public static final int KINDS = 4;

    /** The target of pipeline {@code pipeline}'s output of kind {@code kind}. */
    public static int target(int pipeline, int kind) {
        return pipeline * KINDS + kind;
    }

    public KafkaOut {
        if (headerNames.length != headerValues.length) {
            throw new IllegalArgumentException(
                    headerNames.length + " header names but " + headerValues.length + " values");
        }
    }
}
