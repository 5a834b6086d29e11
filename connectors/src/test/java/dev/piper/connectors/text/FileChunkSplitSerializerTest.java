package dev.piper.connectors.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class FileChunkSplitSerializerTest {

    @Test
    void rangeAndStreamSplitsRoundTrip() throws IOException {
        FileChunkSplitSerializer.Single serializer = new FileChunkSplitSerializer.Single();
        for (FileChunkSplit split :
                List.of(
                        FileChunkSplit.range("/data/day_0", 7, 7L << 20, 8L << 20),
                        FileChunkSplit.stream("/data/day_0.gz", 12, 123_456_789L))) {
            byte[] bytes = serializer.serialize(split);
            assertThat(serializer.deserialize(serializer.getVersion(), bytes)).isEqualTo(split);
        }
        assertThat(FileChunkSplit.range("/f", 3, 0, 10).splitId()).isEqualTo("/f@3");
        assertThat(FileChunkSplit.stream("/f.gz", 3, 0).splitId()).isEqualTo("/f.gz");
    }

    @Test
    void enumeratorStateRoundTrips() throws IOException {
        FileChunkSplitSerializer.EnumeratorState serializer =
                new FileChunkSplitSerializer.EnumeratorState();
        FileChunkEnumerator.State state =
                new FileChunkEnumerator.State(
                        "/data/day_0",
                        5_000_000_000L,
                        1 << 20,
                        42,
                        List.of(FileChunkSplit.range("/data/day_0", 40, 40L << 20, 41L << 20)));
        byte[] bytes = serializer.serialize(state);
        assertThat(serializer.deserialize(serializer.getVersion(), bytes)).isEqualTo(state);
        assertThat(state.rangeCount()).isEqualTo((5_000_000_000L + (1 << 20) - 1) >> 20);
    }

    @Test
    void refusesAnOlderFormatWithAMessage() {
        assertThatThrownBy(() -> new FileChunkSplitSerializer.Single().deserialize(1, new byte[8]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 1")
                .hasMessageContaining("rerun the job");
    }
}
