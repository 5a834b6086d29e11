package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a command is told when no Kafka broker answers where it looks, and how soon. */
class BrokerCheckTest {

    /** A loopback port nothing listens on: bound, then released. */
    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void aRefusedAddressFailsAtOnceNamingItAndTheCause() throws Exception {
        String servers = "127.0.0.1:" + closedPort() + ",localhost:" + closedPort();
        assertThatThrownBy(() -> BrokerCheck.answers(servers, Map.of(), Duration.ofSeconds(10)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("no Kafka broker at " + servers + " (127.0.0.1:")
                .hasMessageContaining("connection refused")
                .hasMessageContaining("; localhost:")
                .hasMessageContaining("bin/piper kafka start");
    }

    @Test
    void malformedAddressesAreNamed() {
        assertThat(BrokerCheck.dial("127.0.0.1")).isEqualTo("not host:port");
        assertThat(BrokerCheck.dial("127.0.0.1:90x")).isEqualTo("port \"90x\" is not a number");
        assertThat(BrokerCheck.dial("no-such-host.invalid:9092"))
                .isEqualTo("unknown host no-such-host.invalid");
    }

    @Test
    void aListenerThatIsNotKafkaFailsWithinTheTimeGiven() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            String servers = "127.0.0.1:" + silent.getLocalPort();
            assertThatThrownBy(() -> BrokerCheck.answers(servers, Map.of(), Duration.ofSeconds(2)))
                    .hasMessageStartingWith(
                            "Kafka at "
                                    + servers
                                    + " accepts connections but did not answer as a broker within"
                                    + " 2 s");
        }
    }

    @Test
    void aRunningBrokerAnswers() throws Exception {
        try (TestKafka kafka = TestKafka.start()) {
            assertThatCode(
                            () ->
                                    BrokerCheck.answers(
                                            kafka.bootstrapServers(),
                                            Map.of(),
                                            Duration.ofSeconds(10)))
                    .doesNotThrowAnyException();
        }
    }
}
