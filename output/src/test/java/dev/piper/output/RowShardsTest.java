package dev.piper.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RowShardsTest {

    @TempDir Path tmp;

    /**
     * Every block has a key of its own, and every block of a shard lands on the same task at any
     * parallelism: the key's hash is the shard.
     */
    @Test
    void aShardsBlocksShareATaskWhileEachKeepsItsOwnKey() {
        Set<Long> keys = new HashSet<>();
        for (long blocksPerShard : new long[] {1, 3, 16, 256}) {
            for (long seq = 0; seq < 5_000; seq++) {
                long key = RowShards.concatenationKey(seq, blocksPerShard);
                assertThat(Long.valueOf(key).hashCode())
                        .isEqualTo((int) RowShards.shardOf(seq, blocksPerShard));
                if (blocksPerShard == 16) {
                    assertThat(keys.add(key)).as("block %d's key is its own", seq).isTrue();
                }
                long first =
                        RowShards.concatenationKey(
                                RowShards.shardOf(seq, blocksPerShard) * blocksPerShard,
                                blocksPerShard);
                for (int parallelism : new int[] {2, 3, 7}) {
                    assertThat(
                                    KeyGroupRangeAssignment.assignKeyToParallelOperator(
                                            key, 128, parallelism))
                            .isEqualTo(
                                    KeyGroupRangeAssignment.assignKeyToParallelOperator(
                                            first, 128, parallelism));
                }
            }
        }
        long last = Integer.MAX_VALUE;
        assertThat(Long.valueOf(RowShards.concatenationKey(last, 7)).hashCode())
                .isEqualTo((int) (last / 7));
        assertThatThrownBy(() -> RowShards.concatenationKey(last + 1, 7))
                .hasMessageContaining("at most 2^31 blocks");
    }

    @Test
    void theManifestListsTheShardsInRowOrderAndChecksTheirSizes() throws IOException {
        Files.createDirectories(tmp.resolve("rows"));
        Files.write(tmp.resolve(OutputLayout.shardFile(0)), new byte[3 * 8]);
        Files.write(tmp.resolve(OutputLayout.shardFile(1)), new byte[0]);
        Files.write(tmp.resolve(OutputLayout.shardFile(2)), new byte[5 * 8]);
        List<RowShards.Shard> shards = RowShards.writeManifest(tmp, 8, new long[] {3, 0, 5});
        assertThat(shards)
                .containsExactly(
                        new RowShards.Shard("part-000000.bin", 0, 3, 24),
                        new RowShards.Shard("part-000001.bin", 3, 0, 0),
                        new RowShards.Shard("part-000002.bin", 3, 5, 40));
        assertThat(RowShards.files(tmp))
                .containsExactly(
                        tmp.resolve(OutputLayout.shardFile(0)),
                        tmp.resolve(OutputLayout.shardFile(1)),
                        tmp.resolve(OutputLayout.shardFile(2)));
        assertThat(Files.readString(tmp.resolve(OutputLayout.ROWS_MANIFEST)))
                .contains("\"format\" : \"piper-rows-shards\"")
                .contains("\"rows\" : 8");

        // a shard whose file does not hold its rows is named, and no manifest claims it
        assertThatThrownBy(() -> RowShards.writeManifest(tmp, 8, new long[] {3, 1, 5}))
                .hasMessageContaining("part-000001.bin holds 0 bytes, but its 1 rows take 8");
        Files.write(tmp.resolve(OutputLayout.shardFile(2)), new byte[4 * 8]);
        assertThatThrownBy(() -> RowShards.files(tmp))
                .hasMessageContaining(
                        "lists " + tmp.resolve(OutputLayout.shardFile(2)) + " of 40 bytes");
        assertThatThrownBy(() -> RowShards.writeManifest(tmp, 8, new long[] {3, 0, 4, 1}))
                .hasMessageContaining("part-000003.bin is missing (shard 3");
    }
}
