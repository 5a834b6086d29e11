package dev.piper.core.cost;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * One pipeline's cost report, typed: what {@link CostReports} computes from a pipeline's {@link
 * ColumnAccounts} and the hardware model, and {@link #toJson()} writes as the JSON document of
 * {@code docs/HARDWARE_MODEL.md} (one object per report; its fields in this order and under these
 * names). A figure that is unknown is null, a section that does not apply is left out.
 *
 * @param pipeline the pipeline's name
 * @param pipelineVersion the spec version the accounts were measured under
 * @param report which report this is and what it covers
 * @param inputFormat how the input's bytes were counted ({@code utf8})
 * @param defaults what the devices are assumed to be, and the bases of the figures, in words
 * @param columns per column of the layout (label excepted), in layout order
 * @param device the whole job on each device
 * @param sizing the fleet of each device a target throughput needs; null without a target
 * @param job how the CPU time was measured and attributed
 */
public record PipelineCostReport(
        String pipeline,
        @JsonProperty("pipeline_version") int pipelineVersion,
        Interval report,
        @JsonProperty("input_format") String inputFormat,
        Defaults defaults,
        List<Column> columns,
        Device device,
        @JsonInclude(JsonInclude.Include.NON_NULL) Sizing sizing,
        Job job) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The report as one line of JSON. */
    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Which report this is.
     *
     * @param index its number in the run, from 0
     * @param last whether it is the run's last ({@code final})
     * @param covers {@code run} for the last, else {@code interval}
     */
    public record Interval(
            int index,
            @JsonProperty("final") boolean last,
            String covers,
            long lines,
            long rows,
            long blocks) {}

    /** The devices assumed and the bases of the figures, in words (and two budgets). */
    public record Defaults(
            String fpga,
            @JsonProperty("fpga_vocabulary_bytes") long fpgaVocabularyBytes,
            @JsonProperty("input_bytes") String inputBytes,
            @JsonProperty("fpga_watts") String fpgaWatts,
            String smartssd,
            @JsonProperty("smartssd_vocabulary_bytes") long smartSsdVocabularyBytes,
            @JsonProperty("smartssd_watts") double smartSsdWatts,
            @JsonProperty("speedup_basis") String speedupBasis,
            @JsonProperty("column_time") String columnTime) {}

    /**
     * One column: its work, vocabulary, the devices' times and its CPU time.
     *
     * @param list true for a list column (its values are ids, its bytes the whole lists'); null
     *     otherwise, and then left out
     * @param vocabEntries the vocabulary's entries; null without a vocabulary
     * @param vocabTableBytes the vocabulary table's bytes; left out without a vocabulary
     * @param vocabTable {@code direct-mapped} or {@code hashed}; left out without a vocabulary
     */
    public record Column(
            String column,
            String kind,
            @JsonInclude(JsonInclude.Include.NON_NULL) Boolean list,
            List<String> ops,
            long values,
            @JsonProperty("input_bytes") long inputBytes,
            @JsonProperty("vocab_entries") Long vocabEntries,
            @JsonProperty("vocab_tier") String vocabTier,
            @JsonProperty("smartssd_vocab_tier") String smartSsdVocabTier,
            @JsonProperty("vocab_table_bytes") @JsonInclude(JsonInclude.Include.NON_NULL)
                    Long vocabTableBytes,
            @JsonProperty("vocab_table") @JsonInclude(JsonInclude.Include.NON_NULL)
                    String vocabTable,
            @JsonProperty("fpga_ii_cycles_per_beat") Map<String, Double> fpgaIiCyclesPerBeat,
            @JsonProperty("fpga_clock_mhz") double fpgaClockMhz,
            @JsonProperty("smartssd_ii_cycles_per_element")
                    Map<String, Double> smartSsdIiCyclesPerElement,
            @JsonProperty("cpu_ns_per_value") double cpuNsPerValue,
            @JsonProperty("cpu_core_seconds") double cpuCoreSeconds,
            @JsonProperty("fpga_seconds") double fpgaSeconds,
            @JsonProperty("fpga_bound") String fpgaBound,
            @JsonProperty("fpga_speedup") double fpgaSpeedup,
            @JsonProperty("smartssd_seconds") double smartSsdSeconds,
            @JsonProperty("smartssd_bound") String smartSsdBound,
            @JsonProperty("smartssd_speedup") double smartSsdSpeedup,
            @JsonProperty("binary_input") BinaryInput binaryInput,
            @JsonProperty("fpga_assumed_ops") List<String> fpgaAssumedOps,
            @JsonProperty("smartssd_extrapolated_ops") List<String> smartSsdExtrapolatedOps,
            @JsonProperty("cpu_breakdown") CpuBreakdown cpuBreakdown) {}

    /** A column's devices if its input arrived as binary values instead of text. */
    public record BinaryInput(
            @JsonProperty("fpga_seconds") double fpgaSeconds,
            @JsonProperty("fpga_bound") String fpgaBound,
            @JsonProperty("fpga_speedup") double fpgaSpeedup,
            @JsonProperty("smartssd_seconds") double smartSsdSeconds,
            @JsonProperty("smartssd_bound") String smartSsdBound,
            @JsonProperty("smartssd_speedup") double smartSsdSpeedup) {}

    /** Where a column's CPU seconds went. */
    public record CpuBreakdown(
            double decode,
            @JsonProperty("column_passes") double columnPasses,
            double vocabulary,
            double output,
            @JsonProperty("task_overhead") double taskOverhead) {}

    /** The whole job on each device: time, binding resource, speedup and energy. */
    public record Device(
            @JsonProperty("fpga_seconds") double fpgaSeconds,
            @JsonProperty("fpga_bound") String fpgaBound,
            @JsonProperty("smartssd_seconds") double smartSsdSeconds,
            @JsonProperty("smartssd_bound") String smartSsdBound,
            @JsonProperty("fpga_speedup") double fpgaSpeedup,
            @JsonProperty("smartssd_speedup") double smartSsdSpeedup,
            @JsonProperty("cpu_core_seconds") double cpuCoreSeconds,
            @JsonProperty("fpga_seconds_by_resource") Map<String, Double> fpgaSecondsByResource,
            @JsonProperty("smartssd_seconds_by_resource")
                    Map<String, Double> smartSsdSecondsByResource,
            @JsonProperty("fpga_watts") double fpgaWatts,
            @JsonProperty("fpga_joules") double fpgaJoules,
            @JsonProperty("smartssd_joules") double smartSsdJoules,
            @JsonProperty("cpu_joules") Double cpuJoules,
            @JsonProperty("fpga_rows_per_second") double fpgaRowsPerSecond,
            @JsonProperty("smartssd_rows_per_second") double smartSsdRowsPerSecond,
            @JsonProperty("binary_input") DeviceBinaryInput binaryInput) {}

    /** The whole job on each device if the input arrived as binary values. */
    public record DeviceBinaryInput(
            @JsonProperty("fpga_seconds") double fpgaSeconds,
            @JsonProperty("fpga_bound") String fpgaBound,
            @JsonProperty("smartssd_seconds") double smartSsdSeconds,
            @JsonProperty("smartssd_bound") String smartSsdBound) {}

    /** What a sizing rests on, and the fleet of each device (and CPU cores) for the target. */
    public record Sizing(
            @JsonProperty("target_rows_per_second") double targetRowsPerSecond,
            @JsonProperty("dollars_per_kwh") double dollarsPerKwh,
            double years,
            String basis,
            FleetSize fpga,
            FleetSize smartssd,
            @JsonProperty("cpu_cores") CpuCores cpuCores) {}

    /**
     * How many of one device sustain the target, and what they cost; a device without a rate has no
     * fleet ({@code devices} null, the costs left out).
     *
     * @param costs null without a fleet
     */
    public record FleetSize(
            @JsonProperty("rows_per_second") double rowsPerSecond,
            Long devices,
            @JsonUnwrapped Costs costs) {}

    /** What a fleet draws and costs; an unknown figure (a price not given) is null. */
    public record Costs(
            Double watts,
            @JsonProperty("joules_per_million_rows") Double joulesPerMillionRows,
            @JsonProperty("energy_dollars_per_million_rows") Double energyDollarsPerMillionRows,
            @JsonProperty("capex_dollars_per_million_rows") Double capexDollarsPerMillionRows) {}

    /** The CPU cores' fleet, with the note on its linear scaling. */
    public record CpuCores(@JsonUnwrapped FleetSize fleet, String note) {}

    /** How the CPU was measured and attributed, per stage. */
    public record Job(
            @JsonProperty("cpu_basis") String cpuBasis,
            @JsonProperty("jit_warmup") String jitWarmup,
            String heap,
            @JsonProperty("decode_attribution") DecodeAttribution decodeAttribution,
            @JsonProperty("task_cpu_seconds") double taskCpuSeconds,
            @JsonProperty("measured_work_cpu_seconds") double measuredWorkCpuSeconds,
            @JsonProperty("column_cpu_seconds") double columnCpuSeconds,
            @JsonProperty("label_cpu_seconds") double labelCpuSeconds,
            @JsonProperty("unattributed_cpu_seconds") double unattributedCpuSeconds,
            @JsonProperty("rows_per_core_second") double rowsPerCoreSecond,
            Map<String, Stage> stages) {}

    /**
     * How decoding time was split over the fields.
     *
     * @param labelDenseNsPerByte the latest measured cost per byte of label and dense fields; left
     *     out before the first measurement
     * @param categoricalNsPerByte the same of categorical fields
     */
    public record DecodeAttribution(
            long blocks,
            @JsonProperty("blocks_by_kinds") long blocksByKinds,
            @JsonProperty("measured_blocks") long measuredBlocks,
            @JsonProperty("label_dense_ns_per_byte") @JsonInclude(JsonInclude.Include.NON_NULL)
                    Double labelDenseNsPerByte,
            @JsonProperty("categorical_ns_per_byte") @JsonInclude(JsonInclude.Include.NON_NULL)
                    Double categoricalNsPerByte,
            String basis) {}

    /** One stage's CPU seconds: its work's and its threads'. */
    public record Stage(
            @JsonProperty("work_cpu_seconds") double workCpuSeconds,
            @JsonProperty("task_cpu_seconds") double taskCpuSeconds) {}
}
