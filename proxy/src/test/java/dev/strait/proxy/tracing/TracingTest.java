package dev.strait.proxy.tracing;

import static dev.strait.proxy.tracing.OtlpCollector.attribute;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.proxy.testing.CapturedAccessLog;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Tracing on a real proxy: each request is a span sent to a collector over OTLP/HTTP, and the app behind
 * gets a {@code traceparent} naming that span as its parent, so its own spans join the trace.
 */
class TracingTest {
    private static final String GIVEN = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private final ProxyHarness h = new ProxyHarness();
    private final OtlpCollector collector;

    TracingTest() throws java.io.IOException {
        collector = new OtlpCollector();
    }

    @AfterEach
    void stop() throws Exception {
        h.close(); // the proxy first: its last spans go out as it stops
        collector.close();
    }

    /** {@code app} at {@code endpoint}; a fixed answer at /here; tracing with {@code settings} added. */
    private String config(String endpoint, String settings) {
        return CapturedAccessLog.proxied(endpoint, "tracing: { endpoint: \"" + collector.endpoint()
                + "\", flushInterval: 20ms" + settings + " }");
    }

    private TestUpstream app() throws InterruptedException {
        return h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, "app")));
    }

    @Test
    void eachRequestIsASpanAndTheAppGetsItsIdAsParent() throws Exception {
        TestUpstream app = app();
        CapturedAccessLog log = CapturedAccessLog.start(h, config(app.endpoint(), ""));

        RawClient.Response r = h.get("/orders/7?full=1", "User-Agent: curl/8.5", "X-Request-Id: order-7");
        assertThat(r.status()).isEqualTo(200);
        String sent = app.last().header("traceparent");
        assertThat(sent).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
        String traceId = sent.substring(3, 35);
        String spanId = sent.substring(36, 52);

        JsonNode span = collector.next();
        assertThat(span.get("traceId").asText()).isEqualTo(traceId);
        assertThat(span.get("spanId").asText()).as("the app's parent is the proxy's span").isEqualTo(spanId);
        assertThat(span.has("parentSpanId")).as("the proxy started the trace").isFalse();
        assertThat(span.get("name").asText()).isEqualTo("GET site");
        assertThat(span.get("kind").asInt()).isEqualTo(2);
        long start = Long.parseLong(span.get("startTimeUnixNano").asText());
        long end = Long.parseLong(span.get("endTimeUnixNano").asText());
        assertThat(end).isGreaterThan(start);
        assertThat(Math.abs(end / 1_000_000 - System.currentTimeMillis())).as("wall-clock time").isLessThan(10_000);
        assertThat(attribute(span, "http.request.method")).isEqualTo("GET");
        assertThat(attribute(span, "url.path")).isEqualTo("/orders/7");
        assertThat(attribute(span, "url.query")).isEqualTo("full=1");
        assertThat(attribute(span, "url.scheme")).isEqualTo("http");
        assertThat(attribute(span, "server.address")).isEqualTo("test");
        assertThat(attribute(span, "network.protocol.version")).isEqualTo("1.1");
        assertThat(attribute(span, "http.response.status_code")).isEqualTo("200");
        assertThat(attribute(span, "http.response.body.size")).isEqualTo("3");
        assertThat(attribute(span, "client.address")).isEqualTo("127.0.0.1");
        assertThat(attribute(span, "user_agent.original")).isEqualTo("curl/8.5");
        assertThat(attribute(span, "strait.route")).isEqualTo("site");
        assertThat(attribute(span, "strait.request_id")).isEqualTo("order-7");
        assertThat(attribute(span, "strait.upstream.address")).endsWith(":" + app.port());
        assertThat(span.has("status")).isFalse();
        JsonNode resource = collector.batches().get(0).path("resourceSpans").get(0).path("resource");
        assertThat(resource.toString()).contains("\"service.name\"").contains("\"strait\"");

        assertThat(log.await(1)).singleElement().satisfies(line -> {
            assertThat(line.get("trace_id").asText()).isEqualTo(traceId);
            assertThat(line.get("span_id").asText()).isEqualTo(spanId);
        });
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> count("exported") == 1);
    }

    @Test
    void aClientsTraceIsContinuedAndItsDecisionKept() throws Exception {
        TestUpstream app = app();
        h.start(config(app.endpoint(), ", percent: 0, serviceName: edge"));

        h.get("/a", "traceparent: " + GIVEN, "tracestate: congo=t61rcWkgMzE");
        String sent = app.last().header("traceparent");
        assertThat(sent).startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-").endsWith("-01")
                .doesNotContain("00f067aa0ba902b7");
        assertThat(app.last().header("tracestate")).isEqualTo("congo=t61rcWkgMzE");
        JsonNode span = collector.next();
        assertThat(span.get("traceId").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(span.get("parentSpanId").asText()).isEqualTo("00f067aa0ba902b7");
        assertThat(span.get("spanId").asText()).isEqualTo(sent.substring(36, 52));
        assertThat(collector.batches().get(0).toString()).contains("\"edge\"");

        // Not sampled by the client, and not by the proxy (percent 0): no span, and the app is told so.
        h.get("/b", "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
        assertThat(app.last().header("traceparent")).startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-").endsWith("-00");
        h.get("/c");
        assertThat(app.last().header("traceparent")).endsWith("-00");
        h.get("/d", "traceparent: " + GIVEN); // a sampled one after them, so the wait has an end
        assertThat(collector.next().get("parentSpanId").asText()).isEqualTo("00f067aa0ba902b7");
        assertThat(collector.taken()).as("/b and /c were not recorded").isEmpty();
    }

    @Test
    void anUntrustedClientStartsANewTrace() throws Exception {
        TestUpstream app = app();
        h.start(config(app.endpoint(), ", trustIncoming: false"));
        h.get("/a", "traceparent: " + GIVEN, "tracestate: congo=t61rcWkgMzE");
        assertThat(app.last().header("traceparent")).doesNotContain("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(app.last().header("tracestate")).isNull();
        JsonNode span = collector.next();
        assertThat(span.has("parentSpanId")).isFalse();
        assertThat(app.last().header("traceparent")).contains(span.get("traceId").asText());
    }

    @Test
    void theCheckAndTheMirrorCarryTheSameSpanAsTheApp() throws Exception {
        TestUpstream app = app();
        java.util.concurrent.BlockingQueue<TestUpstream.Seen> copies = new java.util.concurrent.LinkedBlockingQueue<>();
        TestUpstream shadow = h.upstream("shadow", (ctx, req, up) -> {
            copies.add(up.last());
            ctx.writeAndFlush(TestUpstream.response(200, "shadow"));
        });
        TestUpstream auth = h.upstream("auth", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, "")));
        java.util.function.UnaryOperator<String> config = tracing -> """
                upstreams:
                  - { name: app, endpoints: [ "%s" ] }
                  - { name: shadow, endpoints: [ "%s" ] }
                  - { name: auth, endpoints: [ "%s" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        forwardAuth: { upstream: auth, path: /check }
                        mirrors: [ { upstream: shadow } ]
                tracing: { endpoint: "%s", flushInterval: 20ms%s }
                """.formatted(app.endpoint(), shadow.endpoint(), auth.endpoint(), collector.endpoint(), tracing);
        h.start(config.apply(""));
        assertThat(h.get("/a", "traceparent: " + GIVEN).status()).isEqualTo(200);
        String sent = app.last().header("traceparent");
        assertThat(sent).startsWith("00-4bf92f3577b34da6a3ce929d0e0e4736-").endsWith("-01");
        assertThat(auth.last().header("traceparent")).isEqualTo(sent);
        TestUpstream.Seen copy = copies.poll(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(copy).isNotNull();
        assertThat(copy.header("traceparent")).isEqualTo(sent);
        assertThat(collector.next().get("spanId").asText()).isEqualTo(sent.substring(36, 52));

        // With upstreamSpans the check is a try of its own, as the app's request is; the mirror keeps the request's.
        h.reload(config.apply(", upstreamSpans: true"));
        collector.taken();
        assertThat(h.get("/b", "traceparent: " + GIVEN).status()).isEqualTo(200);
        java.util.Map<String, JsonNode> byName = new java.util.HashMap<>();
        for (int i = 0; i < 3; i++) {
            JsonNode s = collector.next();
            byName.put(s.get("name").asText(), s);
        }
        assertThat(byName).containsOnlyKeys("GET site", "GET auth", "GET app");
        String request = byName.get("GET site").get("spanId").asText();
        assertThat(byName.get("GET auth").get("parentSpanId").asText()).isEqualTo(request);
        assertThat(byName.get("GET app").get("parentSpanId").asText()).isEqualTo(request);
        assertThat(auth.last().header("traceparent")).contains(byName.get("GET auth").get("spanId").asText());
        assertThat(app.last().header("traceparent")).contains(byName.get("GET app").get("spanId").asText());
        copy = copies.poll(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(copy.header("traceparent")).as("the mirror's copy: the request's span").contains(request);
    }

    @Test
    void answersOfTheProxysOwnAndErrorsAreSpansToo() throws Exception {
        h.start(config("127.0.0.1:1", "")); // nothing listens on port 1: 502
        assertThat(h.get("/here").status()).isEqualTo(200);
        JsonNode fixed = collector.next();
        assertThat(attribute(fixed, "url.path")).isEqualTo("/here");
        assertThat(attribute(fixed, "strait.upstream.address")).isNull();

        assertThat(h.get("/app").status()).isEqualTo(502);
        JsonNode failed = collector.next();
        assertThat(attribute(failed, "http.response.status_code")).isEqualTo("502");
        assertThat(attribute(failed, "error.type")).isEqualTo("502");
        assertThat(failed.path("status").path("code").asInt()).isEqualTo(2);
    }

    @Test
    void http2RequestsAreSpansWithTheirVersion() throws Exception {
        TestUpstream app = app();
        h.start(config(app.endpoint(), ""));
        HttpClient c = h.h2cClient("/here");
        collector.next(); // the upgrade's own request, on HTTP/1.1
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(h.uri("/over/h2")).header("traceparent", GIVEN).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        JsonNode span = collector.next();
        assertThat(attribute(span, "network.protocol.version")).isEqualTo("2");
        assertThat(span.get("parentSpanId").asText()).isEqualTo("00f067aa0ba902b7");
        assertThat(app.last().header("traceparent")).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-"
                + span.get("spanId").asText() + "-01");
    }

    @Test
    void anUpgradedRequestIsOneSpanContinuingTheClients() throws Exception {
        TestUpstream app = app();
        h.start(config(app.endpoint(), ""));
        try (RawClient c = h.client()) {
            c.send("GET /upgraded HTTP/1.1\r\nHost: test\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                    + "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\ntraceparent: " + GIVEN + "\r\n\r\n");
            assertThat(new String(c.input().readNBytes(12), java.nio.charset.StandardCharsets.US_ASCII))
                    .isEqualTo("HTTP/1.1 101");
            JsonNode span = collector.next();
            assertThat(attribute(span, "network.protocol.version")).isEqualTo("2");
            assertThat(span.get("parentSpanId").asText()).as("the client's span, not one of the HTTP/1.1 side's")
                    .isEqualTo("00f067aa0ba902b7");
            assertThat(app.last().header("traceparent")).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-"
                    + span.get("spanId").asText() + "-01");
        }
    }

    @Test
    void aRuleWithTracingOffIsLeftAsItWas() throws Exception {
        TestUpstream app = app();
        h.start("""
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /healthz } } ]
                        backends: [ { upstream: app } ]
                        tracing: false
                      - backends: [ { upstream: app } ]
                tracing: { endpoint: "%s", flushInterval: 20ms }
                """.formatted(app.endpoint(), collector.endpoint()));
        h.get("/healthz", "traceparent: " + GIVEN, "tracestate: congo=t61rcWkgMzE");
        assertThat(app.last().header("traceparent")).as("passed as sent").isEqualTo(GIVEN);
        assertThat(app.last().header("tracestate")).isEqualTo("congo=t61rcWkgMzE");
        h.get("/healthz");
        assertThat(app.last().header("traceparent")).as("none made").isNull();
        h.get("/traced");
        String sent = app.last().header("traceparent");
        assertThat(collector.next().get("spanId").asText()).as("the first span is /traced's")
                .isEqualTo(sent.substring(36, 52));
        assertThat(collector.taken()).isEmpty();
    }

    /**
     * tracing.upstreamSpans: each try upstream is a CLIENT span, a child of the request's, and the app is told that
     * try's span: a retried request shows its two tries, the first an error, the second counted as a resend.
     */
    @Test
    void withUpstreamSpansEachTryIsAClientSpanTheAppHangsUnder() throws Exception {
        java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
        TestUpstream app = h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(
                TestUpstream.response(n.getAndIncrement() == 0 ? 503 : 200, "app")));
        h.start("""
                workers: 1
                tracing: { endpoint: "%s", flushInterval: 20ms, upstreamSpans: true }
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        retries: { attempts: 1, retryOn: [ "503" ] }
                """.formatted(collector.endpoint(), app.endpoint()));
        assertThat(h.get("/orders/9?x=1", "traceparent: " + GIVEN).status()).isEqualTo(200);
        assertThat(app.seen()).hasSize(2);

        java.util.List<JsonNode> spans = java.util.List.of(collector.next(), collector.next(), collector.next());
        JsonNode server = spans.stream().filter(s -> s.get("kind").asInt() == 2).findFirst().orElseThrow();
        java.util.List<JsonNode> tries = spans.stream().filter(s -> s.get("kind").asInt() == 3).toList();
        assertThat(tries).hasSize(2);
        assertThat(server.get("parentSpanId").asText()).isEqualTo("00f067aa0ba902b7");
        for (int i = 0; i < 2; i++) {
            JsonNode t = tries.get(i);
            assertThat(t.get("traceId").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
            assertThat(t.get("parentSpanId").asText()).as("a child of the request's span")
                    .isEqualTo(server.get("spanId").asText());
            assertThat(app.seen().get(i).header("traceparent")).as("the app is told try %d's span", i)
                    .isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-" + t.get("spanId").asText() + "-01");
            assertThat(t.get("name").asText()).isEqualTo("GET app");
            assertThat(attribute(t, "url.full")).isEqualTo("http://" + app.endpoint() + "/orders/9?x=1");
            assertThat(attribute(t, "server.port")).isEqualTo(app.endpoint().substring(app.endpoint().indexOf(':') + 1));
            assertThat(attribute(t, "strait.upstream")).isEqualTo("app");
        }
        assertThat(attribute(tries.get(0), "http.response.status_code")).isEqualTo("503");
        assertThat(attribute(tries.get(0), "error.type")).isEqualTo("503");
        assertThat(tries.get(0).path("status").path("code").asInt()).as("an error").isEqualTo(2);
        assertThat(attribute(tries.get(0), "http.request.resend_count")).isNull();
        assertThat(attribute(tries.get(1), "http.response.status_code")).isEqualTo("200");
        assertThat(attribute(tries.get(1), "http.request.resend_count")).isEqualTo("1");
        assertThat(tries.get(1).has("status")).isFalse();
        // Within the request's span, on one clock: the first try starts as the request did, the last ends before it.
        assertThat(Long.parseUnsignedLong(tries.get(0).get("startTimeUnixNano").asText()))
                .isEqualTo(Long.parseUnsignedLong(server.get("startTimeUnixNano").asText()));
        assertThat(Long.parseUnsignedLong(tries.get(1).get("startTimeUnixNano").asText()))
                .isGreaterThan(Long.parseUnsignedLong(tries.get(0).get("endTimeUnixNano").asText()));
        assertThat(Long.parseUnsignedLong(tries.get(1).get("endTimeUnixNano").asText()))
                .isLessThanOrEqualTo(Long.parseUnsignedLong(server.get("endTimeUnixNano").asText()));

        // A request without a recorded trace has no try spans, and the app is told the request's (unsampled) span.
        assertThat(h.get("/b", "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00").status()).isEqualTo(200);
        assertThat(app.last().header("traceparent")).endsWith("-00");
    }

    /** A try to a unix socket: its path as the server's address, no port, and the transport named (ADR 0103). */
    @Test
    void anUpstreamSpanToASocketNamesItsPath(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        TestUpstream app = h.add(TestUpstream.startOnUnixSocket(dir.resolve("app.sock"), TestUpstream.name()));
        h.start("""
                workers: 1
                tracing: { endpoint: "%s", flushInterval: 20ms, upstreamSpans: true }
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes: [ { name: site, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ] } ] } ]
                """.formatted(collector.endpoint(), app.endpoint()));
        assertThat(h.get("/orders/9?x=1", "traceparent: " + GIVEN).status()).isEqualTo(200);
        JsonNode t = collector.next();
        if (t.get("kind").asInt() != 3) {
            t = collector.next();
        }
        assertThat(t.get("kind").asInt()).as("the try's CLIENT span").isEqualTo(3);
        assertThat(attribute(t, "server.address")).isEqualTo(dir.resolve("app.sock").toString());
        assertThat(attribute(t, "server.port")).isNull();
        assertThat(attribute(t, "network.transport")).isEqualTo("unix");
        assertThat(attribute(t, "url.full")).isEqualTo("http://localhost/orders/9?x=1");
    }

    /** Over HTTP/2 to the upstream (h2c) the try's span goes in its HEADERS. */
    @Test
    void upstreamSpansOverHttp2() throws Exception {
        java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (dev.strait.proxy.testing.H2cServer app = new dev.strait.proxy.testing.H2cServer(
                () -> new io.netty.channel.ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                        try {
                            if (msg instanceof io.netty.handler.codec.http2.Http2HeadersFrame f) {
                                seen.add(String.valueOf(f.headers().get("traceparent")));
                                ctx.writeAndFlush(new io.netty.handler.codec.http2.DefaultHttp2HeadersFrame(
                                        new io.netty.handler.codec.http2.DefaultHttp2Headers().status("200"), true));
                            }
                        } finally {
                            io.netty.util.ReferenceCountUtil.release(msg);
                        }
                    }
                })) {
            h.start("""
                    workers: 1
                    tracing: { endpoint: "%s", flushInterval: 20ms, upstreamSpans: true }
                    upstreams: [ { name: grpc, protocol: h2c, endpoints: [ "%s" ] } ]
                    routes:
                      - name: site
                        hosts: [ "*" ]
                        rules:
                          - backends: [ { upstream: grpc } ]
                    """.formatted(collector.endpoint(), app.endpoint()));
            assertThat(h.get("/svc/Call").status()).isEqualTo(200);
            JsonNode a = collector.next();
            JsonNode b = collector.next();
            JsonNode client = a.get("kind").asInt() == 3 ? a : b;
            JsonNode server = client == a ? b : a;
            assertThat(client.get("parentSpanId").asText()).isEqualTo(server.get("spanId").asText());
            assertThat(seen).containsExactly("00-" + client.get("traceId").asText() + "-" + client.get("spanId").asText() + "-01");
            assertThat(attribute(client, "network.protocol.version")).isEqualTo("2");
            assertThat(attribute(client, "url.full")).isEqualTo("http://" + app.endpoint() + "/svc/Call");
        }
    }

    /** A hosted collector's key goes with every batch, as the config names it. */
    @Test
    void theConfigsHeadersGoWithEveryBatch() throws Exception {
        TestUpstream app = app();
        h.start(config(app.endpoint(), ", headers: { x-honeycomb-team: \"key 1\", Authorization: \"Bearer abc\" }"));
        assertThat(h.get("/orders/1").status()).isEqualTo(200);
        collector.next();
        assertThat(collector.lastHeaders.getFirst("x-honeycomb-team")).isEqualTo("key 1");
        assertThat(collector.lastHeaders.getFirst("Authorization")).isEqualTo("Bearer abc");
        assertThat(collector.lastHeaders.getFirst("Content-Type")).as("OpenTelemetry's default encoding")
                .isEqualTo("application/x-protobuf");
    }

    /** {@code protocol: http/json}: the same span, in OTLP's JSON encoding. */
    @Test
    void aCollectorCanBeSentJson() throws Exception {
        TestUpstream app = app();
        h.start(config(app.endpoint(), ", protocol: http/json"));
        assertThat(h.get("/orders/2", "traceparent: " + GIVEN).status()).isEqualTo(200);
        JsonNode span = collector.next();
        assertThat(collector.lastHeaders.getFirst("Content-Type")).isEqualTo("application/json");
        assertThat(span.get("traceId").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(span.get("parentSpanId").asText()).isEqualTo("00f067aa0ba902b7");
        assertThat(attribute(span, "url.path")).isEqualTo("/orders/2");
        assertThat(attribute(span, "http.response.status_code")).isEqualTo("200");
    }

    /**
     * OpenTelemetry's environment variables, as an exporter reads them: the protocol over the config's, the fields
     * added to the config's (a Secret's key, never in a config file or snapshot); a protocol Strait does not know is
     * not read (gRPC over the config's HTTP: GrpcExportTest).
     */
    @Test
    void theEnvironmentsProtocolAndFieldsWin() throws Exception {
        for (java.util.Map<String, String> env : java.util.List.of(
                java.util.Map.of("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", "OTEL_EXPORTER_OTLP_HEADERS", "x-key=abc%20d"),
                java.util.Map.of("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc",
                        "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "x-key=abc%20d", "OTEL_EXPORTER_OTLP_HEADERS", "x-key=other"),
                java.util.Map.of("OTEL_EXPORTER_OTLP_PROTOCOL", "http/thrift", "OTEL_EXPORTER_OTLP_COMPRESSION", "gzip"))) {
            dev.strait.proxy.config.Serving serving = dev.strait.proxy.testing.TestServing.serving(
                    "listeners: [ { name: http, address: \"127.0.0.1:0\" } ]\ntracing: { endpoint: \"" + collector.endpoint()
                            + "\", flushInterval: 20ms, headers: { x-team: ops } }\n");
            try (SpanExporter exporter = new SpanExporter(serving, null, env)) {
                RequestTrace trace = RequestTrace.parse(GIVEN);
                exporter.offer(new Span(trace, System.currentTimeMillis() * 1_000_000L, 1_000_000, "GET", "http", "shop",
                        "/env", "1.1", 200, 2, "site", "127.0.0.1", null, null, null));
                JsonNode span = collector.next();
                assertThat(span.get("spanId").asText()).isEqualTo(trace.spanId());
                boolean protocolUnread = !env.containsKey("OTEL_EXPORTER_OTLP_HEADERS");
                assertThat(collector.lastHeaders.getFirst("Content-Type")).as(env.toString())
                        .isEqualTo(protocolUnread ? "application/x-protobuf" : "application/json");
                assertThat(collector.lastHeaders.getFirst("x-key")).as(env.toString()).isEqualTo(protocolUnread ? null : "abc d");
                assertThat(collector.lastHeaders.getFirst("x-team")).isEqualTo("ops");
                assertThat(collector.lastHeaders.getFirst("Content-Encoding")).as(env.toString())
                        .isEqualTo(protocolUnread ? "gzip" : null);
            }
        }
    }

    /** OpenTelemetry's OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name who sends the spans (a pod's fields, say). */
    @Test
    void theEnvironmentNamesTheResource() throws Exception {
        for (var env : java.util.List.of(
                java.util.Map.of("OTEL_SERVICE_NAME", "edge", "HOSTNAME", "strait-7d9f",
                        "OTEL_RESOURCE_ATTRIBUTES", "k8s.namespace.name=shop,k8s.pod.name=web%2D1,service.name=not-this"),
                java.util.Map.of("HOSTNAME", "strait-7d9f", "OTEL_RESOURCE_ATTRIBUTES", "service.name=svc,host.name=node-1"))) {
            dev.strait.proxy.config.Serving serving = dev.strait.proxy.testing.TestServing.serving(
                    "listeners: [ { name: http, address: \"127.0.0.1:0\" } ]\ntracing: { endpoint: \"" + collector.endpoint()
                            + "\", flushInterval: 20ms }\n");
            try (SpanExporter exporter = new SpanExporter(serving, null, env)) {
                exporter.offer(new Span(RequestTrace.parse(GIVEN), System.currentTimeMillis() * 1_000_000L, 1_000_000,
                        "GET", "http", "shop", "/r", "1.1", 200, 2, "site", "127.0.0.1", null, null, null));
                collector.next();
                java.util.Map<String, String> resource = new java.util.LinkedHashMap<>();
                for (JsonNode a : collector.batches().get(collector.batches().size() - 1).path("resourceSpans").get(0)
                        .path("resource").path("attributes")) {
                    resource.put(a.get("key").asText(), a.path("value").path("stringValue").asText());
                }
                assertThat(resource).as(env.toString()).isEqualTo(env.containsKey("OTEL_SERVICE_NAME")
                        ? java.util.Map.of("service.name", "edge", "host.name", "strait-7d9f", "k8s.namespace.name", "shop",
                                "k8s.pod.name", "web-1")
                        : java.util.Map.of("service.name", "svc", "host.name", "node-1"));
                assertThat(resource.keySet().iterator().next()).isEqualTo("service.name");
            }
        }
    }

    /** An https collector is checked against the environment's CA (OTEL_EXPORTER_OTLP_CERTIFICATE), else the JDK's. */
    @Test
    void anHttpsCollectorIsTrustedThroughTheEnvironmentsCa(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        var certs = new dev.strait.proxy.testing.TestCertificates();
        var issued = certs.issue(dev.strait.proxy.testing.TestCertificates.KeyType.EC, "collector", "localhost");
        var keys = java.security.KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("collector", issued.key(), new char[0],
                new java.security.cert.X509Certificate[] {issued.certificate(), certs.ca()});
        var kmf = javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, new char[0]);
        var tls = javax.net.ssl.SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        String ca = certs.writeCa(dir).toString();
        try (OtlpCollector https = new OtlpCollector(tls)) {
            for (var env : java.util.List.of(java.util.Map.of("OTEL_EXPORTER_OTLP_CERTIFICATE", ca),
                    java.util.Map.<String, String>of())) {
                dev.strait.proxy.config.Serving serving = dev.strait.proxy.testing.TestServing.serving(
                        "listeners: [ { name: http, address: \"127.0.0.1:0\" } ]\ntracing: { endpoint: \""
                                + https.endpoint() + "\", flushInterval: 20ms }\n");
                try (SpanExporter exporter = new SpanExporter(serving, null, env)) {
                    exporter.offer(new Span(RequestTrace.parse(GIVEN), System.currentTimeMillis() * 1_000_000L,
                            1_000_000, "GET", "https", "shop", "/tls", "1.1", 200, 2, "site", "127.0.0.1", null, null, null));
                    Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> exporter.exported() + exporter.failed() == 1);
                    assertThat(exporter.exported()).as(env.toString()).isEqualTo(env.isEmpty() ? 0 : 1);
                }
            }
            assertThat(https.posts.get()).as("the untrusted collector was never posted to").isEqualTo(1);
        }
    }

    @Test
    void aCollectorThatRefusesCostsRequestsNothing() throws Exception {
        TestUpstream app = app();
        collector.answer.set(503);
        h.start(config(app.endpoint(), ""));
        for (int i = 0; i < 5; i++) {
            assertThat(h.get("/x" + i).status()).isEqualTo(200);
        }
        // Tried three times (503 is worth another try), then counted as failed.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> count("failed") == 5);
        assertThat(collector.posts.get()).isGreaterThanOrEqualTo(3);
        assertThat(count("exported")).isZero();

        collector.answer.set(200);
        h.get("/after");
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> count("exported") == 1);
    }

    @Test
    void withoutTracingATraceparentPassesAsSentAndNothingIsLogged() throws Exception {
        TestUpstream app = app();
        CapturedAccessLog log = CapturedAccessLog.start(h, CapturedAccessLog.proxied(app.endpoint(), ""));
        h.get("/a", "traceparent: " + GIVEN, "tracestate: congo=t61rcWkgMzE");
        assertThat(app.last().header("traceparent")).isEqualTo(GIVEN);
        assertThat(app.last().header("tracestate")).isEqualTo("congo=t61rcWkgMzE");
        assertThat(log.await(1).get(0).has("trace_id")).isFalse();

        // Turned on by a reload: the next request is traced.
        h.serving.swap(dev.strait.proxy.testing.TestServing.snapshot(CapturedAccessLog.full(config(app.endpoint(), ""))));
        h.get("/b");
        assertThat(collector.next().get("traceId").asText()).isEqualTo(app.last().header("traceparent").substring(3, 35));
    }

    private double count(String outcome) {
        var c = h.metrics.registry().find("strait_tracing_spans").tag("outcome", outcome).functionCounter();
        return c == null ? -1 : c.count();
    }
}
