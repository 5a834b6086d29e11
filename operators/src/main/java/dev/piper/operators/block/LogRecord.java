package dev.piper.operators.block;

/**
 * One record of a partitioned log (a Kafka topic) as read: its value holds one input line or
 * several {@code \n}-separated lines. A null value (a tombstone) is read as an empty value.
 *
 * @param partition the record's partition, which becomes its lane
 * @param offset the record's offset in its partition
 * @param timestamp the record's timestamp (ms since the epoch), or -1
 * @param value the record's value
 */
public record LogRecord(int partition, long offset, long timestamp, byte[] value) {}
