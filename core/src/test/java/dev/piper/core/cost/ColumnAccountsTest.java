package dev.piper.core.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.hwmodel.SmartSsdModel;
import dev.piper.pipeline.layout.CriteoLayout;
import dev.piper.pipeline.ops.ColumnProgram;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ColumnAccountsTest {

    /** DLRM's chain with log on I2 and I3. */
    private static ColumnProgram program() {
        boolean[] neg2zero = new boolean[CriteoLayout.LABEL_DENSE_WIDTH];
        Arrays.fill(neg2zero, 1, neg2zero.length, true);
        boolean[] log = new boolean[CriteoLayout.LABEL_DENSE_WIDTH];
        log[2] = true;
        log[3] = true;
        long[] modulus = new long[CriteoLayout.SPARSE];
        Arrays.fill(modulus, -1);
        modulus[0] = 1000;
        return new ColumnProgram("p", 1, modulus, neg2zero, log);
    }

    @Test
    void attributesDecodeByBytesLogToItsColumnsVocabularyToItsColumnAndOutputEvenly() {
        ColumnAccounts a = new ColumnAccounts(program());
        int[] bytes = new int[CriteoLayout.FIELDS];
        bytes[0] = 100; // label
        bytes[1] = 300; // I1
        bytes[14] = 600; // C1
        // thread 1,400 ns: decoding 900 and log 400, reading the block 100; over 1,000 bytes
        a.add(CostSample.decode(0, 12, 10, bytes, 1000, 900, 400, 1_400), null);
        a.add(CostSample.vocabulary(0, 0, 10, 7, 250, 300), null);
        a.add(CostSample.output(0, 10, 300, 400), null);
        assertThat(a.decodeNanos[0]).isCloseTo(90, within(1e-9));
        assertThat(a.decodeNanos[1]).isCloseTo(270, within(1e-9));
        assertThat(a.decodeNanos[14]).isCloseTo(540, within(1e-9));
        assertThat(a.passNanos[2]).isCloseTo(200, within(1e-9));
        assertThat(a.passNanos[3]).isCloseTo(200, within(1e-9));
        assertThat(a.vocabularyNanos[14]).isEqualTo(250);
        assertThat(a.outputNanos[39]).isCloseTo(7.5, within(1e-9));
        // the overhead around each element's work goes where its work went
        assertThat(a.overheadNanos[1]).isCloseTo(30 + 2.5, within(1e-9));
        assertThat(a.overheadNanos[14]).isCloseTo(60 + 50 + 2.5, within(1e-9));
        assertThat(a.nanos(14)).isCloseTo(540 + 250 + 7.5 + 112.5, within(1e-9));
        // everything the threads spent is attributed: to the label or a column
        assertThat(a.columnNanos() + a.nanos(0)).isCloseTo(a.threadNanos(), within(1e-6));
        assertThat(a.threadNanos()).isEqualTo(2_100);
        assertThat(a.workNanos()).isEqualTo(1_850);
        assertThat(a.lines).isEqualTo(12);
        assertThat(a.rows).isEqualTo(10);
        assertThat(a.values[5]).isEqualTo(10);
        assertThat(a.bytes[14]).isEqualTo(600);
    }

    @Test
    void aBlockWhoseFieldsWereNotCountedIsSplitByTheSharesCountedSoFar() {
        ColumnAccounts a = new ColumnAccounts(program());
        double[] shares = new double[CriteoLayout.FIELDS];
        shares[1] = 0.25;
        shares[20] = 0.75;
        a.add(CostSample.decode(0, 10, 10, new int[0], 2_000, 500, 0, 1_000), shares);
        assertThat(a.bytes[1]).isCloseTo(500, within(1e-9));
        assertThat(a.bytes[20]).isCloseTo(1_500, within(1e-9));
        assertThat(a.decodeNanos[20]).isCloseTo(375, within(1e-9));
        assertThat(a.overheadNanos[20]).isCloseTo(375, within(1e-9));
        // nothing counted yet: the block's time stays unattributed
        ColumnAccounts b = new ColumnAccounts(program());
        b.add(CostSample.decode(0, 10, 10, new int[0], 2_000, 500, 0, 1_000), null);
        assertThat(b.unattributedNanos).isEqualTo(1_000);
    }

    @Test
    void aBlockOfDeadLettersOnlyStaysUnattributed() {
        ColumnAccounts a = new ColumnAccounts(program());
        a.add(CostSample.decode(0, 5, 0, new int[CriteoLayout.FIELDS], 0, 700, 0, 800), null);
        assertThat(a.unattributedNanos).isEqualTo(800);
        assertThat(a.columnNanos()).isZero();
    }

    @Test
    void theReportNamesEachColumnsChainAndTheTableKindOfItsVocabulary() throws Exception {
        ColumnAccounts a = new ColumnAccounts(program());
        int[] bytes = new int[CriteoLayout.FIELDS];
        Arrays.fill(bytes, 9);
        a.add(CostSample.decode(0, 10, 10, bytes, 360, 900, 100, 1_000), null);
        long[] entries = new long[CriteoLayout.SPARSE];
        Arrays.fill(entries, -1);
        entries[1] = 42;
        PipelineCostReport r =
                CostReports.report(
                        program(),
                        a,
                        entries,
                        new ReportSettings(1000, 0, -1, 1).fpga(1),
                        SmartSsdModel.presto(),
                        new ReportSettings(1000, 0, -1, 1),
                        0,
                        true);
        List<PipelineCostReport.Column> cols = r.columns();
        assertThat(cols.get(1).ops()).containsExactly("fill_missing", "neg2zero", "log");
        assertThat(cols.get(13).ops())
                .containsExactly("fill_missing", "hex2int", "modulus", "genvocab", "applyvocab");
        assertThat(cols.get(13).vocabTable()).isEqualTo("direct-mapped");
        assertThat(cols.get(13).vocabEntries()).isZero();
        assertThat(cols.get(14).vocabTable()).isEqualTo("hashed");
        assertThat(cols.get(14).vocabEntries()).isEqualTo(42);
        assertThat(cols.get(1).vocabEntries()).as("a dense column has no vocabulary").isNull();
        assertThat(r.defaults().fpga()).contains("U55C", "200 MHz");
        assertThat(r.report().covers()).isEqualTo("run");
        assertThat(r.sizing()).as("no fleet target").isNull();
        // the JSON document: these names, a dense column's vocabulary figures null and its table
        // left out, no sizing section
        JsonNode json = new ObjectMapper().readTree(r.toJson());
        assertThat(json.get("columns").get(13).get("vocab_table").asText())
                .isEqualTo("direct-mapped");
        assertThat(json.get("columns").get(1).get("vocab_entries").isNull()).isTrue();
        assertThat(json.get("columns").get(1).has("vocab_table")).isFalse();
        assertThat(json.get("columns").get(1).has("list")).isFalse();
        assertThat(json.has("sizing")).isFalse();
        assertThat(json.get("report").get("final").asBoolean()).isTrue();
    }

    /**
     * A block's decoding is split by each field's bytes times its kind's measured cost per byte:
     * here label and dense bytes cost three times the categorical ones, so 100 label and dense
     * bytes and 300 categorical bytes take half the time each.
     */
    @Test
    void measuredKindsWeighTheByteShares() {
        ColumnAccounts a = new ColumnAccounts(program());
        int[] bytes = new int[CriteoLayout.FIELDS];
        bytes[1] = 100; // I1
        bytes[14] = 300; // C1
        CostSample s =
                CostSample.decode(0, 10, 10, bytes, 400, 1_000, 0, 1_000).withParseNanos(300, 300);
        double[] weights = new double[CriteoLayout.FIELDS];
        java.util.Arrays.fill(weights, 0, CriteoLayout.LABEL_DENSE_WIDTH, 3.0);
        java.util.Arrays.fill(weights, CriteoLayout.LABEL_DENSE_WIDTH, weights.length, 1.0);
        a.add(s, null, weights);
        assertThat(a.decodeNanos[1]).isCloseTo(500, within(1e-9));
        assertThat(a.decodeNanos[14]).isCloseTo(500, within(1e-9));
        // the model still sees the bytes themselves
        assertThat(a.bytes[1]).isEqualTo(100);
        assertThat(a.bytes[14]).isEqualTo(300);
        // the report counts the measured block and the block split by the weights
        assertThat(a.kindBlocks).isEqualTo(1);
        assertThat(a.weightedBlocks).isEqualTo(1);
        assertThat(a.lastWeights).isSameAs(weights);
        // without weights, bytes alike
        ColumnAccounts b = new ColumnAccounts(program());
        b.add(s, null, null);
        assertThat(b.decodeNanos[1]).isCloseTo(250, within(1e-9));
    }
}
