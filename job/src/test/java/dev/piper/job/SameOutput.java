package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.piper.output.OutputLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The check that a stream's consumed output is a batch run's, byte for byte, and that its {@code
 * metadata.json} agrees.
 */
public final class SameOutput {

    private SameOutput() {}

    /**
     * {@code rows.bin}, every {@code vocab/C*.tsv}, every list file ({@code lists/Cj.lengths},
     * {@code lists/Cj.values}) and Hotline's files ({@code hotline/}) of {@code batch} are in
     * {@code consumed}, byte for byte ({@code what} names the run in failures). Dead letters differ
     * by design: a stream's say where in Kafka the line was, a batch run's where in the file.
     */
    public static void assertRowsAndVocabulariesEqual(Path consumed, Path batch, String what)
            throws IOException {
        List<String> files = new ArrayList<>(List.of(OutputLayout.ROWS));
        for (String dir :
                List.of(OutputLayout.VOCAB_DIR, OutputLayout.LISTS_DIR, OutputLayout.HOTLINE_DIR)) {
            if (Files.isDirectory(batch.resolve(dir))) {
                try (Stream<Path> listed = Files.list(batch.resolve(dir))) {
                    listed.map(f -> dir + "/" + f.getFileName()).sorted().forEach(files::add);
                }
            }
        }
        assertThat(files).as("%s: files to compare", what).contains(OutputLayout.vocabFile(0));
        for (String file : files) {
            assertThat(consumed.resolve(file)).as("%s %s", what, file).exists();
            assertThat(Files.mismatch(consumed.resolve(file), batch.resolve(file)))
                    .as("%s %s", what, file)
                    .isEqualTo(-1);
        }
        assertMetadataAgrees(consumed, batch, what);
    }

    /**
     * The consumed {@code metadata.json} has every key of the batch run's but {@code hotline} (the
     * split's settings are not in the records) and, without the dead-letter topic, {@code
     * dead_letters_by_reason}; and every key both have holds the same value.
     */
    public static void assertMetadataAgrees(Path consumed, Path batch, String what)
            throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode stream = json.readTree(consumed.resolve(OutputLayout.METADATA).toFile());
        JsonNode files = json.readTree(batch.resolve(OutputLayout.METADATA).toFile());
        Set<String> expected = new TreeSet<>();
        files.fieldNames().forEachRemaining(expected::add);
        expected.removeAll(List.of("hotline", "dead_letters_by_reason"));
        Set<String> keys = new TreeSet<>();
        stream.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).as("%s metadata.json keys", what).containsAll(expected);
        for (String key : keys) {
            if (files.has(key)) {
                assertThat(stream.get(key))
                        .as("%s metadata.json %s", what, key)
                        .isEqualTo(files.get(key));
            }
        }
    }

    /** The SHA-256 of every file below {@code dir}, by its path relative to {@code dir}. */
    public static Map<String, String> sha256OfEveryFile(Path dir) throws Exception {
        Map<String, String> sums = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                sums.put(
                        dir.relativize(f).toString(),
                        HexFormat.of().formatHex(sha.digest(Files.readAllBytes(f))));
            }
        }
        return sums;
    }
}
