package dev.piper.connectors.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Writes the cost model's reports into a batch output directory (parallelism 1): every report as a
 * line of {@link ReportFiles#INTERVALS} as it arrives, and the final one as {@link
 * ReportFiles#REPORT} and {@link ReportFiles#HTML} (each written to a temporary file and moved into
 * place, so a reader never sees half a file).
 */
public final class ReportFileSink implements Sink<String> {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final long serialVersionUID = 1L;

    private final String directory;

    public ReportFileSink(String directory) {
        this.directory = directory;
    }

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) throws IOException {
        return new Writer(Path.of(directory));
    }

    private static final class Writer implements SinkWriter<String> {
        private final Path dir;
        private final BufferedWriter lines;

        Writer(Path dir) throws IOException {
            this.dir = dir;
            Files.createDirectories(dir);
            this.lines =
                    Files.newBufferedWriter(
                            dir.resolve(ReportFiles.INTERVALS),
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
            if (node.path("report").path("final").asBoolean()) {
                replace(
                        ReportFiles.REPORT,
                        JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node));
                replace(ReportFiles.HTML, ReportHtml.render(node));
            }
        }

        private void replace(String name, String text) throws IOException {
            Path tmp = dir.resolve("." + name + ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(
                    tmp,
                    dir.resolve(name),
                    StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        }

        @Override
        public void flush(boolean endOfInput) throws IOException {
            lines.flush();
        }

        @Override
        public void close() throws IOException {
            lines.close();
        }
    }
}
