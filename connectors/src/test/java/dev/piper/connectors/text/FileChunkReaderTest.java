package dev.piper.connectors.text;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.operators.block.RawChunk;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.util.UserCodeClassLoader;
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
        List<RawChunk> expected = readAll(new Context(), single, -1).chunks;
        assertThat(expected).hasSize(ranges);

        FileChunkSplit all = FileChunkSplit.ranges(f.toString(), 0, 0, length, RANGE);
        assertThat(all.rangeCount()).isEqualTo(ranges);
        Context wholeContext = new Context();
        Read whole = readAll(wholeContext, List.of(all), -1);
        assertSame(whole.chunks, expected);
        // two requests at the start, one when the split's last range is read
        assertThat(wholeContext.requests).isEqualTo(3);

        // a snapshot after 5 of the ranges holds the rest; a new reader resumes from it
        Context context = new Context();
        Read first = readAll(context, List.of(all), 5);
        assertThat(first.snapshot).hasSize(1);
        FileChunkSplit rest = first.snapshot.get(0);
        assertThat(rest.seq()).isEqualTo(5);
        assertThat(rest.start()).isEqualTo(5L * RANGE);
        assertThat(rest.rangeCount()).isEqualTo(ranges - 5);
        assertThat(context.requests).as("none while the split has ranges left").isEqualTo(2);
        Read resumed = readAll(new Context(), first.snapshot, -1);
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
    private static Read readAll(Context context, List<FileChunkSplit> splits, int stopAfter)
            throws Exception {
        Output output = new Output();
        try (FileChunkReader reader = new FileChunkReader(context, RANGE, 1 << 16, 64)) {
            reader.start();
            reader.addSplits(splits);
            reader.notifyNoMoreSplits();
            while (true) {
                if (output.chunks.size() == stopAfter) {
                    return new Read(output.chunks, reader.snapshotState(1));
                }
                if (reader.pollNext(output) == InputStatus.END_OF_INPUT) {
                    return new Read(output.chunks, List.of());
                }
            }
        }
    }

    private static final class Output implements ReaderOutput<RawChunk> {
        final List<RawChunk> chunks = new ArrayList<>();

        @Override
        public void collect(RawChunk record) {
            chunks.add(record);
        }

        @Override
        public void collect(RawChunk record, long timestamp) {
            chunks.add(record);
        }

        @Override
        public void emitWatermark(Watermark watermark) {}

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}

        @Override
        public SourceOutput<RawChunk> createOutputForSplit(String splitId) {
            return this;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {}
    }

    /** Counts split requests; the rest is unused by the reader. */
    private static final class Context implements SourceReaderContext {
        int requests;

        @Override
        public SourceReaderMetricGroup metricGroup() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Configuration getConfiguration() {
            return new Configuration();
        }

        @Override
        public String getLocalHostName() {
            return "localhost";
        }

        @Override
        public int getIndexOfSubtask() {
            return 0;
        }

        @Override
        public void sendSplitRequest() {
            requests++;
        }

        @Override
        public void sendSourceEventToCoordinator(SourceEvent sourceEvent) {}

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int currentParallelism() {
            return 1;
        }
    }
}
