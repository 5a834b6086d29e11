package dev.piper.connectors.parquet.source.reader;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.io.api.Binary;

/**
 * Reads one flat column of a row group page by page (data pages v1 and v2): for each value whether
 * it is present (not null) and, if so, the value. Definition levels and dictionary ids are decoded
 * a page at a time ({@link Hybrid}) and a column chunk's dictionary once, into a primitive array;
 * PLAIN INT32 and INT64 values are read in place; any other encoding (delta, byte stream split,
 * PLAIN text) through parquet-column's reader of it. Flat columns, and the leaf column of a list
 * (one level of repetition: {@link #slotStartsRow()}, {@link #slotDefinition()}).
 *
 * <p>Parquet's record-level reader ({@code ColumnReadStoreImpl}) would make a converter call per
 * value and decode levels and ids one call each; reading pages directly lets the block reader write
 * each value straight into its column array.
 */
final class ColumnCursor {

    private final ColumnDescriptor descriptor;
    private final PageReader pages;
    private final int maxDefinition;
    private final int maxRepetition;

    /** Bits of a definition level, and of a repetition level (0 or 1). */
    private final int definitionWidth;

    private final Dictionary dictionary;

    /** The current page's definition levels. */
    private int[] levels = new int[0];

    /** The current page's repetition levels (a list column's; empty for a flat column). */
    private int[] repetitions = new int[0];

    /** Values (slots, null or not) of the column chunk not read yet. */
    private long chunkLeft;

    /** The next value's index in the current page. */
    private int next;

    /** The dictionary's values, decoded once per column chunk, for an INT32 or INT64 column. */
    private final int[] dictionaryInts;

    private final long[] dictionaryLongs;

    /** Whether the current page's values are dictionary ids ({@link #ids}). */
    private boolean dictionaryPage;

    /**
     * The current page's values when they are PLAIN-encoded INT32 or INT64 (little-endian, read in
     * place); null otherwise.
     */
    private ByteBuffer plain;

    /** A dictionary page's ids of its present values, and the next one's index. */
    private int[] ids = new int[0];

    private int nextId;

    /** The current page's values, if they are not dictionary ids. */
    private ValuesReader values;

    /** Values (null or not) left in the current page. */
    private int left;

    ColumnCursor(ColumnDescriptor descriptor, PageReader pages) throws IOException {
        if (descriptor.getMaxRepetitionLevel() > 1) {
            throw new IllegalArgumentException(
                    "column "
                            + String.join(".", descriptor.getPath())
                            + " is nested in more than one list");
        }
        this.descriptor = descriptor;
        this.pages = pages;
        this.maxDefinition = descriptor.getMaxDefinitionLevel();
        this.maxRepetition = descriptor.getMaxRepetitionLevel();
        this.definitionWidth = 32 - Integer.numberOfLeadingZeros(maxDefinition);
        this.chunkLeft = pages.getTotalValueCount();
        DictionaryPage page = pages.readDictionaryPage();
        this.dictionary = page == null ? null : page.getEncoding().initDictionary(descriptor, page);
        int entries = dictionary == null ? 0 : dictionary.getMaxId() + 1;
        switch (descriptor.getPrimitiveType().getPrimitiveTypeName()) {
            case INT32 -> {
                dictionaryInts = new int[entries];
                for (int i = 0; i < entries; i++) {
                    dictionaryInts[i] = dictionary.decodeToInt(i);
                }
                dictionaryLongs = null;
            }
            case INT64 -> {
                dictionaryLongs = new long[entries];
                for (int i = 0; i < entries; i++) {
                    dictionaryLongs[i] = dictionary.decodeToLong(i);
                }
                dictionaryInts = null;
            }
            default -> {
                dictionaryInts = null;
                dictionaryLongs = null;
            }
        }
    }

    /**
     * Makes sure the current page has values and returns how many of the next {@code wanted} it
     * holds (at least 1).
     */
    int available(int wanted) throws IOException {
        if (left == 0) {
            nextPage();
        }
        return Math.min(wanted, left);
    }

    /** Marks {@code n} values of the current page read. */
    void consumed(int n) {
        left -= n;
        chunkLeft -= n;
    }

    /**
     * A list column: whether the column chunk has another slot (a value, a null or an empty list's
     * marker), reading its page if need be.
     */
    boolean hasSlot() throws IOException {
        if (left == 0 && chunkLeft > 0) {
            nextPage();
        }
        return left > 0;
    }

    /** A list column: whether the next slot starts a row (repetition level 0). */
    boolean slotStartsRow() {
        return repetitions[next] == 0;
    }

    /**
     * A list column: the next slot's definition level, without moving past it: a value is there if
     * it is {@link #maxDefinition()} (read it with {@link #readLong()} and the like, then {@link
     * #nextSlot()}).
     */
    int slotDefinition() {
        return levels[next];
    }

    /** A list column: moves past the next slot (after reading its value, if it has one). */
    void nextSlot() {
        next++;
        consumed(1);
    }

    /** A list column: the definition level of a present value. */
    int maxDefinition() {
        return maxDefinition;
    }

