package dev.piper.connectors.text.source.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.connectors.text.source.enumerator.FileChunkEnumState;
import dev.piper.connectors.text.source.enumerator.FileChunkEnumStateSerializer;
import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class FileChunkSplitSerializerTest {

    @Test
    void rangeAndStreamSplitsRoundTrip() throws IOException {
        FileChunkSplitSerializer.Single serializer = new FileChunkSplitSerializer.Single();
        for (FileChunkSplit split :
                List.of(
                        FileChunkSplit.range("/data/day_0", 7, 7L << 20, 8L << 20),
                        FileChunkSplit.ranges("/data/day_0", 8, 8L << 20, 15L << 20, 1L << 20),
                        FileChunkSplit.stream("/data/day_0.gz", 12, 123_456_789L))) {
            byte[] bytes = serializer.serialize(split);
            assertThat(serializer.deserialize(serializer.getVersion(), bytes)).isEqualTo(split);
        }
        assertThat(FileChunkSplit.range("/f", 3, 0, 10).splitId()).isEqualTo("/f@3");
        assertThat(FileChunkSplit.stream("/f.gz", 3, 0).splitId()).isEqualTo("/f.gz");
    }

    @Test
    void enumeratorStateRoundTrips() throws IOException {
        FileChunkEnumStateSerializer serializer = new FileChunkEnumStateSerializer();
        FileChunkEnumState state =
                new FileChunkEnumState(
                        "/data/day_0",
                        5_000_000_000L,
                        1 << 20,
                        42,
                        List.of(FileChunkSplit.range("/data/day_0", 40, 40L << 20, 41L << 20)));
        byte[] bytes = serializer.serialize(state);
        assertThat(serializer.deserialize(serializer.getVersion(), bytes)).isEqualTo(state);
        assertThat(state.rangeCount()).isEqualTo((5_000_000_000L + (1 << 20) - 1) >> 20);
    }

    /** Version 2 (one range per split, before runs of ranges): frozen bytes, read as one range. */
    @Test
    void readsVersion2SplitsAndStates() throws IOException {
        byte[] split =
                HexFormat.of()
                        .parseHex(
                                "00032f6632"
                                        + "0000000000000003"
                                        + "0000000000300000"
                                        + "0000000000400000");
        assertThat(new FileChunkSplitSerializer.Single().deserialize(2, split))
                .isEqualTo(FileChunkSplit.range("/f2", 3, 3L << 20, 4L << 20));
        byte[] stream =
                HexFormat.of()
                        .parseHex(
                                "00052f662e677a"
                                        + "000000000000000c"
                                        + "00000000075bcd15"
                                        + "ffffffffffffffff");
        assertThat(new FileChunkSplitSerializer.Single().deserialize(2, stream))
                .isEqualTo(FileChunkSplit.stream("/f.gz", 12, 123_456_789L));
        byte[] state =
                HexFormat.of()
                        .parseHex(
                                "00032f6632"
                                        + "0000000000a00000"
                                        + "0000000000100000"
                                        + "0000000000000005"
                                        + "00000001"
                                        + "00032f6632"
                                        + "0000000000000003"
                                        + "0000000000300000"
                                        + "0000000000400000");
        FileChunkEnumState read = new FileChunkEnumStateSerializer().deserialize(2, state);
        assertThat(read)
                .isEqualTo(
                        new FileChunkEnumState(
                                "/f2",
                                10L << 20,
                                1 << 20,
                                5,
                                List.of(FileChunkSplit.range("/f2", 3, 3L << 20, 4L << 20))));
        assertThat(read.pending().get(0).rangeCount()).isEqualTo(1);
    }

    @Test
    void refusesAnOlderFormatWithAMessage() {
        assertThatThrownBy(() -> new FileChunkSplitSerializer.Single().deserialize(1, new byte[8]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 1")
                .hasMessageContaining("rerun the job");
    }
}
