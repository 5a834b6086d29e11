package dev.piper.cli;

import dev.piper.feed.LineProducer;
import dev.piper.feed.TopicCreation;
import dev.piper.job.args.JobArgs;
import dev.piper.job.args.JobOption;
import dev.piper.job.launch.KafkaArgs;
import dev.piper.job.launch.LaunchChecks;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code piper produce}: a text file into a Kafka topic, one record per line; an Avro container
 * file, one record per datum.
 */
@Command(
        name = "produce",
        mixinStandardHelpOptions = true,
        description = {
            "Send every line of a text file (Criteo, JSON events, CSV; .gz is decompressed) to"
                    + " a Kafka topic as one record, its value the line's bytes without the line"
                    + " break, in file order.",
            "An Avro container file (a name ending in .avro) is sent one datum a record, in"
                    + " Avro's binary encoding without a header, for a spec of input.format avro"
                    + " whose input.schema is the file's schema; a file of length-delimited"
                    + " Protobuf messages (a name ending in .pb) one message a record, without"
                    + " its length, for a spec of input.format protobuf."
        })
final class ProduceCommand implements Callable<Integer>, JobOptionsCli.Taking {

    @Spec CommandSpec spec;

    @Override
    public List<JobOption> jobOptions() {
        return KafkaArgs.OPTIONS;
    }

    @Option(names = "--topic", required = true, paramLabel = "T", description = "Topic to write.")
    String topic;

    @Option(names = "--input", required = true, paramLabel = "FILE", description = "File to send.")
    Path input;

    @Option(
            names = "--rate",
            paramLabel = "R",
            description = "Lines per second at most (default: as fast as the broker takes them).")
    Double rate;

    @Option(
            names = "--partitions",
            paramLabel = "N",
            description =
                    "Create the topic with N partitions if it does not exist (default: the"
                            + " broker's automatic creation, if enabled).")
    Integer partitions;

    @Override
    public Integer call() throws Exception {
        LaunchChecks.inputFile(input);
        if (rate != null && !(rate > 0)) {
            throw new ParameterException(
                    spec.commandLine(), "--rate: must be positive, not " + rate);
        }
        if (partitions != null && partitions < 1) {
            throw new ParameterException(
                    spec.commandLine(), "--partitions: must be at least 1, not " + partitions);
        }
        PrintStream progress = System.err;
        JobArgs args = JobOptionsCli.args(spec);
        Map<String, String> client = KafkaArgs.connect(args);
        if (partitions != null) {
            TopicCreation.createIfAbsent(
                    KafkaArgs.bootstrapServers(args), client, topic, partitions, progress);
        }
        boolean avro = input.toString().endsWith(".avro");
        boolean protobuf = input.toString().endsWith(".pb");
        LineProducer.Result r =
                protobuf
                        ? LineProducer.produceDelimited(
                                input,
                                KafkaArgs.bootstrapServers(args),
                                topic,
                                rate,
                                client,
                                progress)
                        : avro
                                ? LineProducer.produceAvro(
                                        input,
                                        KafkaArgs.bootstrapServers(args),
                                        topic,
                                        rate,
                                        client,
                                        progress)
                                : LineProducer.produce(
                                        input,
                                        KafkaArgs.bootstrapServers(args),
                                        topic,
                                        rate,
                                        client,
                                        progress);
        spec.commandLine()
                .getOut()
                .printf(
                        "produce: %,d %s (%,d bytes) to %s in %.1f s%n",
                        r.lines(),
                        avro ? "datums" : protobuf ? "messages" : "lines",
                        r.bytes(),
                        topic,
                        r.seconds());
        return 0;
    }
}
