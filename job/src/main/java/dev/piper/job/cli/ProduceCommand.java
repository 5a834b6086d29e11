package dev.piper.job.cli;

import dev.piper.job.kafka.LineProducer;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code piper produce}: a Criteo file into a Kafka topic, one record per line. */
@Command(
        name = "produce",
        mixinStandardHelpOptions = true,
        description = {
            "Send every line of a Criteo text file (.gz is decompressed) to a Kafka topic as one"
                    + " record, its value the line's bytes without the line break, in file order."
        })
final class ProduceCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin KafkaClientOptions kafka;

    @Option(names = "--topic", required = true, paramLabel = "T", description = "Topic to write.")
    String topic;

    @Option(names = "--input", required = true, paramLabel = "FILE", description = "File to send.")
    Path input;

    @Option(
            names = "--rate",
            paramLabel = "R",
            description = "Lines per second at most (default: as fast as the broker takes them).")
    Double rate;

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(input)) {
            throw new ParameterException(
                    spec.commandLine(), "--input: " + input + " is not a readable file");
        }
        if (rate != null && !(rate > 0)) {
            throw new ParameterException(
                    spec.commandLine(), "--rate: must be positive, not " + rate);
        }
        PrintStream progress = System.err;
        LineProducer.Result r =
                LineProducer.produce(
                        input,
                        kafka.bootstrapServers,
                        topic,
                        rate,
                        kafka.clientProperties(spec.commandLine()),
                        progress);
        spec.commandLine()
                .getOut()
                .printf(
                        "produce: %,d lines (%,d bytes) to %s in %.1f s%n",
                        r.lines(), r.bytes(), topic, r.seconds());
        return 0;
    }
}
