package dev.strait.proxy.tracing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How batches go, as OpenTelemetry's exporters read it from the environment: {@code OTEL_EXPORTER_OTLP_TRACES_COMPRESSION}
 * (else {@code OTEL_EXPORTER_OTLP_COMPRESSION}) {@code gzip} or {@code none}, and {@code ..._TIMEOUT}, the milliseconds
 * a batch may wait for the collector's answer (default 10 000). A value that cannot be read is reported once and the
 * default used.
 *
 * @param gzip          batches are sent gzip-compressed ({@code Content-Encoding: gzip}; over gRPC {@code grpc-encoding})
 * @param timeoutMillis how long a try waits for the collector's answer
 */
record OtlpOptions(boolean gzip, long timeoutMillis) {
    static final OtlpOptions DEFAULTS = new OtlpOptions(false, 10_000);
    private static final Logger log = LoggerFactory.getLogger(OtlpOptions.class);

    static OtlpOptions fromEnvironment(Map<String, String> env) {
        boolean gzip = DEFAULTS.gzip;
        OtlpVariable compression = OtlpVariable.of(env, "COMPRESSION");
        if (compression != null) {
            switch (compression.value().toLowerCase(Locale.ROOT)) {
                case "gzip" -> gzip = true;
                case "none" -> gzip = false;
                default -> log.warn("tracing: {}={} is not read (gzip or none); batches go uncompressed",
                        compression.name(), compression.value());
            }
        }
        long timeout = DEFAULTS.timeoutMillis;
        OtlpVariable t = OtlpVariable.of(env, "TIMEOUT");
        if (t != null) {
            try {
                timeout = Long.parseLong(t.value());
            } catch (NumberFormatException e) {
                timeout = -1;
            }
            if (timeout < 1 || timeout > 600_000) {
                log.warn("tracing: {}={} is not read (milliseconds, 1 to 600000); {} ms is used", t.name(), t.value(),
                        DEFAULTS.timeoutMillis);
                timeout = DEFAULTS.timeoutMillis;
            }
        }
        return new OtlpOptions(gzip, timeout);
    }

    /** The batch as it goes: compressed when asked (once per batch, before its tries). */
    byte[] body(byte[] encoded) {
        if (!gzip) {
            return encoded;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(encoded.length / 4 + 64);
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(encoded);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // in memory: cannot happen
        }
        return out.toByteArray();
    }
}
