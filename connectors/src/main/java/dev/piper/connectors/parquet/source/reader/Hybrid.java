package dev.piper.connectors.parquet.source.reader;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;

/**
 * Decodes Parquet's RLE / bit-packed hybrid encoding a page at a time: definition levels (width 1
 * for a flat optional column) and dictionary ids (the data of a dictionary-encoded page). Runs of
 * one value are filled in a loop; bit-packed groups of 8 go through parquet-encoding's generated
 * unpackers.
 *
 * <p>Hand-written around those unpackers because the per-value decoder of parquet-column ({@code
 * RunLengthBitPackingHybridDecoder}, one call per value, each run's header and bytes read through
 * stream objects) was the reader's hot spot: about 60% of a Criteo read's samples in a profile.
 * Decoding the whole page here brought the read from 0.9M to 1.5M rows/s on one core
 * (docs/PERFORMANCE.md).
 */
final class Hybrid {

    private static final BytePacker[] PACKERS = new BytePacker[33];

    static {
        for (int w = 0; w <= 32; w++) {
            PACKERS[w] = Packer.LITTLE_ENDIAN.newBytePacker(w);
        }
    }

    private Hybrid() {}

    /**
     * Decodes {@code count} values of {@code width} bits from {@code in} (from its position, which
     * ends after the runs read) into {@code out[0, count)}. {@code out} needs 7 spare slots after
     * {@code count} (a bit-packed group always holds 8 values).
     *
     * @throws IOException if the runs end before {@code count} values or are malformed
     */
    static void decode(ByteBuffer in, int width, int count, int[] out) throws IOException {
        if (width < 0 || width > 32) {
            throw new IOException("bit width " + width + " is out of range");
        }
        BytePacker packer = PACKERS[width];
        int valueBytes = (width + 7) >>> 3;
        int i = 0;
        try {
            while (i < count) {
                int header = readUnsignedVarInt(in);
                if ((header & 1) == 0) { // an RLE run: a count, then the value
                    int run = header >>> 1;
                    int value = 0;
                    for (int b = 0; b < valueBytes; b++) {
                        value |= (in.get() & 0xff) << (8 * b);
                    }
                    int end = Math.min(count, i + run);
                    while (i < end) {
                        out[i++] = value;
                    }
                } else { // bit-packed: groups of 8 values in `width` bytes each
                    int groups = header >>> 1;
                    int at = in.position();
                    int n = Math.min(groups, (count - i + 7) >>> 3);
                    if (in.remaining() < n * width) {
                        throw new IOException(
                                "encoded values end after "
                                        + i
                                        + " of "
                                        + count
                                        + ": a bit-packed run needs "
                                        + n * width
                                        + " bytes, "
                                        + in.remaining()
                                        + " are left");
                    }
                    if (in.hasArray()) { // the byte[] unpackers are the fast ones
                        byte[] a = in.array();
                        int base = in.arrayOffset() + at;
                        for (int g = 0; g < n; g++, i += 8) {
                            packer.unpack8Values(a, base + g * width, out, i);
                        }
                    } else {
                        for (int g = 0; g < n; g++, i += 8) {
                            packer.unpack8Values(in, at + g * width, out, i);
                        }
                    }
                    in.position(at + groups * width);
                }
            }
        } catch (RuntimeException e) { // BufferUnderflow, IndexOutOfBounds: truncated runs
            throw new IOException(
                    "encoded values end after " + i + " of " + count + " (" + e + ")", e);
        }
    }

    private static int readUnsignedVarInt(ByteBuffer in) throws IOException {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = in.get() & 0xff;
            value |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IOException("malformed run header");
    }
}
