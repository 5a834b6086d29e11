package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.pipeline.generate.CriteoGenerator;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Preprocess runs on embedded clusters of its own (no shared test cluster), each with the network
 * memory {@link NetworkMemory} sized to its job: at parallelism 1 and 4, with and without a Hotline
 * split (more operators, more edges), the output is the same as at parallelism 2 with the fixed 128
 * MiB pool the embedded cluster had before.
 */
class NetworkMemoryITCase {

    @TempDir Path tmp;

    private Path run(Path input, int parallelism, Configuration extra) throws Exception {
        Path out = Files.createTempDirectory(tmp, "out-");
        Preprocess.prepareOutput(out, false);
        Preprocess.run(input, out, parallelism, StateBackend.hashmap, extra, TestClusters.QUIET);
        return out;
    }

    @Test
    void jobsRunInThePoolSizedForThem() throws Exception {
        Path input = tmp.resolve("input.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(20261130, 0.01, 0.01).write(out, 20_000);
        }
        for (boolean hotline : new boolean[] {false, true}) {
            Configuration options = new Configuration();
            options.set(PiperOptions.BLOCK_BYTES, 65_536);
            if (hotline) {
                options.set(HotlineOptions.BUDGET, 64L * 1024);
            }
            Configuration fixed = options.clone();
            fixed.setString("taskmanager.memory.network.min", "128mb");
            fixed.setString("taskmanager.memory.network.max", "128mb");
            Map<String, String> before = SameOutput.sha256OfEveryFile(run(input, 2, fixed));
            assertThat(before).containsKey("rows.bin");
            for (int p : new int[] {1, 4}) {
                assertThat(SameOutput.sha256OfEveryFile(run(input, p, options)))
                        .as("parallelism %d, hotline %s", p, hotline)
                        .isEqualTo(before);
            }
        }
    }
}
