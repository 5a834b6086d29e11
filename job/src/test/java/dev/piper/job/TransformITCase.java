package dev.piper.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.core.block.AssembledBlock;
import dev.piper.core.serve.Transform;
import dev.piper.core.serve.VocabularySnapshot;
import dev.piper.job.EmbeddedRunner.StateBackend;
import dev.piper.pipeline.generate.CriteoGenerator;
import dev.piper.pipeline.ops.DecodeOptions;
import dev.piper.pipeline.spec.PipelineSpec;
import dev.piper.pipeline.spec.Presets;
import dev.piper.pipeline.spec.SpecCompiler;
import dev.piper.pipeline.spec.SpecParser;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The serving transform ({@link Transform}) of a batch output's vocabularies turns the same input,
 * in requests of 512 records, into the rows {@code preprocess} wrote at parallelism 2, byte for
 * byte: DLRM's Criteo pipeline, RAP's (float32 columns, onehot, bucketize, sigrid_hash) and the
 * click events' (string ids, a nested field, a list column, event times); the lines it rejected are
 * dead letters of the transform too. Under first-appearance vocabularies an index never changes
 * once given, so the vocabulary at the output's end is every row's.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TransformITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = TestClusters.twoByTwo();

    @TempDir Path tmp;

    private static String preset(String name) {
        return new String(Presets.named(name).text(), StandardCharsets.UTF_8);
    }

    @Test
    void criteoLinesTransformToTheRowsPreprocessWrote() throws Exception {
        Path input = tmp.resolve("criteo.tsv");
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(input))) {
            new CriteoGenerator(20261128, 0.01, 0.01).write(out, 20_000);
        }
        assertTransformGivesTheOutput(input, preset("dlrm-criteo"), "dlrm-criteo");
        try (var rap = TransformITCase.class.getResourceAsStream("/specs/rap-criteo.json")) {
            assertTransformGivesTheOutput(
                    input, new String(rap.readAllBytes(), StandardCharsets.UTF_8), "rap-criteo");
        }
    }

    @Test
    void clickEventsTransformToTheRowsListsAndTimesPreprocessWrote() throws Exception {
        Path input = ClickEventFiles.json(tmp.resolve("clicks.jsonl"), 17, 8_000);
        Path out = assertTransformGivesTheOutput(input, ClickEventFiles.preset(), "clicks-json");
        assertThat(Files.size(out.resolve("event_times.bin"))).isEqualTo(8_000L * 8);
    }

    private Path assertTransformGivesTheOutput(Path input, String specText, String what)
            throws Exception {
        Path out = tmp.resolve("out-" + what);
        Configuration conf = new Configuration();
        conf.set(PiperOptions.SPEC, specText);
        Preprocess.prepareOutput(out, false);
        Preprocess.Summary summary =
                Preprocess.run(input, out, 2, StateBackend.hashmap, conf, TestClusters.QUIET);
        PipelineSpec spec = SpecParser.parse(specText.getBytes(StandardCharsets.UTF_8), what);
        DecodeOptions options = SpecCompiler.decodeOptions(spec, 1024);
        Transform transform =
                new Transform(options, VocabularySnapshot.read(out, options.program()));

        List<byte[]> records = new ArrayList<>(); // the file's lines, as bytes (some not UTF-8)
        byte[] all = Files.readAllBytes(input);
        for (int at = 0; at < all.length; ) {
            int end = at;
            while (end < all.length && all[end] != '\n') {
                end++;
            }
            records.add(Arrays.copyOfRange(all, at, end));
            at = end + 1;
        }
        ByteArrayOutputStream rows = new ByteArrayOutputStream();
        ByteArrayOutputStream times = new ByteArrayOutputStream();
        int lists = spec.layout().listColumns().size();
        List<ByteArrayOutputStream> lengths = new ArrayList<>();
        List<ByteArrayOutputStream> values = new ArrayList<>();
        for (int l = 0; l < lists; l++) {
            lengths.add(new ByteArrayOutputStream());
            values.add(new ByteArrayOutputStream());
        }
        long dead = 0;
        long unknown = 0;
        for (int from = 0; from < records.size(); from += 512) {
            Transform.Result result =
                    transform.apply(records.subList(from, Math.min(from + 512, records.size())));
            AssembledBlock b = result.block();
            rows.write(b.rowBytes(), 0, b.rows() * options.program().rowBytes());
            dead += b.deadLetters().length;
            unknown += Arrays.stream(result.unknown()).sum();
            if (b.eventTimes() != null) {
                times.writeBytes(littleEndianLongs(b.eventTimes()));
            }
            for (int l = 0; l < lists; l++) {
                int[] offsets = b.listOffsets()[l];
                int[] n = new int[b.rows()];
                for (int r = 0; r < b.rows(); r++) {
                    n[r] = offsets[r + 1] - offsets[r];
                }
                lengths.get(l).writeBytes(littleEndianInts(n, n.length));
                values.get(l).writeBytes(littleEndianInts(b.listIndices()[l], offsets[b.rows()]));
            }
        }
        assertThat(unknown).as("%s: keys the output's vocabularies lack", what).isZero();
        assertThat(dead).as("%s dead letters", what).isEqualTo(summary.deadLetters());
        assertThat(rows.size()).as(what).isPositive();
        assertThat(Arrays.equals(rows.toByteArray(), Files.readAllBytes(out.resolve("rows.bin"))))
                .as("%s: rows.bin", what)
                .isTrue();
        if (times.size() > 0) {
            assertThat(times.toByteArray())
                    .as("%s: event times", what)
                    .isEqualTo(Files.readAllBytes(out.resolve("event_times.bin")));
        }
        for (int l = 0; l < lists; l++) {
            String name =
                    spec.layout()
                            .fieldName(
                                    spec.layout().labelDenseWidth()
                                            + spec.layout().listColumns().get(l));
            assertThat(lengths.get(l).toByteArray())
                    .as("%s: lists/%s.lengths", what, name)
                    .isEqualTo(Files.readAllBytes(out.resolve("lists/" + name + ".lengths")));
            assertThat(values.get(l).toByteArray())
                    .as("%s: lists/%s.values", what, name)
                    .isEqualTo(Files.readAllBytes(out.resolve("lists/" + name + ".values")));
        }
        return out;
    }

    private static byte[] littleEndianInts(int[] a, int n) {
        ByteBuffer b = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            b.putInt(a[i]);
        }
        return b.array();
    }

    private static byte[] littleEndianLongs(long[] a) {
        ByteBuffer b = ByteBuffer.allocate(8 * a.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : a) {
            b.putLong(v);
        }
        return b.array();
    }
}
