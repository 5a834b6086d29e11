package dev.piper.operators.block;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.block.ColumnBlock;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.IndexChunk;
import dev.piper.core.block.KafkaOut;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.LogRecord;
import dev.piper.core.block.RawChunk;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/** Type information of every record type on the data path. */
public final class BlockTypes {

    public static final TypeInformation<LogRecord> LOG_RECORD =
            new SerializerTypeInfo<>(LogRecord.class, LogRecordSerializer.INSTANCE);
    public static final TypeInformation<RawChunk> RAW_CHUNK =
            new SerializerTypeInfo<>(RawChunk.class, RawChunkSerializer.INSTANCE);
    public static final TypeInformation<ColumnBlock> COLUMN_BLOCK =
            new SerializerTypeInfo<>(ColumnBlock.class, ColumnBlockSerializer.INSTANCE);
    public static final TypeInformation<KeyChunk> KEY_CHUNK =
            new SerializerTypeInfo<>(KeyChunk.class, KeyChunkSerializer.INSTANCE);
    public static final TypeInformation<DenseChunk> DENSE_CHUNK =
            new SerializerTypeInfo<>(DenseChunk.class, DenseChunkSerializer.INSTANCE);
    public static final TypeInformation<IndexChunk> INDEX_CHUNK =
            new SerializerTypeInfo<>(IndexChunk.class, IndexChunkSerializer.INSTANCE);
    public static final TypeInformation<AssembledBlock> ASSEMBLED_BLOCK =
            new SerializerTypeInfo<>(AssembledBlock.class, AssembledBlockSerializer.INSTANCE);
    public static final TypeInformation<KafkaOut> KAFKA_OUT =
            new SerializerTypeInfo<>(KafkaOut.class, KafkaOutSerializer.INSTANCE);

    private BlockTypes() {}
}
