package dev.piper.connectors.output;

import dev.piper.core.block.AssembledBlock;
import dev.piper.output.DirectFileOutput;
import dev.piper.output.OutputCommit;
import dev.piper.output.OutputLayout;
import dev.piper.output.RowShards;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Writes the rows of a sharded output ({@link RowShards}) where they were assembled: chained to a
 * parallel concatenation partitioned by shard, each task writes the shards it is given, every
 * shard's blocks in sequence order (a block that arrives early waits for the blocks before it in
 * its shard), into the run's staging directory. Every block goes on without its row bytes, to the
 * sequencing and the sink that write what must stay in input order (vocabularies, dead letters,
 * lists, metadata) and the manifest, which checks each shard file's size.
 *
 * <p>The sink at the end of the job finishes only after every task of this operator has finished
 * its input and closed its files (Flink ends a bounded operator's input only after its upstream
 * operators have ended theirs), so the output is published with every shard complete.
 */
public final class ShardWriterOperator extends AbstractStreamOperator<AssembledBlock>
        implements OneInputStreamOperator<AssembledBlock, AssembledBlock>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private final OutputCommit commit;
    private final long blocksPerShard;
    private final int rowBytes;

    /** The shards being written: their file and the blocks that wait for earlier ones. */
    private transient Map<Long, ShardFile> open;

    /** Shards written completely, so that a block arriving for one of them is an error. */
    private transient Set<Long> closed;

    private static final class ShardFile {
        final DirectFileOutput out;
        long nextSeq;
        final long endSeq;
        final TreeMap<Long, AssembledBlock> waiting = new TreeMap<>();

        ShardFile(DirectFileOutput out, long firstSeq, long endSeq) {
            this.out = out;
            this.nextSeq = firstSeq;
            this.endSeq = endSeq;
        }
    }

    /**
     * @param commit the run whose staging directory the shards are written into
     * @param blocksPerShard consecutive blocks per rows file
     * @param rowBytes bytes of a row, to check each block's row bytes
     */
    public ShardWriterOperator(OutputCommit commit, long blocksPerShard, int rowBytes) {
        if (blocksPerShard < 1) {
            throw new IllegalArgumentException(
                    "blocks per shard must be positive: " + blocksPerShard);
        }
        this.commit = commit;
        this.blocksPerShard = blocksPerShard;
        this.rowBytes = rowBytes;
    }

    @Override
    public void open() throws Exception {
        super.open();
        open = new HashMap<>();
        closed = new HashSet<>();
    }

    @Override
    public void processElement(StreamRecord<AssembledBlock> element) throws Exception {
        AssembledBlock block = element.getValue();
        if (block.rowBytes().length != block.rows() * rowBytes) {
            throw new IllegalStateException(
                    "block "
                            + block.seq()
                            + ": "
                            + block.rowBytes().length
                            + " row bytes for "
                            + block.rows()
                            + " rows of "
                            + rowBytes);
        }
        long shard = RowShards.shardOf(block.seq(), blocksPerShard);
        if (closed.contains(shard)) {
            throw new IllegalStateException(
                    "block " + block.seq() + " arrived after shard " + shard + " was written");
        }
        ShardFile file = open.get(shard);
        if (file == null) {
            file = create(shard);
            open.put(shard, file);
        }
        if (block.seq() < file.nextSeq || file.waiting.containsKey(block.seq())) {
            throw new IllegalStateException("block " + block.seq() + " arrived twice");
        }
        file.waiting.put(block.seq(), block);
        while (!file.waiting.isEmpty() && file.waiting.firstKey() == file.nextSeq) {
            AssembledBlock next = file.waiting.pollFirstEntry().getValue();
            file.out.write(next.rowBytes(), 0, next.rowBytes().length);
            file.nextSeq++;
        }
        if (file.nextSeq == file.endSeq) {
            file.out.close();
            open.remove(shard);
            closed.add(shard);
        }
        output.collect(element.replace(block.withoutRowBytes()));
    }

    private ShardFile create(long shard) throws IOException {
        Path path = commit.staging().resolve(OutputLayout.shardFile(shard));
        Files.createDirectories(path.getParent());
        long first = shard * blocksPerShard;
        return new ShardFile(new DirectFileOutput(path, true), first, first + blocksPerShard);
    }

    /**
     * The input is complete: every shard still open is the input's last, or one whose later blocks
     * went to no task; its waiting blocks must have been written.
     */
    @Override
    public void endInput() throws Exception {
        for (Map.Entry<Long, ShardFile> e : open.entrySet()) {
            ShardFile file = e.getValue();
            if (!file.waiting.isEmpty()) {
                throw new IllegalStateException(
                        "shard "
                                + e.getKey()
                                + ": block "
                                + file.nextSeq
                                + " never arrived, blocks "
                                + file.waiting.keySet()
                                + " wait for it");
            }
            file.out.close();
            closed.add(e.getKey());
        }
        open.clear();
    }

    @Override
    public void close() throws Exception {
        try {
            if (open != null) {
                for (ShardFile file : open.values()) {
                    try {
                        file.out.abort();
                    } catch (IOException | RuntimeException ignored) {
                        // the run has failed already, with its own cause; its staging directory
                        // is removed by the next run (DlrmOutputWriter#close says why not to
                        // throw here)
                    }
                }
                open.clear();
            }
        } finally {
            super.close();
        }
    }
}