    /** Whether the next value is present (not null); moves past its definition level. */
    boolean present() {
        return levels[next++] == maxDefinition;
    }

    /** The next present value of an INT32 column. */
    int readInt() {
        if (dictionaryPage) {
            return dictionaryInts[ids[nextId++]];
        }
        return plain != null ? plain.getInt() : values.readInteger();
    }

    /** The next present value of an INT64 column. */
    long readLong() {
        if (dictionaryPage) {
            return dictionaryLongs[ids[nextId++]];
        }
        return plain != null ? plain.getLong() : values.readLong();
    }

    /** The next present value of a BINARY column. */
    Binary readBinary() {
        return dictionaryPage ? dictionary.decodeToBinary(ids[nextId++]) : values.readBytes();
    }

    private void nextPage() throws IOException {
        DataPage page = pages.readPage();
        if (page == null) {
            throw new IOException(
                    "column "
                            + String.join(".", descriptor.getPath())
                            + " ends before its row group does");
        }
        left = page.getValueCount();
        next = 0;
        if (levels.length < left + 8) {
            levels = new int[Math.max(left + 8, levels.length * 2)];
            if (maxRepetition > 0) {
                repetitions = new int[levels.length];
            }
        }
        if (maxDefinition == 0) {
            Arrays.fill(levels, 0, left, 0);
        }
        if (page instanceof DataPageV1 v1) {
            ByteBuffer bytes = v1.getBytes().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            // The repetition levels (a list's; a flat column writes none), then the definition
            // levels, each RLE with a length prefix.
            if (maxRepetition > 0) {
                if (v1.getRlEncoding() != Encoding.RLE) {
                    throw new IOException(
                            "column "
                                    + String.join(".", descriptor.getPath())
                                    + ": repetition levels in "
                                    + v1.getRlEncoding()
                                    + " are not supported (RLE expected)");
                }
                int length = bytes.getInt();
                Hybrid.decode(bytes.slice().limit(length), 1, left, repetitions);
                bytes.position(bytes.position() + length);
            }
            if (maxDefinition > 0) {
                if (v1.getDlEncoding() != Encoding.RLE) {
                    readLevelsSlowly(v1, bytes);
                } else {
                    int length = bytes.getInt();
                    Hybrid.decode(bytes.slice().limit(length), definitionWidth, left, levels);
                    bytes.position(bytes.position() + length);
                }
            }
            startValues(v1.getValueEncoding(), bytes.slice());
        } else if (page instanceof DataPageV2 v2) {
            if (maxRepetition > 0) {
                Hybrid.decode(v2.getRepetitionLevels().toByteBuffer(), 1, left, repetitions);
            }
            if (maxDefinition > 0) {
                Hybrid.decode(
                        v2.getDefinitionLevels().toByteBuffer(), definitionWidth, left, levels);
            }
            startValues(v2.getDataEncoding(), v2.getData().toByteBuffer());
        } else {
            throw new IOException("unknown data page " + page.getClass().getName());
        }
    }

    /**
     * Definition levels in an encoding other than RLE (the deprecated BIT_PACKED of old writers),
     * through parquet-column's reader; leaves {@code bytes} at the values.
     */
    private void readLevelsSlowly(DataPageV1 page, ByteBuffer bytes) throws IOException {
        ByteBufferInputStream in = ByteBufferInputStream.wrap(bytes.slice());
        ValuesReader levels =
                page.getDlEncoding().getValuesReader(descriptor, ValuesType.DEFINITION_LEVEL);
        levels.initFromPage(left, in);
        for (int i = 0; i < left; i++) {
            this.levels[i] = levels.readInteger();
        }
        bytes.position(bytes.position() + (int) in.position());
    }

    private boolean ints() {
        return dictionaryInts != null;
    }

    private boolean longs() {
        return dictionaryLongs != null;
    }

    /**
     * Starts reading the page's values from {@code data}: a dictionary page's ids all at once
     * ({@link Hybrid}), any other encoding through parquet-column's reader of it.
     */
    private void startValues(Encoding encoding, ByteBuffer data) throws IOException {
        dictionaryPage = encoding.usesDictionary();
        plain = null;
        if (!dictionaryPage && encoding == Encoding.PLAIN && (ints() || longs())) {
            plain = data.order(ByteOrder.LITTLE_ENDIAN);
            return;
        }
        if (!dictionaryPage) {
            values = encoding.getValuesReader(descriptor, ValuesType.VALUES);
            values.initFromPage(left, ByteBufferInputStream.wrap(data));
            return;
        }
        if (dictionary == null) {
            throw new IOException(
                    "column "
                            + String.join(".", descriptor.getPath())
                            + " has dictionary-encoded pages but no dictionary page");
        }
        int present = 0;
        for (int i = 0; i < left; i++) {
            if (levels[i] == maxDefinition) {
                present++;
            }
        }
        if (ids.length < present + 8) {
            ids = new int[Math.max(present + 8, ids.length * 2)];
        }
        nextId = 0;
        if (present > 0) {
            int width = data.get() & 0xff;
            Hybrid.decode(data, width, present, ids);
        }
    }
}
