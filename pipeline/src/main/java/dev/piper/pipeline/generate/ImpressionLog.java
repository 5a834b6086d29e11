package dev.piper.pipeline.generate;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * Seeded logs of impressions and their clicks, as a serving system and a click tracker write them
 * ({@code piper generate --events json --actions}): each {@link ClickEvents} event is an impression
 * (its fields, a {@code request_id}, no {@code clicked}); a clicked one's click ({@code
 * request_id}, {@code ts}, {@code click_id}) comes after a delay drawn from an exponential
 * distribution (Chapelle, KDD 2014). Both logs are in order of arrival: each record arrives up to
 * half the out-of-orderness bound after its time, and a share of them far later (late: more than
 * the bound behind); a share of clicks is sent twice (duplicates) and a share of clicks belongs to
 * no impression (orphans). The labels are the hidden model's ({@link ClickEvents#bayesAuc}).
 */
public final class ImpressionLog {

    /**
     * What the logs hold besides the events.
     *
     * @param meanDelayMs the clicks' mean delay after their impression
     * @param outOfOrdernessMs the bound records stay within (half of it used), unless late
     * @param lateRate the share of records arriving more than the bound behind
     * @param duplicateRate the share of clicks sent twice
     * @param orphanRate per impression, the chance of a click for a request never logged
     */
    public record Rates(
            double meanDelayMs,
            long outOfOrdernessMs,
            double lateRate,
            double duplicateRate,
            double orphanRate) {

        public Rates {
            if (!(meanDelayMs > 0)) {
                throw new IllegalArgumentException("a mean click delay above 0 ms: " + meanDelayMs);
            }
            if (outOfOrdernessMs < 0) {
                throw new IllegalArgumentException(
                        "an out-of-orderness of at least 0 ms: " + outOfOrdernessMs);
            }
            for (double r : new double[] {lateRate, duplicateRate, orphanRate}) {
                if (!(r >= 0 && r <= 1)) {
                    throw new IllegalArgumentException("a rate between 0 and 1, not " + r);
                }
            }
        }
    }

    /** What was written. */
    public record Counts(
            long impressions,
            long clicked,
            long clicks,
            long late,
            long duplicates,
            long orphans) {}

    private record Pending(long arrival, long seq, String line) {}

    private static final Comparator<Pending> BY_ARRIVAL =
            Comparator.comparingLong(Pending::arrival).thenComparingLong(Pending::seq);

    private final ClickEvents events;
    private final Rates rates;
    private final SplittableRandom rnd;
    private final PriorityQueue<Pending> impressions = new PriorityQueue<>(BY_ARRIVAL);
    private final PriorityQueue<Pending> clicks = new PriorityQueue<>(BY_ARRIVAL);
    private long seq;
    private long late;
    private long duplicates;
    private long orphans;
    private long clicked;
    private long clickRecords;

    /**
     * @param events the events (their seed also seeds the delays and the rates' draws)
     * @param seed the seed of the delays, arrivals, duplicates and orphans
     */
    public ImpressionLog(ClickEvents events, long seed, Rates rates) {
        this.events = events;
        this.rates = rates;
        this.rnd = new SplittableRandom(seed ^ 0x696d7072657373L);
    }

    /**
     * Writes {@code n} impressions to {@code impressionsOut} and their clicks to {@code clicksOut},
     * one JSON object a line, each log in order of arrival; {@code progress} gets the impressions
     * written so far now and then.
     */
    public Counts write(
            long n, OutputStream impressionsOut, OutputStream clicksOut, LongConsumer progress)
            throws IOException {
        for (long i = 0; i < n; i++) {
            ClickEvents.Event e = events.next();
            String id = "q" + i;
            impressions.add(new Pending(arrival(e.ts()), seq++, ClickEvents.json(e, id)));
            if (e.clicked()) {
                clicked++;
                long delay = Math.round(-Math.log(1 - rnd.nextDouble()) * rates.meanDelayMs());
                click(id, e.ts() + delay, "c" + i);
            }
            if (rnd.nextDouble() < rates.orphanRate()) {
                orphans++;
                click("x" + i, e.ts(), "o" + i);
            }
            // every later record arrives at or after this time: what arrived before can go
            drain(impressions, e.ts(), impressionsOut);
            drain(clicks, e.ts(), clicksOut);
            if ((i + 1) % 100_000 == 0) {
                progress.accept(i + 1);
            }
        }
        drain(impressions, Long.MAX_VALUE, impressionsOut);
        drain(clicks, Long.MAX_VALUE, clicksOut);
        return new Counts(n, clicked, clickRecords, late, duplicates, orphans);
    }

