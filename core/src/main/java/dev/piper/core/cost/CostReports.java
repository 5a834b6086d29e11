package dev.piper.core.cost;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.piper.hwmodel.ColumnWork;
import dev.piper.hwmodel.CostReport;
import dev.piper.hwmodel.Fleet;
import dev.piper.hwmodel.FpgaModel;
import dev.piper.hwmodel.Operator;
import dev.piper.hwmodel.Sizing;
import dev.piper.hwmodel.SmartSsdModel;
import dev.piper.hwmodel.Tier;
import dev.piper.pipeline.layout.RowLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.ops.OpDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns one pipeline's {@link ColumnAccounts} into the report of {@code docs/HARDWARE_MODEL.md}
 * (the schema of issue 7, with extra fields): per column the work, the CPU core-seconds, the FPGA's
 * and the SmartSSD's time and speedup; for the device, its time, binding resource and speedup over
 * the job's whole CPU time.
 */
public final class CostReports {

    static final ObjectMapper JSON = new ObjectMapper();

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
    public static java.util.Optional<String> refusal(ColumnProgram program) {
        RowLayout layout = program.layout();
        for (int f = 1; f < layout.fields(); f++) {
            for (Op op : program.chain(f)) {
                if (!(op instanceof Op.Vocab)
                        && !(op instanceof Op.Decode)
                        && OpDefinition.of(op).pricedAs() == null) {
                    return java.util.Optional.of(
                            "the cost report has no price for "
                                    + op.name()
                                    + " ("
                                    + layout.fieldName(f)
                                    + "); run it without");
                }
            }
        }
        return java.util.Optional.empty();
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
    public static ObjectNode report(
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
        ObjectNode root = JSON.createObjectNode();
        root.put("pipeline", program.name());
        root.put("pipeline_version", program.version());
        ObjectNode rep = root.putObject("report");
        rep.put("index", index);
        rep.put("final", last);
        rep.put("covers", last ? "run" : "interval");
        rep.put("lines", accounts.lines);
        rep.put("rows", accounts.rows);
        rep.put("blocks", accounts.blocks);
        root.put("input_format", "utf8");
        defaults(root.putObject("defaults"), fpga, ssd);

        ArrayNode columns = root.putArray("columns");
        for (int i = 0; i < r.columns().size(); i++) {
            column(
                    columns.addObject(),
                    program.layout(),
                    i + 1,
                    r.columns().get(i),
                    accounts,
                    fpga,
                    ssd);
        }
        device(root.putObject("device"), r, accounts, ssd, settings);
        if (settings.fleet().rowsPerSecond() > 0) {
            sizing(root.putObject("sizing"), r, accounts, ssd, settings.fleet());
        }
        job(root.putObject("job"), accounts, settings);
        return root;
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
    private static void column(
            ObjectNode o,
            RowLayout layout,
            int f,
            CostReport.ColumnCost c,
            ColumnAccounts accounts,
            FpgaModel fpga,
            SmartSsdModel ssd) {
        ColumnWork w = c.measured().work();
        o.put("column", w.column());
        o.put("kind", c.measured().kind().modelName());
        int sc = f - layout.labelDenseWidth();
        if (sc >= 0 && layout.isList(sc)) {
            o.put("list", true); // its values are ids, its bytes the whole lists'
        }
        ArrayNode ops = o.putArray("ops");
        w.ops().forEach(op -> ops.add(op.modelName()));
        o.put("values", w.values());
        o.put("input_bytes", w.inputBytes());
        if (w.hasVocabulary()) {
            o.put("vocab_entries", w.vocabulary().entries());
            o.put("vocab_tier", c.tier().name().toLowerCase(java.util.Locale.ROOT));
            o.put(
                    "smartssd_vocab_tier",
                    c.smartSsdTier().name().toLowerCase(java.util.Locale.ROOT));
            o.put("vocab_table_bytes", Math.round(w.vocabulary().bytes()));
            o.put("vocab_table", w.vocabulary().modulusRange() > 0 ? "direct-mapped" : "hashed");
        } else {
            o.putNull("vocab_entries");
            o.putNull("vocab_tier");
            o.putNull("smartssd_vocab_tier");
        }
        ObjectNode ii = o.putObject("fpga_ii_cycles_per_beat");
        Tier t = c.tier() == null ? Tier.ONCHIP : c.tier();
        for (Operator op : w.ops()) {
            ii.put(op.modelName(), fpga.design().initiationInterval(op, t).value());
        }
        o.put("fpga_clock_mhz", fpga.design().clock().value() / 1e6);
        ObjectNode ssdIi = o.putObject("smartssd_ii_cycles_per_element");
        for (Operator op : w.ops()) {
            ssdIi.put(op.modelName(), ssd.initiationInterval(op, c.smartSsdTier()).value());
        }
        o.put(
                "cpu_ns_per_value",
                w.values() > 0 ? c.measured().cpuCoreSeconds() * 1e9 / w.values() : 0);
        o.put("cpu_core_seconds", c.measured().cpuCoreSeconds());
        o.put("fpga_seconds", c.fpgaSeconds());
        o.put("fpga_bound", c.fpga().bound());
        o.put("fpga_speedup", c.fpgaSpeedup());
        o.put("smartssd_seconds", c.smartSsdSeconds());
        o.put("smartssd_bound", c.smartSsd().bound());
        o.put("smartssd_speedup", c.smartSsdSpeedup());
        ObjectNode binary = o.putObject("binary_input");
        binary.put("fpga_seconds", c.binaryFpga().seconds());
        binary.put("fpga_bound", c.binaryFpga().bound());
        binary.put("fpga_speedup", c.binaryFpgaSpeedup());
        binary.put("smartssd_seconds", c.binarySmartSsd().seconds());
        binary.put("smartssd_bound", c.binarySmartSsd().bound());
        binary.put("smartssd_speedup", c.binarySmartSsdSpeedup());
        ArrayNode assumed = o.putArray("fpga_assumed_ops");
        for (Operator op : w.ops()) {
            if (fpga.design().initiationInterval(op, t).provenance()
                    == dev.piper.hwmodel.Provenance.ASSUME) {
                assumed.add(op.modelName());
            }
        }
        ArrayNode extrapolated = o.putArray("smartssd_extrapolated_ops");
        c.smartSsdExtrapolated().forEach(op -> extrapolated.add(op.modelName()));
        ObjectNode cpu = o.putObject("cpu_breakdown");
        cpu.put("decode", accounts.decodeNanos[f] / 1e9);
        cpu.put("column_passes", accounts.passNanos[f] / 1e9);
        cpu.put("vocabulary", accounts.vocabularyNanos[f] / 1e9);
        cpu.put("output", accounts.outputNanos[f] / 1e9);
        cpu.put("task_overhead", accounts.overheadNanos[f] / 1e9);
    }

    /** The device section: the whole job's time, bound, speedup and energy on each device. */
    private static void device(
            ObjectNode device,
            CostReport r,
            ColumnAccounts accounts,
            SmartSsdModel ssd,
            ReportSettings settings) {
        device.put("fpga_seconds", r.fpga().seconds());
        device.put("fpga_bound", r.fpga().bound().modelName());
        device.put("smartssd_seconds", r.smartSsd().seconds());
        device.put("smartssd_bound", r.smartSsd().bound().modelName());
        device.put("fpga_speedup", r.fpgaSpeedup());
        device.put("smartssd_speedup", r.smartSsdSpeedup());
        device.put("cpu_core_seconds", r.jobCpuSeconds());
        ObjectNode byResource = device.putObject("fpga_seconds_by_resource");
        r.fpga().byResource().forEach((k, v) -> byResource.put(k.modelName(), v));
        ObjectNode ssdByResource = device.putObject("smartssd_seconds_by_resource");
        r.smartSsd().byResource().forEach((k, v) -> ssdByResource.put(k.modelName(), v));
        device.put("fpga_watts", r.fpgaPower().value());
        device.put("fpga_joules", Sizing.joules(r.fpgaPower().value(), r.fpga().seconds()));
        device.put("smartssd_joules", Sizing.joules(ssd.power().value(), r.smartSsd().seconds()));
        double cpuWatts = settings.fleet().cpuWatts();
        number(
                device,
                "cpu_joules",
                Sizing.joules(
                        cpuWatts / Runtime.getRuntime().availableProcessors(), r.jobCpuSeconds()));
        double fpgaRowsPerSecond = rowsPerSecond(accounts.rows, r.fpga().seconds());
        device.put("fpga_rows_per_second", fpgaRowsPerSecond);
        double ssdRowsPerSecond = rowsPerSecond(accounts.rows, r.smartSsd().seconds());
        device.put("smartssd_rows_per_second", ssdRowsPerSecond);
        ObjectNode binaryDevice = device.putObject("binary_input");
        binaryDevice.put("fpga_seconds", r.binaryFpga().seconds());
        binaryDevice.put("fpga_bound", r.binaryFpga().bound().modelName());
        binaryDevice.put("smartssd_seconds", r.binarySmartSsd().seconds());
        binaryDevice.put("smartssd_bound", r.binarySmartSsd().bound().modelName());
    }

    /** The sizing section: how many devices (and cores) sustain the fleet's target rows/s. */
    private static void sizing(
            ObjectNode sizing,
            CostReport r,
            ColumnAccounts accounts,
            SmartSsdModel ssd,
            ReportSettings.FleetTarget target) {
        double fpgaRowsPerSecond = rowsPerSecond(accounts.rows, r.fpga().seconds());
        double ssdRowsPerSecond = rowsPerSecond(accounts.rows, r.smartSsd().seconds());
        sizingBasis(sizing, target);
        fleet(
                sizing.putObject("fpga"),
                fpgaRowsPerSecond,
                r.fpgaPower().value(),
                target,
                target.fpgaDollars());
        fleet(
                sizing.putObject("smartssd"),
                ssdRowsPerSecond,
                ssd.power().value(),
                target,
                target.smartSsdDollars());
        ObjectNode cores = sizing.putObject("cpu_cores");
        fleet(
                cores,
                rowsPerCoreSecond(accounts),
                target.cpuWatts() / Runtime.getRuntime().availableProcessors(),
                target,
                target.coreDollars());
        cores.put(
                "note",
                "at the measured rows per core-second of this machine, scaling linearly"
                        + " (optimistic: COMBINING.md pitfall 2)");
    }

    /** The job section: how the CPU was measured and attributed, per stage. */
    private static void job(ObjectNode job, ColumnAccounts accounts, ReportSettings settings) {
        job.put("cpu_basis", ThreadCpu.basis());
        job.put(
                "jit_warmup",
                settings.warmupLines() > 0
                        ? String.format(
                                java.util.Locale.ROOT,
                                "excluded: the job ran over the input's first %,d lines in this JVM"
                                        + " before this run, whose code was then compiled",
                                settings.warmupLines())
                        : "included: the job ran cold (piper report warms up first)");
        job.put("heap", HEAP);
        ObjectNode attribution = job.putObject("decode_attribution");
        attribution.put("blocks", accounts.blocks);
        attribution.put("blocks_by_kinds", accounts.weightedBlocks);
        attribution.put("measured_blocks", accounts.kindBlocks);
        if (accounts.lastWeights != null) {
            double[] w = accounts.lastWeights;
            attribution.put("label_dense_ns_per_byte", w[0]);
            attribution.put("categorical_ns_per_byte", w[w.length - 1]);
        }
        attribution.put(
                "basis",
                "a decoder times its own fast path over a block's label and dense fields and,"
                        + " apart, over its categorical fields (thread CPU clock, on its first"
                        + " counted block and every 4th after it, the measurement's own time left"
                        + " out of every figure); a block's decoding is split by each field's bytes"
                        + " times its kind's cost per byte, the median of the latest 16 blocks"
                        + " measured (blocks_by_kinds: the blocks split so); by bytes alike before"
                        + " the first measurement or for a layout with lists, whose ids the fast"
                        + " path appends as it parses");
        job.put("task_cpu_seconds", accounts.threadNanos() / 1e9);
        job.put("measured_work_cpu_seconds", accounts.workNanos() / 1e9);
        job.put("column_cpu_seconds", accounts.columnNanos() / 1e9);
        job.put("label_cpu_seconds", accounts.nanos(0) / 1e9);
        job.put("unattributed_cpu_seconds", accounts.unattributedNanos / 1e9);
        job.put("rows_per_core_second", rowsPerCoreSecond(accounts));
        ObjectNode stages = job.putObject("stages");
        for (CostSample.Stage stage : CostSample.Stage.values()) {
            ObjectNode o = stages.putObject(stage.name().toLowerCase(java.util.Locale.ROOT));
            o.put("work_cpu_seconds", accounts.stageWorkNanos[stage.ordinal()] / 1e9);
            o.put("task_cpu_seconds", accounts.stageThreadNanos[stage.ordinal()] / 1e9);
        }
    }

    /**
     * What a sizing rests on: the target and the prices; the fleet of each device that sustains the
     * target follows, FPGAs and SmartSSDs at the model's rows per second for all columns, CPU cores
     * at the measured rows per core-second (linear scaling, which COMBINING.md pitfall 2 calls
     * optimistic).
     */
    private static void sizingBasis(ObjectNode o, ReportSettings.FleetTarget target) {
        o.put("target_rows_per_second", target.rowsPerSecond());
        o.put("dollars_per_kwh", target.dollarsPerKwh());
        o.put("years", Fleet.PRESTO_YEARS);
        o.put(
                "basis",
                "N = ceil(T / P) (PS §IV-B); power while sustaining T; energy at dollars_per_kwh;"
                        + " a device's price, when given, written off over the years at T"
                        + " (PS §V-C)");
    }

    /** Rows per second of a device that takes {@code seconds} for {@code rows} (0 if no time). */
    private static double rowsPerSecond(long rows, double seconds) {
        return seconds > 0 ? rows / seconds : 0;
    }

    private static void fleet(
            ObjectNode o,
            double perDevice,
            double watts,
            ReportSettings.FleetTarget target,
            double price) {
        o.put("rows_per_second", perDevice);
        if (perDevice <= 0) {
            o.putNull("devices");
            return;
        }
        Fleet f =
                Fleet.of(
                        target.rowsPerSecond(),
                        perDevice,
                        watts,
                        target.dollarsPerKwh(),
                        price,
                        Fleet.PRESTO_YEARS);
        o.put("devices", f.devices());
        number(o, "watts", f.watts());
        number(o, "joules_per_million_rows", f.joulesPerMillionRows());
        number(o, "energy_dollars_per_million_rows", f.energyDollarsPerMillionRows());
        number(o, "capex_dollars_per_million_rows", f.capexDollarsPerMillionRows());
    }

    /** {@code v}, or null when it is unknown (NaN). */
    private static void number(ObjectNode o, String name, double v) {
        if (Double.isNaN(v)) {
            o.putNull(name);
        } else {
            o.put(name, v);
        }
    }

    private static double rowsPerCoreSecond(ColumnAccounts a) {
        long nanos = a.threadNanos();
        return nanos > 0 ? a.rows / (nanos / 1e9) : 0;
    }

    private static void defaults(ObjectNode d, FpgaModel fpga, SmartSsdModel ssd) {
        d.put(
                "fpga",
                String.format(
                        java.util.Locale.ROOT,
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
                                .value()));
        d.put("fpga_vocabulary_bytes", Math.round(fpga.vocabularyBudgetBytes()));
        d.put(
                "input_bytes",
                "counted per field in a sample of the blocks (each decoder's first and every"
                        + " n-th, piper.report.field-bytes-every); the other blocks' exact bytes"
                        + " are split by the shares counted so far");
        d.put(
                "fpga_watts",
                "P2 Table 5 by configuration: 24 W without vocabularies (P-I), 25 W with every"
                        + " vocabulary on chip (P-II), 26 W with one off chip (P-III);"
                        + " device.fpga_watts is this report's");
        d.put(
                "smartssd",
                String.format(
                        java.util.Locale.ROOT,
                        "PreSto (PS): Samsung SmartSSD, double-buffered, P2P read %.2f GB/s, units"
                                + " at %.0f MHz, one element per cycle; two passes for a column"
                                + " with a vocabulary (UTF-8 rows read whole in both); %.1f MB of"
                                + " on-chip memory for vocabularies (the XCKU15P's block RAM and"
                                + " UltraRAM PreSto's units leave free), off chip %.0f cycles an"
                                + " element (P2 §3.4.2)",
                        ssd.p2pBytesPerSecond().value() / 1e9,
                        ssd.clock().value() / 1e6,
                        ssd.vocabularyBytes().value() / 1e6,
                        ssd.offChipInitiationInterval().value()));
        d.put("smartssd_vocabulary_bytes", Math.round(ssd.vocabularyBytes().value()));
        d.put("smartssd_watts", ssd.power().value());
        d.put(
                "speedup_basis",
                "CPU core-seconds measured in this job (thread CPU time) vs the device: vs one"
                        + " core of "
                        + CPU_NAME);
        d.put(
                "column_time",
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
