package dev.piper.connectors.text.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.connectors.TestReaders;
import dev.piper.connectors.text.source.split.FileChunkSplit;
import dev.piper.core.block.RawChunk;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.core.io.InputStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A split of several byte ranges reads as the same chunks as one split per range, and a reader
 * restored from a snapshot taken between two of its ranges emits exactly the ranges not yet
 * emitted.
 */
class FileChunkReaderTest {

    @TempDir Path tmp;

    private static final int RANGE = 1000;

    /** Seeded lines of 1 to 300 bytes, so that ranges end mid-line and some lines span ranges. */
    private Path file() throws Exception {
        SplittableRandom random = new SplittableRandom(25);
        StringBuilder text = new StringBuilder();
        while (text.length() < 23_456) {
            int n = random.nextInt(1, 300);
            for (int i = 0; i < n; i++) {
                text.append((char) ('a' + random.nextInt(26)));
            }
            text.append('\n');
        }
        Path f = tmp.resolve("lines.tsv");
        Files.writeString(f, text, StandardCharsets.US_ASCII);
        return f;
    }

    @Test
    void aSplitOfRangesReadsAsOneSplitPerRangeAndResumesFromItsSnapshot() throws Exception {
        Path f = file();
        long length = Files.size(f);
        int ranges = (int) ((length + RANGE - 1) / RANGE);

        List<FileChunkSplit> single = new ArrayList<>();
        for (int i = 0; i < ranges; i++) {
            single.add(
                    FileChunkSplit.range(
                            f.toString(), i, (long) i * RANGE, Math.min(length, (i + 1L) * RANGE)));
        }
        List<RawChunk> expected = readAll(new TestReaders.Context(), single, -1).chunks;
        assertThat(expected).hasSize(ranges);

        FileChunkSplit all = FileChunkSplit.ranges(f.toString(), 0, 0, length, RANGE);
        assertThat(all.rangeCount()).isEqualTo(ranges);
        TestReaders.Context wholeContext = new TestReaders.Context();
        Read whole = readAll(wholeContext, List.of(all), -1);
        assertSame(whole.chunks, expected);
        // two requests at the start, one when the split's last range is read
        assertThat(wholeContext.requests).isEqualTo(3);

        // a snapshot after 5 of the ranges holds the rest; a new reader resumes from it
        TestReaders.Context context = new TestReaders.Context();
        Read first = readAll(context, List.of(all), 5);
        assertThat(first.snapshot).hasSize(1);
        FileChunkSplit rest = first.snapshot.get(0);
        assertThat(rest.seq()).isEqualTo(5);
        assertThat(rest.start()).isEqualTo(5L * RANGE);
        assertThat(rest.rangeCount()).isEqualTo(ranges - 5);
        assertThat(context.requests).as("none while the split has ranges left").isEqualTo(2);
        Read resumed = readAll(new TestReaders.Context(), first.snapshot, -1);
        List<RawChunk> both = new ArrayList<>(first.chunks);
        both.addAll(resumed.chunks);
        assertSame(both, expected);
    }

    private static void assertSame(List<RawChunk> got, List<RawChunk> expected) {
        assertThat(got).hasSameSizeAs(expected);
        for (int i = 0; i < got.size(); i++) {
            RawChunk a = got.get(i);
            RawChunk b = expected.get(i);
            assertThat(a.seq()).as("chunk %d", i).isEqualTo(b.seq());
            assertThat(a.firstOffset()).as("chunk %d", i).isEqualTo(b.firstOffset());
            assertThat(a.lastLineLength()).as("chunk %d", i).isEqualTo(b.lastLineLength());
            assertThat(Arrays.copyOf(a.data(), a.length()))
                    .as("chunk %d", i)
                    .isEqualTo(Arrays.copyOf(b.data(), b.length()));
        }
    }

    private record Read(List<RawChunk> chunks, List<FileChunkSplit> snapshot) {}

    /** Reads the splits to their end, or snapshots after {@code stopAfter} chunks. */
    private static Read readAll(
            TestReaders.Context context, List<FileChunkSplit> splits, int stopAfter)
            throws Exception {
        TestReaders.Output<RawChunk> output = new TestReaders.Output<>();
        try (FileChunkReader reader = new FileChunkReader(context, RANGE, 1 << 16, 64)) {
            reader.start();
            reader.addSplits(splits);
            reader.notifyNoMoreSplits();
            while (true) {
                if (output.records.size() == stopAfter) {
                    return new Read(output.records, reader.snapshotState(1));
                }
                if (reader.pollNext(output) == InputStatus.END_OF_INPUT) {
                    return new Read(output.records, List.of());
                }
            }
        }
    }
}
