package dev.piper.pipeline.generate;

import dev.piper.pipeline.ops.DecodeOptions;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.commons.rng.UniformRandomProvider;

/**
 * The kinds of malformed line the generator writes, one per dead-letter reason, plus a line that
 * lost its trailing empty fields (a real-file quirk: rejected by default, a valid row with {@code
 * --pad-missing-fields}).
 */
enum BadLine {
    EXTRA_FIELD {
        @Override
        void write(CriteoGenerator g, OutputStream out) throws IOException {
            writeFields(out, g.rowFields());
            out.write("\textra".getBytes(StandardCharsets.US_ASCII));
        }
    },
    LOST_TRAILING_FIELDS {
        @Override
        void write(CriteoGenerator g, OutputStream out) throws IOException {
            byte[][] f = g.rowFields();
            int keep = g.layout().inputFields() - 1 - g.rng().nextInt(3);
            for (int i = keep; i < f.length; i++) {
                f[i] = new byte[0];
            }
            byte[][] kept = new byte[keep][];
            System.arraycopy(f, 0, kept, 0, keep);
            writeFields(out, kept);
        }
    },
    BAD_LABEL {
        @Override
        void write(CriteoGenerator g, OutputStream out) throws IOException {
            byte[][] f = g.rowFields();
            f[0] = ascii("yes");
            writeFields(out, f);
        }
    },
    BAD_DENSE {
        @Override
        void write(CriteoGenerator g, OutputStream out) throws IOException {
            byte[][] f = g.rowFields();
            int j = 1 + g.rng().nextInt(g.layout().dense());
            f[j] = g.rng().nextBoolean() ? ascii("12x") : ascii("4294967296");
            writeFields(out, f);
        }
    },
    NOT_HEX {
        @Override
        void write(CriteoGenerator g, OutputStream out) throws IOException {
            byte[][] f = g.rowFields();
            f[1 + g.layout().dense() + g.rng().nextInt(g.layout().sparse())] = ascii("zz0g1234");
            writeFields(out, f);
        }
    },
    WIDE_HEX {
        @Override
        void write(CriteoGenerator g, OutputStream out) throws IOException {
            byte[][] f = g.rowFields();
            f[1 + g.layout().dense() + g.rng().nextInt(g.layout().sparse())] =
                    ascii("1ffffffffffffffff");
            writeFields(out, f);
        }
    },
    INVALID_UTF8 {
        @Override
        void write(CriteoGenerator g, OutputStream out) throws IOException {
            byte[][] f = g.rowFields();
            f[1 + g.layout().dense()] = new byte[] {'a', (byte) 0xff, 'b'};
            writeFields(out, f);
        }
    },
    EMPTY {
        @Override
        void write(CriteoGenerator g, OutputStream out) {}
    },
    TOO_LONG {
        @Override
        void write(CriteoGenerator g, OutputStream out) throws IOException {
            byte[][] f = g.rowFields();
            byte[] filler = new byte[DecodeOptions.DEFAULT_MAX_LINE_BYTES + 1];
            Arrays.fill(filler, (byte) 'a');
            f[1 + g.layout().dense()] = filler;
            writeFields(out, f);
        }
    };

    /** Writes the malformed line, without its line break. */
    abstract void write(CriteoGenerator g, OutputStream out) throws IOException;

    /** Every kind but {@link #TOO_LONG} equally often; that one in 1% of bad lines (it is big). */
    static BadLine pick(UniformRandomProvider rng) {
        if (rng.nextDouble() < 0.01) {
            return TOO_LONG;
        }
        return values()[rng.nextInt(values().length - 1)];
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void writeFields(OutputStream out, byte[][] fields) throws IOException {
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                out.write('\t');
            }
            out.write(fields[i]);
        }
    }
}
