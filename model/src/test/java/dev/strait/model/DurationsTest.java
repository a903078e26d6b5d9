package dev.strait.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    static Stream<Arguments> valid() {
        return Stream.of(
                Arguments.of("0ms", Duration.ZERO),
                Arguments.of("0s", Duration.ZERO),
                Arguments.of("0m", Duration.ZERO),
                Arguments.of("0h", Duration.ZERO),
                Arguments.of("1ms", Duration.ofMillis(1)),
                Arguments.of("250ms", Duration.ofMillis(250)),
                Arguments.of("1500ms", Duration.ofMillis(1500)),
                Arguments.of("5s", Duration.ofSeconds(5)),
                Arguments.of("90s", Duration.ofSeconds(90)),
                Arguments.of("1m", Duration.ofMinutes(1)),
                Arguments.of("2h", Duration.ofHours(2)),
                Arguments.of("007s", Duration.ofSeconds(7)),
                Arguments.of(" 5s ", Duration.ofSeconds(5)),
                Arguments.of("\t15s\n", Duration.ofSeconds(15)),
                Arguments.of("999999999ms", Duration.ofMillis(999_999_999)),
                Arguments.of("999999999h", Duration.ofHours(999_999_999)));
    }

    @ParameterizedTest
    @MethodSource("valid")
    void parsesValidDurations(String text, Duration expected) {
        assertThat(Durations.parse(text)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "5", "s", "ms", "1.5s", "-1s", "+1s", "5S", "5MS", "5 s", "1d", "1w", "5sec",
            "5min", "1h30m", "1m30s", "5s5", "PT5S", "1234567890s", "0x10s", "５s", "s5", "5ms ms"})
    void refusesInvalidDurations(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("must be a duration such as 250ms, 5s, 1m or 2h, got \"" + text + "\"");
    }

    @ParameterizedTest
    @NullSource
    void refusesNull(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a duration");
    }

    @ParameterizedTest
    @CsvSource({
            "0, 0s",
            "1, 1ms",
            "250, 250ms",
            "999, 999ms",
            "1000, 1s",
            "1500, 1500ms",
            "59000, 59s",
            "60000, 1m",
            "61000, 61s",
            "90000, 90s",
            "120000, 2m",
            "3540000, 59m",
            "3600000, 1h",
            "5400000, 90m",
            "7200000, 2h",
            "86400000, 24h",
            "3600001, 3600001ms",
    })
    void formatsInTheShortestExactForm(long millis, String expected) {
        assertThat(Durations.format(Duration.ofMillis(millis))).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0s", "1ms", "250ms", "1500ms", "5s", "90s", "120s", "1m", "60m", "2h", "3600000ms",
            "999999999ms", "999999999s", "999999999m", "999999999h"})
    void formatThenParseIsTheSameDuration(String text) {
        Duration d = Durations.parse(text);
        String formatted = Durations.format(d);
        assertThat(Durations.parse(formatted)).isEqualTo(d);
        assertThat(Durations.format(Durations.parse(formatted))).isEqualTo(formatted);
        assertThat(formatted.length()).isLessThanOrEqualTo(text.length());
    }

    @Test
    void formatDropsSubMillisecondPrecision() {
        assertThat(Durations.format(Duration.ofNanos(1_500_000))).isEqualTo("1ms");
    }
}
