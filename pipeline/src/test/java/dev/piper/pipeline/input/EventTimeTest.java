package dev.piper.pipeline.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.piper.pipeline.input.EventTime.Unit;
import org.junit.jupiter.api.Test;

class EventTimeTest {

    private static final EventTime MS = new EventTime("ts", Unit.MILLIS);
    private static final EventTime S = new EventTime("ts", Unit.SECONDS);
    private static final EventTime US = new EventTime("ts", Unit.MICROS);

    @Test
    void integersCountTheirUnit() {
        assertThat(MS.millis(1_764_230_400_123L)).isEqualTo(1_764_230_400_123L);
        assertThat(S.millis(1_764_230_400L)).isEqualTo(1_764_230_400_000L);
        assertThat(US.millis(1_764_230_400_123_999L)).isEqualTo(1_764_230_400_123L);
        assertThat(US.millis(-1L)).isEqualTo(-1L); // cut to the millisecond below
        assertThat(MS.millis(0L)).isZero();
    }

    @Test
    void numbersWithAFractionRoundToTheMillisecond() {
        assertThat(S.millis(1_764_230_400.1236)).isEqualTo(1_764_230_400_124L);
        assertThat(MS.millis(12.5)).isEqualTo(13L);
        assertThat(MS.millis(Double.NaN)).isEqualTo(EventTime.INVALID);
        assertThat(S.millis(Double.POSITIVE_INFINITY)).isEqualTo(EventTime.INVALID);
    }

    @Test
    void textIsDigitsOrIsoWithAnOffset() {
        assertThat(S.millis("1764230400")).isEqualTo(1_764_230_400_000L);
        assertThat(MS.millis("-5")).isEqualTo(-5L);
        assertThat(MS.millis("2026-11-27T08:00:00.123Z")).isEqualTo(1_795_766_400_123L);
        assertThat(S.millis("2026-11-27T09:00:00.123+01:00")).isEqualTo(1_795_766_400_123L);
        assertThat(MS.millis("2026-11-27T08:00:00")).isEqualTo(EventTime.INVALID); // no offset
        assertThat(MS.millis("")).isEqualTo(EventTime.INVALID);
        assertThat(MS.millis("-")).isEqualTo(EventTime.INVALID);
        assertThat(MS.millis("12a")).isEqualTo(EventTime.INVALID);
        assertThat(MS.millis("yesterday")).isEqualTo(EventTime.INVALID);
    }

    @Test
    void timesOutsideYearsOneTo9999AreRefused() {
        assertThat(MS.millis(EventTime.MAX_MILLIS)).isEqualTo(EventTime.MAX_MILLIS);
        assertThat(MS.millis(EventTime.MAX_MILLIS + 1)).isEqualTo(EventTime.INVALID);
        assertThat(MS.millis(EventTime.MIN_MILLIS - 1)).isEqualTo(EventTime.INVALID);
        assertThat(S.millis(Long.MAX_VALUE)).isEqualTo(EventTime.INVALID);
        assertThat(S.millis(Long.MIN_VALUE)).isEqualTo(EventTime.INVALID);
        assertThat(S.millis("99999999999999999999")).isEqualTo(EventTime.INVALID);
        assertThat(MS.millis("+10000-01-01T00:00:00Z")).isEqualTo(EventTime.INVALID);
    }

    @Test
    void aRefusalSaysWhy() {
        assertThat(MS.whyNot("yesterday"))
                .isEqualTo(
                        "\"yesterday\" is neither a count of ms nor ISO-8601 time with an offset"
                                + " (2026-11-27T08:00:00Z)");
        assertThat(S.whyNot("99999999999999999999"))
                .isEqualTo("\"99999999999999999999\" is out of range as s since 1970");
        assertThat(MS.whyNot("+10000-01-01T00:00:00Z"))
                .isEqualTo("\"+10000-01-01T00:00:00Z\" is out of range (years 1 to 9999)");
        assertThat(MS.whyNot("")).isEqualTo("is empty");
    }

    @Test
    void unitsAreNamedAsInSpecs() {
        assertThat(Unit.of("us")).isEqualTo(Unit.MICROS);
        assertThat(Unit.of("minutes")).isNull();
        assertThat(Unit.names()).isEqualTo("s, ms, us");
    }
}
