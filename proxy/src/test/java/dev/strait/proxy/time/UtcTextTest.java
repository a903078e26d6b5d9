package dev.strait.proxy.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UtcTextTest {
    /** What the hand-written formats must equal: java.time's, which loads locale data we avoid at start. */
    private static final DateTimeFormatter IMF =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH).withZone(ZoneOffset.UTC);

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0          | Thu, 01 Jan 1970 00:00:00 GMT",
            "784111777  | Sun, 06 Nov 1994 08:49:37 GMT",
            "951782400  | Tue, 29 Feb 2000 00:00:00 GMT",
            "4107542399 | Sun, 28 Feb 2100 23:59:59 GMT",
            "4107542400 | Mon, 01 Mar 2100 00:00:00 GMT",
            "-1         | Wed, 31 Dec 1969 23:59:59 GMT",
            "253402300799 | Fri, 31 Dec 9999 23:59:59 GMT"})
    void imfFixdateOfKnownInstants(long seconds, String expected) {
        assertThat(UtcText.imfFixdate(seconds)).isEqualTo(expected);
    }

    @Test
    void imfFixdateAgreesWithJavaTimeOverFourHundredYears() {
        SplittableRandom random = new SplittableRandom(7);
        long from = Instant.parse("1800-01-01T00:00:00Z").getEpochSecond();
        long to = Instant.parse("2200-01-01T00:00:00Z").getEpochSecond();
        for (int i = 0; i < 200_000; i++) {
            long s = random.nextLong(from, to);
            assertThat(UtcText.imfFixdate(s)).as("%d", s).isEqualTo(IMF.format(Instant.ofEpochSecond(s)));
        }
        // Every day boundary of a leap-year cycle, where month and year arithmetic goes wrong first.
        for (long day = -800; day < 800; day++) {
            long s = day * 86_400;
            assertThat(UtcText.imfFixdate(s)).isEqualTo(IMF.format(Instant.ofEpochSecond(s)));
            assertThat(UtcText.imfFixdate(s - 1)).isEqualTo(IMF.format(Instant.ofEpochSecond(s - 1)));
        }
    }

    @Test
    void isoInstantAgreesWithJavaTimeToTheMillisecond() {
        SplittableRandom random = new SplittableRandom(11);
        long from = Instant.parse("1970-01-01T00:00:00Z").toEpochMilli();
        long to = Instant.parse("2400-01-01T00:00:00Z").toEpochMilli();
        for (int i = 0; i < 200_000; i++) {
            long ms = random.nextLong(from, to);
            String expected = DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochMilli(ms));
            // ISO_INSTANT drops a zero fraction; the log always shows three digits so columns line up.
            if (ms % 1000 == 0) {
                expected = expected.replace("Z", ".000Z");
            }
            assertThat(UtcText.appendIsoInstant(new StringBuilder(), ms).toString()).as("%d", ms).isEqualTo(expected);
        }
        assertThat(UtcText.appendIsoInstant(new StringBuilder("at "), 1_764_557_294_048L).toString())
                .isEqualTo("at 2025-12-01T02:48:14.048Z");
    }
}
