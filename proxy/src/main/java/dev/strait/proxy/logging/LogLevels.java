package dev.strait.proxy.logging;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.slf4j.event.Level;

/**
 * Which level each logger logs at: a default ({@code STRAIT_LOG_LEVEL} or {@code -Dstrait.log.level},
 * else {@code info}) and overrides by logger-name prefix ({@code -Dstrait.log.level.dev.strait.proxy.upstream=debug});
 * the longest matching prefix wins. Netty logs at {@code warn} unless told otherwise: its info lines
 * are about its own setup.
 *
 * @param thresholds by prefix, as slf4j's {@link Level#toInt()} ({@link #OFF} for none); the empty prefix holds the default
 */
record LogLevels(Map<String, Integer> thresholds) {
    static final String PROPERTY = "strait.log.level";
    /** A threshold no event reaches. */
    static final int OFF = Integer.MAX_VALUE;

    static LogLevels fromEnvironment(Map<String, String> env, Properties props) {
        Map<String, Integer> m = new HashMap<>();
        m.put("", Level.INFO.toInt());
        m.put("io.netty", Level.WARN.toInt());
        String fromEnv = env.get("STRAIT_LOG_LEVEL");
        if (fromEnv != null && !fromEnv.isBlank()) {
            m.put("", parse("STRAIT_LOG_LEVEL", fromEnv));
        }
        for (String key : props.stringPropertyNames()) {
            if (key.equals(PROPERTY)) {
                m.put("", parse("-D" + key, props.getProperty(key)));
            } else if (key.startsWith(PROPERTY + ".")) {
                m.put(key.substring(PROPERTY.length() + 1), parse("-D" + key, props.getProperty(key)));
            }
        }
        return new LogLevels(Map.copyOf(m));
    }

    /** The threshold for a logger name: events at or above it are written. */
    int of(String name) {
        for (String n = name; ; n = parent(n)) {
            Integer t = thresholds.get(n);
            if (t != null) {
                return t;
            }
        }
    }

    private static String parent(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(0, dot);
    }

    /** {@code trace}, {@code debug}, {@code info}, {@code warn} (or {@code warning}), {@code error}, {@code off}. */
    private static int parse(String where, String value) {
        String v = value.trim().toUpperCase(Locale.ROOT);
        switch (v) {
            case "OFF":
                return OFF;
            case "WARNING":
                return Level.WARN.toInt();
            default:
                try {
                    return Level.valueOf(v).toInt();
                } catch (IllegalArgumentException e) {
                    // Logging is not up yet: say it where the person starting the proxy looks, and go on.
                    System.err.println("strait: " + where + "=" + value
                            + " is not a log level (trace, debug, info, warn, error, off); using info");
                    return Level.INFO.toInt();
                }
        }
    }
}
