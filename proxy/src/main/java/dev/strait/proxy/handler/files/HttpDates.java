package dev.strait.proxy.handler.files;

import dev.strait.proxy.time.UtcText;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Locale;

/**
 * HTTP-date (RFC 9110 5.6.7): sent as IMF-fixdate; received in any of its three forms. Parsing
 * only happens when a validator is not byte-equal to the one we sent, which is the rare case.
 */
final class HttpDates {
    /** What {@link #parse} returns for a value that is not an HTTP-date. */
    static final long INVALID = Long.MIN_VALUE;

    private HttpDates() {}

    /** IMF-fixdate, e.g. {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
    static String format(long epochSeconds) {
        return UtcText.imfFixdate(epochSeconds);
    }

    /** The parsers, built on the first parse: java.time's locale data is not loaded before a client needs it. */
    private static final class Parsers {
        /** Obsolete RFC 850 form, {@code Sunday, 06-Nov-94 08:49:37 GMT}; two-digit years are 1970..2069. */
        static final DateTimeFormatter RFC_850 = new DateTimeFormatterBuilder()
                .appendPattern("EEEE, dd-MMM-")
                .appendValueReduced(ChronoField.YEAR, 2, 2, LocalDate.of(1970, 1, 1))
                .appendPattern(" HH:mm:ss 'GMT'")
                .toFormatter(Locale.ENGLISH).withZone(ZoneOffset.UTC);
        /** Obsolete asctime form, {@code Sun Nov  6 08:49:37 1994}. */
        static final DateTimeFormatter ASCTIME =
                DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ENGLISH).withZone(ZoneOffset.UTC);
    }

    /** Seconds since the epoch, or {@link #INVALID}. */
    static long parse(String value) {
        String v = value.trim();
        if (v.length() < 20 || v.length() > 40) {
            return INVALID;
        }
        DateTimeFormatter f = v.charAt(3) == ',' ? DateTimeFormatter.RFC_1123_DATE_TIME
                : v.indexOf(',') > 0 ? Parsers.RFC_850 : Parsers.ASCTIME;
        try {
            return Instant.from(f.parse(v)).getEpochSecond();
        } catch (DateTimeParseException e) {
            return INVALID;
        }
    }
}
