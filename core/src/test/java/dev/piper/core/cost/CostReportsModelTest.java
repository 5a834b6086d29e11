package dev.piper.core.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.hwmodel.Operator;
import dev.piper.pipeline.ops.DenseOp;
import dev.piper.pipeline.ops.IdOp;
import dev.piper.pipeline.ops.Op;
import dev.piper.pipeline.ops.OpDefinition;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every operator a spec may name, but decode and vocab (priced as GenVocab and ApplyVocab), has its
 * hardware-model operator, so the cost report prices every spec.
 */
class CostReportsModelTest {

    @Test
    void everySpecOperatorMapsToItsModelOperator() {
        Map<Op, Operator> expected = new LinkedHashMap<>();
        expected.put(new Op.FillMissing(), Operator.FILL_MISSING);
        expected.put(new Op.FillNull(5), Operator.FILL_MISSING);
        expected.put(new DenseOp.Neg2Zero(), Operator.NEG2ZERO);
        expected.put(new DenseOp.Log(), Operator.LOG);
        expected.put(new Op.Hex2Int(), Operator.HEX2INT);
        expected.put(new IdOp.Modulus(7), Operator.MODULUS);
        expected.put(new DenseOp.BucketizeOp(new double[] {1}, true), Operator.BUCKETIZE);
        expected.put(new IdOp.SigridHashOp(0, 10), Operator.SIGRIDHASH);
        expected.put(new DenseOp.ClampOp(0, 1), Operator.CLAMP);
        expected.put(new DenseOp.BoxCoxOp(0.5), Operator.BOXCOX);
        expected.put(new DenseOp.LogitOp(0.1), Operator.LOGIT);
        expected.put(new DenseOp.Cast(Op.ValueType.float32), Operator.CAST);
        expected.put(new IdOp.MapIdOp("/t", null), Operator.MAPID);
        expected.put(new IdOp.FirstXOp(2), Operator.FIRSTX);
        expected.put(new IdOp.NgramOp(2), Operator.NGRAM);
        expected.put(new DenseOp.OneHotOp(3), Operator.ONEHOT);
        expected.forEach(
                (op, model) -> assertThat(CostReports.model(op)).as(op.label()).isEqualTo(model));
        // every operator a spec may use is priced as an operator the model knows, decode and
        // vocab aside
        for (OpDefinition d : OpDefinition.all()) {
            if (d.name().equals("decode") || d.name().equals("vocab")) {
                assertThat(d.pricedAs()).as(d.name()).isNull();
            } else {
                assertThat(Operator.byModelName(d.pricedAs())).as(d.name()).isNotNull();
            }
        }
        assertThatThrownBy(() -> CostReports.model(new Op.Decode()))
                .hasMessage("decode has no model operator");
    }
}
