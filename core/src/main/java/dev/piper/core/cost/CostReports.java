package dev.piper.core.cost;

import dev.piper.hwmodel.ColumnWork;
import dev.piper.hwmodel.CostReport;
import dev.piper.hwmodel.Fleet;
import dev.piper.hwmodel.FpgaModel;
import dev.piper.hwmodel.Operator;
import dev.piper.hwmodel.Parameter;
import dev.piper.hwmodel.Provenance;
import dev.piper.hwmodel.Sizing;
import dev.piper.hwmodel.SmartSsdModel;
import dev.piper.hwmodel.Tier;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.ops.OpDefinition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Turns one pipeline's {@link ColumnAccounts} into the report of {@code docs/HARDWARE_MODEL.md}
 * (the schema of issue 7, with extra fields), a {@link PipelineCostReport}: per column the work,
 * the CPU core-seconds, the FPGA's and the SmartSSD's time and speedup; for the device, its time,
 * binding resource and speedup over the job's whole CPU time.
 */
public final class CostReports {

    private CostReports() {}

    /** The model names of field {@code f}'s chain under {@code program}. */
    static List<Operator> ops(ColumnProgram program, int f) {
        List<Operator> ops = new ArrayList<>();
        for (Op op : program.chain(f)) {
            if (op instanceof Op.Vocab) {
                ops.add(Operator.GENVOCAB);
                ops.add(Operator.APPLYVOCAB);
            } else if (!(op instanceof Op.Decode)) {
                ops.add(model(op));
            }
        }
        return ops;
    }

