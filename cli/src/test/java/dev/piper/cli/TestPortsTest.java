package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The test JVMs' port blocks: apart, below the kernel's ephemeral ports, each port handed once. */
class TestPortsTest {

    @Test
    void theBlocksLieBelowTheEphemeralPortsAndThisJvmUsesItsOwn() throws Exception {
        int end = TestPorts.FIRST + TestPorts.BLOCKS * TestPorts.BLOCK;
        assertThat(end).isLessThanOrEqualTo(32_768); // Linux's default first ephemeral port
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (Files.isReadable(range)) {
            int firstEphemeral =
                    Integer.parseInt(Files.readAllLines(range).get(0).trim().split("\\s+")[0]);
            assertThat(end)
                    .as("this machine's ephemeral ports start at %d", firstEphemeral)
                    .isLessThanOrEqualTo(firstEphemeral);
        }
        // Surefire gives each of its JVMs its fork number (cli/pom.xml): block = fork - 1
        String fork = System.getProperty("piper.test.fork");
        assertThat(fork).as("piper.test.fork of this test JVM").matches("[1-9][0-9]*");
        assertThat(TestPorts.block()).isEqualTo((Integer.parseInt(fork) - 1) % TestPorts.BLOCKS);
    }

    @Test
    void portsAreFreeInThisJvmsBlockAndHandedOutOnce() throws Exception {
        int low = TestPorts.FIRST + TestPorts.block() * TestPorts.BLOCK;
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            int first = TestPorts.consecutive(3);
            for (int p = first; p < first + 3; p++) {
                assertThat(p).isBetween(low, low + TestPorts.BLOCK - 1);
                assertThat(seen.add(p)).as("port %d handed out twice", p).isTrue();
            }
            try (ServerSocket a = new ServerSocket(first);
                    ServerSocket b = new ServerSocket(first + 1);
                    ServerSocket c = new ServerSocket(first + 2)) {
                assertThat(c.getLocalPort()).isEqualTo(first + 2);
            }
        }
        int one = TestPorts.free();
        assertThat(seen).doesNotContain(one);
        // a port this JVM holds is passed over
        try (ServerSocket held = new ServerSocket(one + 1)) {
            int next = TestPorts.free();
            assertThat(next).isNotEqualTo(held.getLocalPort()).isGreaterThan(one);
        }
    }
}
