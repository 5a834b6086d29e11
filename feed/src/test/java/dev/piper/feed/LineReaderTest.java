package dev.piper.feed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineReaderTest {

    private static List<String> lines(String text) throws IOException {
        LineProducer.LineReader reader =
                new LineProducer.LineReader(
                        new ByteArrayInputStream(text.getBytes(StandardCharsets.ISO_8859_1)));
        List<String> out = new ArrayList<>();
        byte[] line;
        while ((line = reader.next()) != null) {
            out.add(new String(line, StandardCharsets.ISO_8859_1));
        }
        return out;
    }

    @Test
    void splitsOnLineBreaksAndDropsThem() throws IOException {
        assertThat(lines("a\r\n\nb\nc")).containsExactly("a", "", "b", "c");
        assertThat(lines("a\n")).containsExactly("a");
        assertThat(lines("")).isEmpty();
        assertThat(lines("\r\n")).containsExactly("");
    }

    @Test
    void aLineLongerThanTheBufferComesWhole() throws IOException {
        String big = "x".repeat(3 << 20);
        assertThat(lines("a\n" + big + "\nb")).containsExactly("a", big, "b");
    }
}
