package dev.piper.pipeline.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.piper.pipeline.input.EventTime;
import dev.piper.pipeline.join.ActionSource;
import dev.piper.pipeline.join.ActionStream;
import dev.piper.pipeline.join.EmitPolicy;
import dev.piper.pipeline.join.LabelSpec;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LabelsSectionTest {

    /** Impressions of JSON events, labelled by a click stream: {@code %s} is the labels section. */
    private static final String SPEC =
            """
            {"name": "imp", "version": 1,
             "input": {"format": "json", "dense": 2, "sparse": 1, "key": "request_id",
                       "timestamp": "ts",
                       "fields": {"label": "labels.click", "I1": "price", "I2": "labels.weight",
                                  "C1": "user.id"}},
             "columns": {"label": ["decode", "fill_missing"],
                         "I1..I2": ["decode", "fill_missing"],
                         "C1": ["decode", "fill_missing", "hash64", "vocab"]}%s}
            """;

    /** {@link #SPEC} with {@code labels} as its labels section. */
    private static String labelled(String labels) {
        return SPEC.formatted(", \"labels\": " + labels);
    }

    private static final String CLICKS =
            """
            {"streams": {"click": {"key": "rid", "timestamp": "ts", "window": "15m",
                                   "id": "click_id", "topic": "clicks"}}}
            """;

    private static PipelineSpec parse(String text) throws SpecException {
        return SpecParser.parse(text.getBytes(StandardCharsets.UTF_8), "labels.json");
    }

    private static void refused(String text, String... problems) {
        assertThatThrownBy(() -> parse(text))
                .isInstanceOfSatisfying(
                        SpecException.class,
                        e -> {
                            for (String p : problems) {
                                assertThat(e.problems()).anySatisfy(q -> assertThat(q).contains(p));
                            }
                        });
    }

    @Test
    void aClickStreamTakesItsDefaults() throws Exception {
        LabelSpec labels = parse(labelled(CLICKS)).labels();
        assertThat(labels.key()).isEqualTo("request_id");
        assertThat(labels.join().streams())
                .containsExactly(new ActionStream("click", 900_000, EmitPolicy.WAIT));
        assertThat(labels.join().maxOutOfOrdernessMs()).isEqualTo(10_000);
        assertThat(labels.join().retentionMs()).isEqualTo(900_000); // the longest window
        assertThat(labels.join().negativeSampleRate()).isEqualTo(1.0);
        assertThat(labels.sources())
                .containsExactly(
                        new ActionSource(
                                "json",
                                "rid",
                                new EventTime("ts", EventTime.Unit.MILLIS),
                                "click_id",
                                null,
                                "clicks"));
    }

    @Test
    void twoStreamsKeepTheirOrderAndSettings() throws Exception {
        LabelSpec labels =
                parse(
                                labelled(
                                        """
                                {"max_out_of_orderness": "0s", "retention": "1d",
                                 "negative_sample_rate": 0.25,
                                 "streams": {
                                   "click": {"key": "rid", "timestamp": "ts", "window": "15m",
                                             "policy": "negative-first"},
                                   "conversion": {"key": "order.rid", "timestamp": "at",
                                                  "timestamp_unit": "s", "value": "amount",
                                                  "window": "7d"}}}
                                """))
                        .labels();
        assertThat(labels.streamNames()).containsExactly("click", "conversion");
        assertThat(labels.join().streams().get(0).policy()).isEqualTo(EmitPolicy.NEGATIVE_FIRST);
        assertThat(labels.join().streams().get(1).windowMs()).isEqualTo(7 * 86_400_000L);
        assertThat(labels.join().maxOutOfOrdernessMs()).isZero();
        assertThat(labels.join().retentionMs()).isEqualTo(86_400_000L);
        assertThat(labels.join().negativeSampleRate()).isEqualTo(0.25);
        assertThat(labels.sources().get(1).time().unit()).isEqualTo(EventTime.Unit.SECONDS);
        assertThat(labels.sources().get(1).value()).isEqualTo("amount");
        assertThat(labels.stream("conversion")).isEqualTo(1);
        assertThat(labels.stream("view")).isEqualTo(-1);
    }

    @Test
    void aSpecWithoutLabelsHasNone() throws Exception {
        String plain =
                SPEC.formatted("")
                        .replace("\"key\": \"request_id\",", "")
                        .replace("labels.click", "clicked")
                        .replace("labels.weight", "n");
        assertThat(parse(plain).labels()).isNull();
    }

    @Test
    void everyProblemNamesItsField() {
        refused(
                labelled(
                        """
                        {"negative_sample_rate": 0.3, "retention": 1000, "extra": 1,
                         "streams": {"Click": {}, "conversion": {"key": "rid", "timestamp": "ts",
                                     "window": "soon", "policy": "eventually", "format": "csv"}}}
                        """),
                "labels.negative_sample_rate: 0.3 is not 1/n",
                "labels.retention: 1000 counts rows",
                "labels.extra: unknown field",
                "labels.streams.Click: is not a stream name",
                "labels.streams.conversion.window: must be",
                "labels.streams.conversion.policy: unknown policy \"eventually\"",
                "labels.streams.conversion.format: \"csv\"");
        refused(
                labelled("{\"streams\": {\"click\": {\"window\": \"1h\"}}}"),
                "labels.streams.click.key: missing",
                "labels.streams.click.timestamp: missing");
        refused(labelled("{}"), "labels.streams: missing");
    }

    @Test
    void theImpressionsNeedAKeyATimeAndJson() {
        refused(labelled(CLICKS).replace("\"key\": \"request_id\",", ""), "input.key: missing");
        refused(
                labelled(CLICKS).replace("\"timestamp\": \"ts\",", ""),
                "input.timestamp: missing: a label join places impressions in event time");
        refused(
                SPEC.formatted(""),
                "input.key: is the join key of a labels section, which is missing");
    }

    @Test
    void aSpecWithoutAnInputReportsThatAlone() {
        String text = labelled(CLICKS);
        refused(
                text.substring(0, text.indexOf("\"input\""))
                        + text.substring(text.indexOf("\"columns\"")),
                "input: missing");
    }

    @Test
    void labelPathsMustBeFieldsTheJoinWrites() {
        refused(
                labelled(CLICKS).replace("labels.weight", "labels.view"),
                "input.fields.I2: \"labels.view\" is not a field the label join writes (known:"
                        + " labels.click, labels.click_delay_ms, labels.click_count,"
                        + " labels.click_value, labels.weight, labels.copy)");
        refused(
                labelled(CLICKS).replace("labels.click", "clicked").replace("labels.weight", "n"),
                "input.fields: no column reads a label of the join");
    }

    @Test
    void streamNamesMayNotShareALabelField() {
        refused(
                labelled(
                        """
                        {"streams": {
                          "click": {"key": "rid", "timestamp": "ts", "window": "1m"},
                          "click_count": {"key": "rid", "timestamp": "ts", "window": "1m"}}}
                        """),
                "labels.streams.click_count: its label field labels.click_count is another"
                        + " stream's");
        refused(
                labelled(
                        "{\"streams\": {\"weight\": {\"key\": \"k\", \"timestamp\": \"t\","
                                + " \"window\": \"1m\"}}}"),
                "labels.streams.weight: its label field labels.weight");
    }
}
