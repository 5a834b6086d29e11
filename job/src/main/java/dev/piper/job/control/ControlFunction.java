package dev.piper.job.control;

import dev.piper.job.kafka.KafkaOut;
import dev.piper.job.spec.PipelineSpec;
import dev.piper.job.spec.SpecException;
import dev.piper.job.spec.SpecParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
            new OutputTag<>("control-status", KafkaOut.TYPE);

    private final byte[] start;
    private final String inputTopic;

    private transient ListState<ActiveSpec> state;
    private transient ActiveSpec active;

    /**
     * @param start the spec the job started with
     * @param inputTopic the topic the pipeline reads
     */
    public ControlFunction(ActiveSpec start, String inputTopic) {
        Objects.requireNonNull(start);
        this.start = ActiveSpecSerializer.toBytes(start);
        this.inputTopic = Objects.requireNonNull(inputTopic);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        state =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "active-spec", new ActiveSpecSerializer()));
        active = ActiveSpecSerializer.fromBytes(start);
        for (ActiveSpec restored : state.get()) {
            if (restored.name().equals(active.name()) && restored.version() > active.version()) {
                active = restored;
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        state.update(List.of(active));
    }

    /** The pipeline's active spec (for tests). */
    ActiveSpec active() {
        return active;
    }

    @Override
    public void processElement(ControlMessage message, Context ctx, Collector<ActiveSpec> out) {
        PipelineSpec spec;
        try {
            spec = SpecParser.parse(message.text(), message.source());
        } catch (SpecException e) {
            ctx.output(
                    STATUS,
                    ControlStatus.rejected(message.source(), null, 0, active, e.problems()));
            return;
        }
        List<String> problems = fit(spec);
        if (!problems.isEmpty()) {
            ctx.output(
                    STATUS,
                    ControlStatus.rejected(
                            message.source(), spec.name(), spec.version(), active, problems));
            return;
        }
        ActiveSpec previous = active;
        active = previous.next(spec);
        out.collect(active);
        ctx.output(STATUS, ControlStatus.accepted(message.source(), previous, active));
    }

    /** What keeps a valid spec from replacing the active one in this job. */
    private List<String> fit(PipelineSpec spec) {
        List<String> problems = new ArrayList<>();
        if (!spec.name().equals(active.name())) {
            problems.add(
                    "name: this job runs pipeline \""
                            + active.name()
                            + "\", not \""
                            + spec.name()
                            + "\"");
        }
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
        return problems;
    }
}
