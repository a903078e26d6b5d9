package dev.strait.proxy.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.testing.CapturedAccessLog;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestServing;
import dev.strait.proxy.testing.TestUpstream;
import io.grpc.Status;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spans exported over OTLP/gRPC ({@code tracing.protocol: grpc}) to grpc-java's own server: the proxy's hand-written
 * HTTP/2 client against gRPC's reference implementation, in cleartext and over TLS.
 */
class GrpcExportTest {
    private static final String GIVEN = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private final ProxyHarness h = new ProxyHarness();
    private GrpcCollector collector;
    @TempDir
    Path dir;

    @AfterEach
    void stop() throws Exception {
        h.close();
        if (collector != null) {
            collector.close();
        }
    }

    private static String tracing(String endpoint, String extra) {
        return "tracing: { endpoint: \"" + endpoint + "\", protocol: grpc, flushInterval: 20ms" + extra + " }";
    }

    /** An exporter alone (no proxy), sending to {@code endpoint} over gRPC, with {@code env} as its environment. */
    private static SpanExporter exporter(String endpoint, Map<String, String> env) {
        Serving serving = TestServing.serving("listeners: [ { name: http, address: \"127.0.0.1:0\" } ]\n"
                + tracing(endpoint, "") + "\n");
        return new SpanExporter(serving, null, env);
    }

    private static Span span(String path) {
        return new Span(RequestTrace.parse(GIVEN), System.currentTimeMillis() * 1_000_000L, 1_000_000, "GET", "http",
                "shop", path, "1.1", 200, 2, "site", "127.0.0.1", null, null, null);
    }

