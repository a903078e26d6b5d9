package dev.strait.proxy.http;

import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The {@code Date} response header line, formatted once a second on one daemon thread and shared by
 * every event loop: a request copies 37 bytes instead of formatting a date (RFC 9110 6.6.1 allows the
 * one-second resolution).
 */
public final class DateHeader {
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH).withZone(ZoneOffset.UTC);
    private static volatile byte[] line = format();

    static {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "strait-date");
            t.setDaemon(true);
            return t;
        });
        long toNextSecond = 1000 - System.currentTimeMillis() % 1000;
        timer.scheduleAtFixedRate(() -> line = format(), toNextSecond, 1000, TimeUnit.MILLISECONDS);
    }

    private DateHeader() {}

    /** {@code Date: <IMF-fixdate>\r\n}; the array must not be modified. */
    public static byte[] line() {
        return line;
    }

    /** The current value alone, for logs. */
    public static String value() {
        byte[] l = line;
        return new String(l, 6, l.length - 8, StandardCharsets.ISO_8859_1);
    }

    private static byte[] format() {
        return ("Date: " + IMF_FIXDATE.format(ZonedDateTime.now(ZoneOffset.UTC)) + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
    }
}
