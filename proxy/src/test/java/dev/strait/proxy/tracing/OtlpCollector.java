package dev.strait.proxy.tracing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OTLP/HTTP traces receiver on a real socket (127.0.0.1, port 0), standing in for an OpenTelemetry
 * collector: it keeps every span of every batch posted to {@code /v1/traces} and answers the status set.
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
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/v1/traces", ex -> {
            try (ex) {
                posts.incrementAndGet();
                lastHeaders = ex.getRequestHeaders();
                JsonNode batch = JSON.readTree(ex.getRequestBody());
                String type = ex.getRequestHeaders().getFirst("Content-Type");
                int status = "application/json".equals(type) ? answer.get() : 415;
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

    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces";
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
