package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** What a failed embedded job reports: its cause, with the context the job's code gave it. */
class EmbeddedRunnerTest {

    /**
     * Issue 23: a full disk reported only "No space left on device" (before that, "The TaskExecutor
     * is shutting down."). The writer names the file; the report keeps that name.
     */
    @Test
    void theCauseKeepsTheFileItsWriterNamed() {
        IOException raw = new IOException("No space left on device");
        IOException named =
                new IOException("/data/.out.staging-1/rows.bin: " + raw.getMessage(), raw);
        ExecutionException job =
                new ExecutionException(
                        new RuntimeException(
                                "Job execution failed.",
                                new RuntimeException("Recovery is suppressed", named)));
        assertThat(EmbeddedRunner.rootCause(job))
                .isSameAs(named)
                .hasMessage("/data/.out.staging-1/rows.bin: No space left on device");
        // a cause without such context is the root itself
        IOException alone = new IOException("Disk quota exceeded");
        assertThat(
                        EmbeddedRunner.rootCause(
                                new ExecutionException(new RuntimeException("failed", alone))))
                .isSameAs(alone);
    }
}
