package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@link LineProducer} on a real broker: every line once, in order, and a rate never exceeded. */
class LineProducerTest {

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    @TempDir Path tmp;

    @Test
    void aPacedProducerSendsEveryLineInOrderAndNeverAheadOfItsRate() throws Exception {
        int lines = 3_000;
        double rate = 10_000;
        Path input = tmp.resolve("lines.txt");
        Files.write(input, IntStream.range(0, lines).mapToObj(i -> "line " + i).toList());
        kafka.createTopic("paced", 1);

        long before = System.currentTimeMillis();
        LineProducer.Result result =
                LineProducer.produce(
                        input, kafka.bootstrapServers(), "paced", rate, Map.of(), QUIET);

        assertThat(result.lines()).isEqualTo(lines);
        // the last line is due (lines - 1) / rate after the first: a slower machine only adds
        assertThat(result.seconds()).isGreaterThanOrEqualTo((lines - 1) / rate - 0.001);
        List<ConsumerRecord<byte[], byte[]>> read = kafka.readCommitted("paced");
        assertThat(read)
                .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .containsExactlyElementsOf(
                        IntStream.range(0, lines).mapToObj(i -> "line " + i).toList());
        for (int i = 0; i < lines; i++) {
            // line i is due i / rate after the producer started (at or after `before`); it leaves
            // at most the pacing slice (1 ms) early, and millisecond timestamps lose at most 1 ms
            assertThat(read.get(i).timestamp() - before)
                    .as("line %d's send time after the call (ms)", i)
                    .isGreaterThanOrEqualTo((long) Math.floor(i * 1000 / rate) - 2);
        }
    }
}
