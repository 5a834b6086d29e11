package dev.piper.cli.local;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The servers {@code bin/piper} starts on this machine (a Kafka broker, a Flink cluster's
 * JobManager and TaskManager): each a JVM of its own, detached from the terminal, known by a PID
 * file and by a mark among its JVM arguments that names the directory it belongs to.
 */
public final class LocalProcess {

    private LocalProcess() {}

    /** The JVM that runs this one, to start the servers with. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Starts {@code command} in a session of its own (so that closing the terminal does not stop
     * it), with no input and its output appended to {@code out}, and writes its PID to {@code
     * pidFile}.
     */
    public static Process startDetached(List<String> command, Path out, Path pidFile)
            throws IOException {
        List<String> full = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            full.add("/usr/bin/setsid");
        }
        full.addAll(command);
        Process process =
                new ProcessBuilder(full)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .start();
        Files.writeString(pidFile, process.pid() + "\n");
        return process;
    }

    /**
     * The process named by {@code pidFile} if it is alive and carries {@code mark} on its command
     * line. A stale PID file may name a process that reused the number; the JDK may see only the
     * start of a long command line, so the mark must come before the classpath.
     */
    public static Optional<ProcessHandle> running(Path pidFile, String mark) throws IOException {
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        String text = Files.readString(pidFile).trim();
        if (!text.matches("[0-9]+")) {
            return Optional.empty();
        }
        return ProcessHandle.of(Long.parseLong(text))
                .filter(ProcessHandle::isAlive)
                .filter(h -> h.info().commandLine().map(c -> c.contains(mark)).orElse(true));
    }

    /** Stops {@code process}: SIGTERM, then SIGKILL if it has not exited within {@code timeout}. */
    public static void stop(ProcessHandle process, Duration timeout)
            throws IOException, InterruptedException {
        process.destroy();
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            process.destroyForcibly();
            process.onExit().join();
        } catch (ExecutionException e) {
            throw new IOException("waiting for pid " + process.pid() + " to exit", e);
        }
    }

    /**
     * Checks that {@code port} is free on 127.0.0.1.
     *
     * @throws IllegalArgumentException naming {@code option} if it is taken
     */
    public static void checkFree(int port, String option) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    option + ": port " + port + " on 127.0.0.1 is in use (" + e.getMessage() + ")");
        }
    }

    /** The last {@code lines} lines of a log, for error messages. */
    public static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log at " + file + ")";
        }
    }

    /**
     * Runs {@code command} to its end with its output in {@code out}.
     *
     * @throws IllegalStateException naming {@code what}, with the output's tail, if it fails or
     *     takes longer than {@code timeout}
     */
    public static void runToCompletion(
            String what, List<String> command, Path out, Duration timeout)
            throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(what + " took over " + timeout.toSeconds() + " s");
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(
                    what + " failed (exit " + p.exitValue() + "):\n" + tail(out, 15));
        }
    }

    /** The classpath a module of the build wrote to {@code file}. */
    public static String classpath(Path file, String what) throws IOException {
        if (!Files.exists(file)) {
            throw new IllegalStateException(
                    "the "
                            + what
                            + " classpath file "
                            + file
                            + " is missing: build the project first (mvn -B -DskipTests install)");
        }
        return Files.readString(file).trim();
    }
}
