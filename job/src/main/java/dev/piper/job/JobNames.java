package dev.piper.job;

import dev.piper.pipeline.ops.ColumnProgram;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;

/**
 * The Flink job names of piper's jobs, as the web UI, {@code piper job list} and every metric
 * ({@code job_name}) show them: what runs, which pipeline and version, and on what input, e.g.
 * {@code piper preprocess dlrm-criteo/1 /data/day_0.gz} or {@code piper stream dlrm-criteo/1 clicks
 * -> rows}.
 */
public final class JobNames {

    private JobNames() {}

    /** The name of a preprocess job of {@code conf}'s pipeline over {@code input}. */
    public static String preprocess(Configuration conf, Path input) {
        ColumnProgram program = PiperOptions.decodeOptions(conf).program();
        return "piper preprocess " + program.name() + "/" + program.version() + " " + input;
    }

    /**
     * The name of a stream job of {@code conf}'s pipelines: each one's name and starting version,
     * input topic and rows topic.
     */
    public static String stream(Configuration conf) {
        StreamPipelines pipelines = StreamPipelines.of(conf);
        return "piper stream "
                + pipelines.pipelines().stream()
                        .map(
                                p ->
                                        p.name()
                                                + "/"
                                                + p.start().version()
                                                + " "
                                                + p.inputTopic()
                                                + " -> "
                                                + p.outputTopic())
                        .collect(Collectors.joining(", "));
    }
}
