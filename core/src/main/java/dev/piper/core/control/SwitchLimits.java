package dev.piper.core.control;

import dev.piper.core.block.KafkaOut;
import java.io.Serializable;
import java.util.Arrays;

/**
 * What a spec switched to must fit in a running stream: its blocks are cut before it is known (by
 * the lines and bytes of the starting spec's chunking), and its rows records go to topics created
 * before it.
 *
 * @param blockLines per pipeline, by index: the most lines of a block
 * @param rowBytes the most bytes of rows one rows record may hold ({@link KafkaOut#MAX_ROW_BYTES})
 * @param blockBytes the most input bytes of a block (list values grow with them)
 * @param recordLimit the largest record the rows topics take ({@code max.message.bytes})
 * @param priced whether the job runs the cost report, which must be able to price the spec
 */
public record SwitchLimits(
        int[] blockLines, int rowBytes, int blockBytes, int recordLimit, boolean priced)
        implements Serializable {

    public SwitchLimits {
        blockLines = blockLines.clone();
    }

    /** Pipelines of Criteo's blocks (4,096 lines, 1 MiB) into topics of 1 MiB records. */
    public static SwitchLimits defaults(int pipelines) {
        int[] lines = new int[pipelines];
        Arrays.fill(lines, 4096);
        return new SwitchLimits(
                lines, KafkaOut.MAX_ROW_BYTES, 1 << 20, KafkaOut.DEFAULT_RECORD_LIMIT, false);
    }

    @Override
    public int[] blockLines() {
        return blockLines.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SwitchLimits l
                && Arrays.equals(blockLines, l.blockLines)
                && rowBytes == l.rowBytes
                && blockBytes == l.blockBytes
                && recordLimit == l.recordLimit
                && priced == l.priced;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(blockLines) * 31 + rowBytes;
    }
}
