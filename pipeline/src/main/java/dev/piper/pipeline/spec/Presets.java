package dev.piper.pipeline.spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The pipeline specs that ship with piper: DLRM's Criteo preprocessing (the default) and PreSto's
 * RM1..RM5 feature mixes (ISCA 2024, Table I: dense, sparse and generated feature counts, average
 * list length, bucket count), as JSON resources under {@code /specs}. {@code preprocess --preset}
 * runs one, {@code generate --preset} writes lines of its layout.
 */
public final class Presets {

    /**
     * One preset.
     *
     * @param name its name on the command line
     * @param resource the spec's resource path
     * @param summary one line for {@code --help} and listings
     * @param meanListLength the mean number of ids in a list column's field of generated data (0
     *     without lists)
     */
    public record Preset(String name, String resource, String summary, int meanListLength) {

        /** The spec's JSON text. */
        public byte[] text() {
            try (InputStream in = Presets.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("preset " + name + ": no resource " + resource);
                }
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** The parsed spec. */
        public PipelineSpec spec() {
            try {
                return SpecParser.parse(text(), resource);
            } catch (SpecException e) {
                throw new IllegalStateException("preset " + name + " is not a valid spec", e);
            }
        }
    }

    /** Every preset, the default first. */
    public static final List<Preset> ALL =
            List.of(
                    new Preset(
                            "dlrm-criteo",
                            SpecParser.BUILTIN_RESOURCE,
                            "Meta's DLRM Criteo preprocessing: 13 dense, 26 sparse (the default)",
                            0),
                    new Preset(
                            "dlrm-criteo-json",
                            "/specs/dlrm-criteo-json.json",
                            "DLRM's Criteo preprocessing of JSON events (label, I1..I13, C1..C26"
                                    + " as named fields, ids as hex text): what convert"
                                    + " --output-format json and generate --output X.jsonl write",
                            0),
                    new Preset(
                            "dlrm-criteo-avro",
                            "/specs/dlrm-criteo-avro.json",
                            "DLRM's Criteo preprocessing of Avro records (the same fields): what"
                                    + " convert --output-format avro writes",
                            0),
                    new Preset(
                            "dlrm-criteo-csv",
                            "/specs/dlrm-criteo-csv.json",
                            "DLRM's Criteo preprocessing of CSV with a header (the same fields):"
                                    + " what convert --output-format csv writes",
                            0),
                    new Preset(
                            "clicks-json",
                            "/specs/clicks-json.json",
                            "E-commerce click events as JSON (generate --events json): string ids"
                                    + " (user, item, category, country, device; recent items a"
                                    + " list) hashed, price, position, age; label clicked",
                            0),
                    new Preset(
                            "clicks-csv",
                            "/specs/clicks-csv.json",
                            "The click events as CSV with a header (generate --events csv)",
                            0),
                    new Preset(
                            "clicks-avro",
                            "/specs/clicks-avro.json",
                            "The click events as Avro (generate --events avro; the schema inline"
                                    + " for Kafka records)",
                            0),
                    new Preset(
                            "rm1",
                            "/specs/presto-rm1.json",
                            "PreSto RM1: 13 dense (log), 26 sparse (sigrid_hash), 13 generated"
                                    + " (bucketize, 1,024 borders)",
                            0),
                    new Preset(
                            "rm2",
                            "/specs/presto-rm2.json",
                            "PreSto RM2: 504 dense, 42 sparse lists (20 ids on average), 21"
                                    + " generated (1,024 borders)",
                            20),
                    new Preset(
                            "rm3",
                            "/specs/presto-rm3.json",
                            "PreSto RM3: 504 dense, 42 sparse lists, 42 generated (1,024 borders)",
                            20),
                    new Preset(
                            "rm4",
                            "/specs/presto-rm4.json",
                            "PreSto RM4: 504 dense, 42 sparse lists, 42 generated (2,048 borders)",
                            20),
                    new Preset(
                            "rm5",
                            "/specs/presto-rm5.json",
                            "PreSto RM5: 504 dense, 42 sparse lists, 42 generated (4,096 borders)",
                            20));

    private Presets() {}

    /**
     * The preset of {@code name} (case does not matter: {@code RM3} is {@code rm3}).
     *
     * @throws IllegalArgumentException naming the known presets
     */
    public static Preset named(String name) {
        String key = name.toLowerCase(Locale.ROOT);
        return ALL.stream()
                .filter(p -> p.name().equals(key))
                .findFirst()
                .orElseThrow(
                        () ->
                                new IllegalArgumentException(
                                        "unknown preset \""
                                                + name
                                                + "\" (known: "
                                                + ALL.stream()
                                                        .map(Preset::name)
                                                        .collect(Collectors.joining(", "))
                                                + ")"));
    }
}
