package dev.piper.connectors.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.output.OutputCommit;
import dev.piper.output.OutputLayout;
import dev.piper.output.report.ReportFiles;
import dev.piper.output.report.ReportHtml;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Writes the cost model's reports into a batch output directory (parallelism 1), as part {@value
 * #PART} of the run ({@link OutputCommit}: into its staging directory, published with the rows):
 * every report as a line of {@link OutputLayout#REPORT_INTERVALS} as it arrives, and the final one
 * as {@link OutputLayout#REPORT} and {@link OutputLayout#REPORT_HTML}. Input that ends without a
 * final report fails the run rather than publish an output without one.
 */
public final class ReportFileSink implements Sink<String> {

    /** This sink's part of a run. */
    public static final String PART = "report";

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final long serialVersionUID = 1L;

    private final OutputCommit commit;

    public ReportFileSink(OutputCommit commit) {
        this.commit = Objects.requireNonNull(commit);
    }

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) throws IOException {
        return new Writer(commit);
    }

    private static final class Writer implements SinkWriter<String> {
        private final OutputCommit commit;
        private final Path dir;
        private final BufferedWriter lines;
        private boolean finalReport;

        /**
         * Interval reports for the page's history: at most {@link #HISTORY} of them, every {@code
         * stride}-th (a long run's are thinned by halves, evenly over the run).
         */
        private final java.util.List<JsonNode> history = new java.util.ArrayList<>();

        private long intervals;

        private static final int HISTORY = 512;
        private long stride = 1;

        Writer(OutputCommit commit) throws IOException {
            this.commit = commit;
            this.dir = commit.partStarted(PART);
            this.lines =
                    Files.newBufferedWriter(
                            dir.resolve(OutputLayout.REPORT_INTERVALS),
                            StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.TRUNCATE_EXISTING,
                            StandardOpenOption.WRITE);
        }

        @Override
        public void write(String report, Context context) throws IOException {
            lines.write(report);
            lines.write('\n');
            lines.flush();
            JsonNode node = JSON.readTree(report);
            boolean last = node.path("report").path("final").asBoolean();
            if (!last && intervals++ % stride == 0) {
                history.add(node);
                if (history.size() == HISTORY) {
                    for (int i = history.size() - 1; i > 0; i -= 2) {
                        history.remove(i);
                    }
                    stride *= 2;
                }
            }
            if (last) {
                replace(
                        OutputLayout.REPORT,
                        JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node));
                replace(OutputLayout.REPORT_HTML, ReportHtml.render(node, history));
                finalReport = true;
            }
        }

        private void replace(String name, String text) throws IOException {
            ReportFiles.replace(dir, name, text);
        }

        @Override
        public void flush(boolean endOfInput) throws IOException {
            lines.flush();
            if (endOfInput) {
                if (!finalReport) {
                    throw new IllegalStateException(
                            "the input ended without the cost model's final report; the output"
                                    + " is not published");
                }
                commit.partDone(PART);
            }
        }

        @Override
        public void close() throws IOException {
            lines.close();
        }
    }
}
