package dev.strait.proxy.tracing;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A batch of spans as an OTLP/HTTP JSON {@code ExportTraceServiceRequest} (OpenTelemetry protocol 1.x,
 * "JSON Protobuf Encoding"): ids in hex, 64-bit integers as decimal strings, enums as numbers
 * ({@link SpanAttributes} says what each span carries).
 */
final class OtlpJson {
    private static final JsonFactory JSON = new JsonFactory();

    private OtlpJson() {}

    static byte[] encode(List<? extends ExportedSpan> spans, java.util.Map<String, String> resource, String version) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 + spans.size() * 640);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeArrayFieldStart("resourceSpans");
            g.writeStartObject();
            g.writeObjectFieldStart("resource");
            g.writeArrayFieldStart("attributes");
            SpanAttributes.resource(resource, new Attributes(g));
            g.writeEndArray();
            g.writeEndObject();
            g.writeArrayFieldStart("scopeSpans");
            g.writeStartObject();
            g.writeObjectFieldStart("scope");
            g.writeStringField("name", OtlpProtocol.SCOPE);
            if (version != null) {
                g.writeStringField("version", version);
            }
            g.writeEndObject();
            g.writeArrayFieldStart("spans");
            for (ExportedSpan s : spans) {
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

    private static void span(JsonGenerator g, ExportedSpan s) throws IOException {
        RequestTrace t = s.trace();
        g.writeStartObject();
        g.writeStringField("traceId", t.traceId());
        g.writeStringField("spanId", t.spanId());
        if (t.parentSpanId() != null) {
            g.writeStringField("parentSpanId", t.parentSpanId());
        }
        g.writeStringField("name", s.name());
        g.writeNumberField("kind", s.kind());
        g.writeStringField("startTimeUnixNano", Long.toString(s.startNanos()));
        g.writeStringField("endTimeUnixNano", Long.toString(s.endNanos()));
        g.writeArrayFieldStart("attributes");
        s.attributes(new Attributes(g));
        g.writeEndArray();
        if (s.error()) {
            g.writeObjectFieldStart("status");
            g.writeNumberField("code", OtlpProtocol.STATUS_ERROR);
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    /** Each attribute as a {@code KeyValue} object of the array being written. */
    private record Attributes(JsonGenerator g) implements SpanAttributes.Sink {
        @Override
        public void string(String key, String value) {
            write(key, "stringValue", value);
        }

        @Override
        public void integer(String key, long value) {
            write(key, "intValue", Long.toString(value));
        }

        private void write(String key, String kind, String value) {
            try {
                g.writeStartObject();
                g.writeStringField("key", key);
                g.writeObjectFieldStart("value");
                g.writeStringField(kind, value);
                g.writeEndObject();
                g.writeEndObject();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
