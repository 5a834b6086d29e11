package dev.piper.job;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * An independent, deliberately plain implementation of the batch contract (docs/SEMANTICS.md), row
 * by row, with strings, regular expressions and BigInteger: slow and obviously right. The job's
 * output must equal it byte for byte. It shares no code with the job.
 */
final class ReferencePreprocessor {

    private static final Pattern INT = Pattern.compile("[+-]?[0-9]+");
    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]*");
    private static final BigInteger INT_MIN = BigInteger.valueOf(Integer.MIN_VALUE);
    private static final BigInteger INT_MAX = BigInteger.valueOf(Integer.MAX_VALUE);

    /** One rejected line. */
    record Rejected(long line, long offset, String reason) {}

    /**
     * Everything the contract says the output holds; per list column (in column order) the bytes of
     * {@code lists/Cj.lengths} and {@code lists/Cj.values}.
     */
    record Result(
            byte[] rows,
            List<String> vocabFiles,
            List<Rejected> rejected,
            long linesRead,
            long rowsWritten,
            List<byte[]> listLengths,
            List<byte[]> listValues) {

        Result(
                byte[] rows,
                List<String> vocabFiles,
                List<Rejected> rejected,
                long linesRead,
                long rowsWritten) {
            this(rows, vocabFiles, rejected, linesRead, rowsWritten, List.of(), List.of());
        }
    }

    /** A list column's keys from its ids (the empty list when the field is empty). */
    interface ListKeys {
        List<BigInteger> keys(List<BigInteger> ids, boolean empty);
    }

    static Result run(byte[] input, long maxIndRange, boolean padMissingFields, int maxLineBytes) {
        long[] modulus = new long[26];
        Arrays.fill(modulus, maxIndRange);
        boolean[] neg2zero = new boolean[14];
        Arrays.fill(neg2zero, 1, 14, true);
        return run(input, modulus, neg2zero, new boolean[14], padMissingFields, maxLineBytes);
    }

    /**
     * A pipeline with per-column operators: {@code modulus[c]} for Cc+1 (0 or less: none), and for
     * field j (1..13 dense) {@code neg2zero[j]} and {@code log[j]}: log(x + 1) as float32 bits,
     * float32(x) + 1 in float32 and its logarithm rounded to float32 (docs/SPECS.md).
     */
    static Result run(
            byte[] input,
            long[] modulus,
            boolean[] neg2zero,
            boolean[] log,
            boolean padMissingFields,
            int maxLineBytes) {
        Dense[] dense = new Dense[14];
        for (int j = 0; j < 14; j++) {
            boolean n2z = j > 0 && neg2zero[j];
            boolean lg = log[j];
            dense[j] =
                    field -> {
                        int v = field.isEmpty() ? 0 : Integer.parseInt(field.replace("+", ""));
                        if (n2z && v < 0) {
                            v = 0;
                        }
                        return lg ? Float.floatToRawIntBits((float) Math.log((float) v + 1f)) : v;
                    };
        }
        Key[] keys = new Key[26];
        for (int c = 0; c < 26; c++) {
            BigInteger m = BigInteger.valueOf(modulus[c]);
            keys[c] = modulus[c] > 0 ? (id, empty) -> id.mod(m) : (id, empty) -> id;
        }
        return run(input, dense, keys, padMissingFields, maxLineBytes);
    }

    /** A label or dense column's value: from the field's text (empty, or a valid int32). */
    interface Dense {
        int value(String field);
    }

    /** A categorical column's key: from the field's id (0 when the field is empty). */
    interface Key {
        BigInteger key(BigInteger id, boolean empty);
    }

    /**
     * A pipeline given as functions: {@code dense[j]} for the label (j = 0) and I1..I13, {@code
     * keys[c]} for C(c + 1); in another layout, as many of each as it has.
     */
    static Result run(
            byte[] input, Dense[] dense, Key[] keyFns, boolean padMissingFields, int maxLineBytes) {
        VocabRule[] rules = new VocabRule[keyFns.length];
        Arrays.fill(rules, VocabRule.FIRST_APPEARANCE);
        return run(input, dense, keyFns, rules, padMissingFields, maxLineBytes);
    }

    /**
     * A categorical column's vocabulary rule, as docs/SPECS.md words it: {@code imported} keys take
     * the first entries; a key is admitted at its {@code minCount}-th occurrence while fewer than
     * {@code maxSize} entries exist; entries are numbered from {@code oov}; a key without an entry
     * goes to bucket splitmix64-finalizer(key) mod oov.
     */
    record VocabRule(int minCount, int oov, long maxSize, List<BigInteger> imported) {
        static final VocabRule FIRST_APPEARANCE = new VocabRule(1, 0, Long.MAX_VALUE, List.of());
    }

    /** One column's vocabulary under its rule. */
    private static final class Vocab {
        final VocabRule rule;
        final Map<BigInteger, Integer> entries = new LinkedHashMap<>();
        final Map<BigInteger, Integer> seen = new java.util.HashMap<>();

        Vocab(VocabRule rule) {
            this.rule = rule;
            for (BigInteger k : rule.imported()) {
                entries.put(k, rule.oov() + entries.size());
            }
        }

        int index(BigInteger key) {
            Integer index = entries.get(key);
            if (index != null) {
                return index;
            }
            int times = seen.merge(key, 1, Integer::sum);
            if (times >= rule.minCount() && entries.size() < rule.maxSize()) {
                index = rule.oov() + entries.size();
                entries.put(key, index);
                return index;
            }
            return bucket(key.longValue(), rule.oov());
        }

        /** SplitMix64's finalizer (Stafford's mix 13), unsigned, mod the bucket count. */
        private static int bucket(long z, int buckets) {
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            z = z ^ (z >>> 31);
            return (int) Long.remainderUnsigned(z, buckets);
        }
    }

    /** As above, with each categorical column's vocabulary rule. */
    static Result run(
            byte[] input,
            Dense[] dense,
            Key[] keyFns,
            VocabRule[] rules,
            boolean padMissingFields,
            int maxLineBytes) {
        return run(
                input,
                dense,
                keyFns,
                rules,
                new ListKeys[keyFns.length],
                ',',
                padMissingFields,
                maxLineBytes);
    }

    /**
     * As above, with list columns: {@code lists[c]} for a list column (its {@code keyFns[c]} is
     * unused), null for the others; a list field's ids are separated by {@code separator}.
     */
    static Result run(
            byte[] input,
            Dense[] dense,
            Key[] keyFns,
            VocabRule[] rules,
            ListKeys[] lists,
            char separator,
            boolean padMissingFields,
            int maxLineBytes) {
        return run(
                input,
                dense,
                new int[0],
                new Dense[0],
                keyFns,
                rules,
                lists,
                separator,
                padMissingFields,
                maxLineBytes);
    }

    /**
     * As above, with generated columns: {@code generated[g]} is G(g + 1)'s function of the text of
     * dense field {@code generatedFrom[g]} (1 for I1); their values follow the dense ones in a row.
     */
    static Result run(
            byte[] input,
            Dense[] dense,
            int[] generatedFrom,
            Dense[] generated,
            Key[] keyFns,
            VocabRule[] rules,
            ListKeys[] lists,
            char separator,
            boolean padMissingFields,
            int maxLineBytes) {
        ByteArrayOutputStream rows = new ByteArrayOutputStream();
        List<ByteArrayOutputStream> lengths = new ArrayList<>();
        List<ByteArrayOutputStream> values = new ArrayList<>();
        for (ListKeys l : lists) {
            if (l != null) {
                lengths.add(new ByteArrayOutputStream());
                values.add(new ByteArrayOutputStream());
            }
        }
        List<Vocab> vocab = new ArrayList<>();
        for (int c = 0; c < keyFns.length; c++) {
            vocab.add(new Vocab(rules[c]));
        }
        List<Rejected> rejected = new ArrayList<>();
        long lineNo = 0;
        long rowsWritten = 0;
        int start = 0;
        while (start < input.length) {
            int nl = start;
            while (nl < input.length && input[nl] != '\n') {
                nl++;
            }
            lineNo++;
            byte[] line = Arrays.copyOfRange(input, start, nl);
            if (line.length > 0 && line[line.length - 1] == '\r') {
                line = Arrays.copyOf(line, line.length - 1);
            }
            String reason =
                    parse(
                            line,
                            dense,
                            generatedFrom,
                            generated,
                            keyFns,
                            lists,
                            separator,
                            padMissingFields,
                            maxLineBytes,
                            vocab,
                            rows,
                            lengths,
                            values);
            if (reason == null) {
                rowsWritten++;
            } else {
                rejected.add(new Rejected(lineNo, start, reason));
            }
            start = nl + 1;
        }
        List<String> files = new ArrayList<>();
        for (Vocab v : vocab) {
            StringBuilder sb = new StringBuilder();
            v.entries.forEach(
                    (key, index) -> sb.append(index).append('\t').append(key).append('\n'));
            files.add(sb.toString());
        }
        return new Result(
                rows.toByteArray(),
                files,
                rejected,
                lineNo,
                rowsWritten,
                lengths.stream().map(ByteArrayOutputStream::toByteArray).toList(),
                values.stream().map(ByteArrayOutputStream::toByteArray).toList());
    }

    /** Appends the row and returns null, or returns the reason the line is rejected. */
    private static String parse(
            byte[] line,
            Dense[] dense,
            int[] generatedFrom,
            Dense[] generated,
            Key[] keyFns,
            ListKeys[] lists,
            char separator,
            boolean pad,
            int maxLineBytes,
            List<Vocab> vocab,
            ByteArrayOutputStream rows,
            List<ByteArrayOutputStream> lengths,
            List<ByteArrayOutputStream> values) {
        if (line.length == 0) {
            return "empty_line";
        }
        if (line.length > maxLineBytes) {
            return "line_too_long";
        }
        String text;
        try {
            text =
                    StandardCharsets.UTF_8
                            .newDecoder()
                            .onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(line))
                            .toString();
        } catch (CharacterCodingException e) {
            return "invalid_utf8";
        }
        // the layout: the label and dense columns, then the categorical ones (Criteo: 14 and 26)
        int width = dense.length;
        int sparse = keyFns.length;
        List<String> fields = new ArrayList<>(Arrays.asList(text.split("\t", -1)));
        if (fields.size() > width + sparse || (fields.size() < width + sparse && !pad)) {
            return "wrong_field_count";
        }
        while (fields.size() < width + sparse) {
            fields.add("");
        }
        int[] denseValues = new int[width];
        for (int j = 0; j < width; j++) {
            String f = fields.get(j);
            if (f.isEmpty()) {
                continue;
            }
            if (!INT.matcher(f).matches()) {
                return j == 0 ? "label_not_int32" : "dense_not_int32";
            }
            BigInteger v = new BigInteger(f.startsWith("+") ? f.substring(1) : f);
            if (v.compareTo(INT_MIN) < 0 || v.compareTo(INT_MAX) > 0) {
                return j == 0 ? "label_not_int32" : "dense_not_int32";
            }
        }
        for (int j = 0; j < width; j++) {
            denseValues[j] = dense[j].value(fields.get(j));
        }
        BigInteger[] keys = new BigInteger[sparse];
        List<List<BigInteger>> listKeys = new ArrayList<>();
        for (int c = 0; c < sparse; c++) {
            String f = fields.get(width + c);
            if (lists[c] != null) {
                List<BigInteger> ids = new ArrayList<>();
                if (!f.isEmpty()) {
                    for (String id : f.split(Pattern.quote(String.valueOf(separator)), -1)) {
                        if (id.isEmpty() || !HEX.matcher(id).matches()) {
                            return "categorical_not_hex";
                        }
                        BigInteger v = new BigInteger(id, 16);
                        if (v.bitLength() > 64) {
                            return "categorical_overflow";
                        }
                        ids.add(v);
                    }
                }
                listKeys.add(lists[c].keys(ids, f.isEmpty()));
                continue;
            }
            if (!HEX.matcher(f).matches()) {
                return "categorical_not_hex";
            }
            BigInteger id = f.isEmpty() ? BigInteger.ZERO : new BigInteger(f, 16);
            if (id.bitLength() > 64) {
                return "categorical_overflow";
            }
            keys[c] = keyFns[c].key(id, f.isEmpty());
        }
        ByteBuffer row =
                ByteBuffer.allocate(4 * (width + generated.length + sparse - listKeys.size()))
                        .order(ByteOrder.LITTLE_ENDIAN);
        for (int v : denseValues) {
            row.putInt(v);
        }
        for (int g = 0; g < generated.length; g++) {
            row.putInt(generated[g].value(fields.get(generatedFrom[g])));
        }
        int l = 0;
        for (int c = 0; c < sparse; c++) {
            if (lists[c] == null) {
                row.putInt(vocab.get(c).index(keys[c]));
                continue;
            }
            List<BigInteger> k = listKeys.get(l);
            lengths.get(l).writeBytes(littleEndian(k.size()));
            for (BigInteger key : k) {
                values.get(l).writeBytes(littleEndian(vocab.get(c).index(key)));
            }
            l++;
        }
        rows.writeBytes(row.array());
        return null;
    }

    private static byte[] littleEndian(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
    }

    private ReferencePreprocessor() {}
}
