package dev.piper.job.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The job jar a Flink cluster runs ({@code mvn package} builds it): its entry class is the job's
 * own, and it holds no command line, no picocli and no bench code, only what a cluster runs.
 */
class JobJarITCase {

    @Test
    void theJobJarRunsJobMainAndHoldsNoCommandLine() throws Exception {
        Path jar = Path.of(System.getProperty("piper.job.jar"));
        assertThat(jar).as("the job jar (mvn package builds it)").isRegularFile();
        try (JarFile j = new JarFile(jar.toFile())) {
            // What 'flink run job.jar' runs when no entry class is named.
            assertThat(j.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo(JobMain.class.getName());
            List<String> names = j.stream().map(JarEntry::getName).toList();
            assertThat(names)
                    .contains(JobMain.class.getName().replace('.', '/') + ".class")
                    .contains("dev/piper/connectors/kafka/KafkaConnectors.class")
                    // the Flink-free modules the connectors use: the batch output, the records
                    .contains("dev/piper/output/DlrmOutputWriter.class")
                    .contains("dev/piper/feed/RowsRecord.class")
                    .contains("dev/piper/feed/rows-record.json")
                    .contains("org/apache/flink/connector/kafka/sink/KafkaSink.class")
                    .contains("org/apache/parquet/hadoop/ParquetFileReader.class");
            assertThat(names)
                    .filteredOn(
                            n ->
                                    n.startsWith("picocli/")
                                            || n.startsWith("dev/piper/cli/")
                                            || n.startsWith("dev/piper/benchmarks/"))
                    .isEmpty();
            // Flink itself is the cluster's
            assertThat(names)
                    .doesNotContain(
                            "org/apache/flink/streaming/api/environment/"
                                    + "StreamExecutionEnvironment.class");
        }
    }
}
