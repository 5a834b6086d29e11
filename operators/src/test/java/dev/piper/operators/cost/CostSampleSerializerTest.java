package dev.piper.operators.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.cost.CostSample;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import java.io.IOException;
import java.util.HexFormat;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class CostSampleSerializerTest {

    private static final CostSampleSerializer S = CostSampleSerializer.INSTANCE;

    private static byte[] write(CostSample s) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        S.serialize(s, out);
        return out.getCopyOfBuffer();
    }

    private static CostSample read(byte[] bytes) throws IOException {
        return S.deserialize(new DataInputDeserializer(bytes));
    }

    @Test
    void roundTripsEveryStage() throws IOException {
        int[] bytes = new int[CriteoLayout.FIELDS];
        for (int f = 0; f < bytes.length; f++) {
            bytes[f] = 1000 + f;
        }
        CostSample decode =
                CostSample.decode(2, 4000, 3990, bytes, 1_000_000, 5_000_000, 70_000, 6_000_000);
        CostSample back = read(write(decode));
        assertThat(back.fieldBytes()).containsExactly(bytes);
        assertThat(back).usingRecursiveComparison().isEqualTo(decode);
        CostSample kinds = decode.withParseNanos(1_200_000, 2_500_000).withVersion(4);
        assertThat(read(write(kinds)).parseNanos()).containsExactly(1_200_000, 2_500_000);
        assertThat(read(write(kinds)).version()).isEqualTo(4);
        CostSample vocab = CostSample.vocabulary(1, 25, 3990, 12345, 800_000, 900_000);
        assertThat(read(write(vocab))).usingRecursiveComparison().isEqualTo(vocab);
        CostSample output = CostSample.output(0, 3990, 300_000, 350_000).withVersion(3);
        assertThat(read(write(output))).usingRecursiveComparison().isEqualTo(output);
        CostSample epoch = vocab.withEpoch(2);
        assertThat(read(write(epoch)).epoch()).isEqualTo(2);
        ColumnProgram program = ColumnProgram.dlrm(1000);
        CostSample announced = CostSample.program(1, program);
        CostSample programBack = read(write(announced));
        assertThat(programBack.stage()).isEqualTo(CostSample.Stage.PROGRAM);
        assertThat(programBack.version()).isEqualTo(program.version());
        assertThat(programBack.program()).isEqualTo(program);
    }

    /** Format 3 as its class comment writes it down. */
    @Test
    void formatIsFrozen() throws IOException {
        assertThat(
                        HexFormat.of()
                                .formatHex(
                                        write(
                                                CostSample.vocabulary(1, 2, 3, 4, 5, 6)
                                                        .withEpoch(7))))
                .isEqualTo(
                        "01" // stage VOCABULARY
                                + "00000001" // pipeline
                                + "00000002" // column
                                + "0000000000000000" // lines
                                + "0000000000000003" // values
                                + "00000000" // no field bytes
                                + "0000000000000000" // accepted bytes
                                + "0000000000000005" // work
                                + "0000000000000000" // log
                                + "0000000000000006" // thread
                                + "0000000000000004" // entries
                                + "ffffffff" // version: the starting spec's
                                + "00000007" // epoch
                                + "00"); // no parse nanoseconds
    }

    @Test
    void refusesAnUnknownStageOrABadFieldCount() throws IOException {
        byte[] bytes = write(CostSample.output(0, 1, 2, 3));
        bytes[0] = 9;
        assertThatThrownBy(() -> read(bytes)).hasMessageContaining("unknown stage 9");
        // a field count past the largest layout's is a corrupt sample
        byte[] decode = write(CostSample.decode(0, 1, 1, new int[589], 10, 1, 0, 2));
        java.nio.ByteBuffer.wrap(decode).putInt(1 + 4 + 4 + 8 + 8, 1 << 20);
        assertThatThrownBy(() -> read(decode)).hasMessageContaining("bad field count 1048576");
        assertThat(read(write(CostSample.decode(0, 1, 1, new int[589], 10, 1, 0, 2))).fieldBytes())
                .hasSize(589); // PreSto's RM3 layout: 1 + 504 + 42 + 42 fields
    }
}
