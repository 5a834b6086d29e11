package dev.piper.job;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The Python client ({@code clients/python}) for the job's tests: its modules as processes. */
final class PythonClient {

    /** The client's directory, from the module's. */
    private static final Path DIR = Path.of("..", "clients", "python").toAbsolutePath();

    private PythonClient() {}

    /**
     * {@code /usr/bin/python3 -m piper_feed.MODULE args}, run in the client's directory with it on
     * {@code PYTHONPATH}; the caller redirects its output and starts it.
     */
    static ProcessBuilder module(String module, List<String> args) {
        List<String> command = new ArrayList<>(List.of("/usr/bin/python3", "-m", module));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(DIR.toFile());
        pb.environment().put("PYTHONPATH", DIR.toString());
        return pb;
    }
}