    private void click(String requestId, long t, String clickId) {
        String line =
                "{\"request_id\": \"%s\", \"ts\": %d, \"click_id\": \"%s\"}"
                        .formatted(requestId, t, clickId);
        clicks.add(new Pending(arrival(t), seq++, line));
        clickRecords++;
        if (rnd.nextDouble() < rates.duplicateRate()) {
            duplicates++;
            clickRecords++;
            clicks.add(new Pending(arrival(t), seq++, line));
        }
    }

    /** When a record of time {@code t} arrives: within half the bound, or late. */
    private long arrival(long t) {
        long bound = rates.outOfOrdernessMs();
        if (rnd.nextDouble() < rates.lateRate()) {
            late++;
            return t + 2 * bound + 1 + rnd.nextLong(bound + 1);
        }
        return t + (bound < 2 ? 0 : rnd.nextLong(bound / 2));
    }

    /**
     * The spec that reads these logs: clicks-json's columns over the impressions, the label the
     * join's {@code labels.click}, the clicks a stream of {@code window} (a span, {@code "1m"})
     * read from topic {@code clicks} by {@code stream}, records out of order by {@code
     * outOfOrdernessMs}.
     */
    public static String spec(long outOfOrdernessMs, String window) {
        return spec(outOfOrdernessMs, window, 1);
    }

    /**
     * {@link #spec(long, String)} with the negative rows kept at {@code negativeSampleRate}: below
     * 1, each row's weight ({@code labels.weight}) is column I4, for the trainer's {@code
     * --weight-column I4}.
     */
    public static String spec(long outOfOrdernessMs, String window, double negativeSampleRate) {
        boolean sampled = negativeSampleRate < 1;
        return """
                {"name": "impressions", "version": 1,
                 "description": "Impressions (piper generate --events json --actions) joined with their clicks: clicks-json's columns, the label 1 when a click came within the window%s",
                 "input": {"format": "json", "key": "request_id", "timestamp": "ts",
                           "dense": %d, "sparse": 6, "list_columns": ["C6"],
                           "fields": {"label": "labels.click", "I1": "price_cents", "I2": "position",
                                      "I3": "user.age",%s "C1": "user.id", "C2": "item_id",
                                      "C3": "category", "C4": "user.country", "C5": "device",
                                      "C6": "recent_items"}},
                 "columns": {"label": ["decode", "fill_missing"],
                             "I1..I3": ["decode", "fill_missing", "neg2zero", "log"],%s
                             "C1..C5": ["decode", "fill_missing", "hash64", "vocab"],
                             "C6": ["decode", "fill_missing", "hash64", "vocab"]},
                 "labels": {"max_out_of_orderness": "%dms",%s
                            "streams": {"click": {"key": "request_id", "timestamp": "ts",
                                                  "id": "click_id", "window": "%s",
                                                  "topic": "clicks"}}}}
                """
                .formatted(
                        sampled
                                ? "; negatives kept at "
                                        + negativeSampleRate
                                        + ", each row's weight in I4 (train with --weight-column"
                                        + " I4)"
                                : "",
                        sampled ? 4 : 3,
                        sampled ? " \"I4\": \"labels.weight\"," : "",
                        sampled ? "\n             \"I4\": [\"decode\", \"fill_missing\"]," : "",
                        outOfOrdernessMs,
                        sampled ? " \"negative_sample_rate\": " + negativeSampleRate + "," : "",
                        window);
    }

    private static void drain(PriorityQueue<Pending> q, long upTo, OutputStream out)
            throws IOException {
        while (!q.isEmpty() && q.peek().arrival() <= upTo) {
            out.write(q.poll().line().getBytes(StandardCharsets.UTF_8));
            out.write('\n');
        }
    }
}
