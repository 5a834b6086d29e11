package dev.piper.cli;

import dev.piper.job.CheckpointDirectory;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code bin/piper} as a separate process, for tests that kill it or run two at once. */
final class PiperProcesses {

    private PiperProcesses() {}

    /** The {@code java} launcher of this JVM's runtime. */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** This JVM's module flags ({@code --add-opens}, {@code --add-exports}), which Flink needs. */
    static List<String> moduleFlags() {
        List<String> flags = new ArrayList<>();
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-opens") || a.startsWith("--add-exports")) {
                flags.add(a);
            }
        }
        return flags;
    }

    /**
     * Starts {@code java <this JVM's module flags> -Xmx1g -cp <test classpath> PiperCli args}, its
     * output and errors into {@code log}.
     */
    static Process start(Path log, List<String> args) throws Exception {
        return start(log, List.of(), args);
    }

    /** As {@link #start(Path, List)}, with {@code jvm} arguments before the class. */
    static Process start(Path log, List<String> jvm, List<String> args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(java());
        command.add("-Xmx1g");
        command.addAll(jvm);
        command.addAll(moduleFlags());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("dev.piper.cli.PiperCli");
        command.addAll(args);
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    /**
     * The number of the newest completed checkpoint in {@code checkpoints} ({@code chk-N}), or 0.
     */
    static long checkpointNumber(Path checkpoints) throws Exception {
        return CheckpointDirectory.latestSnapshot(checkpoints)
                .map(p -> p.getFileName().toString())
                .filter(n -> n.startsWith("chk-"))
                .map(n -> Long.parseLong(n.substring(4)))
                .orElse(0L);
    }
}
