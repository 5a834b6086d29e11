package dev.piper.operators.cost;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.hwmodel.FpgaModel;
import dev.piper.hwmodel.SmartSsdModel;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The hardware cost model as a Flink operator (parallelism 1), a thin wrapper around the pure
 * {@code hardware-model} module: it adds up the {@link CostSample}s of the measuring operators per
 * pipeline and column, and every interval (processing time, or a number of decoded lines) emits one
 * JSON report per pipeline covering that interval's work, with the vocabularies' entries as they
 * stand. At the end of a bounded input it emits the report of the whole run (marked {@code "final":
 * true}). The latest figures of the whole run are also Flink gauges, per pipeline and column
 * ({@code pipeline.<name>.column.<C3>.fpgaSpeedup} and so on).
 *
 * <p>Reports are measurements, not results: the operator keeps no checkpointed state, and after a
 * restore its totals start again from the restore.
 */
public final class CostModelOperator extends AbstractStreamOperator<String>
        implements OneInputStreamOperator<CostSample, String>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private final ColumnProgram[] programs;
    private final ReportSettings settings;

    private transient FpgaModel fpga;
    private transient SmartSsdModel ssd;
    private transient ColumnAccounts[] interval;
    private transient ColumnAccounts[] total;
    private transient long[][] entries;

    /** Per pipeline, each field's bytes summed over the blocks whose fields were counted. */
    private transient long[][] countedBytes;

    /** The whole run's report per pipeline as of the last interval, for the gauges' thread. */
    private transient AtomicReferenceArray<ObjectNode> published;

    private transient int index;
    private transient long linesSinceReport;

    /**
     * @param programs each pipeline's column program, by pipeline index
     */
    public CostModelOperator(ColumnProgram[] programs, ReportSettings settings) {
        this.programs = programs.clone();
        this.settings = settings;
    }

    @Override
    public void open() throws Exception {
        super.open();
        fpga = settings.fpga(programs.length);
        ssd = SmartSsdModel.presto();
        interval = new ColumnAccounts[programs.length];
        total = new ColumnAccounts[programs.length];
        entries = new long[programs.length][CriteoLayout.SPARSE];
        countedBytes = new long[programs.length][CriteoLayout.FIELDS];
        published = new AtomicReferenceArray<>(programs.length);
        for (int p = 0; p < programs.length; p++) {
            interval[p] = new ColumnAccounts(programs[p]);
            total[p] = new ColumnAccounts(programs[p]);
            Arrays.fill(entries[p], -1);
            registerGauges(p);
        }
        scheduleNext();
    }

    private void scheduleNext() {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        getProcessingTimeService()
                .registerTimer(
                        now + settings.intervalMillis(),
                        t -> {
                            emitIntervals();
                            scheduleNext();
                        });
    }

    @Override
    public void processElement(StreamRecord<CostSample> element) {
        CostSample s = element.getValue();
        int p = s.pipeline();
        if (p < 0 || p >= programs.length) {
            throw new IllegalStateException(
                    "cost sample of pipeline " + p + "; the job has " + programs.length);
        }
        double[] shares = null;
        if (s.stage() == CostSample.Stage.DECODE) {
            for (int f = 0; f < s.fieldBytes().length; f++) {
                countedBytes[p][f] += s.fieldBytes()[f];
            }
            if (s.fieldBytes().length == 0) { // split by what was counted so far
                shares = shares(countedBytes[p]);
            }
        }
        interval[p].add(s, shares);
        total[p].add(s, shares);
        if (s.stage() == CostSample.Stage.VOCABULARY && s.entries() >= 0) {
            entries[p][s.column()] = s.entries();
        }
        if (s.stage() == CostSample.Stage.DECODE && settings.intervalLines() > 0) {
            linesSinceReport += s.lines();
            if (linesSinceReport >= settings.intervalLines()) {
                emitIntervals();
            }
        }
    }

    /** Each field's share of {@code counted}, or null if nothing was counted yet. */
    private static double[] shares(long[] counted) {
        long total = 0;
        for (long b : counted) {
            total += b;
        }
        if (total == 0) {
            return null;
        }
        double[] shares = new double[counted.length];
        for (int f = 0; f < counted.length; f++) {
            shares[f] = counted[f] / (double) total;
        }
        return shares;
    }

    /** Emits each pipeline's interval report, if its interval saw any work, and starts anew. */
    private void emitIntervals() {
        linesSinceReport = 0;
        boolean any = false;
        for (int p = 0; p < programs.length; p++) {
            if (interval[p].isEmpty()) {
                continue;
            }
            output.collect(
                    new StreamRecord<>(
                            CostReports.report(
                                            programs[p],
                                            interval[p],
                                            entries[p],
                                            fpga,
                                            ssd,
                                            index,
                                            false)
                                    .toString()));
            interval[p] = new ColumnAccounts(programs[p]);
            published.set(
                    p,
                    CostReports.report(programs[p], total[p], entries[p], fpga, ssd, index, false));
            any = true;
        }
        if (any) {
            index++;
        }
    }

    @Override
    public void endInput() {
        emitIntervals();
        for (int p = 0; p < programs.length; p++) {
            ObjectNode r =
                    CostReports.report(programs[p], total[p], entries[p], fpga, ssd, index, true);
            published.set(p, r);
            output.collect(new StreamRecord<>(r.toString()));
        }
        index++;
    }

    private void registerGauges(int p) {
        MetricGroup pipeline = getMetricGroup().addGroup("pipeline", programs[p].name());
        for (int f = 1; f < CriteoLayout.FIELDS; f++) {
            int i = f - 1;
            MetricGroup column = pipeline.addGroup("column", CriteoLayout.fieldName(f));
            column.gauge("cpuCoreSeconds", (Gauge<Double>) () -> figure(p, i, "cpu_core_seconds"));
            column.gauge("fpgaSpeedup", (Gauge<Double>) () -> figure(p, i, "fpga_speedup"));
            column.gauge("smartssdSpeedup", (Gauge<Double>) () -> figure(p, i, "smartssd_speedup"));
            if (f > CriteoLayout.DENSE) {
                column.gauge("vocabEntries", (Gauge<Double>) () -> figure(p, i, "vocab_entries"));
                column.gauge(
                        "vocabOnChip",
                        (Gauge<Integer>)
                                () -> {
                                    ObjectNode r = published.get(p);
                                    return r != null
                                                    && "onchip"
                                                            .equals(
                                                                    r.get("columns")
                                                                            .get(i)
                                                                            .path("vocab_tier")
                                                                            .asText())
                                            ? 1
                                            : 0;
                                });
            }
        }
        pipeline.gauge("fpgaSpeedup", (Gauge<Double>) () -> deviceFigure(p, "fpga_speedup"));
        pipeline.gauge(
                "smartssdSpeedup", (Gauge<Double>) () -> deviceFigure(p, "smartssd_speedup"));
    }

    /** A column's figure in the latest published run report (0 before the first). */
    private double figure(int p, int i, String field) {
        ObjectNode r = published.get(p);
        return r == null ? 0 : r.get("columns").get(i).path(field).asDouble();
    }

    private double deviceFigure(int p, String field) {
        ObjectNode r = published.get(p);
        return r == null ? 0 : r.get("device").path(field).asDouble();
    }
}
