package dev.strait.proxy.tracing;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.strait.proxy.accesslog.AccessLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A batch of spans as an OTLP/HTTP JSON {@code ExportTraceServiceRequest} (OpenTelemetry protocol 1.x,
 * "JSON Protobuf Encoding"): ids in hex, 64-bit integers as decimal strings, enums as numbers. The
 * attribute names are OpenTelemetry's HTTP server conventions (semantic conventions 1.2x); what only
 * Strait knows is under {@code strait.}.
 */
final class OtlpJson {
    private static final JsonFactory JSON = new JsonFactory();
    private static final int KIND_SERVER = 2;
    private static final int STATUS_ERROR = 2;

    private OtlpJson() {}

    /**
     * @param serviceName the resource's {@code service.name}
     * @param hostName    the resource's {@code host.name} (the pod's name in Kubernetes), or null
     */
    static byte[] encode(List<Span> spans, String serviceName, String hostName, String version) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 + spans.size() * 640);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeArrayFieldStart("resourceSpans");
            g.writeStartObject();
            g.writeObjectFieldStart("resource");
            g.writeArrayFieldStart("attributes");
            string(g, "service.name", serviceName);
            string(g, "host.name", hostName);
            g.writeEndArray();
            g.writeEndObject();
            g.writeArrayFieldStart("scopeSpans");
            g.writeStartObject();
            g.writeObjectFieldStart("scope");
            g.writeStringField("name", "dev.strait.proxy");
            if (version != null) {
                g.writeStringField("version", version);
            }
            g.writeEndObject();
            g.writeArrayFieldStart("spans");
            for (Span s : spans) {
                span(g, s);
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return out.toByteArray();
    }

    private static void span(JsonGenerator g, Span s) throws IOException {
        RequestTrace t = s.trace();
        g.writeStartObject();
        g.writeStringField("traceId", t.traceId());
        g.writeStringField("spanId", t.spanId());
        if (t.parentSpanId() != null) {
            g.writeStringField("parentSpanId", t.parentSpanId());
        }
        g.writeStringField("name", s.name());
        g.writeNumberField("kind", KIND_SERVER);
        g.writeStringField("startTimeUnixNano", Long.toString(s.startNanos()));
        g.writeStringField("endTimeUnixNano", Long.toString(s.endNanos()));
        g.writeArrayFieldStart("attributes");
        string(g, "http.request.method", s.method());
        String target = s.target();
        if (target != null) {
            int q = target.indexOf('?');
            string(g, "url.path", q < 0 ? target : target.substring(0, q));
            string(g, "url.query", q < 0 ? null : target.substring(q + 1));
        }
        string(g, "url.scheme", s.scheme());
        string(g, "server.address", s.host() == null || s.host().isEmpty() ? null : s.host());
        string(g, "network.protocol.version", s.protocol());
        if (s.status() > 0) {
            integer(g, "http.response.status_code", s.status());
        }
        integer(g, "http.response.body.size", s.bytes());
        string(g, "client.address", s.client());
        string(g, "user_agent.original", s.userAgent());
        if (s.status() >= 500) {
            string(g, "error.type", Integer.toString(s.status()));
        }
        string(g, "strait.route", s.route());
        String id = s.requestId();
        string(g, "strait.request_id", id != null && AccessLog.saneRequestId(id) ? id : null);
        string(g, "strait.upstream.address", s.upstream() == null ? null : s.upstream().toString());
        g.writeEndArray();
        if (s.status() >= 500) {
            // A server span is an error for 5xx only; a 4xx is the client's (HTTP semantic conventions).
            g.writeObjectFieldStart("status");
            g.writeNumberField("code", STATUS_ERROR);
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    private static void string(JsonGenerator g, String key, String value) throws IOException {
        if (value == null) {
            return;
        }
        g.writeStartObject();
        g.writeStringField("key", key);
        g.writeObjectFieldStart("value");
        g.writeStringField("stringValue", value);
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void integer(JsonGenerator g, String key, long value) throws IOException {
        g.writeStartObject();
        g.writeStringField("key", key);
        g.writeObjectFieldStart("value");
        g.writeStringField("intValue", Long.toString(value));
        g.writeEndObject();
        g.writeEndObject();
    }
}
