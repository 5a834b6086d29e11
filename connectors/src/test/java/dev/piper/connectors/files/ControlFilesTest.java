package dev.piper.connectors.files;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.control.ControlMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.connector.file.src.util.RecordAndPosition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControlFilesTest {

    @TempDir Path dir;

    @Test
    void onlyJsonFilesDirectlyInTheDirectoryAreSpecs() throws Exception {
        Files.writeString(dir.resolve("v2.json"), "{}");
        Files.writeString(dir.resolve("notes.txt"), "x");
        Files.writeString(dir.resolve(".v3.json"), "{}");
        Files.createDirectories(dir.resolve("status"));
        Files.writeString(dir.resolve("status").resolve("status-0.json"), "{}");
        Collection<FileSourceSplit> splits =
                new ControlFiles.TopLevelJson()
                        .create()
                        .enumerateSplits(
                                new org.apache.flink.core.fs.Path[] {
                                    org.apache.flink.core.fs.Path.fromLocalFile(dir.toFile())
                                },
                                1);
        assertThat(splits).extracting(s -> s.path().getName()).containsExactly("v2.json");
    }

    @Test
    void aFileIsOneMessageReadOnceAlsoAfterARestore() throws Exception {
        Path file = Files.writeString(dir.resolve("v2.json"), "{\"a\": 1}");
        FileSourceSplit split =
                new FileSourceSplit(
                        "0",
                        org.apache.flink.core.fs.Path.fromLocalFile(file.toFile()),
                        0,
                        Files.size(file),
                        0,
                        Files.size(file));
        ControlFiles.WholeFile format = new ControlFiles.WholeFile();
        BulkFormat.Reader<ControlMessage> reader = format.createReader(new Configuration(), split);
        BulkFormat.RecordIterator<ControlMessage> batch = reader.readBatch();
        RecordAndPosition<ControlMessage> record = batch.next();
        assertThat(new String(record.getRecord().text())).isEqualTo("{\"a\": 1}");
        assertThat(record.getRecord().source()).endsWith("/v2.json");
        assertThat(record.getRecord().problem()).isEmpty();
        assertThat(batch.next()).isNull();
        assertThat(reader.readBatch()).isNull();

        FileSourceSplit restored =
                split.updateWithCheckpointedPosition(
                        new CheckpointedPosition(record.getOffset(), record.getRecordSkipCount()));
        assertThat(format.restoreReader(new Configuration(), restored).readBatch()).isNull();
        assertThat(format.restoreReader(new Configuration(), split).readBatch()).isNotNull();
    }

    @Test
    void aFileThatCannotBeReadIsAMessageSayingWhy() throws Exception {
        Path gone = dir.resolve("gone.json");
        FileSourceSplit split =
                new FileSourceSplit(
                        "0",
                        org.apache.flink.core.fs.Path.fromLocalFile(gone.toFile()),
                        0,
                        1,
                        0,
                        1);
        ControlMessage m =
                new ControlFiles.WholeFile()
                        .createReader(new Configuration(), split)
                        .readBatch()
                        .next()
                        .getRecord();
        assertThat(m.text()).isEmpty();
        assertThat(m.problem()).startsWith("file: cannot read");
    }
}
