package dev.piper.operators.control;

import dev.piper.core.block.KafkaOut;
import dev.piper.core.control.ActiveSpec;
import dev.piper.core.control.ControlMessage;
import dev.piper.core.control.ControlStatus;
import dev.piper.core.control.SwitchLimits;
import dev.piper.operators.block.BlockTypes;
import dev.piper.operators.cost.CostModelOperator;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The control operator (parallelism 1): validates each spec of the control stream against the
 * pipeline's active one and emits the accepted ones, with their vocabulary epochs, to be broadcast
 * to the decoders. Every message gets a status record ({@link ControlStatus}) on {@link #STATUS}:
 * accepted, or rejected with every problem named. A rejected spec changes nothing, and no message
 * can fail the job.
 *
 * <p>A spec is accepted when it parses and validates ({@link SpecParser}), names this job's
 * pipeline, has a version above the active one, and does not ask for another input (topic or route)
 * than the job reads. Its state, the active spec, is checkpointed with the decoders' broadcast
 * state, so both agree after a restore.
 */
public final class ControlFunction extends ProcessFunction<ControlMessage, ActiveSpec>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** The status records. */
    public static final OutputTag<KafkaOut> STATUS =
            new OutputTag<>("control-status", BlockTypes.KAFKA_OUT);

    private final byte[][] starts;

    /** Each pipeline's name, by index. */
    private final String[] names;

    private final String[] inputTopics;
    private final SwitchLimits limits;

    private transient ListState<ActiveSpec> state;

    /** Each pipeline's active spec, by name. */
    private transient Map<String, ActiveSpec> active;

    /** Each pipeline's input topic, by name. */
    private transient Map<String, String> topics;

    /**
     * A job running one pipeline.
     *
     * @param start the spec the job started with
     * @param inputTopic the topic the pipeline reads
     */
    public ControlFunction(ActiveSpec start, String inputTopic) {
        this(new ActiveSpec[] {start}, new String[] {inputTopic});
    }

    /**
     * Pipelines of Criteo's blocks into topics of 1 MiB records, without the cost report.
     *
     * @param starts each pipeline's starting spec, by index
     * @param inputTopics each pipeline's input topic, by index
     */
    public ControlFunction(ActiveSpec[] starts, String[] inputTopics) {
        this(starts, inputTopics, SwitchLimits.defaults(starts.length));
    }

    /**
     * @param starts each pipeline's starting spec, by index
     * @param inputTopics each pipeline's input topic, by index
     * @param limits what a spec switched to must fit
     */
    public ControlFunction(ActiveSpec[] starts, String[] inputTopics, SwitchLimits limits) {
        if (starts.length != inputTopics.length
                || starts.length != limits.blockLines().length
                || starts.length == 0) {
            throw new IllegalArgumentException(
                    "one input topic and block size per pipeline expected");
        }
        this.limits = limits;
        this.starts = new byte[starts.length][];
        this.names = new String[starts.length];
        for (int i = 0; i < starts.length; i++) {
            this.starts[i] = ActiveSpecSerializer.toBytes(starts[i]);
            this.names[i] = starts[i].name();
        }
        this.inputTopics = inputTopics.clone();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        state =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "active-spec", new ActiveSpecSerializer()));
        active = new TreeMap<>();
        topics = new HashMap<>();
        for (int i = 0; i < starts.length; i++) {
            ActiveSpec start = ActiveSpecSerializer.fromBytes(starts[i]);
            active.put(start.name(), start);
            topics.put(start.name(), inputTopics[i]);
        }
        // The restored spec wins over the starting one: its epochs are those of the restored
        // vocabularies (stream checks that a restart keeps the columns' chains). A pipeline no
        // longer run keeps no state.
        Map<String, ActiveSpec> restored = new HashMap<>();
        for (ActiveSpec r : state.get()) {
            ActiveSpec seen = restored.get(r.name());
            if (seen == null || r.version() > seen.version()) {
                restored.put(r.name(), r);
            }
        }
        restored.forEach((name, spec) -> active.computeIfPresent(name, (n, start) -> spec));
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        state.update(new ArrayList<>(active.values()));
    }

    /** Pipeline {@code name}'s active spec (for tests). */
    ActiveSpec active(String name) {
        return active.get(name);
    }

    @Override
    public void processElement(ControlMessage message, Context ctx, Collector<ActiveSpec> out) {
        // What a message that names no pipeline of this job is reported against.
        ActiveSpec reference = active.size() == 1 ? active.values().iterator().next() : null;
        if (!message.problem().isEmpty()) {
            ctx.output(
                    STATUS,
                    ControlStatus.rejected(
                            message.source(), null, 0, reference, List.of(message.problem())));
            return;
        }
        PipelineSpec spec;
        try {
            spec = SpecParser.parse(message.text(), message.source());
        } catch (SpecException e) {
            ctx.output(
                    STATUS,
                    ControlStatus.rejected(message.source(), null, 0, reference, e.problems()));
            return;
        }
        ActiveSpec previous = active.get(spec.name());
        List<String> problems = fit(spec, previous);
        if (!problems.isEmpty()) {
            ctx.output(
                    STATUS,
                    ControlStatus.rejected(
                            message.source(), spec.name(), spec.version(), previous, problems));
            return;
        }
        ActiveSpec next;
        try {
            next = previous.next(spec);
        } catch (RuntimeException e) {
            // The parser validates everything the compiler needs; a spec that still fails to
            // compile is reported rather than allowed to fail the job.
            ctx.output(
                    STATUS,
                    ControlStatus.rejected(
                            message.source(),
                            spec.name(),
                            spec.version(),
                            previous,
                            List.of("spec: cannot be compiled: " + e.getMessage())));
            return;
        }
        active.put(next.name(), next);
        out.collect(next);
        ctx.output(STATUS, ControlStatus.accepted(message.source(), previous, next));
    }

    private static int[] sameForAll(int n, int lines) {
        int[] all = new int[n];
        java.util.Arrays.fill(all, lines);
        return all;
    }

    /** The index of pipeline {@code name} (it is one of the job's). */
    private int pipelineIndex(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        throw new IllegalStateException("no pipeline " + name);
    }

    /** What keeps a valid spec from replacing pipeline's active one ({@code active}, or null). */
    private List<String> fit(PipelineSpec spec, ActiveSpec active) {
        List<String> problems = new ArrayList<>();
        if (active == null) {
            problems.add(
                    "name: this job runs "
                            + (this.active.size() == 1
                                    ? "pipeline \"" + this.active.keySet().iterator().next() + "\""
                                    : "pipelines " + this.active.keySet())
                            + ", not \""
                            + spec.name()
                            + "\"");
            return problems;
        }
        String inputTopic = topics.get(spec.name());
        if (spec.version() <= active.version()) {
            problems.add(
                    "version: "
                            + spec.version()
                            + " is not above the active version "
                            + active.version());
        }
        spec.input()
                .topic()
                .filter(t -> !t.equals(inputTopic))
                .ifPresent(
                        t ->
                                problems.add(
                                        "input.topic: this job reads "
                                                + inputTopic
                                                + "; a running pipeline cannot move to "
                                                + t));
        if (spec.input().routeField().isPresent()) {
            problems.add("input.route: piper stream does not route lines (yet)");
        }
        if (spec.hotline() != null) {
            problems.add(
                    "hotline: Hotline's split does not run with run-time reconfiguration (a switch"
                            + " may change the rows' shape a window's hot set is chosen for)");
        }
        if (spec.labels() != null) {
            problems.add(
                    "labels: a label join does not start or change at run time (its waiting"
                            + " impressions belong to the spec the job started with)");
        }
        if (!spec.input().format().equals(active.spec().input().format())) {
            problems.add(
                    "input.format: the job reads "
                            + active.spec().input().format()
                            + ", not "
                            + spec.input().format());
        }
        if (!spec.output().format().equals(active.spec().output().format())) {
            problems.add(
                    "output.format: the job writes "
                            + active.spec().output().format()
                            + "; a running pipeline cannot change it");
        }
        // The input layout may change too (a new version whose records say so); every sparse
        // column then starts a new vocabulary epoch (ActiveSpec.next).
        problems.addAll(recordProblems(spec, SpecCompiler.program(spec)));
        return problems;
    }

    /**
     * What keeps the rows of {@code then}, a new version of {@code spec}'s pipeline, from this
     * job's records: the cost report's refusals, and rows or lists larger than a record holds.
     */
    private List<String> recordProblems(PipelineSpec spec, ColumnProgram then) {
        List<String> problems = new ArrayList<>();
        if (limits.priced()) {
            CostModelOperator.refusal(then)
                    .ifPresent(
                            why ->
                                    problems.add(
                                            "columns: the job runs the cost report, and " + why));
        }
        // Blocks are cut by the starting spec's settings: the new rows must fit a record.
        int p = pipelineIndex(spec.name());
        long rowsBytes = (long) limits.blockLines()[p] * then.rowBytes();
        if (rowsBytes > limits.rowBytes()) {
            problems.add(
                    "columns: rows of "
                            + then.rowBytes()
                            + " bytes ("
                            + then.rowColumns().size()
                            + " int32 slots) in blocks of up to "
                            + limits.blockLines()[p]
                            + " lines make rows records of "
                            + rowsBytes
                            + " bytes, more than the "
                            + limits.rowBytes()
                            + " a record holds; run the stream with --block-lines "
                            + Math.max(1, limits.rowBytes() / then.rowBytes())
                            + " or fewer for this spec");
        }
        int listRecord = KafkaOut.maxRecordBytes(limits.blockBytes(), true);
        if (then.layout().hasLists() && listRecord > limits.recordLimit()) {
            problems.add(
                    "input.list_columns: lists make rows records of up to "
                            + listRecord
                            + " bytes at --block-bytes "
                            + limits.blockBytes()
                            + ", and the rows topic takes "
                            + limits.recordLimit()
                            + " (max.message.bytes): raise it and restart the stream, or run"
                            + " the stream with a smaller --block-bytes");
        }
        return problems;
    }
}
