package dev.piper.core.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.core.block.AssembledBlock;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.ops.VocabularyPolicy;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The serving transform's own rules: a known key takes the snapshot's index, an unknown one its
 * column's OOV bucket, or the column's reserved index (its table size) where the column has no
 * buckets, each counted; a record the feed would reject is a dead letter; a vocabulary file that
 * cannot be read is named with its line.
 */
class TransformTest {

    @TempDir Path dir;

    private static final String SPEC =
            """
            {"name": "t", "version": 1,
             "input": {"format": "criteo-tsv", "dense": 1, "sparse": 2},
             "columns": {
               "label": ["decode", "fill_missing"],
               "I1": ["decode", "fill_missing", "neg2zero"],
               "C1": ["decode", "fill_missing", "hex2int",
                      {"op": "vocab", "min_count": 2, "oov_buckets": 10}],
               "C2": ["decode", "fill_missing", "hex2int", "vocab"]
             }}""";

    private DecodeOptions options() throws Exception {
        PipelineSpec spec = SpecParser.parse(SPEC.getBytes(StandardCharsets.UTF_8), "t");
        return SpecCompiler.decodeOptions(spec, 1024);
    }

    private void vocab(String column, String lines) throws Exception {
        Files.createDirectories(dir.resolve("vocab"));
        Files.writeString(dir.resolve("vocab").resolve(column + ".tsv"), lines);
    }

    private static byte[] line(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void knownKeysTakeTheirIndicesAndUnknownOnesTheirBucketOrTheReservedIndex() throws Exception {
        vocab("C1", "10\t171\n11\t2748\n"); // ab, abc
        vocab("C2", "0\t1\n1\t2\n");
        DecodeOptions options = options();
        VocabularySnapshot snapshot = VocabularySnapshot.read(dir, options.program());
        assertThat(snapshot.tableSize(0)).isEqualTo(12);
        assertThat(snapshot.tableSize(1)).isEqualTo(2);
        Transform transform = new Transform(options, snapshot);
        Transform.Result result =
                transform.apply(
                        List.of(
                                line("1\t5\tab\t1"),
                                line("0\t-3\tff\t7"),
                                line("1\t2\tzz\t1"), // not hex: the feed's dead letter
                                line("0\t\tabc\t")));
        AssembledBlock b = result.block();
        assertThat(b.rows()).isEqualTo(3);
        assertThat(b.deadLetters()).hasSize(1);
        assertThat(b.deadLetters()[0].reason()).isEqualTo("categorical_not_hex");
        assertThat(b.deadLetters()[0].lineInBlock()).isEqualTo(2);
        VocabularyPolicy c1 = options.program().vocabPolicy(0);
        int[] ints = new int[3 * 4];
        ByteBuffer.wrap(b.rowBytes()).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(ints);
        assertThat(ints)
                .containsExactly(
                        1,
                        5,
                        10,
                        0, // known keys
                        0,
                        0,
                        c1.bucketOf(0xff),
                        2, // neg2zero; C1's bucket, C2's reserved index
                        0,
                        0,
                        11,
                        2); // missing values take their fills; C2's, key 0, has no entry
        assertThat(result.unknown()).containsExactly(1, 2); // C2's fill id 0 is no entry either
    }

    @Test
    void aVocabularyThatCannotBeReadIsNamedWithItsLine() throws Exception {
        DecodeOptions options = options();
        vocab("C1", "10\t171\n");
        assertThatThrownBy(() -> VocabularySnapshot.read(dir, options.program()))
                .hasMessageContaining("C2.tsv: no such vocabulary file; is " + dir);
        vocab("C2", "0\t1\nx\t2\n");
        assertThatThrownBy(() -> VocabularySnapshot.read(dir, options.program()))
                .hasMessageContaining("C2.tsv, line 2: not index<TAB>key");
        vocab("C2", "0\t1\n");
        vocab("C1", "3\t171\n");
        assertThatThrownBy(() -> VocabularySnapshot.read(dir, options.program()))
                .hasMessageContaining(
                        "C1.tsv, line 1: not index<TAB>key (index 3 is below the"
                                + " column's first, 10)");
    }
}
