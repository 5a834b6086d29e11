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

    /**
     * Issue 40: a stream whose every restart met the same failure (a state file gone) restarted for
     * ever; now its restarts are bounded, and the cause says that they are used up.
     */
    @Test
    void aStreamWhoseRestartsAreUsedUpSaysSoWithTheLastCause() {
        java.io.FileNotFoundException gone =
                new java.io.FileNotFoundException("/ckpt/chk-7/0b1c (No such file or directory)");
        ExecutionException job =
                new ExecutionException(
                        new RuntimeException(
                                "Job execution failed.",
                                new RuntimeException(
                                        "Recovery is suppressed by"
                                                + " ExponentialDelayRestartBackoffTimeStrategy",
                                        new IllegalStateException("restore failed", gone))));
        org.apache.flink.configuration.Configuration conf =
                Streaming.checkpointing(
                        java.nio.file.Path.of("/ckpt"), java.time.Duration.ofSeconds(5));
        assertThat(StreamRunner.failure(job, conf))
                .hasMessage(
                        "the job failed "
                                + Streaming.RESTART_ATTEMPTS
                                + " times in a row and stopped restarting (a failure that every"
                                + " restart meets again); the last failure:"
                                + " FileNotFoundException: /ckpt/chk-7/0b1c (No such file or"
                                + " directory)")
                .hasCause(gone);
        // one failure of a job that does not restart is its cause alone
        assertThat(
                        StreamRunner.failure(
                                new ExecutionException(new RuntimeException("x", gone)), conf))
                .isSameAs(gone);
    }

    /**
     * Checkpoints that fail every time (a full disk) end the job with Flink's "Exceeded checkpoint
     * tolerable failure threshold", their own cause only in the log: the line adds where the
     * checkpoints go, the space left there and the log file.
     */
    @Test
    void failedCheckpointsNameTheirDirectoryAndItsFreeSpace(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        ExecutionException job =
                new ExecutionException(
                        new RuntimeException(
                                "Recovery is suppressed by ExponentialDelayRestartBackoffTimeStrategy",
                                new IllegalStateException(
                                        "Exceeded checkpoint tolerable failure threshold. The latest"
                                                + " checkpoint failed due to IO-problem detected.")));
        assertThat(
                        StreamRunner.failure(
                                        job,
                                        Streaming.checkpointing(
                                                dir, java.time.Duration.ofSeconds(5)))
                                .getMessage())
                .contains("the last failure: IllegalStateException: Exceeded checkpoint tolerable")
                .contains("[checkpoints go to " + dir.resolve("checkpoints") + ", where ")
                .containsPattern(
                        " [0-9,]+ MiB are free; the log file .* names each checkpoint's exception]");
    }

    /** A count below the last line's (a restarted writer) is said so, not made a negative rate. */
    @Test
    void aProgressLineNeverShowsANegativeRate() {
        assertThat(EmbeddedRunner.progressLine("preprocess", 1_523_000, 1_000_000, 2, 6))
                .isEqualTo("preprocess: 1,523,000 rows written, 261,500 rows/s, 6 s");
        assertThat(EmbeddedRunner.progressLine("preprocess", 0, 523_716, 2, 8))
                .isEqualTo("preprocess: 0 rows written (the writer restarted, from 523,716), 8 s");
    }
}
