package dev.strait.model;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as written in config: {@code 250ms}, {@code 5s}, {@code 1m}, {@code 2h}. */
public final class Durations {
    private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    private Durations() {}

    public static Duration parse(String text) {
        Matcher m = FORMAT.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("must be a duration such as 250ms, 5s, 1m or 2h, got \"" + text + "\"");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }

    /** The shortest exact form: {@code 90s} stays seconds, {@code 120s} becomes {@code 2m}. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
