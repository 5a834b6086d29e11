package dev.piper.operators.decode;

import dev.piper.operators.block.BlockTypes;
import dev.piper.operators.block.DenseChunk;
import dev.piper.operators.block.KeyChunk;
import dev.piper.operators.block.RawChunk;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Decodes raw chunks in parallel. Emits one {@link KeyChunk} per categorical column (to the
 * vocabulary operators) and the block's {@link DenseChunk} (labels, dense values, dead letters) on
 * {@link #DENSE}, which goes straight to the concatenation.
 */
public final class DecodeFunction extends ProcessFunction<RawChunk, KeyChunk> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<DenseChunk> DENSE =
            new OutputTag<>("dense", BlockTypes.DENSE_CHUNK);

    private final DecodeOptions options;
    private transient CriteoDecoder decoder;

    public DecodeFunction(DecodeOptions options) {
        this.options = options;
    }

    @Override
    public void open(OpenContext openContext) {
        decoder = new CriteoDecoder(options);
    }

    @Override
    public void processElement(RawChunk chunk, Context ctx, Collector<KeyChunk> out) {
        CriteoDecoder.Decoded decoded = decoder.decode(chunk);
        ctx.output(DENSE, decoded.dense());
        for (KeyChunk keys : decoded.keys()) {
            out.collect(keys);
        }
    }
}
