package dev.strait.proxy.time;

/**
 * The two timestamps the proxy writes, formatted by hand in UTC: the HTTP date of {@code Date} and
 * {@code Last-Modified} (RFC 9110 5.6.7 IMF-fixdate) and the ISO-8601 instant of log lines.
 *
 * <p>Why not {@code java.time.format}: a pattern with day and month names loads the JDK's CLDR locale
 * data, and {@code SimpleDateFormat} (which slf4j-simple uses) does too: together about 100 ms of every
 * start on a small core, before the first request is served (docs/adr/0029). Both forms are fixed,
 * English and UTC, so a table of names and the civil calendar are all they need.
 */
public final class UtcText {
    private static final String[] DAYS = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"}; // 1970-01-01 was a Thursday
    private static final String[] MONTHS =
            {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    private UtcText() {}

    /** IMF-fixdate, e.g. {@code Sun, 06 Nov 1994 08:49:37 GMT}; years 0-9999 (HTTP dates need four digits). */
    public static String imfFixdate(long epochSeconds) {
        long days = Math.floorDiv(epochSeconds, 86_400);
        int secondOfDay = (int) Math.floorMod(epochSeconds, 86_400);
        long ymd = civil(days);
        StringBuilder b = new StringBuilder(29);
        b.append(DAYS[(int) Math.floorMod(days, 7)]).append(", ");
        two(b, day(ymd)).append(' ').append(MONTHS[month(ymd) - 1]).append(' ');
        four(b, year(ymd)).append(' ');
        time(b, secondOfDay).append(" GMT");
        return b.toString();
    }

    /** Appends {@code 2026-12-01T02:48:14.048Z}. */
    public static StringBuilder appendIsoInstant(StringBuilder b, long epochMillis) {
        long days = Math.floorDiv(epochMillis, 86_400_000L);
        int millisOfDay = (int) Math.floorMod(epochMillis, 86_400_000L);
        long ymd = civil(days);
        four(b, year(ymd)).append('-');
        two(b, month(ymd)).append('-');
        two(b, day(ymd)).append('T');
        time(b, millisOfDay / 1000).append('.');
        int ms = millisOfDay % 1000;
        b.append((char) ('0' + ms / 100)).append((char) ('0' + ms / 10 % 10)).append((char) ('0' + ms % 10));
        return b.append('Z');
    }

    /**
     * Days since 1970-01-01 to year, month and day of the proleptic Gregorian calendar, packed as
     * {@code year * 10000 + month * 100 + day}. Counts in 400-year eras from 0000-03-01, so that the
     * leap day ends a year (Howard Hinnant's "days_from_civil" inverse, public domain arithmetic).
     */
    static long civil(long epochDays) {
        long z = epochDays + 719_468;
        long era = Math.floorDiv(z, 146_097);
        long dayOfEra = z - era * 146_097;
        long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long mp = (5 * dayOfYear + 2) / 153;
        long day = dayOfYear - (153 * mp + 2) / 5 + 1;
        long month = mp < 10 ? mp + 3 : mp - 9;
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        return year * 10_000 + month * 100 + day;
    }

    private static int year(long ymd) {
        return (int) (ymd / 10_000);
    }

    private static int month(long ymd) {
        return (int) (ymd / 100 % 100);
    }

    private static int day(long ymd) {
        return (int) (ymd % 100);
    }

    private static StringBuilder time(StringBuilder b, int secondOfDay) {
        two(b, secondOfDay / 3600).append(':');
        two(b, secondOfDay / 60 % 60).append(':');
        return two(b, secondOfDay % 60);
    }

    private static StringBuilder two(StringBuilder b, int v) {
        return b.append((char) ('0' + v / 10)).append((char) ('0' + v % 10));
    }

    private static StringBuilder four(StringBuilder b, int v) {
        return two(two(b, v / 100), v % 100);
    }
}
