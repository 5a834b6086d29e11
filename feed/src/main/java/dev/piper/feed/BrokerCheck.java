package dev.piper.feed;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Whether a Kafka cluster answers, asked before a command starts work that would otherwise wait for
 * it for a minute ({@code produce}'s delivery timeout, {@code consume}'s metadata fetch) and then
 * fail without saying where it looked.
 *
 * <p>First each bootstrap address is dialled over TCP: when none accepts a connection the check
 * fails at once, naming each address and why (connection refused, unknown host, no route). Then a
 * {@code describeCluster} must answer within the time given; a refusal names the address and the
 * cause the client reports (an authentication failure, say).
 */
public final class BrokerCheck {

    /** How long a TCP connection to one bootstrap address may take to be accepted. */
    private static final int CONNECT_MILLIS = 3_000;

    private BrokerCheck() {}

    /**
     * Fails, naming {@code bootstrapServers} and the cause, unless the cluster answers within
     * {@code within}.
     *
     * @param properties the client's settings (security ones included), as the command uses them
     * @throws IllegalStateException if no broker answers
     */
    public static void answers(
            String bootstrapServers, Map<String, String> properties, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        List<String> refusals = new ArrayList<>();
        boolean anyAccepts = false;
        for (String address : bootstrapServers.split(",")) {
            String trimmed = address.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            String refusal = dial(trimmed);
            if (refusal == null) {
                anyAccepts = true;
                break;
            }
            refusals.add(trimmed + ": " + refusal);
        }
        if (!anyAccepts) {
            throw new IllegalStateException(
                    "no Kafka broker at "
                            + bootstrapServers
                            + " ("
                            + String.join("; ", refusals)
                            + "); start one (bin/piper kafka start) or correct"
                            + " --bootstrap-servers");
        }
        long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        Properties props = new Properties();
        props.putAll(properties);
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(left));
        props.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(left));
        Admin admin = Admin.create(props);
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) left))
                    .nodes()
                    .get(left + 1_000, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw noAnswer(bootstrapServers, within, "no answer");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw noAnswer(
                    bootstrapServers,
                    within,
                    cause instanceof org.apache.kafka.common.errors.TimeoutException
                            ? "no answer"
                            : cause.getClass().getSimpleName() + ": " + cause.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(
                    "interrupted while asking Kafka at " + bootstrapServers);
        } finally {
            admin.close(Duration.ofSeconds(1));
        }
    }

    private static IllegalStateException noAnswer(
            String bootstrapServers, Duration within, String cause) {
        return new IllegalStateException(
                "Kafka at "
                        + bootstrapServers
                        + " accepts connections but did not answer as a broker within "
                        + within.toSeconds()
                        + " s ("
                        + cause
                        + "); check that it is a Kafka listener, its advertised.listeners, and"
                        + " the client's security settings (--kafka-property, --kafka-config)");
    }

    /** Null if {@code address} ({@code host:port}, {@code [v6]:port}) accepts a connection. */
    static String dial(String address) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            return "not host:port";
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            return "port \"" + address.substring(colon + 1) + "\" is not a number";
        }
        InetSocketAddress target = new InetSocketAddress(host, port);
        if (target.isUnresolved()) {
            return "unknown host " + host;
        }
        try (Socket socket = new Socket()) {
            socket.connect(target, CONNECT_MILLIS);
            return null;
        } catch (java.net.SocketTimeoutException e) {
            return "no connection within " + CONNECT_MILLIS / 1000 + " s";
        } catch (IOException e) {
            String m = e.getMessage();
            return m == null ? e.getClass().getSimpleName() : m.toLowerCase(java.util.Locale.ROOT);
        }
    }
}
