/**
 * How a pipeline reads events with named fields (JSON today): the input formats, the path of each
 * column's field in an event, and the stable hash that turns string ids into 64-bit keys. Plain
 * Java; the decoders that use them live in {@code dev.piper.core.decode}.
 */
package dev.piper.pipeline.input;
