package dev.strait.proxy.handler.files;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 9110 5.6.7: one date in its three forms. */
class HttpDatesTest {
    static final long NOV_6_1994 = 784111777L; // Sun, 06 Nov 1994 08:49:37 GMT

    @Test
    void formatsImfFixdate() {
        assertThat(HttpDates.format(NOV_6_1994)).isEqualTo("Sun, 06 Nov 1994 08:49:37 GMT");
        assertThat(HttpDates.format(0)).isEqualTo("Thu, 01 Jan 1970 00:00:00 GMT");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994", " Sun, 06 Nov 1994 08:49:37 GMT "})
    void parsesAllThreeForms(String value) {
        assertThat(HttpDates.parse(value)).isEqualTo(NOV_6_1994);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0", "yesterday", "Sun, 06 Nov 1994 08:49:37", "Sun, 32 Nov 1994 08:49:37 GMT",
        "Mon, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sunday, 06-Nov-94 08:49:37",
        "Sun Nov 6 08:49:37 1994 and more"})
    void refusesWhatIsNotAnHttpDate(String value) {
        assertThat(HttpDates.parse(value)).isEqualTo(HttpDates.INVALID);
    }
}
