package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.cli.local.LocalKafka;
import dev.piper.job.SameOutput;
import dev.piper.pipeline.generate.CriteoGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, security: a real broker with a SASL_SSL listener (SCRAM-SHA-512 users, certificates
 * made here with the JDK's {@code keytool}) and an ACL authorizer that denies what no ACL allows.
 * {@code produce}, {@code stream} and {@code consume}, each its own process logging at INFO as
 * {@code bin/piper} does, work with a user holding exactly the ACLs the README lists, and their
 * output is the batch output; a wrong password and a user without ACLs are refused, naming the
 * cause; no password appears in any output, log or file the commands write.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class SecureKafkaITCase {

    private static final String STORE_PASSWORD = "store-Kq3vX9";
    private static final String ADMIN_PASSWORD = "admin-T7wz2M";
    private static final String PIPER_PASSWORD = "piper-Rb8nL4";
    private static final String STRANGER_PASSWORD = "stranger-Jc5hP1";
    private static final String WRONG_PASSWORD = "wrong-Ux6dQ0";
    private static final List<String> SECRETS =
            List.of(
                    STORE_PASSWORD,
                    ADMIN_PASSWORD,
                    PIPER_PASSWORD,
                    STRANGER_PASSWORD,
                    WRONG_PASSWORD);

    private static final int LINES = 20_000;

    @TempDir static Path tmp;

    private static LocalKafka broker;
    private static LocalKafka.Security security;
    private static String bootstrap;

    @BeforeAll
    static void secureBroker() throws Exception {
        Path keyStore = tmp.resolve("broker.p12");
        Path trustStore = tmp.resolve("trust.p12");
        Path cert = tmp.resolve("broker.pem");
        keytool(
                "-genkeypair",
                "-alias",
                "broker",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-dname",
                "CN=127.0.0.1",
                "-ext",
                "SAN=IP:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                STORE_PASSWORD,
                "-keypass",
                STORE_PASSWORD);
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                "broker",
                "-keystore",
                keyStore.toString(),
                "-storepass",
                STORE_PASSWORD,
                "-file",
                cert.toString());
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "broker",
                "-file",
                cert.toString(),
                "-storetype",
                "PKCS12",
                "-keystore",
                trustStore.toString(),
                "-storepass",
                STORE_PASSWORD);
        Map<String, String> users = new java.util.LinkedHashMap<>();
        users.put("admin", ADMIN_PASSWORD);
        users.put("piper", PIPER_PASSWORD);
        users.put("stranger", STRANGER_PASSWORD);
        security = new LocalKafka.Security(keyStore, trustStore, STORE_PASSWORD, users);
        Path home = Path.of(System.getProperty("piper.home"));
        broker = new LocalKafka(tmp.resolve("kafka"), LocalKafka.classpathFile(home));
        int port = TestPorts.free();
        bootstrap =
                broker.start(
                                port,
                                TestPorts.free(),
                                "512m",
                                Duration.ofSeconds(120),
                                new java.io.PrintStream(OutputStream.nullOutputStream()),
                                security)
                        .bootstrap();
        // The ACLs the README lists for the feed's user: its topics, its consumer group and its
        // transactional ids, each by prefix.
        Map<String, Object> admin = new HashMap<>(security.client("admin", ADMIN_PASSWORD));
        admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation op :
                List.of(
                        AclOperation.READ,
                        AclOperation.WRITE,
                        AclOperation.DESCRIBE,
                        AclOperation.CREATE,
                        AclOperation.DESCRIBE_CONFIGS)) {
            acls.add(allow(ResourceType.TOPIC, "secure-", op));
        }
        acls.add(allow(ResourceType.GROUP, "piper-", AclOperation.READ));
        acls.add(allow(ResourceType.TRANSACTIONAL_ID, "piper-", AclOperation.WRITE));
        acls.add(allow(ResourceType.TRANSACTIONAL_ID, "piper-", AclOperation.DESCRIBE));
        try (Admin a = Admin.create(admin)) {
            a.createAcls(acls).all().get(60, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.stop(Duration.ofSeconds(30));
        }
    }

    private static AclBinding allow(ResourceType type, String prefix, AclOperation op) {
        return new AclBinding(
                new ResourcePattern(type, prefix, PatternType.PREFIXED),
                new AccessControlEntry("User:piper", "*", op, AclPermissionType.ALLOW));
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as("keytool %s: %s", args[0], out).isZero();
    }

    /** A client properties file for {@code user}, as a user would pass it. */
    private static Path clientProperties(String user, String password) throws IOException {
        Properties p = new Properties();
        p.putAll(security.client(user, password));
        p.setProperty("bootstrap.servers", bootstrap);
        Path file = tmp.resolve(user + "-" + password.hashCode() + ".properties");
        try (OutputStream out = Files.newOutputStream(file)) {
            p.store(out, null);
        }
        return file;
    }

    /**
     * Runs {@code bin/piper args} as a process, its log in {@code NAME.log}, its output returned.
     */
    private static Run piper(String name, List<String> args) throws Exception {
        Path out = tmp.resolve(name + ".out");
        Path log = tmp.resolve(name + ".log");
        Path home = Path.of(System.getProperty("piper.home"));
        Process p =
                PiperProcesses.start(
                        out,
                        List.of(
                                "-Dlog4j2.configurationFile="
                                        + home.resolve("conf/log4j2-cli.properties"),
                                "-Dpiper.log.file=" + log),
                        args);
        assertThat(p.waitFor(180, TimeUnit.SECONDS)).as(name + " ends").isTrue();
        return new Run(p.exitValue(), Files.readString(out), log);
    }

    record Run(int code, String output, Path log) {}

    @Test
    void theFeedRunsWithItsCredentialsAndACLsAndRefusesOthers() throws Exception {
        Path input = tmp.resolve("input.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(23, 0.01, 0.01).write(out, LINES);
        }
        Path piper = clientProperties("piper", PIPER_PASSWORD);
        String props = "--kafka-properties=" + piper;
        List<Run> runs = new ArrayList<>();

        Run produce =
                piper(
                        "produce",
                        List.of(
                                "produce",
                                props,
                                "--topic",
                                "secure-clicks",
                                "--partitions",
                                "1", // one partition: the feed keeps the file's order, as the batch
                                // output
                                "--input",
                                input.toString()));
        runs.add(produce);
        assertThat(produce.code()).as(produce.output()).isZero();

        Run stream =
                piper(
                        "stream",
                        List.of(
                                "stream",
                                props,
                                "--input-topic",
                                "secure-clicks",
                                "--output-topic",
                                "secure-rows",
                                "--vocab-topic",
                                "secure-vocab",
                                "--checkpoint-dir",
                                tmp.resolve("checkpoints").toString(),
                                "--checkpoint-interval",
                                "1s",
                                "--until-idle",
                                "5"));
        runs.add(stream);
        assertThat(stream.code()).as(stream.output()).isZero();

        Path consumed = tmp.resolve("consumed");
        Run consume =
                piper(
                        "consume",
                        List.of(
                                "consume",
                                props,
                                "--topic",
                                "secure-rows",
                                "--vocab-topic",
                                "secure-vocab",
                                "--dead-letter-topic",
                                "secure-rows-dead-letters",
                                "--output",
                                consumed.toString(),
                                "--timeout",
                                "10"));
        runs.add(consume);
        assertThat(consume.code()).as(consume.output()).isZero();

        Path batch = tmp.resolve("batch");
        assertThat(
                        PiperCli.execute(
                                "preprocess", "--input", input.toString(), "--output", "" + batch))
                .isZero();
        SameOutput.assertRowsAndVocabulariesEqual(consumed, batch, "the secured feed");

        // a wrong password: refused at authentication, the cause named
        Run wrong =
                piper(
                        "wrong-password",
                        List.of(
                                "consume",
                                "--kafka-properties=" + clientProperties("piper", WRONG_PASSWORD),
                                "--topic",
                                "secure-rows",
                                "--output",
                                tmp.resolve("wrong").toString(),
                                "--timeout",
                                "5"));
        runs.add(wrong);
        assertThat(wrong.code()).isNotZero();
        assertThat(wrong.output()).contains("Authentication failed");

        // a user without ACLs: refused by the authorizer, the topic named
        Run stranger =
                piper(
                        "stranger",
                        List.of(
                                "consume",
                                "--kafka-properties="
                                        + clientProperties("stranger", STRANGER_PASSWORD),
                                "--topic",
                                "secure-rows",
                                "--output",
                                tmp.resolve("stranger").toString(),
                                "--timeout",
                                "5"));
        runs.add(stranger);
        assertThat(stranger.code()).isNotZero();
        assertThat(stranger.output()).contains("Not authorized").contains("secure-rows");

        // no secret in what the commands printed or logged, nor in any file they wrote; the
        // logs hold the Kafka clients' configurations, their secrets hidden
        assertThat(Files.readString(stream.log())).contains("sasl.jaas.config = [hidden]");
        for (Run r : runs) {
            String logged = Files.exists(r.log()) ? Files.readString(r.log()) : "";
            assertThat(logged).as(r.log() + " logged").isNotEmpty();
            for (String secret : SECRETS) {
                assertThat(r.output()).doesNotContain(secret);
                assertThat(logged).as(r.log().toString()).doesNotContain(secret);
            }
        }
        for (Path dir : List.of(consumed, tmp.resolve("checkpoints"))) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                    for (String secret : SECRETS) {
                        assertThat(text).as(f.toString()).doesNotContain(secret);
                    }
                }
            }
        }
    }
}
