package dev.strait.proxy.http1;

import static dev.strait.proxy.testing.TestServing.ascii;
import static dev.strait.proxy.testing.TestServing.outbound;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.testing.TestServing;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The HTTP/1.1 server side on an EmbeddedChannel: framing, keep-alive, ordering, limits, bad input. */
class Http1ServerHandlerTest {
    static final String CONFIG = """
            listeners: [ { name: http, address: "127.0.0.1:0" } ]
            limits: { maxBodyBytes: 1024 }
            routes:
              - name: site
                hosts: [ "example.com" ]
                rules:
                  - matches: [ { path: { type: Exact, value: /hello } } ]
                    respond: { status: 200, body: "hello, world!\\n", headers: { content-type: text/plain } }
                  - matches: [ { path: { type: Exact, value: /a } } ]
                    respond: { body: "A" }
                  - matches: [ { path: { type: Exact, value: /b } } ]
                    respond: { body: "B" }
                  - matches: [ { path: { type: Exact, value: /empty } } ]
                    respond: { status: 204 }
              - name: other
                hosts: [ "other.com" ]
                rules:
                  - respond: { body: "other" }
            """;

    private final Serving serving = TestServing.serving(CONFIG);
    private final EmbeddedChannel ch = TestServing.channel(serving);

    @AfterEach
    void noLeftovers() {
        ch.finishAndReleaseAll();
    }

    private String exchange(String raw) {
        ch.writeInbound(ascii(raw));
        ch.runPendingTasks();
        return outbound(ch);
    }

