package dev.strait.proxy.tracing;

import java.util.Map;

/**
 * One of OpenTelemetry's exporter variables as the environment sets it: {@code OTEL_EXPORTER_OTLP_TRACES_<NAME>}, else
 * {@code OTEL_EXPORTER_OTLP_<NAME>}, as the SDKs read them.
 *
 * @param name  the variable that was set, for messages
 * @param value its value, trimmed
 */
record OtlpVariable(String name, String value) {

    /** The traces' variable, else the general one; null when neither is set (a blank value counts as unset). */
    static OtlpVariable of(Map<String, String> env, String suffix) {
        for (String name : new String[] {"OTEL_EXPORTER_OTLP_TRACES_" + suffix, "OTEL_EXPORTER_OTLP_" + suffix}) {
            String v = env.get(name);
            if (v != null && !v.isBlank()) {
                return new OtlpVariable(name, v.trim());
            }
        }
        return null;
    }
}
