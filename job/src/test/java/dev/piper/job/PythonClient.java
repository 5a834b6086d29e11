package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The Python client ({@code clients/python}) for the job's tests: its modules as processes. */
public final class PythonClient {

    /** The client's directory, from the module's. */
    private static final Path DIR = Path.of("..", "clients", "python").toAbsolutePath();

    private PythonClient() {}

    /**
     * {@code /usr/bin/python3 -m piper_feed.MODULE args}, run in the client's directory with it on
     * {@code PYTHONPATH}; the caller redirects its output and starts it.
     */
    public static ProcessBuilder module(String module, List<String> args) {
        List<String> command = new ArrayList<>(List.of("/usr/bin/python3", "-m", module));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(DIR.toFile());
        pb.environment().put("PYTHONPATH", DIR.toString());
        return pb;
    }

    /**
     * Waits for {@code process} (described as {@code what}, its output in {@code log}) to end
     * within {@code limit} and asserts it exited 0, its log in the failure; one still running at
     * the limit is killed and fails the test.
     */
    public static void assertEndsWell(Process process, String what, Path log, Duration limit)
            throws Exception {
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(what + " ran past " + limit + ": " + Files.readString(log));
        }
        assertThat(process.exitValue()).as(what + ": " + Files.readString(log)).isZero();
    }
}
