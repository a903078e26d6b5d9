package dev.strait.proxy.http1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.proxy.testing.CapturedAccessLog;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestServing;
import dev.strait.proxy.testing.TestUpstream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.Arguments;
import java.util.stream.Stream;

/**
 * What the access log and {@code strait_requests_total} say of HTTP/1.1 requests, on a real proxy: a
 * request the client gives up on is there once (499, or the status it was sent), a refused head shows
 * what the client sent, {@code bytes} is the body, {@code request_id} the id the upstream got.
 */
class Http1AccessLogTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    /** Reads what the proxy sends until {@code text} has come. */
    private static String readUntil(InputStream in, String text) throws Exception {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] b = new byte[4096];
        while (!got.toString(StandardCharsets.ISO_8859_1).contains(text)) {
            int n = in.read(b);
            if (n < 0) {
                throw new AssertionError("closed before " + text + ": " + got);
            }
            got.write(b, 0, n);
        }
        return got.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void aClientThatLeavesBeforeTheAnswerIsLoggedAndCountedOnceAs499() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.stall());
        CapturedAccessLog log = CapturedAccessLog.start(h, CapturedAccessLog.proxied(up.endpoint(), ""));
        try (RawClient c = new RawClient(h.address())) {
            c.send("GET /slow?q=1 HTTP/1.1\r\nHost: test\r\nUser-Agent: gone/1\r\n\r\n");
            await().atMost(Duration.ofSeconds(5)).until(() -> up.requests() == 1);
        }
        // The proxy gives the upstream call up when the client leaves: after that nothing is left to record it.
        await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
        JsonNode line = log.await(1).get(0);
        assertThat(line.get("status").asInt()).isEqualTo(499);
        assertThat(line.get("bytes").asLong()).isZero();
        assertThat(line.get("method").asText()).isEqualTo("GET");
        assertThat(line.get("uri").asText()).isEqualTo("/slow?q=1");
        assertThat(line.get("route").asText()).isEqualTo("site");
        assertThat(line.get("user_agent").asText()).isEqualTo("gone/1");
        assertThat(line.get("request_id").asText()).isEqualTo(up.last().header("x-request-id"));
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"499\"} 1.0");
        assertThat(h.get("/here").status()).isEqualTo(200); // a later request: its own line, and the 499 stays one
        assertThat(log.await(2)).hasSize(2);
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"499\"} 1.0")
                .contains("strait_requests_total{route=\"site\",status=\"200\"} 1.0");
    }

    @Test
    void anAnswerTheClientCutsIsLoggedWithTheStatusItWasSentAndTheBodyBytesWritten() throws Exception {
        // nginx logs the status it had sent then, and $body_bytes_sent so far.
        TestUpstream up = h.upstream(TestUpstream.raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello", false));
        CapturedAccessLog log = CapturedAccessLog.start(h, CapturedAccessLog.proxied(up.endpoint(), ""));
        try (RawClient c = new RawClient(h.address())) {
            c.send("GET /download HTTP/1.1\r\nHost: test\r\n\r\n");
            assertThat(readUntil(c.input(), "hello")).startsWith("HTTP/1.1 200 OK");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
        JsonNode line = log.await(1).get(0);
        assertThat(line.get("status").asInt()).isEqualTo(200);
        assertThat(line.get("bytes").asLong()).isEqualTo(5);
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"200\"} 1.0")
                .doesNotContain("status=\"499\"");
        assertThat(log.lines()).hasSize(1);
    }

    @Test
    void bytesIsTheBodyWithoutHeadOrChunkFraming() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.raw(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nx-t: 1\r\n\r\n", false));
        CapturedAccessLog log = CapturedAccessLog.start(h, CapturedAccessLog.proxied(up.endpoint(), ""));
        assertThat(h.get("/chunked").text()).isEqualTo("hello world");
        assertThat(h.get("/here").text()).isEqualTo("here");
        List<JsonNode> lines = log.await(2);
        assertThat(lines.get(0).get("bytes").asLong()).isEqualTo(11);
        assertThat(lines.get(1).get("bytes").asLong()).isEqualTo(4);
    }

    static Stream<Arguments> refusals() {
        String many = "x-h: 1\r\n".repeat(150);
        return Stream.of(
                Arguments.of("bad header name", "POST /x HTTP/1.1\r\nHost: p.test\r\nBad Header: x\r\n\r\n", 400,
                        "POST", "/x", "HTTP/1.1"),
                Arguments.of("too many headers", "GET /many HTTP/1.1\r\nHost: p.test\r\n" + many + "\r\n", 431,
                        "GET", "/many", "HTTP/1.1"),
                Arguments.of("unknown coding", "POST /te HTTP/1.1\r\nHost: p.test\r\nTransfer-Encoding: gzip\r\n\r\n", 501,
                        "POST", "/te", "HTTP/1.1"),
                Arguments.of("version", "GET /v HTTP/2.0\r\nHost: p.test\r\n\r\n", 505, "GET", "/v", "HTTP/2.0"),
                Arguments.of("bytes the log escapes", "GET /a\"b\\\u0001c\u00ff HTTP/1.1\r\nHost: p.test\r\n\r\n", 400,
                        "GET", "/a\"b\\\u0001c\u00ff", "HTTP/1.1"),
                Arguments.of("no request line", "\u0016\u0003\u0001\u0002\u0000\u0001\r\n\r\n", 400,
                        "\u0016\u0003\u0001\u0002\u0000\u0001", null, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aRefusedHeadIsLoggedWithWhatTheClientSentNotAPlaceholder(String name, String raw, int status, String method,
                                                                  String uri, String protocol) throws Exception {
        CapturedAccessLog log = CapturedAccessLog.start(h, "routes: [ { name: site, hosts: [ \"*\" ], rules: [ { respond: { body: ok } } ] } ]");
        try (RawClient c = new RawClient(h.address())) {
            assertThat(c.send(raw).read().status()).isEqualTo(status);
        }
        JsonNode line = log.await(1).get(0);
        assertThat(line.get("status").asInt()).isEqualTo(status);
        assertThat(text(line, "method")).isEqualTo(method);
        assertThat(text(line, "uri")).isEqualTo(uri);
        assertThat(text(line, "protocol")).isEqualTo(protocol);
        assertThat(line.get("host").isNull()).isTrue();
    }

    @Test
    void aTooLongTargetIsLoggedCutAtOneKibibyte() throws Exception {
        CapturedAccessLog log = CapturedAccessLog.start(h, "routes: [ { name: site, hosts: [ \"*\" ], rules: [ { respond: { body: ok } } ] } ]");
        String target = "/" + "a".repeat(9000);
        try (RawClient c = new RawClient(h.address())) {
            assertThat(c.send("GET " + target + " HTTP/1.1\r\nHost: p.test\r\n\r\n").read().status()).isEqualTo(414);
        }
        JsonNode line = log.await(1).get(0);
        assertThat(line.get("method").asText()).isEqualTo("GET");
        assertThat(line.get("uri").asText()).isEqualTo(target.substring(0, 1024));
        assertThat(line.get("protocol").isNull()).isTrue();
    }

    @Test
    void a408OnAnUnfinishedHeadShowsWhatCameOfItsRequestLine() throws Exception {
        CapturedAccessLog log = CapturedAccessLog.start(h, """
                limits: { headerTimeout: 300ms }
                routes: [ { name: site, hosts: [ "*" ], rules: [ { respond: { body: ok } } ] } ]
                """);
        String[] sent = {"PUT /partial HTTP/1.1\r\nHost: p.test\r\n", "GET /half", "GE"};
        RawClient[] clients = new RawClient[sent.length];
        for (int i = 0; i < sent.length; i++) {
            clients[i] = h.add(new RawClient(h.address())).send(sent[i]);
        }
        for (RawClient c : clients) {
            assertThat(c.read().status()).isEqualTo(408);
        }
        List<JsonNode> lines = log.await(3);
        assertThat(lines).extracting(l -> l.get("status").asInt()).containsOnly(408);
        assertThat(lines).extracting(l -> text(l, "method") + " " + text(l, "uri") + " " + text(l, "protocol"))
                .containsExactlyInAnyOrder("PUT /partial HTTP/1.1", "GET /half null", "null null null");
    }

    @Test
    void theRequestIdIsTheOneTheUpstreamGotOrTheClientsOwn() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "app"));
        CapturedAccessLog log = CapturedAccessLog.start(h, CapturedAccessLog.proxied(up.endpoint(), ""));
        h.get("/made");
        String made = up.last().header("x-request-id");
        h.get("/kept", "X-Request-Id: client-1");
        h.get("/bad", "X-Request-Id: bad id!");
        h.get("/here", "X-Request-Id: client-2"); // answered here: the client's own
        h.get("/here", "X-Request-Id: bad id!");
        h.get("/here");
        List<JsonNode> lines = log.await(6);
        assertThat(made).matches("[0-9a-f]{32}");
        assertThat(lines.get(0).get("request_id").asText()).isEqualTo(made);
        assertThat(lines.get(1).get("request_id").asText()).isEqualTo("client-1");
        assertThat(lines.get(2).get("request_id").asText()).isEqualTo(up.last().header("x-request-id"))
                .matches("[0-9a-f]{32}");
        assertThat(lines.get(3).get("request_id").asText()).isEqualTo("client-2");
        assertThat(lines.get(4).get("request_id").isNull()).isTrue();
        assertThat(lines.get(5).get("request_id").isNull()).isTrue();
        assertThat(lines.get(2).get("upstream").asText()).as("the endpoint that answered").isEqualTo(up.endpoint());
        assertThat(lines.get(5).get("upstream").isNull()).as("a fixed answer: no upstream").isTrue();

        // Not trusted: the client's id does not go upstream, and the line shows the one that did.
        h.serving.swap(TestServing.snapshot(CapturedAccessLog.full(CapturedAccessLog.proxied(up.endpoint(),
                "requestId: { trustIncoming: false }"))));
        h.get("/untrusted", "X-Request-Id: client-3");
        String replaced = up.last().header("x-request-id");
        assertThat(replaced).isNotEqualTo("client-3");
        assertThat(log.await(7).get(6).get("request_id").asText()).isEqualTo(replaced);
    }

    private static String text(JsonNode line, String field) {
        JsonNode n = line.get(field);
        assertThat(n).as(field + " is on every line").isNotNull();
        return n.isNull() ? null : n.asText();
    }
}
