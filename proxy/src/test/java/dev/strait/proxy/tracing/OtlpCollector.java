package dev.strait.proxy.tracing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OTLP/HTTP traces receiver on a real socket (127.0.0.1, port 0), standing in for an OpenTelemetry
 * collector: it keeps every span of every batch posted to {@code /v1/traces} and answers the status set.
 * Binary protobuf batches are read with opentelemetry-proto's own generated classes (the schema's reference
 * reader, not the proxy's writer) and kept in OTLP's JSON form, so tests read both encodings alike.
 */
final class OtlpCollector implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpServer server;
    private final BlockingQueue<JsonNode> spans = new LinkedBlockingQueue<>();
    private final List<JsonNode> batches = new java.util.concurrent.CopyOnWriteArrayList<>();
    final AtomicInteger posts = new AtomicInteger();
    final AtomicInteger answer = new AtomicInteger(200);
    /** The fields of the last batch posted. */
    volatile com.sun.net.httpserver.Headers lastHeaders;

    OtlpCollector() throws IOException {
        this(null);
    }

    /** With {@code tls}, an https collector (its endpoint named {@code localhost}, as its certificate). */
    OtlpCollector(javax.net.ssl.SSLContext tls) throws IOException {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        if (tls != null) {
            var https = com.sun.net.httpserver.HttpsServer.create(address, 16);
            https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls));
            server = https;
        } else {
            server = HttpServer.create(address, 16);
        }
        server.createContext("/v1/traces", ex -> {
            try (ex) {
                posts.incrementAndGet();
                lastHeaders = ex.getRequestHeaders();
                String type = ex.getRequestHeaders().getFirst("Content-Type");
                byte[] body0 = ex.getRequestBody().readAllBytes();
                if ("gzip".equals(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
                    body0 = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(body0)).readAllBytes();
                }
                JsonNode batch = "application/json".equals(type) ? JSON.readTree(body0)
                        : "application/x-protobuf".equals(type) ? asJson(ExportTraceServiceRequest.parseFrom(body0)) : null;
                int status = batch != null ? answer.get() : 415;
                if (status == 200) {
                    batches.add(batch);
                    for (JsonNode rs : batch.path("resourceSpans")) {
                        for (JsonNode ss : rs.path("scopeSpans")) {
                            ss.path("spans").forEach(spans::add);
                        }
                    }
                }
                byte[] body = "{}".getBytes();
                ex.sendResponseHeaders(status, body.length);
                ex.getResponseBody().write(body);
            }
        });
        server.start();
    }

    /** A protobuf batch in OTLP's JSON form (ids in hex, 64-bit numbers as strings, enums as numbers). */
    static JsonNode asJson(ExportTraceServiceRequest request) {
        ObjectNode batch = JSON.createObjectNode();
        for (ResourceSpans rs : request.getResourceSpansList()) {
            ObjectNode r = batch.withArray("resourceSpans").addObject();
            attributes(r.putObject("resource").putArray("attributes"), rs.getResource().getAttributesList());
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                ObjectNode scope = r.withArray("scopeSpans").addObject();
                scope.putObject("scope").put("name", ss.getScope().getName()).put("version", ss.getScope().getVersion());
                ArrayNode spans = scope.putArray("spans");
                for (io.opentelemetry.proto.trace.v1.Span s : ss.getSpansList()) {
                    ObjectNode o = spans.addObject();
                    o.put("traceId", HexFormat.of().formatHex(s.getTraceId().toByteArray()));
                    o.put("spanId", HexFormat.of().formatHex(s.getSpanId().toByteArray()));
                    if (!s.getParentSpanId().isEmpty()) {
                        o.put("parentSpanId", HexFormat.of().formatHex(s.getParentSpanId().toByteArray()));
                    }
                    o.put("name", s.getName()).put("kind", s.getKindValue());
                    o.put("startTimeUnixNano", Long.toUnsignedString(s.getStartTimeUnixNano()));
                    o.put("endTimeUnixNano", Long.toUnsignedString(s.getEndTimeUnixNano()));
                    attributes(o.putArray("attributes"), s.getAttributesList());
                    if (s.hasStatus()) {
                        o.putObject("status").put("code", s.getStatus().getCodeValue());
                    }
                }
            }
        }
        return batch;
    }

    private static void attributes(ArrayNode into, List<KeyValue> attributes) {
        for (KeyValue kv : attributes) {
            ObjectNode value = into.addObject().put("key", kv.getKey()).putObject("value");
            switch (kv.getValue().getValueCase()) {
                case STRING_VALUE -> value.put("stringValue", kv.getValue().getStringValue());
                case INT_VALUE -> value.put("intValue", Long.toString(kv.getValue().getIntValue()));
                default -> throw new AssertionError("an attribute the proxy does not write: " + kv);
            }
        }
    }

    String endpoint() {
        return (server instanceof com.sun.net.httpserver.HttpsServer ? "https://localhost:" : "http://127.0.0.1:")
                + server.getAddress().getPort() + "/v1/traces";
    }

    /** The next span taken, waiting up to 10 s. */
    JsonNode next() throws InterruptedException {
        JsonNode s = spans.poll(10, TimeUnit.SECONDS);
        if (s == null) {
            throw new AssertionError("no span reached the collector in 10 s");
        }
        return s;
    }

    /** The spans taken so far, without waiting. */
    List<JsonNode> taken() {
        List<JsonNode> all = new ArrayList<>();
        spans.drainTo(all);
        return all;
    }

    List<JsonNode> batches() {
        return batches;
    }

    /** The value of span attribute {@code key} as text, or null. */
    static String attribute(JsonNode span, String key) {
        for (JsonNode a : span.path("attributes")) {
            if (a.path("key").asText().equals(key)) {
                JsonNode v = a.path("value");
                return v.has("stringValue") ? v.get("stringValue").asText() : v.path("intValue").asText();
            }
        }
        return null;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
