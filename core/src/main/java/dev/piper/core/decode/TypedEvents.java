package dev.piper.core.decode;

import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DeadLetter;
import dev.piper.pipeline.ops.DecodeOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * Events of named fields whose typed values a reader outside this package walks (Parquet's record
 * assembly), made into a block's rows by the rules every event format follows (docs/SEMANTICS.md,
 * "JSON input"; {@link EventValues}): the reader calls {@link #startEvent}, then a value method for
 * each value it meets at a column's path (naming the layout fields that read it, numbered as in the
 * layout, the event time one past its last field), then {@link #endEvent}, which makes the event a
 * row or a dead letter naming the column, its path and the value. So a Parquet row and the same
 * event as a JSON line become the same row.
 *
 * <p>Not thread-safe; one per reader.
 */
public final class TypedEvents {

    private final EventValues values;
    private final EventRows rows;

    // The block being read.
    private List<DeadLetter> dead;
    private int lines;

    /**
     * @param options the pipeline's decoding, with the events' fields ({@link
     *     DecodeOptions#events()})
     */
    public TypedEvents(DecodeOptions options) {
        if (options.events() == null) {
            throw new IllegalArgumentException("options without event fields");
        }
        this.values = new EventValues(options, false);
        this.rows = values.rows;
    }

    /** Starts a block. */
    public void startBlock() {
        rows.startBlock();
        dead = new ArrayList<>();
        lines = 0;
    }

    /** Starts an event: nothing read, nothing wrong. */
    public void startEvent() {
        values.startEvent();
    }

    /** A boolean at the path of {@code targets}. */
    public void bool(int[] targets, boolean v) {
        values.bool(targets, v);
    }

    /** An integer at the path of {@code targets}. */
    public void integer(int[] targets, long v) {
        values.integer(targets, v);
    }

    /** A floating-point number, of {@code type} ("float", "double"). */
    public void real(int[] targets, double v, String type) {
        values.real(targets, v, type);
    }

    /** Text (UTF-8 {@code b[s, e)}): decimal for a dense column, an id for a sparse one. */
    public void text(int[] targets, byte[] b, int s, int e) {
        values.text(targets, b, s, e);
    }

    /**
     * Starts a list read by {@code targets}; returns the first list field among them, to which the
     * items go, or -1 if none is a list (the items are then not wanted).
     */
    public int startList(int[] targets) {
        return values.startList(targets);
    }

    /** Appends integer id {@code id} to list field {@code f}'s list. */
    public void listInteger(int f, long id) {
        values.listInteger(f, id);
    }

    /** Appends text id {@code b[s, e)}, item {@code i} (from 0), to list field {@code f}. */
    public void listText(int f, int i, byte[] b, int s, int e) {
        values.listText(f, i, b, s, e);
    }

    /** Item {@code i} of list field {@code f} is null. */
    public void listNull(int f, int i) {
        values.listNull(f, i);
    }

    /** Ends the list {@link #startList} began: the other list fields of {@code targets} get it. */
    public void endList(int[] targets, int first) {
        values.endList(targets, first);
    }

    /**
     * Ends the event: a row, or a dead letter without raw bytes (the reader has none), its detail
     * naming the column, its path and the value.
     *
     * @return whether the event became a row
     */
    public boolean endEvent() {
        if (values.complete()) {
            rows.commit();
            lines++;
            return true;
        }
        dead.add(values.deadLetterWithoutBytes(lines++));
        return false;
    }

    /**
     * Ends the block: the columns' operators run over its rows.
     *
     * @param lane the input lane (0: a file)
     * @param seq the block's number in its lane
     * @param firstRow index in the file of the block's first event
     */
    public ColumnBlock finishBlock(int lane, long seq, long firstRow) {
        ColumnBlock block = rows.finishColumns(lane, seq, firstRow, lines, dead);
        dead = null;
        return block;
    }
}
