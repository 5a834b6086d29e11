package dev.piper.output;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Turns the raw bytes of a rejected line into text for a dead-letter record without losing
 * information: valid UTF-8 is kept, a byte that is not part of valid UTF-8 becomes {@code \xNN}
 * (two upper-case hex digits), and a backslash becomes {@code \\}, so the bytes can always be
 * recovered. JSON escaping is applied on top by the JSON writer.
 */
public final class RawText {

    private RawText() {}

    public static String escape(byte[] raw) {
        CharsetDecoder decoder =
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(raw);
        CharBuffer chars = CharBuffer.allocate(raw.length + 1);
        StringBuilder out = new StringBuilder(raw.length + 16);
        while (true) {
            CoderResult result = decoder.decode(in, chars, true);
            chars.flip();
            appendEscapingBackslash(chars, out);
            chars.clear();
            if (result.isUnderflow()) {
                break;
            }
            if (result.isError()) {
                for (int i = 0; i < result.length(); i++) {
                    out.append(String.format("\\x%02X", in.get() & 0xff));
                }
            }
        }
        decoder.flush(chars);
        chars.flip();
        appendEscapingBackslash(chars, out);
        return out.toString();
    }

    private static void appendEscapingBackslash(CharBuffer chars, StringBuilder out) {
        while (chars.hasRemaining()) {
            char c = chars.get();
            if (c == '\\') {
                out.append("\\\\");
            } else {
                out.append(c);
            }
        }
    }
}