    @Test
    void answersWithPreEncodedHeadDateAndBody() {
        String out = exchange("GET /hello HTTP/1.1\r\nHost: example.com\r\n\r\n");
        assertThat(out).startsWith("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nContent-Length: 14\r\nDate: ")
                .endsWith(" GMT\r\n\r\nhello, world!\n");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void theAccessLogCountsTheBodyBytesTheClientGot() throws Exception {
        // nginx's $body_bytes_sent, as HTTP/2 counts them (Http2AccessLogTest): not the head, not for HEAD.
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Http1RequestDecoder decoder = new Http1RequestDecoder(serving.snapshot().limits());
        EmbeddedChannel logged;
        try (AccessLog log = new AccessLog(out)) {
            logged = new EmbeddedChannel(decoder, new Http1ServerHandler(serving, new ProxyMetrics(), log, decoder, true));
            String[] requests = {
                "GET /hello HTTP/1.1\r\nHost: example.com\r\n\r\n", // the loop's shared answer
                "HEAD /hello HTTP/1.1\r\nHost: example.com\r\n\r\n",
                "GET /nothing HTTP/1.1\r\nHost: example.com\r\n\r\n", // 404, its short text body
                "GET /a HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n"};
            for (String request : requests) {
                logged.writeInbound(ascii(request));
                logged.runPendingTasks();
                outbound(logged);
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> out.toString(StandardCharsets.UTF_8).split("\n").length == 4);
        }
        logged.finishAndReleaseAll();
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        long[] body = {"hello, world!\n".length(), 0, "404 Not Found\n".length(), 1};
        for (int i = 0; i < body.length; i++) {
            assertThat(lines[i]).contains("\"bytes\":" + body[i] + ",");
        }
    }

    @Test
    void headGetsTheHeadersWithoutTheBody() {
        String out = exchange("HEAD /hello HTTP/1.1\r\nHost: example.com\r\n\r\n");
        assertThat(out).contains("Content-Length: 14\r\n").endsWith("\r\n\r\n");
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() {
        String out = exchange("GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n"
                + "GET /b HTTP/1.1\r\nHost: example.com\r\n\r\n"
                + "GET /a HTTP/1.1\r\nHost: example.com\r\n\r\n");
        assertThat(out.split("HTTP/1.1 200 OK")).hasSize(4);
        assertThat(out.indexOf("\r\n\r\nA")).isLessThan(out.indexOf("\r\n\r\nB"));
        assertThat(out).endsWith("\r\n\r\nA");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void connectionCloseIsHonoured() {
        String out = exchange("GET /a HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n");
        assertThat(out).contains("Connection: close\r\n").endsWith("A");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void http10ClosesUnlessKeepAliveIsAsked() {
        assertThat(exchange("GET /a HTTP/1.0\r\nHost: example.com\r\nConnection: keep-alive\r\n\r\n"))
                .contains("Connection: keep-alive\r\n");
        assertThat(ch.isOpen()).isTrue();
        assertThat(exchange("GET /a HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.1 404").contains("Connection: close");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void chunkedBodiesAreReadAndTheConnectionReused() {
        String out = exchange("POST /a HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n0\r\n\r\nGET /b HTTP/1.1\r\nHost: example.com\r\n\r\n");
        assertThat(out).contains("\r\n\r\nA").endsWith("\r\n\r\nB");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void expectContinueGets100ThenTheAnswer() {
        String out = exchange("POST /a HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
        assertThat(out).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n" + out.substring(25));
        assertThat(out.substring(25)).startsWith("HTTP/1.1 200 OK");
        assertThat(exchange("hello")).isEmpty();
        assertThat(exchange("GET /b HTTP/1.1\r\nHost: example.com\r\n\r\n")).endsWith("B");
    }

    /**
     * A request refused before its action (here: no rule) is not asked for a body its client holds back; as the
     * client may send it or not, the connection ends with the answer (RFC 9110 10.1.1).
     */
    @Test
    void aRequestRefusedBeforeItsActionIsNotAskedForItsBody() {
        String out = exchange("POST /nothing HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n"
                + "Expect: 100-continue\r\n\r\n");
        assertThat(out).startsWith("HTTP/1.1 404 ").contains("Connection: close\r\n").doesNotContain("100 Continue");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void bodiesOverTheLimitGet413AndClose() {
        assertThat(exchange("POST /a HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5000\r\n\r\n"))
                .startsWith("HTTP/1.1 413 ");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void chunkedBodiesOverTheLimitAreCut() {
        String chunk = "400\r\n" + "x".repeat(1024) + "\r\n";
        String out = exchange("POST /a HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
                + chunk + chunk);
        // Answered when the head arrived; the oversize body then closes the connection.
        assertThat(out).startsWith("HTTP/1.1 200 OK");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void absoluteFormTargetsRouteOnTheirAuthority() {
        assertThat(exchange("GET http://other.com/x HTTP/1.1\r\nHost: example.com\r\n\r\n")).endsWith("other");
    }

    /** RFC 3986 3.2: the authority ends at the path, the query or a fragment; no path is "/". */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"http://other.com?x=1", "http://other.com?x=/y", "HTTPS://Other.com", "http://other.com:80/x"})
    void absoluteFormTargetsWithoutPathOrWithAQueryRouteOnTheirAuthority(String target) {
        assertThat(exchange("GET " + target + " HTTP/1.1\r\nHost: example.com\r\n\r\n")).endsWith("other");
    }

    @Test
    void bodylessStatusesHaveNoContentLength() {
        assertThat(exchange("GET /empty HTTP/1.1\r\nHost: example.com\r\n\r\n"))
                .startsWith("HTTP/1.1 204 No Content\r\n").doesNotContain("Content-Length").endsWith("\r\n\r\n");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "unknown path          | GET /nope HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n                  | 404 | open",
            "unknown host          | GET /a HTTP/1.1\\r\\nHost: nowhere.org\\r\\n\\r\\n                     | 404 | open",
            "missing Host on 1.1   | GET /a HTTP/1.1\\r\\n\\r\\n                                          | 400 | closed",
            "two Host headers      | GET /a HTTP/1.1\\r\\nHost: example.com\\r\\nHost: other.com\\r\\n\\r\\n | 400 | closed",
            "bad Host              | GET /a HTTP/1.1\\r\\nHost: exa mple.com\\r\\n\\r\\n                    | 400 | closed",
            "garbage request line  | GARBAGE\\r\\n\\r\\n                                                   | 400 | closed",
            "bad version           | GET /a HTTP/2.7\\r\\nHost: example.com\\r\\n\\r\\n                     | 505 | closed",
            "path above root       | GET /../etc/passwd HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n         | 400 | closed",
            "encoded NUL in path   | GET /a%00 HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n                  | 400 | closed",
            "asterisk target       | GET * HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n                      | 400 | closed",
            "unknown expectation   | GET /a HTTP/1.1\\r\\nHost: example.com\\r\\nExpect: teapot\\r\\n\\r\\n   | 417 | closed",
            "space before colon    | GET /a HTTP/1.1\\r\\nHost : example.com\\r\\n\\r\\n                    | 400 | closed",
            "bad chunk size        | POST /a HTTP/1.1\\r\\nHost: example.com\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\nzz\\r\\n | 200 | closed",
    })
    void badInputGetsAClearStatus(String name, String raw, int status, String after) {
        String out = exchange(raw.strip().replace("\\r\\n", "\r\n"));
        assertThat(out).startsWith("HTTP/1.1 " + status + " ");
        assertThat(ch.isOpen()).as("connection open").isEqualTo(after.equals("open"));
    }

    @Test
    void requestLineOverTheLimitGets414() {
        assertThat(exchange("GET /" + "a".repeat(9000) + " HTTP/1.1\r\nHost: example.com\r\n\r\n"))
                .startsWith("HTTP/1.1 414 ");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void headerBlockOverTheLimitGets431() {
        assertThat(exchange("GET /a HTTP/1.1\r\nHost: example.com\r\nX-Big: " + "b".repeat(33 * 1024) + "\r\n\r\n"))
                .startsWith("HTTP/1.1 431 ");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void tooManyHeaderFieldsGet431() {
        StringBuilder sb = new StringBuilder("GET /a HTTP/1.1\r\nHost: example.com\r\n");
        for (int i = 0; i < 100; i++) {
            sb.append("X-H").append(i).append(": v\r\n");
        }
        assertThat(exchange(sb.append("\r\n").toString())).startsWith("HTTP/1.1 431 ");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void ahundredHeaderFieldsAreFine() {
        StringBuilder sb = new StringBuilder("GET /a HTTP/1.1\r\nHost: example.com\r\n");
        for (int i = 0; i < 99; i++) {
            sb.append("X-H").append(i).append(": v\r\n");
        }
        assertThat(exchange(sb.append("\r\n").toString())).startsWith("HTTP/1.1 200 ");
    }
}
