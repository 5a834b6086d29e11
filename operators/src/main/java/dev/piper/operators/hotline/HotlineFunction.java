package dev.piper.operators.hotline;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.Lanes;
import dev.piper.pipeline.hotline.Hotline;
import dev.piper.pipeline.hotline.HotlineSettings;
import dev.piper.pipeline.hotline.Split;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.state.HotlineSerializer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Hotline's split ({@link Hotline}), keyed by pipeline: it sees a pipeline's assembled blocks in
 * output order (after the sequence), learns each column's popular entries from the sampled rows,
 * chooses the hot set of each window across all columns under one budget, and attaches to each
 * block the popular flag of every row, the working parameters of its non-popular rows and the hot
 * sets of the windows that start in it.
 *
 * <p>Why here and not in the vocabulary operators: a hot set is chosen across all columns and a row
 * is classified by all of them, so both need the rows whole and in one order; the vocabulary
 * operators each see one column, and with several input partitions in orders of their own. Counting
 * a sampled row's indices costs about what classifying it does (a table update per index), so one
 * ordered place is cheap ({@code docs/HOTLINE.md} has the measurement).
 *
 * <p>State: {@link #STATE}, the pipeline's {@link Hotline} (trackers, hot set, rows seen), written
 * by {@link HotlineSerializer}. On the heap backend {@code value()} is the live object.
 */
public final class HotlineFunction
        extends KeyedProcessFunction<Integer, AssembledBlock, AssembledBlock> {

    private static final long serialVersionUID = 1L;

    public static final ValueStateDescriptor<Hotline> STATE =
            new ValueStateDescriptor<>("hotline", HotlineSerializer.INSTANCE);

    private final HotlineSettings[] settings;
    private final RowLayout[] layouts;
    private final boolean working;

    /** Per pipeline, its layout's scalar and list sparse columns, in row and value order. */
    private final int[][] scalarColumns;

    private final int[][] listColumns;

    private transient ValueState<Hotline> state;
    private transient Counter popularRows;
    private transient Counter rows;

    /**
     * @param settings each pipeline's split, by pipeline number; null for a pipeline whose blocks
     *     pass without one
     * @param layouts each pipeline's row layout, by pipeline number
     * @param working whether each split carries its working parameters (the Kafka feed's records
     *     do; the batch files do not)
     */
    public HotlineFunction(HotlineSettings[] settings, RowLayout[] layouts, boolean working) {
        if (settings.length != layouts.length) {
            throw new IllegalArgumentException("one setting and one layout per pipeline");
        }
        this.settings = settings.clone();
        this.layouts = layouts.clone();
        this.working = working;
        this.scalarColumns = new int[layouts.length][];
        this.listColumns = new int[layouts.length][];
        for (int p = 0; p < layouts.length; p++) {
            scalarColumns[p] = layouts[p].scalarColumns();
            listColumns[p] =
                    layouts[p].listColumns().stream().mapToInt(Integer::intValue).toArray();
        }
    }

    @Override
    public void open(OpenContext openContext) {
        state = getRuntimeContext().getState(STATE);
        var metrics = getRuntimeContext().getMetricGroup().addGroup("hotline");
        popularRows = metrics.counter("popularRows");
        rows = metrics.counter("rows");
    }

    @Override
    public void processElement(AssembledBlock block, Context ctx, Collector<AssembledBlock> out)
            throws Exception {
        int p = Lanes.pipeline(block.lane());
        HotlineSettings settings = this.settings[p];
        if (settings == null) {
            out.collect(block);
            return;
        }
        RowLayout layout = layouts[p];
        if (block.newKeys().length != layout.sparse()
                || block.listOffsets().length != layout.listColumns().size()) {
            throw new IllegalStateException(
                    "block "
                            + block.lane()
                            + "/"
                            + block.seq()
                            + " has "
                            + block.newKeys().length
                            + " sparse columns and "
                            + block.listOffsets().length
                            + " lists; Hotline splits rows of "
                            + layout);
        }
        Hotline h = state.value();
        if (h == null) {
            h = new Hotline(settings, layout.sparse());
        } else if (!h.settings().equals(settings)) {
            h.reconfigure(settings);
        }
        int rowInts =
                block.rows() == 0 ? 0 : block.rowBytes().length / Integer.BYTES / block.rows();
        Split split =
                h.apply(
                        block.rows(),
                        block.rowBytes(),
                        rowInts,
                        block.rows() == 0 ? new int[0] : scalarColumns[p],
                        listColumns[p],
                        block.listOffsets(),
                        block.listIndices(),
                        block.eventTimes(),
                        working);
        state.update(h);
        rows.inc(block.rows());
        popularRows.inc(split.popularRows());
        out.collect(block.withSplit(split));
    }
}
