package dev.piper.core.join;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.pipeline.join.Impression;
import dev.piper.pipeline.join.JoinedRow;
import dev.piper.pipeline.join.Position;
import dev.piper.pipeline.join.StreamLabel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A row made of an impression's position, its line read back later and the labels spliced in, is
 * byte for byte the row made holding the line: whatever whitespace the object has, empty or not.
 */
class LabelledLineTest {

    private static final List<String> LINES =
            List.of(
                    "{\"id\":\"r1\",\"ts\":5}",
                    "  {\"id\":\"r1\"}",
                    "{}",
                    "{ }",
                    "\t{  \"x\" : \"y\" , \"z\":[1,{\"a\":2}] }  ",
                    "{\"labels\":{\"old\":1},\"q\":\"caf\u00e9 \\\"}\"}");

    private static final List<List<StreamLabel>> LABELS =
            List.of(
                    List.of(new StreamLabel(true, 1_234, 2, 0), StreamLabel.NONE),
                    List.of(StreamLabel.NONE, new StreamLabel(true, 0, 1, 19.99)),
                    List.of(new StreamLabel(false, -1, 0, -0.5), StreamLabel.NONE));

    @Test
    void aSplicedRowIsTheRowMadeWithItsLine() {
        LabelledLine labelled = new LabelledLine(List.of("click", "purchase"));
        int rows = 0;
        for (String text : LINES) {
            byte[] line = text.getBytes(StandardCharsets.UTF_8);
            for (List<StreamLabel> labels : LABELS) {
                for (double weight : new double[] {1, 4, 1.5}) {
                    JoinedRow<byte[]> row =
                            new JoinedRow<>(
                                    new Impression<>(
                                            "r1", 5, new Position(0, 1, 7), Long.MIN_VALUE, line),
                                    10_005,
                                    -1,
                                    labels,
                                    weight);
                    ByteArrayOutputStream whole = new ByteArrayOutputStream();
                    labelled.writeObject(line, line.length, row, whole);
                    ByteArrayOutputStream member = new ByteArrayOutputStream();
                    labelled.writeLabels(row, member);
                    JoinedLine held =
                            new JoinedLine(10_005, "r1", -1, 1, 7, member.toByteArray(), true);
                    assertThat(new String(held.spliceInto(line), StandardCharsets.UTF_8))
                            .isEqualTo(whole.toString(StandardCharsets.UTF_8));
                    rows++;
                }
            }
        }
        assertThat(rows).isEqualTo(LINES.size() * LABELS.size() * 3);
    }

    @Test
    void aLineWithoutAnObjectSplicesToNothing() {
        JoinedLine held =
                new JoinedLine(
                        1, "k", -1, 0, 0, "\"labels\":{}".getBytes(StandardCharsets.UTF_8), true);
        assertThat(held.spliceInto("not json".getBytes(StandardCharsets.UTF_8))).isNull();
        assertThat(held.spliceInto(new byte[0])).isNull();
    }
}
