package dev.piper.operators.cost;

import dev.piper.core.cost.ColumnAccounts;
import dev.piper.core.cost.CostReports;
import dev.piper.core.cost.CostSample;
import dev.piper.core.cost.PipelineCostReport;
import dev.piper.core.cost.ReportSettings;
import dev.piper.hwmodel.FpgaModel;
import dev.piper.hwmodel.SmartSsdModel;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.ToDoubleFunction;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The hardware cost model as a Flink operator (parallelism 1), a thin wrapper around the pure
 * {@code hardware-model} module: it adds up the {@link CostSample}s of the measuring operators per
 * pipeline, spec version and column, and every interval (processing time, or a number of decoded
 * lines) emits one JSON report per pipeline and version that did work in it, covering that
 * interval's work with the vocabularies' entries as they stand. At the end of a bounded input it
 * emits the report of the whole run (marked {@code "final": true}). The latest figures of the whole
 * run are also Flink gauges, per pipeline and column ({@code
 * pipeline.<name>.column.<C3>.fpgaSpeedup} and so on), for the pipeline's newest version.
 *
 * <p>Versions: a pipeline starts with the program it was built with; a spec switch (a control
 * stream) brings others, announced by the decoders ({@link CostSample.Stage#PROGRAM}) before their
 * first block, so each version's chains are priced with its own operators. Decoding and output
 * samples name their block's version; a vocabulary sample names its keys' epoch, and is priced
 * under the newest version that uses that epoch for the column (a column's epoch changes whenever
 * its chain does, so every version sharing an epoch has the same chain and price). A sample that
 * arrives before its version's announcement (over another path) waits for it.
 *
 * <p>Reports are measurements, not results: the operator keeps no checkpointed state, and after a
 * restore its totals start again from the restore.
 */
public final class CostModelOperator extends AbstractStreamOperator<String>
        implements OneInputStreamOperator<CostSample, String>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    /** Each pipeline's starting program, by pipeline index. */
    private final ColumnProgram[] programs;

    private final ReportSettings settings;

    private transient FpgaModel fpga;
    private transient SmartSsdModel ssd;
    private transient Pipeline[] pipelines;

    /** Samples waiting for their version's program. */
    private transient List<CostSample> waiting;

    /** The whole run's report per pipeline as of the last interval, for the gauges' thread. */
    private transient AtomicReferenceArray<PipelineCostReport> published;

    private transient int index;
    private transient long linesSinceReport;

    /**
     * @param programs each pipeline's starting column program, by pipeline index
     */
    public CostModelOperator(ColumnProgram[] programs, ReportSettings settings) {
        this.programs = programs.clone();
        this.settings = settings;
    }

    /**
     * Why this operator cannot price {@code program}, if it cannot (an operator without a hardware
     * model; every spec operator has one today): a job refuses such a spec before it reaches the
     * operator.
     */
    public static java.util.Optional<String> refusal(ColumnProgram program) {
        return CostReports.refusal(program);
    }

    /** One pipeline's versions: their programs, accounts and vocabularies' entries. */
    private static final class Pipeline {
        final ColumnProgram start;
        final TreeMap<Integer, ColumnProgram> programs = new TreeMap<>();
        final Map<Integer, ColumnAccounts> interval = new HashMap<>();
        final TreeMap<Integer, ColumnAccounts> total = new TreeMap<>();

        /** Entries of each (column, epoch)'s vocabulary, by {@link #key}. */
        final Map<Long, Long> entries = new HashMap<>();

        /** Each field's bytes summed over the blocks whose fields were counted. */
        final long[] countedBytes;

        /**
         * The decoders' latest measurements of their kinds of fields: nanoseconds per byte of the
         * label and dense fields ([0][i]) and of the categorical ones ([1][i]), the last {@link
         * #RECENT} blocks measured (a cold decoder's first measurement soon leaves).
         */
        final double[][] recent = new double[2][RECENT];

        int measured;

        static final int RECENT = 16;

        /** Adds a measured block's cost per byte of each kind of field. */
        void measure(CostSample s) {
            int ld = start.layout().labelDenseWidth();
            long[] bytes = new long[2];
            for (int f = 0; f < s.fieldBytes().length; f++) {
                bytes[f < ld ? 0 : 1] += s.fieldBytes()[f];
            }
            if (bytes[0] == 0 || bytes[1] == 0) {
                return;
            }
            recent[0][measured % RECENT] = s.parseNanos()[0] / (double) bytes[0];
            recent[1][measured % RECENT] = s.parseNanos()[1] / (double) bytes[1];
            measured++;
        }

        /**
         * Each field's weight in splitting a block's decoding time by bytes: its kind's cost per
         * byte, the median of the latest measurements; null before the first (bytes alike).
         */
        double[] weights() {
            if (measured == 0) {
                return null;
            }
            int n = Math.min(measured, RECENT);
            double[] perByte = {median(recent[0], n), median(recent[1], n)};
            if (!(perByte[0] > 0) || !(perByte[1] > 0)) {
                return null;
            }
            int ld = start.layout().labelDenseWidth();
            double[] w = new double[countedBytes.length];
            for (int f = 0; f < w.length; f++) {
                w[f] = perByte[f < ld ? 0 : 1];
            }
            return w;
        }

        private static double median(double[] values, int n) {
            double[] v = java.util.Arrays.copyOf(values, n);
            java.util.Arrays.sort(v);
            return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        }

        Pipeline(ColumnProgram start) {
            this.start = start;
            countedBytes = new long[start.layout().fields()];
            programs.put(start.version(), start);
        }

        static long key(int column, int epoch) {
            return ((long) column << 32) | epoch;
        }

        /** The version a sample is priced under, or -1 if its program has not arrived yet. */
        int versionOf(CostSample s) {
            if (s.stage() != CostSample.Stage.VOCABULARY) {
                int v = s.version() < 0 ? start.version() : s.version();
                return programs.containsKey(v) ? v : -1;
            }
            int epoch = s.epoch() < 0 ? start.epoch(s.column()) : s.epoch();
            for (ColumnProgram p : programs.descendingMap().values()) {
                if (p.epoch(s.column()) == epoch) {
                    return p.version();
                }
            }
            return -1;
        }

        /** Per column, the entries of the vocabulary version {@code v} uses (-1: not seen). */
        long[] entries(int v) {
            ColumnProgram p = programs.get(v);
            long[] e = new long[p.layout().sparse()];
            for (int c = 0; c < e.length; c++) {
                e[c] = entries.getOrDefault(key(c, p.epoch(c)), -1L);
            }
            return e;
        }
    }

    @Override
    public void open() throws Exception {
        super.open();
        fpga = settings.fpga(programs.length);
        ssd = SmartSsdModel.presto();
        pipelines = new Pipeline[programs.length];
        waiting = new ArrayList<>();
        published = new AtomicReferenceArray<>(programs.length);
        for (int p = 0; p < programs.length; p++) {
            pipelines[p] = new Pipeline(programs[p]);
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
        if (s.stage() == CostSample.Stage.PROGRAM) {
            if (pipelines[p].programs.putIfAbsent(s.version(), s.program()) == null
                    && !waiting.isEmpty()) {
                List<CostSample> retry = waiting;
                waiting = new ArrayList<>();
                retry.forEach(this::add);
            }
            return;
        }
        add(s);
    }

    /** Adds a work sample to its version's accounts, or keeps it until the version is known. */
    private void add(CostSample s) {
        Pipeline pipeline = pipelines[s.pipeline()];
        int v = pipeline.versionOf(s);
        if (v < 0) {
            waiting.add(s);
            return;
        }
        double[] shares = null;
        double[] weights = null;
        if (s.stage() == CostSample.Stage.DECODE) {
            for (int f = 0; f < s.fieldBytes().length; f++) {
                pipeline.countedBytes[f] += s.fieldBytes()[f];
            }
            if (s.parseNanos().length == 2 && s.fieldBytes().length > 0) {
                pipeline.measure(s);
            }
            if (s.fieldBytes().length == 0) { // split by what was counted so far
                shares = shares(pipeline.countedBytes);
            }
            weights = pipeline.weights();
        }
        ColumnProgram program = pipeline.programs.get(v);
        pipeline.interval
                .computeIfAbsent(v, x -> new ColumnAccounts(program))
                .add(s, shares, weights);
        pipeline.total.computeIfAbsent(v, x -> new ColumnAccounts(program)).add(s, shares, weights);
        if (s.stage() == CostSample.Stage.VOCABULARY && s.entries() >= 0) {
            pipeline.entries.put(Pipeline.key(s.column(), program.epoch(s.column())), s.entries());
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

    /** Emits each pipeline's interval report per version that saw work in it, and starts anew. */
    private void emitIntervals() {
        linesSinceReport = 0;
        boolean any = false;
        for (int p = 0; p < programs.length; p++) {
            Pipeline pipeline = pipelines[p];
            for (int v : new TreeMap<>(pipeline.interval).keySet()) {
                ColumnAccounts accounts = pipeline.interval.get(v);
                if (accounts.isEmpty()) {
                    continue;
                }
                ColumnProgram program = pipeline.programs.get(v);
                output.collect(
                        new StreamRecord<>(
                                CostReports.report(
                                                program,
                                                accounts,
                                                pipeline.entries(v),
                                                fpga,
                                                ssd,
                                                settings,
                                                index,
                                                false)
                                        .toJson()));
                any = true;
            }
            pipeline.interval.clear();
            publish(p, false);
        }
        if (any) {
            index++;
        }
    }

    /** The whole run's report of pipeline {@code p}'s newest version, for the gauges. */
    private PipelineCostReport publish(int p, boolean last) {
        Pipeline pipeline = pipelines[p];
        Map.Entry<Integer, ColumnAccounts> newest = pipeline.total.lastEntry();
        if (newest == null) {
            return null;
        }
        int v = newest.getKey();
        PipelineCostReport r =
                CostReports.report(
                        pipeline.programs.get(v),
                        newest.getValue(),
                        pipeline.entries(v),
                        fpga,
                        ssd,
                        settings,
                        index,
                        last);
        published.set(p, r);
        return r;
    }

    @Override
    public void endInput() {
        emitIntervals();
        if (!waiting.isEmpty()) {
            LOG.warn(
                    "{} cost samples left unpriced: their spec versions' programs never arrived",
                    waiting.size());
        }
        for (int p = 0; p < programs.length; p++) {
            Pipeline pipeline = pipelines[p];
            pipeline.total.computeIfAbsent(
                    pipeline.start.version(), v -> new ColumnAccounts(pipeline.start));
            for (Map.Entry<Integer, ColumnAccounts> e : pipeline.total.entrySet()) {
                PipelineCostReport r =
                        CostReports.report(
                                pipeline.programs.get(e.getKey()),
                                e.getValue(),
                                pipeline.entries(e.getKey()),
                                fpga,
                                ssd,
                                settings,
                                index,
                                true);
                output.collect(new StreamRecord<>(r.toJson()));
            }
            publish(p, true);
        }
        index++;
    }

    private void registerGauges(int p) {
        MetricGroup pipeline = getMetricGroup().addGroup("pipeline", programs[p].name());
        RowLayout layout = programs[p].layout();
        for (int f = 1; f < layout.fields(); f++) {
            int i = f - 1;
            MetricGroup column = pipeline.addGroup("column", layout.fieldName(f));
            column.gauge(
                    "cpuCoreSeconds",
                    (Gauge<Double>) () -> figure(p, i, PipelineCostReport.Column::cpuCoreSeconds));
            column.gauge(
                    "fpgaSpeedup",
                    (Gauge<Double>) () -> figure(p, i, PipelineCostReport.Column::fpgaSpeedup));
            column.gauge(
                    "smartssdSpeedup",
                    (Gauge<Double>) () -> figure(p, i, PipelineCostReport.Column::smartSsdSpeedup));
            if (f >= layout.labelDenseWidth()) {
                column.gauge(
                        "vocabEntries",
                        (Gauge<Double>)
                                () ->
                                        figure(
                                                p,
                                                i,
                                                c ->
                                                        c.vocabEntries() == null
                                                                ? 0
                                                                : c.vocabEntries()));
                column.gauge(
                        "vocabOnChip",
                        (Gauge<Integer>)
                                () ->
                                        (int)
                                                figure(
                                                        p,
                                                        i,
                                                        c ->
                                                                "onchip".equals(c.vocabTier())
                                                                        ? 1
                                                                        : 0));
            }
        }
        pipeline.gauge(
                "fpgaSpeedup",
                (Gauge<Double>) () -> deviceFigure(p, PipelineCostReport.Device::fpgaSpeedup));
        pipeline.gauge(
                "smartssdSpeedup",
                (Gauge<Double>) () -> deviceFigure(p, PipelineCostReport.Device::smartSsdSpeedup));
    }

    /** A column's figure in the latest published run report (0 before the first). */
    private double figure(int p, int i, ToDoubleFunction<PipelineCostReport.Column> field) {
        PipelineCostReport r = published.get(p);
        return r == null ? 0 : field.applyAsDouble(r.columns().get(i));
    }

    private double deviceFigure(int p, ToDoubleFunction<PipelineCostReport.Device> field) {
        PipelineCostReport r = published.get(p);
        return r == null ? 0 : field.applyAsDouble(r.device());
    }
}
