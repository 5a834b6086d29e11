package dev.piper.core.block;

/**
 * One record of a partitioned log (a Kafka topic) as read: its value holds one input line or
 * several {@code \n}-separated lines. A null value (a tombstone) is read as an empty value.
 *
 * @param lane the record's lane: its partition, with its pipeline when a job reads several topics
 *     ({@link Lanes})
 * @param offset the record's offset in its partition
 * @param timestamp the record's timestamp (ms since the epoch), or -1
 * @param value the record's value
 */
public record LogRecord(int lane, long offset, long timestamp, byte[] value) {}
