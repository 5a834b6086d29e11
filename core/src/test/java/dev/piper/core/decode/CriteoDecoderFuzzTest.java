package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.piper.core.block.DeadLetter;
import dev.piper.core.block.DenseChunk;
import dev.piper.core.block.KeyChunk;
import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.layout.Reason;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecException;
import dev.piper.pipeline.spec.SpecParser;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Coverage-guided fuzzing of the text decoder (Jazzer): under DLRM's spec, RAP's (the column
 * passes) and PreSto's RM3 (list columns), any bytes decode to lines that are each exactly one row
 * or one dead letter with a known reason and bounded raw bytes, without an exception; and the fused
 * column passes give what the one-pass-per-operator path gives. The committed inputs under {@code
 * CriteoDecoderFuzzTestInputs/} run in every build; {@code docs/RELIABILITY.md} says how to fuzz.
 */
class CriteoDecoderFuzzTest {

    private static final int MAX_RAW_BYTES = 64;

    private static final PipelineSpec[] SPECS = {
        SpecParser.builtin(), resource("/specs/rap-criteo.json"), Presets.named("rm3").spec()
    };

    private static PipelineSpec resource(String name) {
        try (InputStream in = CriteoDecoderFuzzTest.class.getResourceAsStream(name)) {
            return SpecParser.parse(in.readAllBytes(), name);
        } catch (IOException | SpecException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Each spec's program, compiled once. */
    private static final DecodeOptions[] OPTIONS =
            Arrays.stream(SPECS)
                    .map(spec -> SpecCompiler.decodeOptions(spec, MAX_RAW_BYTES))
                    .toArray(DecodeOptions[]::new);

    private static final Set<String> REASONS =
            Arrays.stream(Reason.values()).map(Reason::code).collect(Collectors.toSet());

    @FuzzTest(maxDuration = "10m")
    void everyLineIsOneRowOrOneDeadLetter(FuzzedDataProvider data) {
        DecodeOptions specOptions = OPTIONS[data.consumeInt(0, OPTIONS.length - 1)];
        boolean pad = data.consumeBoolean();
        int maxLineBytes = data.consumeInt(1, 1 << 12);
        byte[] bytes = data.consumeRemainingAsBytes();
        DecodeOptions options =
                new DecodeOptions(specOptions.program(), pad, maxLineBytes, MAX_RAW_BYTES);
        RawChunk chunk = new RawChunk(0, 0, bytes, bytes.length, -1);

        CriteoDecoder.Decoded fused = new CriteoDecoder(options, false, true).decode(chunk);
        DenseChunk d = fused.dense();
        int lines = lines(bytes);
        assertThat(d.lines()).isEqualTo(lines);
        assertThat(d.rows() + d.deadLetters().length).isEqualTo(lines);
        int previous = -1;
        for (DeadLetter dead : d.deadLetters()) {
            assertThat(dead.lineInBlock()).isGreaterThan(previous).isLessThan(lines);
            previous = dead.lineInBlock();
            assertThat(REASONS).contains(dead.reason());
            assertThat(dead.raw().length).isLessThanOrEqualTo(MAX_RAW_BYTES);
        }
        for (KeyChunk k : fused.keys()) {
            if (k.offsets() == null) {
                assertThat(k.size()).isEqualTo(d.rows());
            } else {
                assertThat(k.offsets()).hasSizeGreaterThanOrEqualTo(d.rows() + 1);
                assertThat(k.offsets()[d.rows()]).isEqualTo(k.size());
            }
        }

        CriteoDecoder.Decoded passes = new CriteoDecoder(options, false, false).decode(chunk);
        assertThat(passes.dense().rows()).isEqualTo(d.rows());
        assertThat(Arrays.copyOf(passes.dense().labelDense(), d.rows() * width(d)))
                .isEqualTo(Arrays.copyOf(d.labelDense(), d.rows() * width(d)));
        assertThat(passes.dense().deadLetters()).isEqualTo(d.deadLetters());
        for (int c = 0; c < fused.keys().length; c++) {
            KeyChunk a = fused.keys()[c];
            KeyChunk b = passes.keys()[c];
            assertThat(Arrays.copyOf(b.keys(), b.size()))
                    .isEqualTo(Arrays.copyOf(a.keys(), a.size()));
        }
    }

    private static int width(DenseChunk d) {
        return d.layout().labelDenseWidth();
    }

    /** Lines of {@code bytes}: each ends with a line break, but the input's last may not. */
    private static int lines(byte[] bytes) {
        int n = 0;
        for (byte b : bytes) {
            if (b == '\n') {
                n++;
            }
        }
        return bytes.length > 0 && bytes[bytes.length - 1] != '\n' ? n + 1 : n;
    }
}
