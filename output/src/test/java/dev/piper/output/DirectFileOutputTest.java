package dev.piper.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DirectFileOutputTest {

    @TempDir Path tmp;

    /**
     * Writes of random sizes, across buffer boundaries and ending in a partial block, give exactly
     * the bytes written, directly or through the page cache.
     */
    @ParameterizedTest
    @CsvSource({
        "true, 0",
        "true, 1",
        "true, 4096",
        "true, 10000000",
        "true, 8388608",
        "false, 0",
        "false, 10000000"
    })
    void theFileHoldsExactlyTheBytesWritten(boolean tryDirect, int total) throws IOException {
        SplittableRandom random = new SplittableRandom(total);
        byte[] data = new byte[total];
        random.nextBytes(data);
        Path file = tmp.resolve("rows-" + tryDirect + "-" + total + ".bin");
        Files.writeString(file, "stale content that must be truncated");
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (DirectFileOutput out = new DirectFileOutput(file, tryDirect)) {
            if (!tryDirect) {
                assertThat(out.isDirect()).isFalse();
            }
            int pos = 0;
            while (pos < total) {
                int n = Math.min(total - pos, 1 + random.nextInt(300_000));
                out.write(data, pos, n);
                expected.write(data, pos, n);
                pos += n;
            }
            assertThat(out.size()).isEqualTo(total);
        }
        assertThat(Files.readAllBytes(file)).isEqualTo(expected.toByteArray());
    }

    @ParameterizedTest
    @CsvSource({"true", "false"})
    void refusesWritesAfterClose(boolean tryDirect) throws IOException {
        DirectFileOutput out = new DirectFileOutput(tmp.resolve("closed.bin"), tryDirect);
        out.close();
        out.close(); // idempotent
        assertThatThrownBy(() -> out.write(new byte[1], 0, 1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("closed");
    }
}
