package dev.piper.hwmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.hwmodel.MiniPipeDesign.Packing;
import org.junit.jupiter.api.Test;

class DesignTest {

    @Test
    void operatorsGoByTheirModelNames() {
        assertThat(Operator.byModelName("genvocab")).isEqualTo(Operator.GENVOCAB);
        assertThat(Operator.SIGRIDHASH.modelName()).isEqualTo("sigridhash");
        assertThat(Operator.APPLYVOCAB.usesVocabulary()).isTrue();
        assertThat(Operator.MODULUS.usesVocabulary()).isFalse();
        assertThatThrownBy(() -> Operator.byModelName("vocab"))
                .hasMessageContaining("unknown operator \"vocab\"");
    }

    @Test
    void theClockFollowsTheMiniPipeCountAndSaysWhereItComesFrom() {
        assertThat(new MiniPipeDesign(4, Packing.COLUMN).clock().value()).isEqualTo(200e6);
        assertThat(new MiniPipeDesign(7, Packing.COLUMN).clock().provenance())
                .isEqualTo(Provenance.QUOTED);
        assertThat(new MiniPipeDesign(5, Packing.COLUMN).clock().provenance())
                .isEqualTo(Provenance.ASSUME);
        assertThatThrownBy(() -> new MiniPipeDesign(8, Packing.COLUMN))
                .hasMessageContaining("miniPipes: 1..7, not 8");
    }

    @Test
    void offChipVocabulariesCostMoreAndTheirIisAreMarkedFitted() {
        MiniPipeDesign d = new MiniPipeDesign(1, Packing.COLUMN);
        assertThat(d.initiationInterval(Operator.GENVOCAB, Tier.OFFCHIP).provenance())
                .isEqualTo(Provenance.FIT);
        assertThat(d.initiationInterval(Operator.APPLYVOCAB, Tier.OFFCHIP).value())
                .isGreaterThan(d.initiationInterval(Operator.APPLYVOCAB, Tier.ONCHIP).value());
        assertThat(d.initiationInterval(Operator.NEG2ZERO, Tier.OFFCHIP).value()).isEqualTo(1);
    }

    @Test
    void columnPackingFillsBeatsRowPackingStartsEachRowAfresh() {
        // 26 int32 of a row: 104 B = 2 row-packed beats with 6 slots empty; 16 per column beat.
        assertThat(MiniPipeDesign.rowBeats(1000, 26, 4)).isEqualTo(2000);
        assertThat(MiniPipeDesign.columnBeats(26_000, 4)).isEqualTo(1625);
        assertThat(MiniPipeDesign.columnBeats(17, 4)).isEqualTo(2);
        assertThat(MiniPipeDesign.columnBeats(8, 8)).isEqualTo(1);
    }
}
