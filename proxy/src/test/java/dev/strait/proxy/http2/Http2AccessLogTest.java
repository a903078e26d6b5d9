package dev.strait.proxy.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.proxy.testing.CapturedAccessLog;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestUpstream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the access log and {@code strait_requests_total} say of HTTP/2 streams, on a real proxy over h2c:
 * a stream the client resets, or whose connection it closes, is there once (499, or the status it was
 * sent); {@code bytes} is the body, as over HTTP/1.1; {@code request_id} the id the upstream got.
 */
class Http2AccessLogTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private CapturedAccessLog start(TestUpstream up) throws Exception {
        return CapturedAccessLog.start(h, CapturedAccessLog.proxied(up.endpoint(), ""));
    }

    /** A request's header block: {@code method} and {@code path}, :authority "a", and {@code extra} name/value pairs. */
    static byte[] request(String method, String path, String... extra) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        switch (method) {
            case "GET" -> b.write(0x82);
            case "POST" -> b.write(0x83);
            default -> literal(b, 2, method); // :method by index, the value as a literal
        }
        b.write(0x86); // :scheme http
        literal(b, 4, path); // :path
        literal(b, 1, "a"); // :authority
        for (int i = 0; i + 1 < extra.length; i += 2) {
            b.write(0x00);
            string(b, extra[i]);
            string(b, extra[i + 1]);
        }
        return b.toByteArray();
    }

    /** A literal field without indexing whose name is static table entry {@code index} (RFC 7541 6.2.2). */
    private static void literal(ByteArrayOutputStream b, int index, String value) {
        b.write(index);
        string(b, value);
    }

    private static void string(ByteArrayOutputStream b, String s) {
        byte[] v = s.getBytes(StandardCharsets.US_ASCII);
        b.write(v.length); // short strings only: one byte of length, no Huffman
        b.writeBytes(v);
    }

    private static void send(RawH2 c, int stream, byte[] block) throws Exception {
        c.send(RawH2.frame(RawH2.HEADERS, RawH2.END_STREAM | RawH2.END_HEADERS, stream, block));
        c.out.flush();
    }

    @Test
    void aStreamTheClientResetsBeforeTheAnswerIsLoggedAndCountedOnceAs499() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.stall());
        CapturedAccessLog log = start(up);
        try (RawH2 c = new RawH2(h.address())) {
            send(c, 1, request("GET", "/slow", "user-agent", "gone/2"));
            await().atMost(Duration.ofSeconds(5)).until(() -> up.requests() == 1);
            c.send(RawH2.frame(RawH2.RST_STREAM, 0, 1, RawH2.int32(RawH2.CANCEL)));
            // The upstream call is given up; after that nothing is left that could record the stream again.
            await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
            JsonNode line = log.await(1).get(0);
            assertThat(line.get("status").asInt()).isEqualTo(499);
            assertThat(line.get("bytes").asLong()).isZero();
            assertThat(line.get("protocol").asText()).isEqualTo("HTTP/2.0");
            assertThat(line.get("uri").asText()).isEqualTo("/slow");
            assertThat(line.get("user_agent").asText()).isEqualTo("gone/2");
            assertThat(line.get("request_id").asText()).isEqualTo(up.last().header("x-request-id"));

            // The connection goes on; its next stream is logged on its own.
            send(c, 3, request("GET", "/here"));
            c.answer(3);
        }
        assertThat(log.await(2)).hasSize(2);
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"499\"} 1.0")
                .contains("strait_requests_total{route=\"site\",status=\"200\"} 1.0");
    }

    /** Behind a trusted balancer (ADR 0059) the log names the client it named, as over HTTP/1.1. */
    @Test
    void aTrustedPeersClientIsTheRemoteLogged() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.name());
        CapturedAccessLog log = CapturedAccessLog.start(h, CapturedAccessLog.proxied(up.endpoint(),
                "forwardedHeaders: { trustedPeers: [ 127.0.0.0/8 ] }"));
        try (RawH2 c = new RawH2(h.address())) {
            send(c, 1, request("GET", "/behind", "x-forwarded-for", "198.51.100.4, 2001:db8::9"));
            c.answer(1);
            send(c, 3, request("GET", "/direct"));
            c.answer(3);
        }
        assertThat(log.await(2)).extracting(l -> l.get("uri").asText() + " " + l.get("remote").asText())
                .containsExactlyInAnyOrder("/behind 2001:db8::9", "/direct 127.0.0.1");
        assertThat(up.seen().get(0).header("x-forwarded-for")).isEqualTo("198.51.100.4, 2001:db8::9, 127.0.0.1");
    }

    @Test
    void aStreamWhoseConnectionTheClientClosesIsLoggedOnceAs499() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.stall());
        CapturedAccessLog log = start(up);
        try (RawH2 c = new RawH2(h.address())) {
            send(c, 1, request("GET", "/slow"));
            await().atMost(Duration.ofSeconds(5)).until(() -> up.requests() == 1);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
        JsonNode line = log.await(1).get(0);
        assertThat(line.get("status").asInt()).isEqualTo(499);
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"499\"} 1.0");
        assertThat(log.lines()).hasSize(1);
    }

    @Test
    void anAnswerTheClientResetsIsLoggedWithTheStatusItWasSentAndTheBodyBytesWritten() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.raw("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello", false));
        CapturedAccessLog log = start(up);
        try (RawH2 c = new RawH2(h.address())) {
            send(c, 1, request("GET", "/download"));
            for (RawH2.Frame f; (f = c.next()) != null; ) {
                if (f.type() == RawH2.DATA && f.stream() == 1 && f.text().contains("hello")) {
                    break;
                }
            }
            c.send(RawH2.frame(RawH2.RST_STREAM, 0, 1, RawH2.int32(RawH2.CANCEL)));
            await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
        }
        JsonNode line = log.await(1).get(0);
        assertThat(line.get("status").asInt()).isEqualTo(200);
        assertThat(line.get("bytes").asLong()).isEqualTo(5);
        assertThat(h.metrics.scrape()).doesNotContain("status=\"499\"");
        assertThat(log.lines()).hasSize(1);
    }

    @Test
    void bytesIsTheBodyAsOverHttp1() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.raw(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", false));
        CapturedAccessLog log = start(up);
        String[][] requests = {{"GET", "/here"}, {"HEAD", "/here"}, {"GET", "/missing/../../x"}, {"GET", "/chunked"}};
        try (RawH2 c = new RawH2(h.address())) {
            int stream = 1;
            for (String[] r : requests) {
                send(c, stream, request(r[0], r[1]));
                c.answer(stream);
                stream += 2;
            }
        }
        for (String[] r : requests) {
            assertThat(h.add(new dev.strait.proxy.testing.RawClient(h.address())).send(r[0] + " " + r[1]
                    + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n").read(r[0].equals("HEAD")).status()).isPositive();
        }
        List<JsonNode> lines = log.await(2 * requests.length);
        long[] body = {4, 0, "400 Bad Request\n".length(), 11};
        for (int i = 0; i < requests.length; i++) {
            JsonNode h2 = lines.get(i);
            JsonNode h1 = lines.get(requests.length + i);
            assertThat(h2.get("protocol").asText()).isEqualTo("HTTP/2.0");
            assertThat(h1.get("protocol").asText()).isEqualTo("HTTP/1.1");
            assertThat(h2.get("bytes").asLong()).as(String.join(" ", requests[i])).isEqualTo(body[i]);
            assertThat(h1.get("bytes").asLong()).as(String.join(" ", requests[i])).isEqualTo(body[i]);
        }
    }

    @Test
    void theRequestIdIsTheOneTheUpstreamGotOrTheClientsOwn() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "app"));
        CapturedAccessLog log = start(up);
        try (RawH2 c = new RawH2(h.address())) {
            send(c, 1, request("GET", "/made"));
            c.answer(1);
            send(c, 3, request("GET", "/here", "x-request-id", "client-h2"));
            c.answer(3);
            send(c, 5, request("GET", "/here"));
            c.answer(5);
        }
        List<JsonNode> lines = log.await(3);
        assertThat(lines.get(0).get("request_id").asText()).isEqualTo(up.last().header("x-request-id"))
                .matches("[0-9a-f]{32}");
        assertThat(lines.get(1).get("request_id").asText()).isEqualTo("client-h2");
        assertThat(lines.get(2).get("request_id").isNull()).isTrue();
        assertThat(lines.get(0).get("upstream").asText()).as("the endpoint that answered").isEqualTo(up.endpoint());
        assertThat(lines.get(1).get("upstream").isNull()).as("a fixed answer: no upstream").isTrue();
    }

    @Test
    void aProxiedAnswerWithoutBodyIsLoggedOnce() throws Exception {
        // Its HEADERS end the stream, which closes before the upstream's answer has ended: one line still.
        TestUpstream up = h.upstream(TestUpstream.reply(204, ""));
        CapturedAccessLog log = start(up);
        try (RawH2 c = new RawH2(h.address())) {
            send(c, 1, request("HEAD", "/head"));
            c.answer(1);
            send(c, 3, request("GET", "/empty"));
            c.answer(3);
            send(c, 5, request("GET", "/here")); // a third line, after which the first two have had their chance
            c.answer(5);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> h.metrics.scrape()
                .contains("strait_requests_total{route=\"site\",status=\"204\"} 2.0"));
        List<JsonNode> lines = log.await(3);
        assertThat(lines).extracting(l -> l.get("uri").asText() + " " + l.get("status").asInt())
                .containsExactlyInAnyOrder("/head 204", "/empty 204", "/here 200");
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"204\"} 2.0")
                .doesNotContain("status=\"499\"");
    }

    @Test
    void aRequestWithoutPathIsLoggedWithNoUriAsARefusedHttp1HeadIs() throws Exception {
        // Malformed (RFC 9113 8.3.1), answered 400; it was logged with the uri "/", which nobody sent.
        TestUpstream up = h.upstream(TestUpstream.reply(200, "up"));
        CapturedAccessLog log = start(up);
        try (RawH2 c = new RawH2(h.address())) {
            send(c, 1, new byte[] {(byte) 0x82, (byte) 0x86, 0x01, 0x01, 'a'}); // GET, http, :authority a; no :path
            c.answer(1);
        }
        JsonNode line = log.await(1).get(0);
        assertThat(line.get("status").asInt()).isEqualTo(400);
        assertThat(line.get("uri").isNull()).as("uri of " + line).isTrue();
        assertThat(line.get("method").asText()).isEqualTo("GET");
        assertThat(up.requests()).isZero();
    }
}
