package dev.piper.cli;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Ports for the services the cli tests start as processes (brokers, controllers, JobManagers,
 * metrics endpoints), which bind them later, in another process.
 *
 * <p>A port found by binding port 0 and closing the socket lies in the kernel's ephemeral range
 * (Linux: 32768 to 60999): until the service binds it, the other test JVM's bind(0) may hand out
 * the same port, and any process's outgoing connection may take it. In CI (2026-11-27) a JobManager
 * started by ChaosSoakITCase found the REST port it was given taken ("Could not start rest endpoint
 * on any port in port range 40177") while ClusterITCase ran in the other JVM.
 *
 * <p>These ports lie below the ephemeral range, in a block of {@value #BLOCK} per test JVM: {@code
 * piper.test.fork}, set by Surefire and Failsafe from their fork number (cli/pom.xml), picks the
 * block, so two JVMs running at once never share one. Within a JVM a port is handed out only after
 * a bind shows it free, and not again until the block is used up.
 */
final class TestPorts {

    /** The first port of the first block; the blocks end below 32768. */
    static final int FIRST = 20_000;

    /** Ports per test JVM. */
    static final int BLOCK = 3_000;

    /** Blocks: forks 1 to 4 each have their own; a fifth fork would share the first's. */
    static final int BLOCKS = 4;

    /** The next offset to try in this JVM's block. */
    private static int next;

    private TestPorts() {}

    /** A free port of this JVM's block. */
    static int free() throws IOException {
        return consecutive(1);
    }

    /** The first of {@code n} consecutive free ports of this JVM's block. */
    static synchronized int consecutive(int n) throws IOException {
        int first = FIRST + block() * BLOCK;
        for (int tried = 0; tried < BLOCK; tried += n) {
            if (next + n > BLOCK) {
                next = 0; // the block is used up: start again, where the services have exited
            }
            int start = first + next;
            next += n;
            if (allFree(start, n)) {
                return start;
            }
        }
        throw new IOException(
                "no "
                        + n
                        + " consecutive free ports in ["
                        + first
                        + ", "
                        + (first + BLOCK)
                        + ") for test JVM "
                        + System.getProperty("piper.test.fork", "(no fork number)"));
    }

    /** This JVM's block, 0 to {@link #BLOCKS} - 1, from its 1-based fork number. */
    static int block() {
        int fork = Integer.getInteger("piper.test.fork", 1);
        return Math.floorMod(fork - 1, BLOCKS);
    }

    private static boolean allFree(int start, int n) {
        List<ServerSocket> held = new ArrayList<>(n);
        try {
            for (int p = start; p < start + n; p++) {
                held.add(new ServerSocket(p)); // all addresses, as a service binding 0.0.0.0 would
            }
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing a socket bound only to check the port: nothing to do
                }
            }
        }
    }
}