    @Test
    void aRequestsSpanReachesAGrpcCollectorWithTheConfigsFields() throws Exception {
        collector = new GrpcCollector();
        TestUpstream app = h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, "app")));
        h.start(CapturedAccessLog.proxied(app.endpoint(),
                tracing(collector.endpoint(), ", headers: { x-team: ops, Authorization: \"Bearer abc\" }")));

        assertThat(h.get("/orders/7").status()).isEqualTo(200);
        String sent = app.last().header("traceparent");
        JsonNode span = collector.next();
        assertThat(span.get("traceId").asText()).isEqualTo(sent.substring(3, 35));
        assertThat(span.get("spanId").asText()).isEqualTo(sent.substring(36, 52));
        assertThat(OtlpCollector.attribute(span, "url.path")).isEqualTo("/orders/7");
        assertThat(collector.header("authorization")).isEqualTo("Bearer abc");
        assertThat(collector.header("x-team")).isEqualTo("ops");
        assertThat(collector.header("user-agent")).startsWith("strait");

        // The next batch goes on the same connection.
        assertThat(h.get("/orders/8").status()).isEqualTo(200);
        assertThat(OtlpCollector.attribute(collector.next(), "url.path")).isEqualTo("/orders/8");
        assertThat(collector.calls.get()).isEqualTo(2);
        assertThat(collector.connections.get()).isEqualTo(1);
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> count("exported") == 2);
    }

    /** gRPC sent to an OTLP/HTTP port (HTTP/1.1 only): said so, and not tried again. */
    @Test
    void grpcToAnHttpPortIsSaidSoAndNotRetried() throws Exception {
        try (OtlpCollector http = new OtlpCollector()) {
            String endpoint = http.endpoint().replace("/v1/traces", "");
            try (SpanExporter exporter = exporter(endpoint, Map.of())) {
                exporter.offer(span("/wrong-port"));
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> exporter.failed() == 1);
                assertThat(exporter.lastFailure()).contains("answered in HTTP/1.1").contains("4317");
            }
            assertThat(http.posts.get()).isZero();
        }
    }

    /** OpenTelemetry's environment may say gRPC where the config says HTTP: the endpoint's path is then not used. */
    @Test
    void theEnvironmentsGrpcWinsOverTheConfigsHttp() throws Exception {
        collector = new GrpcCollector();
        Serving serving = TestServing.serving("listeners: [ { name: http, address: \"127.0.0.1:0\" } ]\n"
                + "tracing: { endpoint: \"" + collector.endpoint() + "/v1/traces\", flushInterval: 20ms }\n");
        try (SpanExporter exporter = new SpanExporter(serving, null, Map.of("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc"))) {
            exporter.offer(span("/env"));
            assertThat(OtlpCollector.attribute(collector.next(), "url.path")).isEqualTo("/env");
        }
    }

    /** Collectors close idle connections (grpc-java's maxConnectionIdle, the collector's keepalive settings). */
    @Test
    void aConnectionTheCollectorClosedIsMadeAgainWithoutLosingABatch() throws Exception {
        collector = GrpcCollector.closingIdleConnectionsAfter(100);
        try (SpanExporter exporter = exporter(collector.endpoint(), Map.of())) {
            exporter.offer(span("/first"));
            collector.next();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> collector.closed.get() == 1);
            exporter.offer(span("/second"));
            assertThat(OtlpCollector.attribute(collector.next(), "url.path")).isEqualTo("/second");
            assertThat(collector.connections.get()).isEqualTo(2);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> exporter.exported() == 2);
            assertThat(exporter.failed()).isZero();
        }
    }

    /** UNAVAILABLE is worth another try (OTLP/gRPC's retryable codes); INVALID_ARGUMENT is not. */
    @Test
    void retryableStatusesAreTriedAgainOthersAreNot() throws Exception {
        collector = new GrpcCollector();
        try (SpanExporter exporter = exporter(collector.endpoint(), Map.of())) {
            collector.answer.set(Status.UNAVAILABLE.withDescription("warming up"));
            exporter.offer(span("/retried"));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> collector.calls.get() >= 2);
            collector.answer.set(Status.OK);
            assertThat(OtlpCollector.attribute(collector.next(), "url.path")).isEqualTo("/retried");
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> exporter.exported() == 1);
            assertThat(exporter.failed()).isZero();

            int before = collector.calls.get();
            collector.answer.set(Status.INVALID_ARGUMENT.withDescription("bad span"));
            exporter.offer(span("/refused"));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> exporter.failed() == 1);
            assertThat(collector.calls.get() - before).as("not tried again").isEqualTo(1);
            assertThat(collector.connections.get()).as("a status keeps the connection").isEqualTo(1);
        }
    }

    /** Full batches (512 spans, a few hundred KB: several DATA frames and flow-control windows) go whole. */
    @Test
    void fullBatchesGoWhole() throws Exception {
        collector = new GrpcCollector();
        try (SpanExporter exporter = exporter(collector.endpoint(), Map.of())) {
            for (int i = 0; i < 1200; i++) {
                exporter.offer(span("/bulk/" + "x".repeat(200) + "/" + i));
            }
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> exporter.exported() == 1200);
            assertThat(exporter.failed()).isZero();
            java.util.Set<String> paths = new java.util.HashSet<>();
            for (int i = 0; i < 1200; i++) {
                paths.add(OtlpCollector.attribute(collector.next(), "url.path"));
            }
            assertThat(paths).hasSize(1200);
            assertThat(collector.calls.get()).as("batches of at most 512").isBetween(3, 12);
        }
    }

    /** OTEL_EXPORTER_OTLP_COMPRESSION=gzip: the message is compressed as gRPC says (grpc-encoding, the flag byte). */
    @Test
    void theEnvironmentMayAskForGzip() throws Exception {
        collector = new GrpcCollector();
        try (SpanExporter exporter = exporter(collector.endpoint(), Map.of("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "gzip"))) {
            exporter.offer(span("/gzip"));
            assertThat(OtlpCollector.attribute(collector.next(), "url.path")).isEqualTo("/gzip");
            assertThat(collector.header("grpc-encoding")).isEqualTo("gzip");
        }
    }

    /** OTEL_EXPORTER_OTLP_TIMEOUT: how long a try waits for a collector that does not answer. */
    @Test
    void aCollectorThatHangsCostsATryNoMoreThanTheTimeout() throws Exception {
        collector = new GrpcCollector();
        collector.stalled = true;
        try (SpanExporter exporter = exporter(collector.endpoint(), Map.of("OTEL_EXPORTER_OTLP_TIMEOUT", "200"))) {
            long start = System.nanoTime();
            exporter.offer(span("/hang"));
            Awaitility.await().atMost(Duration.ofSeconds(8)).until(() -> exporter.failed() == 1);
            // Three tries of 200 ms and the backoffs between them (0.5 s, 1 s), not three of the default 10 s.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(collector.calls.get()).isEqualTo(3);
            collector.stalled = false;
            exporter.offer(span("/after"));
            assertThat(OtlpCollector.attribute(collector.next(), "url.path")).as("the connection still serves")
                    .isEqualTo("/after");
        }
    }

    /** OTLP's partial success: the collector took the batch but dropped some spans; those count as failed. */
    @Test
    void spansTheCollectorRejectsAreCountedAsFailed() throws Exception {
        collector = new GrpcCollector();
        collector.partialSuccess.set(ExportTracePartialSuccess.newBuilder().setRejectedSpans(1)
                .setErrorMessage("one span is too old").build());
        try (SpanExporter exporter = exporter(collector.endpoint(), Map.of())) {
            exporter.offer(span("/a"));
            exporter.offer(span("/b"));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> exporter.exported() + exporter.failed() == 2);
            assertThat(exporter.failed()).isEqualTo(1);
            assertThat(exporter.exported()).isEqualTo(1);
        }
    }

    /** Over TLS the collector's certificate is checked against the environment's CA (OTEL_EXPORTER_OTLP_CERTIFICATE). */
    @Test
    void overTlsTheCollectorsCaAndTheClientsCertificateComeFromTheEnvironment() throws Exception {
        TestCertificates certs = new TestCertificates();
        Path[] server = certs.issue(TestCertificates.KeyType.EC, "collector", "localhost").write(dir, "collector");
        Path[] client = certs.issue(TestCertificates.KeyType.RSA, true, "strait").write(dir, "client");
        Path ca = certs.writeCa(dir);
        collector = GrpcCollector.tls(server[0].toFile(), server[1].toFile(), ca.toFile());

        try (SpanExporter exporter = exporter(collector.endpoint(), Map.of("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
                ca.toString(), "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", client[0].toString(),
                "OTEL_EXPORTER_OTLP_CLIENT_KEY", client[1].toString()))) {
            exporter.offer(span("/tls"));
            assertThat(OtlpCollector.attribute(collector.next(), "url.path")).isEqualTo("/tls");
        }
        // Without the CA the collector's certificate is not trusted; without a client certificate it refuses.
        for (Map<String, String> env : java.util.List.of(Map.<String, String>of(),
                Map.of("OTEL_EXPORTER_OTLP_CERTIFICATE", ca.toString()))) {
            try (SpanExporter exporter = exporter(collector.endpoint(), env)) {
                exporter.offer(span("/untrusted"));
                Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> exporter.failed() == 1);
                assertThat(exporter.exported()).as(env.toString()).isZero();
            }
        }
        assertThat(collector.calls.get()).isEqualTo(1);
    }

    private double count(String outcome) {
        var c = h.metrics.registry().find("strait_tracing_spans").tag("outcome", outcome).functionCounter();
        return c == null ? -1 : c.count();
    }
}