    /**
     * Why the cost model cannot price {@code program}, if it cannot: every operator of its columns
     * needs a model operator (every spec operator has one today; a new one must get one).
     */
    public static Optional<String> refusal(ColumnProgram program) {
        RowLayout layout = program.layout();
        for (int f = 1; f < layout.fields(); f++) {
            for (Op op : program.chain(f)) {
                if (!(op instanceof Op.Vocab)
                        && !(op instanceof Op.Decode)
                        && OpDefinition.of(op).pricedAs() == null) {
                    return Optional.of(
                            "the cost report has no price for "
                                    + op.name()
                                    + " ("
                                    + layout.fieldName(f)
                                    + "); run it without");
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The model operator {@code op} is priced as, from its definition ({@link
     * OpDefinition#pricedAs()}; decode and vocab excepted): fill_null as fill_missing, a default
     * for the empty element merged into decode.
     */
    static Operator model(Op op) {
        String priced = OpDefinition.of(op).pricedAs();
        if (priced == null) {
            throw new IllegalArgumentException(op.name() + " has no model operator");
        }
        return Operator.byModelName(priced);
    }

    /**
     * The report of {@code accounts} under {@code program}.
     *
     * @param entries each categorical column's vocabulary entries (-1: not seen yet)
     * @param index the report's number, from 0
     * @param last whether it is the run's last (then {@code accounts} cover the whole run)
     */
    public static PipelineCostReport report(
            ColumnProgram program,
            ColumnAccounts accounts,
            long[] entries,
            FpgaModel fpga,
            SmartSsdModel ssd,
            ReportSettings settings,
            int index,
            boolean last) {
        CostReport r =
                CostReport.of(
                        measured(program, accounts, entries),
                        true,
                        accounts.threadNanos() / 1e9,
                        fpga,
                        ssd);
        List<PipelineCostReport.Column> columns = new ArrayList<>();
        for (int i = 0; i < r.columns().size(); i++) {
            columns.add(column(program.layout(), i + 1, r.columns().get(i), accounts, fpga, ssd));
        }
        PipelineCostReport.Device device = device(r, accounts, ssd, settings);
        return new PipelineCostReport(
                program.name(),
                program.version(),
                new PipelineCostReport.Interval(
                        index,
                        last,
                        last ? "run" : "interval",
                        accounts.lines,
                        accounts.rows,
                        accounts.blocks),
                "utf8",
                defaults(fpga, ssd),
                columns,
                device,
                settings.fleet().rowsPerSecond() > 0
                        ? sizing(device, accounts, ssd, settings.fleet())
                        : null,
                job(accounts, settings));
    }

    /** Each column's measured work: its operators, values, bytes, vocabulary and CPU time. */
    private static List<CostReport.Measured> measured(
            ColumnProgram program, ColumnAccounts accounts, long[] entries) {
        RowLayout layout = program.layout();
        List<CostReport.Measured> measured = new ArrayList<>();
        for (int f = 1; f < layout.fields(); f++) {
            List<Operator> ops = ops(program, f);
            boolean sparse = !layout.isLabelOrDense(f);
            int c = f - layout.labelDenseWidth();
            ColumnWork.Vocabulary vocab = null;
            if (ops.contains(Operator.GENVOCAB)) {
                vocab = new ColumnWork.Vocabulary(Math.max(0, entries[c]), program.keyBound(c));
            }
            // a list column's values are its ids, which its vocabulary counts
            long values =
                    sparse && layout.isList(c) && vocab != null
                            ? accounts.vocabularyKeys[c]
                            : accounts.values[f];
            ColumnWork work =
                    new ColumnWork(
                            layout.fieldName(f), ops, values, Math.round(accounts.bytes[f]), vocab);
            CostReport.Kind kind =
                    sparse
                            ? CostReport.Kind.SPARSE
                            : layout.isGenerated(f)
                                    ? CostReport.Kind.GENERATED
                                    : CostReport.Kind.DENSE;
            measured.add(new CostReport.Measured(kind, work, accounts.nanos(f) / 1e9));
        }
        return measured;
    }

    /** Column {@code f}'s entry: its work, vocabulary, the devices' times and its CPU time. */
    private static PipelineCostReport.Column column(
            RowLayout layout,
            int f,
            CostReport.ColumnCost c,
            ColumnAccounts accounts,
            FpgaModel fpga,
            SmartSsdModel ssd) {
        ColumnWork w = c.measured().work();
        int sc = f - layout.labelDenseWidth();
        Tier t = c.tier() == null ? Tier.ONCHIP : c.tier();
        Map<String, Double> ii = new LinkedHashMap<>();
        Map<String, Double> ssdIi = new LinkedHashMap<>();
        List<String> assumed = new ArrayList<>();
        for (Operator op : w.ops()) {
            Parameter fpgaIi = fpga.design().initiationInterval(op, t);
            ii.putIfAbsent(op.modelName(), fpgaIi.value());
            ssdIi.putIfAbsent(op.modelName(), ssd.initiationInterval(op, c.smartSsdTier()).value());
            if (fpgaIi.provenance() == Provenance.ASSUME) {
                assumed.add(op.modelName());
            }
        }
        boolean vocab = w.hasVocabulary();
        return new PipelineCostReport.Column(
                w.column(),
                c.measured().kind().modelName(),
                sc >= 0 && layout.isList(sc) ? Boolean.TRUE : null,
                w.ops().stream().map(Operator::modelName).toList(),
                w.values(),
                w.inputBytes(),
                vocab ? w.vocabulary().entries() : null,
                vocab ? c.tier().name().toLowerCase(Locale.ROOT) : null,
                vocab ? c.smartSsdTier().name().toLowerCase(Locale.ROOT) : null,
                vocab ? Math.round(w.vocabulary().bytes()) : null,
                vocab ? (w.vocabulary().modulusRange() > 0 ? "direct-mapped" : "hashed") : null,
                ii,
                fpga.design().clock().value() / 1e6,
                ssdIi,
                w.values() > 0 ? c.measured().cpuCoreSeconds() * 1e9 / w.values() : 0,
                c.measured().cpuCoreSeconds(),
                c.fpgaSeconds(),
                c.fpga().bound(),
                c.fpgaSpeedup(),
                c.smartSsdSeconds(),
                c.smartSsd().bound(),
                c.smartSsdSpeedup(),
                new PipelineCostReport.BinaryInput(
                        c.binaryFpga().seconds(),
                        c.binaryFpga().bound(),
                        c.binaryFpgaSpeedup(),
                        c.binarySmartSsd().seconds(),
                        c.binarySmartSsd().bound(),
                        c.binarySmartSsdSpeedup()),
                assumed,
                c.smartSsdExtrapolated().stream().map(Operator::modelName).toList(),
                new PipelineCostReport.CpuBreakdown(
                        accounts.decodeNanos[f] / 1e9,
                        accounts.passNanos[f] / 1e9,
                        accounts.vocabularyNanos[f] / 1e9,
                        accounts.outputNanos[f] / 1e9,
                        accounts.overheadNanos[f] / 1e9));
    }

    /** The device section: the whole job's time, bound, speedup and energy on each device. */
    private static PipelineCostReport.Device device(
            CostReport r, ColumnAccounts accounts, SmartSsdModel ssd, ReportSettings settings) {
        Map<String, Double> byResource = new LinkedHashMap<>();
        r.fpga().byResource().forEach((k, v) -> byResource.put(k.modelName(), v));
        Map<String, Double> ssdByResource = new LinkedHashMap<>();
        r.smartSsd().byResource().forEach((k, v) -> ssdByResource.put(k.modelName(), v));
        double cpuWatts = settings.fleet().cpuWatts();
        return new PipelineCostReport.Device(
                r.fpga().seconds(),
                r.fpga().bound().modelName(),
                r.smartSsd().seconds(),
                r.smartSsd().bound().modelName(),
                r.fpgaSpeedup(),
                r.smartSsdSpeedup(),
                r.jobCpuSeconds(),
                byResource,
                ssdByResource,
                r.fpgaPower().value(),
                Sizing.joules(r.fpgaPower().value(), r.fpga().seconds()),
                Sizing.joules(ssd.power().value(), r.smartSsd().seconds()),
                known(
                        Sizing.joules(
                                cpuWatts / Runtime.getRuntime().availableProcessors(),
                                r.jobCpuSeconds())),
                rowsPerSecond(accounts.rows, r.fpga().seconds()),
                rowsPerSecond(accounts.rows, r.smartSsd().seconds()),
                new PipelineCostReport.DeviceBinaryInput(
                        r.binaryFpga().seconds(),
                        r.binaryFpga().bound().modelName(),
                        r.binarySmartSsd().seconds(),
                        r.binarySmartSsd().bound().modelName()));
    }

    /**
     * The sizing section: how many devices (and cores) sustain the fleet's target rows/s; what it
     * rests on: the target and the prices; FPGAs and SmartSSDs at the model's rows per second for
     * all columns, CPU cores at the measured rows per core-second (linear scaling, which
     * COMBINING.md pitfall 2 calls optimistic).
     */
    private static PipelineCostReport.Sizing sizing(
            PipelineCostReport.Device device,
            ColumnAccounts accounts,
            SmartSsdModel ssd,
            ReportSettings.FleetTarget target) {
        return new PipelineCostReport.Sizing(
                target.rowsPerSecond(),
                target.dollarsPerKwh(),
                Fleet.PRESTO_YEARS,
                "N = ceil(T / P) (PS §IV-B); power while sustaining T; energy at dollars_per_kwh;"
                        + " a device's price, when given, written off over the years at T"
                        + " (PS §V-C)",
                fleet(device.fpgaRowsPerSecond(), device.fpgaWatts(), target, target.fpgaDollars()),
                fleet(
                        device.smartSsdRowsPerSecond(),
                        ssd.power().value(),
                        target,
                        target.smartSsdDollars()),
                new PipelineCostReport.CpuCores(
                        fleet(
                                rowsPerCoreSecond(accounts),
                                target.cpuWatts() / Runtime.getRuntime().availableProcessors(),
                                target,
                                target.coreDollars()),
                        "at the measured rows per core-second of this machine, scaling linearly"
                                + " (optimistic: COMBINING.md pitfall 2)"));
    }

    /** The job section: how the CPU was measured and attributed, per stage. */
    private static PipelineCostReport.Job job(ColumnAccounts accounts, ReportSettings settings) {
        double[] w = accounts.lastWeights;
        Map<String, PipelineCostReport.Stage> stages = new LinkedHashMap<>();
        for (CostSample.Stage stage : CostSample.Stage.values()) {
            stages.put(
                    stage.name().toLowerCase(Locale.ROOT),
                    new PipelineCostReport.Stage(
                            accounts.stageWorkNanos[stage.ordinal()] / 1e9,
                            accounts.stageThreadNanos[stage.ordinal()] / 1e9));
        }
        return new PipelineCostReport.Job(
                ThreadCpu.basis(),
                settings.warmupLines() > 0
                        ? String.format(
                                Locale.ROOT,
                                "excluded: the job ran over the input's first %,d lines in this JVM"
                                        + " before this run, whose code was then compiled",
                                settings.warmupLines())
                        : "included: the job ran cold (piper report warms up first)",
                HEAP,
                new PipelineCostReport.DecodeAttribution(
                        accounts.blocks,
                        accounts.weightedBlocks,
                        accounts.kindBlocks,
                        w != null ? w[0] : null,
                        w != null ? w[w.length - 1] : null,
                        "a decoder times its own fast path over a block's label and dense fields"
                                + " and, apart, over its categorical fields (thread CPU clock, on"
                                + " its first counted block and every 4th after it, the"
                                + " measurement's own time left out of every figure); a block's"
                                + " decoding is split by each field's bytes times its kind's cost"
                                + " per byte, the median of the latest 16 blocks measured"
                                + " (blocks_by_kinds: the blocks split so); by bytes alike before"
                                + " the first measurement or for a layout with lists, whose ids"
                                + " the fast path appends as it parses"),
                accounts.threadNanos() / 1e9,
                accounts.workNanos() / 1e9,
                accounts.columnNanos() / 1e9,
                accounts.nanos(0) / 1e9,
                accounts.unattributedNanos / 1e9,
                rowsPerCoreSecond(accounts),
                stages);
    }

    /** Rows per second of a device that takes {@code seconds} for {@code rows} (0 if no time). */
    private static double rowsPerSecond(long rows, double seconds) {
        return seconds > 0 ? rows / seconds : 0;
    }

    /** The fleet of a device of {@code perDevice} rows/s that sustains the target; none at 0. */
    private static PipelineCostReport.FleetSize fleet(
            double perDevice, double watts, ReportSettings.FleetTarget target, double price) {
        if (perDevice <= 0) {
            return new PipelineCostReport.FleetSize(perDevice, null, null);
        }
        Fleet f =
                Fleet.of(
                        target.rowsPerSecond(),
                        perDevice,
                        watts,
                        target.dollarsPerKwh(),
                        price,
                        Fleet.PRESTO_YEARS);
        return new PipelineCostReport.FleetSize(
                perDevice,
                f.devices(),
                new PipelineCostReport.Costs(
                        known(f.watts()),
                        known(f.joulesPerMillionRows()),
                        known(f.energyDollarsPerMillionRows()),
                        known(f.capexDollarsPerMillionRows())));
    }

    /** {@code v}, or null when it is unknown (NaN). */
    private static Double known(double v) {
        return Double.isNaN(v) ? null : v;
    }

    private static double rowsPerCoreSecond(ColumnAccounts a) {
        long nanos = a.threadNanos();
        return nanos > 0 ? a.rows / (nanos / 1e9) : 0;
    }

    /** What the devices are assumed to be, and the bases of the figures. */
    private static PipelineCostReport.Defaults defaults(FpgaModel fpga, SmartSsdModel ssd) {
        return new PipelineCostReport.Defaults(
                String.format(
                        Locale.ROOT,
                        "PIPER network-attached (P2): Alveo U55C, %d MiniPipe(s) at %.0f MHz,"
                                + " column-packed 64-byte beats, network streaming (RDMA %.0f GB/s),"
                                + " %d vocabulary passes, off-chip vocabulary II %.2f (GenVocab) /"
                                + " %.2f (ApplyVocab) cycles per beat, fitted",
                        fpga.design().miniPipes(),
                        fpga.design().clock().value() / 1e6,
                        fpga.linkBytesPerSecond().value() / 1e9,
                        fpga.vocabularyPasses(),
                        fpga.design().initiationInterval(Operator.GENVOCAB, Tier.OFFCHIP).value(),
                        fpga.design()
                                .initiationInterval(Operator.APPLYVOCAB, Tier.OFFCHIP)
                                .value()),
                Math.round(fpga.vocabularyBudgetBytes()),
                "counted per field in a sample of the blocks (each decoder's first and every"
                        + " n-th, piper.report.field-bytes-every); the other blocks' exact bytes"
                        + " are split by the shares counted so far",
                "P2 Table 5 by configuration: 24 W without vocabularies (P-I), 25 W with every"
                        + " vocabulary on chip (P-II), 26 W with one off chip (P-III);"
                        + " device.fpga_watts is this report's",
                String.format(
                        Locale.ROOT,
                        "PreSto (PS): Samsung SmartSSD, double-buffered, P2P read %.2f GB/s, units"
                                + " at %.0f MHz, one element per cycle; two passes for a column"
                                + " with a vocabulary (UTF-8 rows read whole in both); %.1f MB of"
                                + " on-chip memory for vocabularies (the XCKU15P's block RAM and"
                                + " UltraRAM PreSto's units leave free), off chip %.0f cycles an"
                                + " element (P2 §3.4.2)",
                        ssd.p2pBytesPerSecond().value() / 1e9,
                        ssd.clock().value() / 1e6,
                        ssd.vocabularyBytes().value() / 1e6,
                        ssd.offChipInitiationInterval().value()),
                Math.round(ssd.vocabularyBytes().value()),
                ssd.power().value(),
                "CPU core-seconds measured in this job (thread CPU time) vs the device: vs one"
                        + " core of "
                        + CPU_NAME,
                "isolated: the column has the device to itself; the device time of all columns"
                        + " is the largest shared resource, not the sum");
    }

    /**
     * How the measuring JVM's heap meets the kernel: a page touched for the first time faults, and
     * the kernel's work is CPU time of the thread that touched it.
     */
    private static final String HEAP =
            java.lang.management.ManagementFactory.getRuntimeMXBean()
                            .getInputArguments()
                            .contains("-XX:+AlwaysPreTouch")
                    ? "committed and touched at start (-XX:+AlwaysPreTouch): no page faults in"
                            + " the figures"
                    : "grown on demand: first touches of fresh pages (kernel time) are in the"
                            + " figures of the threads that touch them";

    /** The measuring machine's CPU, read once. */
    private static final String CPU_NAME = cpuName();

    /** The measuring machine's CPU, as the JVM sees it. */
    private static String cpuName() {
        String model = null;
        try {
            for (String line :
                    java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    model = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux: the architecture below is all there is
        }
        return (model != null ? model : System.getProperty("os.arch"))
                + " ("
                + Runtime.getRuntime().availableProcessors()
                + " processors, JVM "
                + System.getProperty("java.version")
                + ")";
    }
}
