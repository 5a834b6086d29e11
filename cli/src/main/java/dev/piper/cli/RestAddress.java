package dev.piper.cli;

import dev.piper.cli.cluster.FlinkRest;
import java.net.URI;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --rest}: the REST address of the Flink cluster a command talks to. */
final class RestAddress {

    @Option(
            names = "--rest",
            defaultValue = "http://127.0.0.1:8081",
            paramLabel = "URL",
            description =
                    "REST address of the Flink cluster (JobManager), as 'piper cluster start'"
                            + " prints it (default: ${DEFAULT-VALUE}).")
    String rest;

    /**
     * The cluster's REST client.
     *
     * @throws ParameterException if {@code --rest} is not an http(s) URL
     */
    FlinkRest client(CommandLine cmd) {
        URI uri;
        try {
            uri = URI.create(rest);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd, "--rest: '" + rest + "' is not a URL");
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())
                || uri.getHost() == null) {
            throw new ParameterException(
                    cmd, "--rest: expected a URL like http://127.0.0.1:8081, not '" + rest + "'");
        }
        return new FlinkRest(uri, Duration.ofSeconds(60));
    }
}
