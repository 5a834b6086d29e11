package dev.piper.convert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.pipeline.layout.RowLayout;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Criteo text to CSV: the header, quoting where needed, every line kept (bad ones stay bad). */
class TsvToCsvTest {

    @TempDir Path tmp;

    @Test
    void everyLineIsWrittenAValueQuotedWhereItMustBe() throws Exception {
        String good =
                IntStream.range(0, 40)
                        .mapToObj(i -> i == 20 ? "a,b" : i == 21 ? "say \"hi\"" : "" + i % 7)
                        .collect(Collectors.joining("\t"));
        Path tsv = tmp.resolve("in.tsv");
        Files.write(tsv, ("1\t2\tthree fields\n" + good + "\n\n").getBytes(StandardCharsets.UTF_8));
        Path csv = tmp.resolve("out.csv");
        TsvToJson.Result r =
                TsvToCsv.convert(
                        tsv,
                        csv,
                        RowLayout.CRITEO,
                        new PrintStream(OutputStream.nullOutputStream()));
        assertThat(r.lines()).isEqualTo(3);
        List<String> lines = Files.readAllLines(csv);
        assertThat(lines.get(0)).isEqualTo(TsvToCsv.header(RowLayout.CRITEO));
        assertThat(TsvToCsv.columns(RowLayout.CRITEO)).hasSize(40).startsWith("label", "I1");
        assertThat(lines.get(1)).isEqualTo("1,2,three fields"); // three fields stay three
        assertThat(lines.get(2)).contains(",\"a,b\",\"say \"\"hi\"\"\",").startsWith("0,1,2,3,");
        assertThat(lines.get(3)).isEmpty();
        assertThat(tmp.resolve("out.csv.partial")).doesNotExist();
    }
}
