package dev.strait.proxy.tracing;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The fields OpenTelemetry's exporters take from the environment ({@code OTEL_EXPORTER_OTLP_TRACES_HEADERS}, else
 * {@code OTEL_EXPORTER_OTLP_HEADERS}): {@code key1=value1,key2=value2}, values percent-encoded. So a collector's API key
 * comes from a Secret mounted as an environment variable, never written in a config file or snapshot.
 */
final class OtlpHeaders {
    private static final Pattern NAME = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");

    private OtlpHeaders() {}

    /** The environment's fields, or none; an entry that is no {@code name=value} is left out. */
    static Map<String, String> fromEnvironment(Map<String, String> env) {
        OtlpVariable v = OtlpVariable.of(env, "HEADERS");
        return parse(v == null ? null : v.value());
    }

    static Map<String, String> parse(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        if (text == null) {
            return out;
        }
        for (String entry : text.split(",")) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String name = entry.substring(0, eq).trim();
            String value;
            try {
                value = URLDecoder.decode(entry.substring(eq + 1).trim().replace("+", "%2B"), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                continue; // a broken escape
            }
            if (NAME.matcher(name).matches() && !value.isEmpty()
                    && value.chars().allMatch(c -> c == '\t' || c >= 0x20 && c < 0x7f)) {
                out.put(name, value);
            }
        }
        return out;
    }
}
