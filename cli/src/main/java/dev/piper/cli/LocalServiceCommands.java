package dev.piper.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What the {@code start|stop|status} groups of the local services ({@code piper kafka}, {@code
 * piper cluster}) share: the group itself, the checks of their start options, and the stop and
 * status commands, which differ only in the service they name.
 */
final class LocalServiceCommands {

    private LocalServiceCommands() {}

    /** A {@code start|stop|status} group: run without a subcommand, it prints its usage. */
    abstract static class Group implements Runnable {
        @Spec CommandSpec spec;

        @Override
        public void run() {
            spec.commandLine().usage(spec.commandLine().getOut());
        }
    }

    /**
     * Refuses ports outside 1..65535 and a {@code second} port equal to the first.
     *
     * @param secondOption the second port's option, named when the two are equal
     */
    static void checkPorts(CommandSpec spec, int first, int second, String secondOption) {
        for (int p : new int[] {first, second}) {
            if (p < 1 || p > 65535) {
                throw new ParameterException(
                        spec.commandLine(), "ports must be between 1 and 65535, not " + p);
            }
        }
        if (first == second) {
            throw new ParameterException(
                    spec.commandLine(), secondOption + " must differ from --port");
        }
    }

    /**
     * Refuses a JVM memory size that does not match {@code pattern} (digits and a unit, which some
     * options may leave out), naming {@code example} as one that does.
     */
    static void checkSize(
            CommandSpec spec, String option, String value, String pattern, String example) {
        if (!value.matches(pattern)) {
            throw new ParameterException(
                    spec.commandLine(),
                    option + ": expected a size like " + example + ", not '" + value + "'");
        }
    }

    /** {@code stop}: ends the service running from its directory. */
    abstract static class Stop implements Callable<Integer> {
        @Spec CommandSpec spec;

        @Option(
                names = "--timeout",
                defaultValue = "60",
                paramLabel = "S",
                description = "Seconds to wait for a clean shutdown (default: ${DEFAULT-VALUE}).")
        int timeoutSeconds;

        /** The service's name in output, e.g. {@code kafka}. */
        abstract String service();

        /** What runs, e.g. {@code broker}. */
        abstract String noun();

        abstract Path dir();

        /** Stops it; false if none was running. */
        abstract boolean stop(Duration timeout) throws Exception;

        @Override
        public Integer call() throws Exception {
            boolean stopped = stop(Duration.ofSeconds(timeoutSeconds));
            spec.commandLine()
                    .getOut()
                    .println(
                            stopped
                                    ? service() + ": stopped"
                                    : service() + ": no " + noun() + " was running from " + dir());
            return 0;
        }
    }

    /** {@code status}: exit 0 when running, 3 when not (as LSB init scripts do). */
    abstract static class Status<R> implements Callable<Integer> {
        @Spec CommandSpec spec;

        abstract String service();

        abstract Path dir();

        /** The running service, if any. */
        abstract Optional<R> status() throws Exception;

        /** The lines that describe {@code running}, after "{@code service}: running, ". */
        abstract String describe(R running);

        @Override
        public Integer call() throws Exception {
            Optional<R> running = status();
            if (running.isEmpty()) {
                spec.commandLine().getOut().println(service() + ": not running from " + dir());
                return 3;
            }
            spec.commandLine()
                    .getOut()
                    .printf("%s: running, %s%n", service(), describe(running.get()));
            return 0;
        }
    }
}
