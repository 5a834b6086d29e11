package dev.piper.cli;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Binary records as the tests send them to {@code piper serve} and read them from files. */
final class Frames {

    private Frames() {}

    /** Each record as a 4-byte big-endian length, then the record: a request's body. */
    static byte[] framed(List<byte[]> records) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] r : records) {
            out.writeBytes(ByteBuffer.allocate(4).putInt(r.length).array());
            out.writeBytes(r);
        }
        return out.toByteArray();
    }

    /** The messages of a length-delimited Protobuf file: each a varint length, then the message. */
    static List<byte[]> delimited(byte[] file) {
        List<byte[]> out = new ArrayList<>();
        int at = 0;
        while (at < file.length) {
            int length = 0;
            for (int shift = 0; ; shift += 7) {
                byte b = file[at++];
                length |= (b & 0x7f) << shift;
                if (b >= 0) {
                    break;
                }
            }
            out.add(Arrays.copyOfRange(file, at, at + length));
            at += length;
        }
        return out;
    }
}
