package dev.piper.core.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.RawChunk;
import dev.piper.pipeline.ops.ColumnProgram;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.ops.Op;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ColumnProgramTest {

    private static ColumnProgram custom() {
        long[] modulus = new long[26];
        Arrays.fill(modulus, -1);
        modulus[2] = 10; // C3
        boolean[] neg2zero = new boolean[14];
        Arrays.fill(neg2zero, 1, 14, true);
        neg2zero[2] = false; // I2 keeps negatives
        boolean[] log = new boolean[14];
        log[5] = true; // I5
        return new ColumnProgram("p", 3, modulus, neg2zero, log);
    }

    @Test
    void dlrmShapeIsRecognised() {
        assertThat(ColumnProgram.dlrm(-1).dlrmMaxIndRange()).hasValue(-1);
        assertThat(ColumnProgram.dlrm(0).dlrmMaxIndRange()).hasValue(-1);
        assertThat(ColumnProgram.dlrm(1000).dlrmMaxIndRange()).hasValue(1000);
        assertThat(custom().dlrmMaxIndRange()).isEmpty();
        assertThat(ColumnProgram.dlrm(7)).isEqualTo(ColumnProgram.dlrm(7));
        assertThat(ColumnProgram.dlrm(7)).isNotEqualTo(ColumnProgram.dlrm(8));
    }

    @Test
    void theParserTakesTheFirstNeg2ZeroAndModulusAndTheRestRunsAsPasses() {
        ColumnProgram p = custom();
        assertThat(p.neg2zero(5)).isTrue();
        assertThat(p.neg2zero(2)).isFalse();
        assertThat(p.passOps(5)).containsExactly(new DenseOp.Log());
        assertThat(p.type(5)).isEqualTo(Op.ValueType.float32);
        assertThat(p.type(4)).isEqualTo(Op.ValueType.int32);
        assertThat(p.modulus(2)).isEqualTo(10);
        assertThat(p.modulus(0)).isEqualTo(-1);
        assertThat(p.passOps(14 + 2)).isEmpty();
        assertThat(p.keyBound(2)).isEqualTo(10);
        assertThat(p.keyBound(0)).isZero();
        assertThat(ColumnProgram.dlrm(-1).anyPasses()).isFalse();
        assertThat(p.anyPasses()).isTrue();
    }

    @Test
    void chainsAreSpelledAsInSpecs() {
        ColumnProgram p = custom();
        assertThat(p.chainOf(0)).isEqualTo("decode fill_missing");
        assertThat(p.chainOf(2)).isEqualTo("decode fill_missing");
        assertThat(p.chainOf(5)).isEqualTo("decode fill_missing neg2zero log");
        assertThat(p.chainOf(14 + 2)).isEqualTo("decode fill_missing hex2int modulus(10) vocab");
        assertThat(p.chainOf(14)).isEqualTo("decode fill_missing hex2int vocab");
        assertThat(p).hasToString("p/3");
    }

    @Test
    void logWithoutNeg2ZeroAndOperatorsOnTheLabelAreRefused() {
        boolean[] log = new boolean[14];
        log[3] = true;
        assertThatThrownBy(() -> new ColumnProgram("p", 1, new long[26], new boolean[14], log))
                .hasMessageContaining("I3[2]: log needs neg2zero");
        boolean[] labelNeg = new boolean[14];
        labelNeg[0] = true;
        assertThatThrownBy(() -> new ColumnProgram("p", 1, new long[26], labelNeg, new boolean[14]))
                .hasMessageContaining("the label");
    }

    /** The decoder runs the program: I2 negative kept, I5 as float32 log(x + 1), C3 mod 10. */
    @Test
    void theDecoderRunsTheProgram() {
        String[] f = new String[40];
        Arrays.fill(f, "");
        f[0] = "1";
        f[1] = "-4"; // I1: neg2zero
        f[2] = "-3"; // I2: kept
        f[5] = "7"; // I5: log(8)
        f[14 + 2] = "1f"; // C3: 31 mod 10
        f[14 + 3] = "1f"; // C4: no modulus
        byte[] line = (String.join("\t", f) + "\n").getBytes(StandardCharsets.US_ASCII);
        CriteoDecoder decoder = new CriteoDecoder(new DecodeOptions(custom(), false, 65536, 1024));
        CriteoDecoder.Decoded d = decoder.decode(new RawChunk(0, 0, line, line.length, -1));
        int[] values = d.dense().labelDense();
        assertThat(values[1]).isZero();
        assertThat(values[2]).isEqualTo(-3);
        assertThat(Float.intBitsToFloat(values[5])).isEqualTo((float) Math.log(8.0));
        assertThat(d.keys()[2].keys()[0]).isEqualTo(1);
        assertThat(d.keys()[3].keys()[0]).isEqualTo(31);
    }
}
