package dev.piper.pipeline.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Onehot with the last category dropped. The vectors are {@code
 * torch.nn.functional.one_hot(torch.tensor(v), 4)[:-1]} (PyTorch's one-hot, its last column
 * dropped) for v = 0..3; values outside [0, 4), which torch refuses, are all zeros by our
 * definition (docs/SPECS.md).
 */
class OneHotTest {

    @ParameterizedTest(name = "onehot(4) of {0}")
    @CsvSource({
        "0, 1, 0, 0",
        "1, 0, 1, 0",
        "2, 0, 0, 1",
        "3, 0, 0, 0", // the last category: dropped
        "-1, 0, 0, 0",
        "4, 0, 0, 0",
        "2147483647, 0, 0, 0",
        "-2147483648, 0, 0, 0"
    })
    void dropLastVectors(int v, int a, int b, int c) {
        OneHot h = new OneHot(4);
        int[] out = {9, 9, 9, 9, 9};
        h.encode(v, out, 1);
        assertThat(out).containsExactly(9, a, b, c, 9);
        assertThat(h.width()).isEqualTo(3);
    }

    @Test
    void twoCategoriesAreOneIndicator() {
        OneHot h = new OneHot(2);
        int[] out = new int[1];
        h.encode(0, out, 0);
        assertThat(out).containsExactly(1);
        h.encode(1, out, 0);
        assertThat(out).containsExactly(0);
    }

    @Test
    void sizeIsBoundedAndOnehotComesLastOnAnInt32() {
        assertThatThrownBy(() -> new OneHot(1))
                .hasMessage("onehot \"size\" must be from 2 to 4096, not 1");
        assertThatThrownBy(() -> new DenseOp.OneHotOp(4097)).hasMessageContaining("not 4097");
        assertThat(new DenseOp.OneHotOp(8).label()).isEqualTo("onehot(8)");
        List<Op> last =
                List.of(
                        new Op.Decode(),
                        new Op.FillMissing(),
                        new DenseOp.BucketizeOp(new double[] {1, 2}, true),
                        new DenseOp.OneHotOp(3));
        assertThat(Chains.check(Chains.Kind.dense, last)).isEmpty();
        List<Op> notLast =
                List.of(
                        new Op.Decode(),
                        new Op.FillMissing(),
                        new DenseOp.OneHotOp(3),
                        new DenseOp.Neg2Zero());
        assertThat(Chains.check(Chains.Kind.dense, notLast).map(Chains.Problem::message))
                .isEqualTo(Optional.of("onehot must come last (its value is several columns)"));
        List<Op> onFloat =
                List.of(
                        new Op.Decode(),
                        new Op.FillMissing(),
                        new DenseOp.Neg2Zero(),
                        new DenseOp.Log(),
                        new DenseOp.OneHotOp(3));
        assertThat(Chains.check(Chains.Kind.dense, onFloat).map(Chains.Problem::message))
                .hasValueSatisfying(
                        m -> assertThat(m).startsWith("onehot takes an int32 category"));
        List<Op> onSparse =
                List.of(
                        new Op.Decode(),
                        new Op.FillMissing(),
                        new Op.Hex2Int(),
                        new DenseOp.OneHotOp(3),
                        new Op.Vocab());
        assertThat(Chains.check(Chains.Kind.sparse, onSparse)).isPresent();
    }
}
