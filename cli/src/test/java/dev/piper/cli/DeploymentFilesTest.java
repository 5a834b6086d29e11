package dev.piper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.piper.cli.local.LocalFlinkCluster;
import dev.piper.job.launch.JobMain;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Secret;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The deployment files users apply as they are: every manifest in {@code k8s/} is validated
 * strictly (unknown fields are errors, as with {@code kubectl --validate=strict}), the
 * FlinkDeployment against the Flink Kubernetes Operator's own CRD schema, the other kinds against
 * the Kubernetes model; deliberately broken manifests are rejected with the field at fault. The
 * docker-compose file and the FlinkDeployment set the same Flink options as {@code piper cluster
 * start}, and the job arguments in both parse as the job jar parses them. ({@code docker-compose
 * config -q} itself runs in .ci/run.)
 */
class DeploymentFilesTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** The Flink versions of newer operators, which the 1.10.0 CRD on Maven Central predates. */
    private static final List<String> FLINK_2 = List.of("v2_0", "v2_1", "v2_2");

    private static Path home;
    private static JsonSchema flinkDeployment;

    @BeforeAll
    static void load() throws IOException {
        home = Path.of(System.getProperty("piper.home"));
        flinkDeployment = strictCrdSchema();
    }

    /**
     * The openAPIV3Schema of the operator's FlinkDeployment CRD (v1beta1), made strict: every
     * object schema that lists its properties and does not preserve unknown fields refuses others.
     */
    private static JsonSchema strictCrdSchema() throws IOException {
        JsonNode crd;
        try (InputStream in =
                DeploymentFilesTest.class.getResourceAsStream(
                        "/META-INF/fabric8/flinkdeployments.flink.apache.org-v1.yml")) {
            assertThat(in).as("the CRD in flink-kubernetes-operator-api").isNotNull();
            crd = YAML.readTree(in);
        }
        JsonNode schema = null;
        for (JsonNode version : crd.path("spec").path("versions")) {
            if (version.path("name").asText().equals("v1beta1")) {
                schema = version.path("schema").path("openAPIV3Schema");
            }
        }
        assertThat(schema).as("v1beta1 schema").isNotNull();
        ArrayNode versions =
                (ArrayNode)
                        schema.path("properties")
                                .path("spec")
                                .path("properties")
                                .path("flinkVersion")
                                .path("enum");
        assertThat(versions).as("flinkVersion enum").isNotEmpty();
        FLINK_2.forEach(versions::add);
        // What the API server checks for every object before the CRD's schema applies.
        ObjectNode root = (ObjectNode) schema.path("properties");
        root.putObject("apiVersion")
                .put("type", "string")
                .putArray("enum")
                .add("flink.apache.org/v1beta1");
        root.putObject("kind").put("type", "string").putArray("enum").add("FlinkDeployment");
        root.putObject("metadata").put("type", "object");
        tighten(schema);
        return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(schema);
    }

    private static void tighten(JsonNode node) {
        if (node instanceof ObjectNode o
                && o.has("properties")
                && !o.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
                && !o.has("additionalProperties")) {
            o.put("additionalProperties", false);
        }
        node.forEach(DeploymentFilesTest::tighten);
    }

    private static List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.list(home.resolve("k8s"))) {
            return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    /** The problems strict validation finds in one manifest; empty if it is valid. */
    private static List<String> problems(Path manifest) throws Exception {
        JsonNode doc = YAML.readTree(manifest.toFile());
        String kind = doc.path("kind").asText();
        switch (kind) {
            case "FlinkDeployment":
                return flinkDeployment.validate(doc).stream()
                        .map(ValidationMessage::getMessage)
                        .sorted()
                        .toList();
            case "ConfigMap":
                return unknownFields(YAML.treeToValue(doc, ConfigMap.class));
            case "Secret":
                return unknownFields(YAML.treeToValue(doc, Secret.class));
            case "PersistentVolumeClaim":
                return unknownFields(YAML.treeToValue(doc, PersistentVolumeClaim.class));
            default:
                return List.of(manifest + ": kind '" + kind + "' has no validation here");
        }
    }

    /**
     * The fields of a Kubernetes object that its model does not know: the model keeps them aside
     * ({@code getAdditionalProperties()}) instead of failing, so each object of the tree is asked.
     */
    private static List<String> unknownFields(HasMetadata object) throws Exception {
        List<String> found = new ArrayList<>();
        walk(object, "", found);
        return found;
    }

    private static void walk(Object o, String path, List<String> found)
            throws IllegalAccessException, InvocationTargetException {
        if (o instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                walk(list.get(i), path + "[" + i + "]", found);
            }
            return;
        }
        if (o instanceof Map<?, ?> map) {
            for (var e : map.entrySet()) {
                walk(e.getValue(), path + "." + e.getKey(), found);
            }
            return;
        }
        if (o == null || !o.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method m : o.getClass().getMethods()) {
            if (m.getParameterCount() != 0
                    || !m.getName().startsWith("get")
                    || m.getName().equals("getClass")) {
                continue;
            }
            Object value = m.invoke(o);
            if (m.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    found.add(
                            path
                                    + ": unknown field(s) "
                                    + new TreeSet<>(
                                            extra.keySet().stream().map(String::valueOf).toList()));
                }
                continue;
            }
            String name = Character.toLowerCase(m.getName().charAt(3)) + m.getName().substring(4);
            walk(value, path + "." + name, found);
        }
    }

    @Test
    void everyManifestInK8sIsValidStrictly() throws Exception {
        List<Path> manifests = manifests();
        assertThat(manifests.stream().map(p -> p.getFileName().toString()))
                .containsExactlyInAnyOrder(
                        "piper-stream.yaml",
                        "kafka-config.yaml",
                        "kafka-credentials.yaml",
                        "pvc.yaml");
        for (Path m : manifests) {
            assertThat(problems(m)).as(m.toString()).isEmpty();
        }
    }

    @Test
    void aBrokenFlinkDeploymentIsRejectedWithEveryFieldAtFault() throws Exception {
        List<String> problems = problems(resource("flinkdeployment.yaml"));
        String all = String.join("\n", problems);
        assertThat(all)
                .contains("flinkVersion") // v3_0: not in the enum
                .contains("cpu") // "one": not a number
                .contains("resources") // taskManager.resources: unknown (it is "resource")
                .contains("upgradeMod"); // misspelt upgradeMode
        assertThat(problems).hasSizeGreaterThanOrEqualTo(4);
    }

    @Test
    void aBrokenConfigMapIsRejected() throws Exception {
        assertThat(problems(resource("configmap.yaml")))
                .containsExactly(": unknown field(s) [dta]");
    }

    @Test
    void theFlinkDeploymentRunsTheJobJarWithValidStreamArguments() throws Exception {
        JsonNode spec = YAML.readTree(home.resolve("k8s/piper-stream.yaml").toFile()).path("spec");
        JsonNode job = spec.path("job");
        assertThat(job.path("entryClass").asText()).isEqualTo(JobMain.class.getName());
        assertThat(job.path("upgradeMode").asText()).isEqualTo("savepoint");
        assertThat(job.path("jarURI").asText()).isEqualTo("local://" + jarInImage());
        List<String> args = new ArrayList<>();
        job.path("args").forEach(a -> args.add(a.asText()));
        assertThat(args.get(0)).isEqualTo("stream");
        JobMain.check(args.toArray(String[]::new));
        // The Kafka settings come from the mounted ConfigMap and Secret.
        String mounts = spec.path("podTemplate").toString();
        assertThat(mounts)
                .contains("piper-kafka")
                .contains("piper-kafka-credentials")
                .contains("piper-flink-data");
        assertThat(sharedOptions(flinkConfiguration(spec)))
                .isEqualTo(sharedOptions(localCluster()));
    }

    @Test
    void theComposeFileSetsTheLocalClustersFlinkOptionsAndValidStreamArguments() throws Exception {
        Map<String, Object> compose;
        try (InputStream in = Files.newInputStream(home.resolve("docker-compose.yml"))) {
            compose = new Yaml().load(in);
        }
        Map<?, ?> services = (Map<?, ?>) compose.get("services");
        assertThat(services.keySet().stream().map(String::valueOf))
                .containsExactlyInAnyOrder(
                        "kafka", "jobmanager", "taskmanager", "generator", "submit");
        Map<String, String> jm = properties(services, "jobmanager");
        assertThat(properties(services, "taskmanager")).isEqualTo(jm);

        Map<String, String> local = localCluster();
        Set<String> expectedKeys = new TreeSet<>(local.keySet());
        expectedKeys.removeAll(LocalFlinkCluster.LOCAL_ONLY_KEYS);
        assertThat(new TreeSet<>(jm.keySet())).isEqualTo(expectedKeys);
        assertThat(sharedOptions(jm)).isEqualTo(sharedOptions(local));

        String submit =
                String.valueOf(
                        ((List<?>) ((Map<?, ?>) services.get("submit")).get("command")).get(0));
        String[] jobArgs = submit.substring(submit.indexOf(" -- ") + 4).trim().split("\\s+");
        assertThat(jobArgs[0]).isEqualTo("stream");
        JobMain.check(jobArgs);
        assertThat(submit).contains("--jar " + jarInImage());
    }

    /**
     * Issue 28: {@code docker-compose down} then {@code up} sent the generator's lines into {@code
     * clicks} again. Its command, run by {@code /bin/sh} as the container would (with a stand-in
     * for the piper command line that records its calls): it produces once, then says so and
     * produces nothing on later starts; after a produce that began and did not finish it does not
     * produce again either; a failed generate leaves no marker, so a restart tries again.
     */
    @Test
    void theComposeGeneratorProducesOncePerVolume(@TempDir Path tmp) throws Exception {
        Map<String, Object> compose;
        try (InputStream in = Files.newInputStream(home.resolve("docker-compose.yml"))) {
            compose = new Yaml().load(in);
        }
        Map<?, ?> generator = (Map<?, ?>) ((Map<?, ?>) compose.get("services")).get("generator");
        Map<?, ?> env = (Map<?, ?>) generator.get("environment");
        String state = String.valueOf(env.get("STATE"));
        assertThat(generator.get("volumes").toString()).contains("generator-data:" + state);
        assertThat(((Map<?, ?>) compose.get("volumes")).containsKey("generator-data")).isTrue();
        // docker-compose turns $$ into $ before the shell sees the command
        String command =
                String.valueOf(((List<?>) generator.get("command")).get(0)).replace("$$", "$");

        Path calls = tmp.resolve("calls.txt");
        Path standIn = tmp.resolve("piper");
        Files.writeString(
                standIn,
                "#!/bin/sh\n"
                        + "echo \"$1\" >> '"
                        + calls
                        + "'\n"
                        + "[ \"$1\" = generate ] && [ -n \"$FAIL_GENERATE\" ] && exit 1\n"
                        + "exit 0\n");
        assertThat(standIn.toFile().setExecutable(true)).isTrue();
        Path volume = Files.createDirectories(tmp.resolve("volume"));

        Generated failed = runGenerator(command, standIn, volume, true);
        assertThat(failed.exit()).isNotZero();
        assertThat(Files.readAllLines(calls)).containsExactly("generate");
        try (Stream<Path> files = Files.list(volume)) {
            assertThat(files).as("no marker after a failed generate").isEmpty();
        }

        Files.delete(calls);
        Generated first = runGenerator(command, standIn, volume, false);
        assertThat(first.exit()).as(first.output()).isZero();
        assertThat(Files.readAllLines(calls)).containsExactly("generate", "produce");
        assertThat(Files.readString(volume.resolve("produced")))
                .startsWith("1000 lines produced into clicks");
        assertThat(volume.resolve("producing")).doesNotExist();

        Generated again = runGenerator(command, standIn, volume, false);
        assertThat(again.exit()).isZero();
        assertThat(again.output())
                .contains("1000 lines produced into clicks", "not producing again");
        assertThat(Files.readAllLines(calls)).containsExactly("generate", "produce");

        Files.delete(volume.resolve("produced"));
        Files.writeString(volume.resolve("producing"), "1000 lines, from 2026-11-26T15:00:00Z\n");
        Generated interrupted = runGenerator(command, standIn, volume, false);
        assertThat(interrupted.exit()).isZero();
        assertThat(interrupted.output())
                .contains("did not finish", "no line is sent twice", "down -v");
        assertThat(Files.readAllLines(calls)).containsExactly("generate", "produce");
    }

    private record Generated(int exit, String output) {}

    private static Generated runGenerator(
            String command, Path piper, Path state, boolean failGenerate) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", command).redirectErrorStream(true);
        pb.environment().put("PIPER", piper.toString());
        pb.environment().put("ROWS", "1000");
        pb.environment().put("RATE", "100");
        pb.environment().put("STATE", state.toString());
        if (failGenerate) {
            pb.environment().put("FAIL_GENERATE", "1");
        } else {
            pb.environment().remove("FAIL_GENERATE");
        }
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return new Generated(p.exitValue(), output);
    }

    /** Where docker/Dockerfile puts the job jar. */
    private static String jarInImage() throws IOException {
        String dockerfile = Files.readString(home.resolve("docker/Dockerfile"));
        String copy =
                dockerfile.lines().filter(l -> l.startsWith("COPY ")).findFirst().orElseThrow();
        String[] words = copy.split("\\s+");
        assertThat(words[words.length - 2]).endsWith("-flink.jar");
        return words[words.length - 1];
    }

    private static Map<String, String> localCluster() {
        return LocalFlinkCluster.configuration(
                LocalFlinkCluster.Settings.defaults(), home.resolve("target/cluster"));
    }

    /**
     * The options whose values are the same everywhere (all but addresses, ports, paths and the
     * memory that Kubernetes sets through resources), sizes written without spaces.
     */
    private static Map<String, String> sharedOptions(Map<String, String> options) {
        Set<String> shared =
                Set.of(
                        "taskmanager.memory.segment-size",
                        "taskmanager.memory.network.min",
                        "taskmanager.memory.network.max",
                        "taskmanager.memory.managed.fraction",
                        "taskmanager.numberOfTaskSlots",
                        "pipeline.generic-types",
                        "state.backend.type",
                        LocalFlinkCluster.PROMETHEUS_FACTORY);
        return options.entrySet().stream()
                .filter(e -> shared.contains(e.getKey()))
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().replace(" ", "")));
    }

    private static Map<String, String> flinkConfiguration(JsonNode spec) {
        Map<String, String> c = new LinkedHashMap<>();
        spec.path("flinkConfiguration")
                .fields()
                .forEachRemaining(e -> c.put(e.getKey(), e.getValue().asText()));
        return c;
    }

    /** A compose service's FLINK_PROPERTIES as a map. */
    private static Map<String, String> properties(Map<?, ?> services, String service) {
        Map<?, ?> env = (Map<?, ?>) ((Map<?, ?>) services.get(service)).get("environment");
        Map<String, String> p = new LinkedHashMap<>();
        for (String line : String.valueOf(env.get("FLINK_PROPERTIES")).split("\n")) {
            if (!line.isBlank()) {
                int colon = line.indexOf(':');
                p.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        return p;
    }

    private static Path resource(String name) throws Exception {
        return Path.of(DeploymentFilesTest.class.getResource("/deployment-broken/" + name).toURI());
    }
}
