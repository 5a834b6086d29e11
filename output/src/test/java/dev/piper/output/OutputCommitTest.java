package dev.piper.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The output commit protocol: a run's output appears whole, once every part is written. */
class OutputCommitTest {

    @TempDir Path tmp;

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theOutputAppearsOnlyWhenTheLastPartIsDone() throws Exception {
        Path out = tmp.resolve("out");
        OutputCommit run = OutputCommit.start(out, "rows", "report");
        Path rows = run.partStarted("rows");
        Path report = run.partStarted("report");
        assertThat(rows).isEqualTo(report).isEqualTo(run.staging());
        assertThat(run.staging().getFileName().toString()).startsWith(".out.staging-");
        Files.writeString(rows.resolve("rows.bin"), "rows");
        Files.writeString(rows.resolve("metadata.json"), "{}");
        assertThat(run.partDone("rows")).isFalse();
        assertThat(out).doesNotExist();
        Files.writeString(report.resolve("report.json"), "{}");
        assertThat(run.partDone("report")).isTrue();
        assertThat(names(out)).containsExactly("metadata.json", "report.json", "rows.bin");
        assertThat(run.staging()).doesNotExist();
        assertThat(names(tmp)).containsExactly("out");
    }

    @Test
    void aPreviousOutputIsReplacedWholeAndOnlyAtTheEnd() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.createDirectories(out.resolve("vocab"));
        Files.writeString(out.resolve("vocab/C1.tsv"), "old");
        Files.writeString(out.resolve("rows.bin"), "old rows");
        OutputCommit run = OutputCommit.start(out, "rows");
        Path staging = run.partStarted("rows");
        Files.writeString(staging.resolve("rows.bin"), "new rows");
        assertThat(out.resolve("rows.bin")).hasContent("old rows"); // until the end
        assertThat(run.partDone("rows")).isTrue();
        assertThat(names(out)).containsExactly("rows.bin");
        assertThat(out.resolve("rows.bin")).hasContent("new rows");
        assertThat(names(tmp)).containsExactly("out");
    }

    @Test
    void anOutputHoldingForeignFilesIsNotReplaced() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.writeString(out.resolve("thesis.tex"), "years of work");
        OutputCommit run = OutputCommit.start(out, "rows");
        Path staging = run.partStarted("rows");
        Files.writeString(staging.resolve("rows.bin"), "new rows");
        assertThatThrownBy(() -> run.partDone("rows"))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(
                        out + " holds thesis.tex, which is not a piper output file; not replaced");
        assertThat(names(out)).containsExactly("thesis.tex");
        assertThat(staging.resolve("rows.bin")).hasContent("new rows"); // visibly incomplete
    }

    @Test
    void aRestartedWriterIsNotPublishedHalfWritten() throws Exception {
        Path out = tmp.resolve("out");
        OutputCommit run = OutputCommit.start(out, "rows", "report");
        run.partStarted("rows");
        run.partStarted("report");
        run.partDone("rows");
        run.partStarted("rows"); // the job restarted: rows are written again
        assertThat(run.partDone("report")).isFalse();
        assertThat(out).doesNotExist();
        assertThat(run.partDone("rows")).isTrue();
        assertThat(out).isDirectory();
    }

    @Test
    void theLockRemovesWhatKilledRunsLeftAndAWriterUnderItKeepsItsOwn() throws Exception {
        Path out = tmp.resolve("out");
        OutputCommit killed = OutputCommit.start(out, "rows");
        Files.writeString(killed.partStarted("rows").resolve("rows.bin"), "half");
        Files.createDirectories(tmp.resolve(".out.replaced-0123456789ab"));
        Files.createDirectories(tmp.resolve(".output.staging-0123456789ab")); // another output's
        OutputCommit run = OutputCommit.start(out, "rows");
        run.partStarted("rows");
        try (DirectoryLock lock = OutputCommit.lock(out)) {
            assertThat(names(tmp)).containsExactly(".out.lock", ".output.staging-0123456789ab");
            assertThat(DirectoryLock.isHeldHere(OutputCommit.lockFile(out))).isTrue();
            assertThat(run.lockForWriter()).isNull(); // this JVM's command holds it
        }
        assertThat(DirectoryLock.isHeldHere(OutputCommit.lockFile(out))).isFalse();
        run.partStarted("rows");
        Files.createDirectories(killed.staging());
        try (DirectoryLock lock = run.lockForWriter()) {
            assertThat(lock).isNotNull();
            assertThat(names(tmp))
                    .containsExactly(
                            ".out.lock",
                            run.staging().getFileName().toString(),
                            ".output.staging-0123456789ab");
        }
    }

    @Test
    void anOutputNamedThroughALinkIsPublishedWhereTheLinkPoints() throws Exception {
        Path disk = Files.createDirectories(tmp.resolve("disk"));
        Path target = Files.createDirectories(disk.resolve("out"));
        Files.writeString(target.resolve("rows.bin"), "old rows");
        Path link = Files.createSymbolicLink(tmp.resolve("out"), target);
        assertThat(OutputCommit.lockFile(link)).isEqualTo(disk.resolve(".out.lock"));
        OutputCommit run = OutputCommit.start(link, "rows");
        assertThat(run.staging().getParent()).isEqualTo(disk);
        Files.writeString(run.partStarted("rows").resolve("rows.bin"), "new rows");
        assertThat(run.partDone("rows")).isTrue();
        assertThat(link).isSymbolicLink();
        assertThat(link.resolve("rows.bin")).hasContent("new rows");
        assertThat(names(disk)).containsExactly("out");
    }

    @Test
    void everyFileARunWritesIsAnOutputEntry() throws Exception {
        assertThat(OutputLayout.entries())
                .contains(
                        OutputLayout.REPORT,
                        OutputLayout.REPORT_INTERVALS,
                        OutputLayout.REPORT_HTML)
                .contains(OutputLayout.LISTS_DIR, OutputLayout.VERSIONS, OutputLayout.EVENT_TIMES)
                .doesNotContain(OutputLayout.ROWS_MANIFEST, OutputLayout.FORMAT);
        // every file or directory OutputLayout names (its first path segment) is named through
        // entry(): event_times.bin was once missing from a list kept by hand, so --overwrite
        // refused every output of a spec with input.timestamp
        for (java.lang.reflect.Field f : OutputLayout.class.getFields()) {
            if (!java.lang.reflect.Modifier.isStatic(f.getModifiers())
                    || f.getType() != String.class
                    || f.getName().startsWith("FORMAT")) {
                continue; // the format's names in metadata.json, not entries
            }
            String entry = ((String) f.get(null)).split("/", 2)[0];
            assertThat(OutputLayout.entries()).as(f.getName()).contains(entry);
        }
    }
}
