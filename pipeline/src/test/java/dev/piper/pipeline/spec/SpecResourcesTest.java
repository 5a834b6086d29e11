package dev.piper.pipeline.spec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a spec's tables and vocabularies take, and a spec the job's heap cannot hold refused. */
class SpecResourcesTest {

    @TempDir Path dir;

    private SpecResources resources(String columns) throws Exception {
        String json =
                "{\"name\": \"r\", \"version\": 1, \"input\": {\"format\": \"criteo-tsv\"},"
                        + " \"output\": {\"format\": \"dlrm-rows\"}, \"columns\": {"
                        + "\"label\": [\"decode\", \"fill_missing\"],"
                        + columns
                        + "}}";
        PipelineSpec spec = SpecParser.parse(json.getBytes(StandardCharsets.UTF_8), "r.json");
        return SpecResources.of(SpecCompiler.program(spec));
    }

    @Test
    void tablesCountPerDecoderAndBoundedVocabulariesOnce() throws Exception {
        Path table = dir.resolve("ids.tsv");
        StringBuilder t = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            t.append(i).append('\t').append(i % 7).append('\n');
        }
        Files.writeString(table, t.toString().stripTrailing()); // the last line unterminated
        SpecResources r =
                resources(
                        "\"I1\": [\"decode\", \"fill_missing\", {\"op\": \"bucketize\","
                                + " \"borders\": [1, 2, 3, 4]}],"
                                + "\"I2..I13\": [\"decode\", \"fill_missing\"],"
                                + "\"C1\": [\"decode\", \"fill_missing\", \"hex2int\","
                                + " {\"op\": \"mapid\", \"file\": \""
                                + table
                                + "\"}, \"vocab\"],"
                                + "\"C2\": [\"decode\", \"fill_missing\", \"hex2int\","
                                + " {\"op\": \"mapid\", \"file\": \""
                                + table
                                + "\"}, {\"op\": \"modulus\", \"m\": 500}, \"vocab\"],"
                                + "\"C3\": [\"decode\", \"fill_missing\", \"hex2int\","
                                + " {\"op\": \"vocab\", \"max_size\": 100, \"oov_buckets\": 1}],"
                                + "\"C4..C26\": [\"decode\", \"fill_missing\", \"hex2int\","
                                + " \"vocab\"]");
        // the table once (two columns use it), the borders, two bounded vocabularies
        assertThat(r.items())
                .extracting(SpecResources.Item::what)
                .containsExactly(
                        "mapid " + table + ": 1000 ids",
                        "C2 vocabulary: at most 500 entries",
                        "C3 vocabulary: at most 100 entries",
                        "I1 bucketize: 4 borders");
        assertThat(r.unboundedVocabularies()).hasSize(24).contains("C1", "C4", "C26");
        long perDecoder = 1000 * SpecResources.MAPID_ENTRY_BYTES + 4 * 8;
        long vocabularies = 600 * SpecResources.VOCAB_ENTRY_BYTES;
        assertThat(r.fixedBytes(3)).isEqualTo(3 * perDecoder + vocabularies);
        assertThat(r.problem(2 * r.fixedBytes(3), 3)).isEmpty();
        assertThat(r.problem(2 * r.fixedBytes(3) - 2, 3))
                .hasValueSatisfying(
                        why ->
                                assertThat(why)
                                        .startsWith(
                                                "its tables and bounded vocabularies need about"
                                                        + " 0.1 MiB with 3 decoders, more than"
                                                        + " half of the ")
                                        .contains(
                                                "the largest: mapid "
                                                        + table
                                                        + ": 1000 ids (0.0 MiB per decoder)"));
    }

    @Test
    void dlrmsSpecHasNoTablesAndUnboundedVocabularies() {
        SpecResources r = SpecResources.of(SpecCompiler.program(SpecParser.builtin()));
        assertThat(r.items()).isEmpty();
        assertThat(r.unboundedVocabularies()).hasSize(26);
        assertThat(r.problem(1, 64)).isEmpty();
    }
}
