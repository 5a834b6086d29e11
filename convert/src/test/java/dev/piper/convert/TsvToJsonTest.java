package dev.piper.convert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.pipeline.layout.RowLayout;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every line becomes one line of the output, in order: a row as its JSON event, anything else as it
 * is; line breaks of either kind, a last line without one, and lines longer than the read buffer.
 */
class TsvToJsonTest {

    @TempDir Path tmp;

    private static final RowLayout TINY = new RowLayout(2, 2, List.of(1), ',');

    private List<String> convert(byte[] input) throws Exception {
        Path in = tmp.resolve("in.tsv");
        Files.write(in, input);
        Path out = tmp.resolve("out.jsonl");
        Files.deleteIfExists(out);
        TsvToJson.Result r =
                TsvToJson.convert(in, out, TINY, new PrintStream(new ByteArrayOutputStream()));
        List<String> lines = Files.readAllLines(out, StandardCharsets.ISO_8859_1);
        assertThat(r.lines()).isEqualTo(lines.size());
        assertThat(tmp.resolve("out.jsonl.partial")).doesNotExist();
        return lines;
    }

    @Test
    void rowsBecomeEventsAndOtherLinesStayAsTheyAre() throws Exception {
        byte[] bad = {'1', '\t', (byte) 0xff, '\t', 'x', '\t', 'a'};
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes("1\t-5\t\tff\ta,,b\r\n".getBytes(StandardCharsets.UTF_8));
        in.writeBytes("\n".getBytes(StandardCharsets.UTF_8));
        in.writeBytes("only\ttwo\n".getBytes(StandardCharsets.UTF_8));
        in.writeBytes(bad);
        in.write('\n');
        in.writeBytes("0\t99999999999\t7\t\t".getBytes(StandardCharsets.UTF_8)); // no final break
        List<String> out = convert(in.toByteArray());
        assertThat(out)
                .containsExactly(
                        "{\"label\":1,\"I1\":-5,\"C1\":\"ff\",\"C2\":[\"a\",\"\",\"b\"]}",
                        "",
                        "only\ttwo",
                        new String(bad, StandardCharsets.ISO_8859_1),
                        "{\"label\":0,\"I1\":\"99999999999\",\"I2\":7}");
    }

    @Test
    void aLineLongerThanTheBufferIsOneEvent() throws Exception {
        String id = "a".repeat(200_000);
        List<String> out = convert(("1\t2\t3\t" + id + "\t\n").getBytes(StandardCharsets.UTF_8));
        assertThat(out).containsExactly("{\"label\":1,\"I1\":2,\"I2\":3,\"C1\":\"" + id + "\"}");
    }
}
