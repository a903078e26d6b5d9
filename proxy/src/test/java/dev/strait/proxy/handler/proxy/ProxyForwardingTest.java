package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What goes upstream and what comes back: heads, headers, bodies, keep-alive, pipelining. */
class ProxyForwardingTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    static String config(String endpoint, String ruleExtra) {
        return """
                workers: 1
                upstreams:
                  - name: app
                    endpoints: [ "%s" ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        %s
                """.formatted(endpoint, ruleExtra);
    }

    @Test
    void aRuleSeesEncodedSlashesAsSeparatorsAndTheUpstreamGetsThePathAsSent() throws Exception {
        // Backends that decode %2F before routing (WSGI, Rails) must not be reachable past a deny rule.
        TestUpstream up = h.upstream(TestUpstream.reply(200, "app"));
        h.start("""
                workers: 1
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /admin } } ]
                        respond: { status: 403, body: denied }
                      - backends: [ { upstream: app } ]
                """.formatted(up.endpoint()));
        for (String p : new String[] {"/admin/users", "/admin%2Fusers", "/admin%2fusers", "/x/..%2Fadmin",
                "/x%2F..%2Fadmin/users", "/admin%5Cusers"}) {
            assertThat(h.get(p).status()).as(p).isEqualTo(403);
            assertThat(h2Status(p)).as("h2 " + p).isEqualTo("403");
        }
        assertThat(h.get("/..%2Fadmin").status()).as("climbs above the root once decoded").isEqualTo(400);
        assertThat(h2Status("/..%2Fadmin")).isEqualTo("400");
        RawClient.Response r = h.get("/api/projects/group%2Fproject?x=1");
        assertThat(r.text()).isEqualTo("app");
        assertThat(up.last().uri()).isEqualTo("/api/projects/group%2Fproject?x=1");
        assertThat(up.requests()).isEqualTo(1);
    }

    /** The status curl gets for {@code path} over h2c with prior knowledge, the path sent as written. */
    private String h2Status(String path) throws Exception {
        Process p = new ProcessBuilder("curl", "-sS", "--max-time", "10", "--http2-prior-knowledge", "--path-as-is",
                "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:" + h.address().getPort() + path)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    @Test
    void forwardsAGetAndRelaysTheAnswer() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "hello from upstream\n", "x-app", "1",
                "content-type", "text/plain"));
        h.start(config(up.endpoint(), ""));
        RawClient.Response r = h.get("/a/b?c=d");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("hello from upstream\n");
        assertThat(r.header("x-app")).isEqualTo("1");
        assertThat(r.header("content-type")).isEqualTo("text/plain");
        assertThat(r.header("content-length")).isEqualTo("20");
        assertThat(up.last().method()).isEqualTo("GET");
        assertThat(up.last().uri()).isEqualTo("/a/b?c=d");
    }

    @Test
    void keepAliveConnectionsAreReused() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config(up.endpoint(), ""));
        for (int i = 0; i < 5; i++) {
            assertThat(h.get("/x").status()).isEqualTo(200); // a new client connection each time
        }
        RawClient c = h.client();
        for (int i = 0; i < 5; i++) {
            assertThat(c.send("GET /y HTTP/1.1\r\nHost: a\r\n\r\n").read().text()).isEqualTo("ok");
        }
        assertThat(up.requests()).isEqualTo(10);
        assertThat(up.connections()).as("one upstream connection serves every request").isEqualTo(1);
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        TestUpstream up = h.upstream((ctx, req, u) -> ctx.writeAndFlush(TestUpstream.response(200, req.uri())));
        h.start(config(up.endpoint(), ""));
        RawClient c = h.client();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            sb.append("GET /p").append(i).append(" HTTP/1.1\r\nHost: a\r\n\r\n");
        }
        c.send(sb.toString());
        for (int i = 0; i < 10; i++) {
            assertThat(c.read().text()).isEqualTo("/p" + i);
        }
        assertThat(up.connections()).isEqualTo(1);
    }

    @Test
    void headersFollowTheRules() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok", "connection", "x-hop", "x-hop", "1",
                "keep-alive", "timeout=5", "proxy-connection", "keep-alive", "x-end", "2"));
        h.start(config(up.endpoint(), ""));
        RawClient.Response r = h.client().send("""
                GET /h HTTP/1.1\r
                Host: Example.COM:8080\r
                Connection: keep-alive, x-secret\r
                X-Secret: 1\r
                Keep-Alive: timeout=5\r
                Proxy-Connection: keep-alive\r
                Proxy-Authorization: Basic Zm9vOmJhcg==\r
                TE: trailers, deflate\r
                Upgrade: h2c\r
                X-Forwarded-For: 10.0.0.1\r
                X-Forwarded-For: 10.0.0.2\r
                X-Forwarded-Proto: https\r
                X-Forwarded-Host: evil.example\r
                X-Request-Id: abc-123\r
                X-Keep: yes\r
                \r
                """).read();
        assertThat(r.status()).isEqualTo(200);
        TestUpstream.Seen s = up.last();
        assertThat(s.header("host")).isEqualTo("Example.COM:8080");
        assertThat(s.header("x-secret")).isNull();
        assertThat(s.header("keep-alive")).isNull();
        assertThat(s.header("proxy-connection")).isNull();
        assertThat(s.header("proxy-authorization")).isNull();
        assertThat(s.header("upgrade")).isNull();
        assertThat(s.headers().getAll("te")).containsExactly("trailers");
        assertThat(s.headers().getAll("x-forwarded-for")).containsExactly("10.0.0.1, 10.0.0.2, 127.0.0.1");
        assertThat(s.headers().getAll("x-forwarded-proto")).containsExactly("http");
        assertThat(s.headers().getAll("x-forwarded-host")).containsExactly("Example.COM:8080");
        assertThat(s.headers().getAll("x-request-id")).containsExactly("abc-123");
        assertThat(s.header("x-keep")).isEqualTo("yes");
        assertThat(s.headers().contains("content-length")).isFalse();
        assertThat(s.headers().contains("transfer-encoding")).isFalse();
        // and on the way back
        assertThat(r.header("x-hop")).isNull();
        assertThat(r.header("keep-alive")).isNull();
        assertThat(r.header("proxy-connection")).isNull();
        assertThat(r.header("x-end")).isEqualTo("2");
        assertThat(r.header("connection")).isNull();
    }

    @Test
    void connectionSpecificFieldsOfAnAnswerStayBehindWhenConnectionNamesNoOthers() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok", "Connection", "keep-alive", "Keep-Alive",
                "timeout=5", "TE", "trailers", "Upgrade", "h2c", "Proxy-Connection", "keep-alive", "x-end", "2"));
        h.start(config(up.endpoint(), ""));
        RawClient.Response r = h.client().send("GET /h HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(r.status()).isEqualTo(200);
        for (String gone : new String[] {"connection", "keep-alive", "te", "upgrade", "proxy-connection"}) {
            assertThat(r.header(gone)).as(gone).isNull();
        }
        assertThat(r.header("x-end")).isEqualTo("2");
        assertThat(r.text()).isEqualTo("ok");
    }

    @Test
    void requestIdIsMadeWhenMissingOrNotSane() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config(up.endpoint(), ""));
        h.get("/1");
        String made = up.last().header("x-request-id");
        assertThat(made).matches("[0-9a-f]{32}");
        h.get("/2");
        assertThat(up.last().header("x-request-id")).matches("[0-9a-f]{32}").isNotEqualTo(made);
        h.get("/3", "X-Request-Id: has spaces in it");
        assertThat(up.last().header("x-request-id")).matches("[0-9a-f]{32}");
        h.get("/4", "X-Request-Id: " + "a".repeat(129));
        assertThat(up.last().header("x-request-id")).matches("[0-9a-f]{32}");
        h.get("/5", "X-Request-Id: " + "b".repeat(128));
        assertThat(up.last().header("x-request-id")).isEqualTo("b".repeat(128));
    }

    @Test
    void requestIdIsAlwaysMadeWhenIncomingOnesAreNotTrusted() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start("requestId: { trustIncoming: false }\n" + config(up.endpoint(), ""));
        h.get("/1", "X-Request-Id: abc-123");
        assertThat(up.last().header("x-request-id")).matches("[0-9a-f]{32}");
    }

    /** The contract's "kept where the client is trusted": a list of peers, here the test's 127.0.0.1 or not. */
    @Test
    void requestIdIsKeptFromTheListedPeersOnly() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start("requestId: { trustIncoming: [ 10.0.0.0/8, 127.0.0.1 ] }\n" + config(up.endpoint(), ""));
        h.get("/1", "X-Request-Id: abc-123");
        assertThat(up.last().header("x-request-id")).isEqualTo("abc-123");
        h.reload("requestId: { trustIncoming: [ 10.0.0.0/8 ] }\n" + config(up.endpoint(), ""));
        h.get("/2", "X-Request-Id: abc-123");
        assertThat(up.last().header("x-request-id")).matches("[0-9a-f]{32}");
    }

    @Test
    void hostRewriteReplacesHostButXForwardedHostKeepsTheClients() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config(up.endpoint(), "hostRewrite: internal.svc:8080"));
        h.get("/r");
        assertThat(up.last().header("host")).isEqualTo("internal.svc:8080");
        assertThat(up.last().header("x-forwarded-host")).isEqualTo("test");
    }

    @Test
    void absoluteFormTargetsGoUpstreamInOriginForm() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config(up.endpoint(), ""));
        h.client().send("GET http://other.example:81/abs?q=1 HTTP/1.1\r\nHost: other.example:81\r\n\r\n").read();
        assertThat(up.last().uri()).isEqualTo("/abs?q=1");
        assertThat(up.last().header("host")).isEqualTo("other.example:81");
    }

    @Test
    void contentLengthBodyGoesUpstreamWithOneFramingHeader() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.echo());
        h.start(config(up.endpoint(), ""));
        RawClient c = h.client();
        RawClient.Response r = c.send("POST /e HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n"
                + "Expect: 100-continue\r\n\r\nhello world").read();
        assertThat(r.status()).isEqualTo(100);
        r = c.read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(up.last().text()).isEqualTo("hello world");
        assertThat(up.last().headers().getAll("content-length")).containsExactly("11");
        assertThat(up.last().header("transfer-encoding")).isNull();
        assertThat(up.last().header("expect")).isNull();
    }

    @Test
    void chunkedBodyGoesUpstreamChunkedWithTrailers() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.echo());
        h.start(config(up.endpoint(), ""));
        RawClient c = h.client();
        c.send("POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        c.send("6\r\n world\r\n0\r\nx-sum: 42\r\n\r\n");
        RawClient.Response r = c.read();
        assertThat(r.text()).isEqualTo("hello world");
        assertThat(up.last().header("transfer-encoding")).isEqualTo("chunked");
        assertThat(up.last().header("content-length")).isNull();
        assertThat(up.last().header("x-sum")).isEqualTo("42"); // trailers, as the upstream got them
    }

    @Test
    void chunkedAnswerIsRelayedChunkedWithTrailers() throws Exception {
        TestUpstream up = h.add(TestUpstream.start((ctx, req, u) -> {
            DefaultHttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            ctx.write(head);
            ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer("part one, ", StandardCharsets.US_ASCII)));
            ctx.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer("part two", StandardCharsets.US_ASCII)));
            LastHttpContent last = new DefaultLastHttpContent();
            last.trailingHeaders().set("x-checksum", "abc");
            ctx.writeAndFlush(last);
        }));
        h.start(config(up.endpoint(), ""));
        RawClient c = h.client();
        RawClient.Response r = c.send("GET /chunks HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(r.header("transfer-encoding")).isEqualTo("chunked");
        assertThat(r.text()).isEqualTo("part one, part two");
        assertThat(r.trailers()).containsEntry("x-checksum", "abc");
        assertThat(c.send("GET /chunks HTTP/1.1\r\nHost: a\r\n\r\n").read().text()).isEqualTo("part one, part two");
        assertThat(up.connections()).isEqualTo(1);
    }

    @Test
    void largeBodiesStreamBothWays() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.echo());
        h.start(config(up.endpoint(), ""));
        byte[] body = new byte[8 << 20];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31 + (i >>> 10));
        }
        RawClient c = h.client();
        c.send(("PUT /big HTTP/1.1\r\nHost: a\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        Thread writer = new Thread(() -> {
            try {
                c.output().write(body);
                c.output().flush();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        writer.start();
        c.setTimeout(20_000);
        RawClient.Response r = c.read();
        writer.join(20_000);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body().length).isEqualTo(body.length);
        assertThat(Arrays.equals(r.body(), body)).isTrue();
    }

    @Test
    void headAnswersCarryTheLengthButNoBody() throws Exception {
        TestUpstream up = h.upstream((ctx, req, u) -> {
            var r = TestUpstream.response(200, "");
            r.headers().set(HttpHeaderNames.CONTENT_LENGTH, 1234);
            ctx.writeAndFlush(r);
        });
        h.start(config(up.endpoint(), ""));
        RawClient c = h.client();
        RawClient.Response r = c.send("HEAD /h HTTP/1.1\r\nHost: a\r\n\r\n").read(true);
        assertThat(r.header("content-length")).isEqualTo("1234");
        assertThat(c.send("HEAD /h HTTP/1.1\r\nHost: a\r\n\r\n").read(true).status()).isEqualTo(200);
        assertThat(up.connections()).as("the HEAD answer left the connection reusable").isEqualTo(1);
    }

    @Test
    void noContentAndNotModifiedHaveNoBody() throws Exception {
        TestUpstream up = h.upstream((ctx, req, u) -> {
            int s = req.uri().equals("/204") ? 204 : 304;
            var r = TestUpstream.response(s, "");
            r.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
            r.headers().set("etag", "\"x\"");
            ctx.writeAndFlush(r);
        });
        h.start(config(up.endpoint(), ""));
        RawClient c = h.client();
        assertThat(c.send("GET /204 HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(204);
        RawClient.Response r = c.send("GET /304 HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(r.status()).isEqualTo(304);
        assertThat(r.header("etag")).isEqualTo("\"x\"");
        assertThat(c.send("GET /204 HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(204);
        assertThat(up.connections()).isEqualTo(1);
    }

    @Test
    void closeDelimitedAnswerIsRelayedChunkedAndNotReused() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.raw("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end", true));
        h.start(config(up.endpoint(), ""));
        RawClient c = h.client();
        RawClient.Response r = c.send("GET /old HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(r.text()).isEqualTo("until the end");
        assertThat(r.header("transfer-encoding")).isEqualTo("chunked");
        assertThat(c.send("GET /old HTTP/1.1\r\nHost: a\r\n\r\n").read().text()).isEqualTo("until the end");
        assertThat(up.connections()).isEqualTo(2);
    }

    @Test
    void anUpstreamThatSaysCloseIsNotReused() throws Exception {
        TestUpstream up = h.upstream((ctx, req, u) -> ctx.writeAndFlush(TestUpstream.response(200, "bye",
                "connection", "close")).addListener(io.netty.channel.ChannelFutureListener.CLOSE));
        h.start(config(up.endpoint(), ""));
        RawClient c = h.client();
        RawClient.Response r = c.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(r.text()).isEqualTo("bye");
        assertThat(r.header("connection")).as("the upstream's close is not the client's").isNull();
        assertThat(c.send("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n").read().text()).isEqualTo("bye");
        assertThat(up.connections()).isEqualTo(2);
    }

    @Test
    void http10ClientsAreServed() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "old school"));
        h.start(config(up.endpoint(), ""));
        RawClient c = h.client();
        RawClient.Response r = c.send("GET /10 HTTP/1.0\r\n\r\n").read();
        assertThat(r.statusLine()).startsWith("HTTP/1.1 200");
        assertThat(r.text()).isEqualTo("old school");
        assertThat(up.last().header("host")).as("a client without Host: the endpoint's address").isEqualTo(up.endpoint());
        assertThat(c.closedByServer()).isTrue();
    }

    /** The client had its own 100 Continue, from the proxy, when it sent Expect: the upstream's is not relayed. */
    @Test
    void aHundredContinueFromTheUpstreamIsNotRelayed() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.raw("HTTP/1.1 100 Continue\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false));
        h.start(config(up.endpoint(), ""));
        RawClient.Response r = h.get("/i");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("ok");
    }

    @Test
    void metricsCountTriesPerUpstream() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(201, "ok"));
        h.start(config(up.endpoint(), ""));
        h.get("/m");
        h.get("/m");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(h.metrics.scrape())
                .contains("strait_upstream_requests_total{class=\"2xx\",upstream=\"app\"} 2.0")
                .contains("strait_upstream_connections_open{upstream=\"app\"} 1.0")
                .contains("strait_upstream_connections_idle{upstream=\"app\"} 1.0")
                .contains("strait_upstream_request_duration_seconds_count{upstream=\"app\"} 2")
                .contains("strait_upstream_request_duration_seconds_bucket{upstream=\"app\",le=\"60.0\"} 2")
                .contains("strait_upstream_endpoints_healthy{upstream=\"app\"} 1.0"));
    }

    /** A removed upstream's gauges go (its 0 healthy endpoints would fire alerts); they come back with it. */
    @Test
    void aRemovedUpstreamsGaugesGoAndComeBackWithIt() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config(up.endpoint(), ""));
        h.get("/m");
        assertThat(h.metrics.scrape()).contains("strait_upstream_endpoints_healthy{upstream=\"app\"} 1.0");
        h.reload("""
                routes: [ { name: site, hosts: [ "*" ], rules: [ { respond: { body: "none" } } ] } ]
                """);
        assertThat(h.metrics.scrape()).doesNotContain("strait_upstream_endpoints_healthy{upstream=\"app\"}")
                .doesNotContain("strait_upstream_connections_open{upstream=\"app\"}")
                .contains("strait_upstream_requests_total{class=\"2xx\",upstream=\"app\"} 1.0");
        h.reload(config(up.endpoint(), ""));
        assertThat(h.get("/m").status()).isEqualTo(200);
        assertThat(h.metrics.scrape()).contains("strait_upstream_endpoints_healthy{upstream=\"app\"} 1.0");
    }

    /** 103 Early Hints reach HTTP/1.1 clients ahead of the answer (RFC 9110 15.2); 1.0 clients get the answer alone. */
    @Test
    void earlyHintsAreRelayedAheadOfTheAnswer() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.raw("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n"
                + "Connection: x-hop\r\nX-Hop: secret\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false));
        h.start(config(up.endpoint(), ""));
        RawClient c = h.client();
        c.send("GET /page HTTP/1.1\r\nHost: a\r\n\r\n");
        RawClient.Response hints = c.read();
        assertThat(hints.status()).isEqualTo(103);
        assertThat(hints.header("link")).isEqualTo("</style.css>; rel=preload");
        assertThat(hints.header("x-hop")).as("hop-by-hop, named in Connection").isNull();
        RawClient.Response page = c.read();
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.text()).isEqualTo("ok");

        RawClient old = h.client();
        RawClient.Response r = old.send("GET /page HTTP/1.0\r\nHost: a\r\n\r\n").read();
        assertThat(r.status()).as("no interim answers to HTTP/1.0").isEqualTo(200);
        assertThat(r.text()).isEqualTo("ok");
    }

    static void unused(ChannelHandlerContext ctx) { }
}
