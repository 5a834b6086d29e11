package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 40: two streams with different checkpoint directories and the same output topic both ran
 * and committed every block twice. Each claims its rows topic on a real broker: the first claim
 * owns it, a second directory is refused naming the first, a take-over moves it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class OutputClaimsTest {

    private static final PrintStream QUIET = new PrintStream(PrintStream.nullOutputStream());

    @RegisterExtension static final TestKafka kafka = TestKafka.perClass();

    private static OutputClaims claims(String rows) {
        return new OutputClaims(kafka.bootstrapServers(), Map.of(), rows + "-claims");
    }

    @Test
    void theFirstDirectoryOwnsTheTopicASecondIsRefusedNamingIt() throws Exception {
        claims("one").claim(List.of("one"), "id-a", "/data/a", false, QUIET);
        claims("one").claim(List.of("one"), "id-a", "/data/a", false, QUIET); // its restart
        assertThatThrownBy(
                        () -> claims("one").claim(List.of("one"), "id-b", "/data/b", false, QUIET))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(
                        "output topic one belongs to the stream of checkpoint directory /data/a on ")
                .hasMessageContaining("--take-over-output");
        assertThat(claims("one").owner("one").orElseThrow().checkpointDir()).isEqualTo("/data/a");

        ByteArrayOutputStream said = new ByteArrayOutputStream();
        claims("one")
                .claim(
                        List.of("one"),
                        "id-b",
                        "/data/b",
                        true,
                        new PrintStream(said, true, StandardCharsets.UTF_8));
        assertThat(said.toString(StandardCharsets.UTF_8))
                .contains(
                        "--take-over-output: output topic one was the stream of checkpoint"
                                + " directory /data/a");
        assertThat(claims("one").owner("one").orElseThrow().checkpointDir()).isEqualTo("/data/b");
        assertThatThrownBy(
                        () -> claims("one").claim(List.of("one"), "id-a", "/data/a", false, QUIET))
                .hasMessageStartingWith(
                        "output topic one belongs to the stream of checkpoint directory /data/b");
        assertThat(claims("never").owner("never")).as("no claims topic yet").isEmpty();
        // the same stream from its directory moved elsewhere (the id travels with it)
        claims("one").claim(List.of("one"), "id-b", "/mnt/moved/b", false, QUIET);
    }

    /** Streams started at the same moment all claim; exactly one owns the topic. */
    @Test
    void ofStreamsClaimingAtOnceOneWins() throws Exception {
        int streams = 4;
        CountDownLatch go = new CountDownLatch(1);
        // a thread each (the common pool has one thread on two cores: no race at all)
        ExecutorService threads = Executors.newFixedThreadPool(streams);
        List<CompletableFuture<Void>> claiming = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            String dir = "/data/rival-" + i;
            claiming.add(
                    CompletableFuture.runAsync(
                            () -> {
                                try {
                                    go.await();
                                    claims("raced")
                                            .claim(
                                                    List.of("raced"),
                                                    "id-" + dir,
                                                    dir,
                                                    false,
                                                    QUIET);
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            },
                            threads));
        }
        go.countDown();
        CompletableFuture.allOf(claiming.toArray(CompletableFuture[]::new))
                .handle((done, failed) -> null)
                .get(60, TimeUnit.SECONDS);
        int won = 0;
        String owner = claims("raced").owner("raced").orElseThrow().checkpointDir();
        for (int i = 0; i < streams; i++) {
            try {
                claiming.get(i).get(60, TimeUnit.SECONDS);
                won++;
                assertThat(owner).isEqualTo("/data/rival-" + i);
            } catch (ExecutionException e) {
                assertThat(e.getCause().getCause()) // the refusal, in the task's wrapper
                        .hasMessageStartingWith(
                                "output topic raced belongs to the stream of checkpoint directory "
                                        + owner);
            }
        }
        threads.shutdown();
        assertThat(won).as("streams that own the topic").isEqualTo(1);
    }
}
