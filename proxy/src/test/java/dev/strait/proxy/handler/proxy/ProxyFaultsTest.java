package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyConfigs;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Upstreams that misbehave: bad framing, resets, stalls, refusals; and what retries do about them. */
class ProxyFaultsTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String endpoints, String upstreamExtra, String ruleExtra) {
        return ProxyConfigs.proxyAll(endpoints, upstreamExtra, ruleExtra);
    }

    static Stream<Arguments> badFraming() {
        return Stream.of(
                Arguments.of("Content-Length and Transfer-Encoding",
                        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
                Arguments.of("two different Content-Lengths",
                        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
                Arguments.of("a Content-Length list", "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nhello!"),
                Arguments.of("two Content-Lengths on HTTP/1.0",
                        "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
                Arguments.of("bytes after the body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA BYTES"),
                Arguments.of("bytes after a chunked body",
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n"),
                Arguments.of("not HTTP", "SSH-2.0-OpenSSH_9.2\r\n\r\n"),
                Arguments.of("a bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"),
                Arguments.of("an unrequested 101", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFraming")
    void badFramingGets502AndTheConnectionIsNotReused(String what, String answer) throws Exception {
        TestUpstream up = h.upstream(TestUpstream.raw(answer, false));
        h.start(config("\"" + up.endpoint() + "\"", "", ""));
        RawClient c = h.client();
        RawClient.Response r = c.send("GET /bad HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(r.status()).isEqualTo(502);
        assertThat(r.text()).isEqualTo("502 Bad Gateway\n");
        await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
        up.behave(TestUpstream.reply(200, "fine"));
        assertThat(c.send("GET /good HTTP/1.1\r\nHost: a\r\n\r\n").read().text()).isEqualTo("fine");
        assertThat(up.connections()).as("a new connection after the bad one").isEqualTo(2);
    }

    /** Writes {@code bytes}, then 50 ms later closes: with a reset (SO_LINGER 0) when {@code reset}, else cleanly. */
    private static TestUpstream.Behaviour answerThenClose(String bytes, boolean reset) {
        return (ctx, req, u) -> {
            ctx.pipeline().firstContext().writeAndFlush(io.netty.buffer.Unpooled.copiedBuffer(bytes,
                    java.nio.charset.StandardCharsets.US_ASCII));
            ctx.channel().eventLoop().schedule(() -> {
                if (reset) {
                    ctx.channel().config().setOption(io.netty.channel.ChannelOption.SO_LINGER, 0);
                }
                ctx.close();
            }, 50, java.util.concurrent.TimeUnit.MILLISECONDS);
        };
    }

    @Test
    void resetMidResponseCutsTheClientOff() throws Exception {
        TestUpstream up = h.upstream(answerThenClose("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"
                + "x".repeat(1000), true));
        h.start(config("\"" + up.endpoint() + "\"", "", ""));
        RawClient c = h.client();
        c.send("GET /r HTTP/1.1\r\nHost: a\r\n\r\n");
        RawClient.Response r = null;
        try {
            r = c.read();
        } catch (java.io.IOException expected) {
            // the client connection was closed: a started response cannot be completed
        }
        if (r != null) {
            assertThat(r.body().length).isLessThan(100000);
        }
        assertThat(c.closedByServer()).isTrue();
    }

    /**
     * A body without length ends with the connection; but only a clean close ends it (RFC 9112 6.3, 8).
     * Cut by a reset, it must reach the client as cut (no last chunk), never as a complete answer.
     */
    @ParameterizedTest(name = "reset={0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void aCloseDelimitedBodyIsCompleteOnlyWhenTheUpstreamClosedCleanly(boolean reset) throws Exception {
        TestUpstream up = h.upstream(answerThenClose(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\npartial-close-delimited", reset));
        h.start(config("\"" + up.endpoint() + "\"", "", ""));
        RawClient c = h.client();
        c.send("GET /r HTTP/1.1\r\nHost: a\r\n\r\n");
        if (reset) {
            c.setTimeout(10_000);
            String raw = new String(c.input().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(raw).startsWith("HTTP/1.1 200 OK").contains("partial-close-delimited")
                    .as("no last chunk: the client sees the cut").doesNotContain("\r\n0\r\n\r\n");
        } else {
            RawClient.Response r = c.read();
            assertThat(r.text()).isEqualTo("partial-close-delimited");
            assertThat(c.send("GET /again HTTP/1.1\r\nHost: a\r\n\r\n").read().text())
                    .isEqualTo("partial-close-delimited");
        }
    }

    /**
     * The idle timeout is for waiting on the upstream. A client reading slower than the upstream sends makes
     * the proxy stop reading the upstream for a while: that is not idleness, and the download goes on.
     */
    @Test
    void aSlowReaderIsNotCutOffByTheIdleTimeout() throws Exception {
        int size = 8 << 20;
        TestUpstream up = h.upstream((ctx, req, u) -> {
            io.netty.handler.codec.http.FullHttpResponse r = TestUpstream.response(200, "");
            r.headers().set("content-length", size);
            ctx.write(new io.netty.handler.codec.http.DefaultHttpResponse(r.protocolVersion(), r.status(), r.headers()));
            r.release();
            ctx.writeAndFlush(new io.netty.handler.codec.http.DefaultLastHttpContent(
                    io.netty.buffer.Unpooled.wrappedBuffer(new byte[size])));
        });
        h.start(config("\"" + up.endpoint() + "\"", "", "timeouts: { idle: 500ms }"));
        RawClient c = h.add(new RawClient(h.address(), 65536));
        c.send("GET /big HTTP/1.1\r\nHost: a\r\n\r\n");
        java.io.InputStream in = c.input();
        long read = 0;
        byte[] buf = new byte[32 << 10];
        long slowUntil = System.nanoTime() + Duration.ofMillis(2500).toNanos();
        while (System.nanoTime() < slowUntil) { // about 640 KB/s, for 2.5 s: the proxy waits on us for seconds
            int n = in.read(buf);
            assertThat(n).as("the proxy cut the download off").isPositive();
            read += n;
            Thread.sleep(50);
        }
        for (int n; (n = in.read(buf)) > 0; ) {
            read += n;
            if (read >= size) {
                break; // the head's bytes count too: the whole body is in once this many arrived
            }
        }
        assertThat(read).isGreaterThanOrEqualTo(size);
    }

    /** A try's time is the upstream's to answer: it starts when the request (and its slow upload) has ended. */
    @Test
    void perTryTimeoutRunsFromTheEndOfTheUpload() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.echo());
        h.start(config("\"" + up.endpoint() + "\"", "", "timeouts: { perTry: 500ms }"));
        RawClient c = h.client();
        c.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 8\r\n\r\n");
        for (int i = 0; i < 8; i++) {
            Thread.sleep(150); // 1.2 s of upload in all: longer than the per-try timeout
            c.send(String.valueOf(i));
        }
        RawClient.Response r = c.read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("01234567");
    }

    @Test
    void resetBeforeAnsweringGets502() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.hangUp());
        h.start(config("\"" + up.endpoint() + "\"", "", "retries: { attempts: 0 }"));
        assertThat(h.get("/x").status()).isEqualTo(502);
    }

    @Test
    void stalledUpstreamGets504() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.stall());
        h.start(config("\"" + up.endpoint() + "\"", "", "timeouts: { perTry: 300ms }"));
        long t0 = System.nanoTime();
        RawClient.Response r = h.get("/slow");
        assertThat(r.status()).isEqualTo(504);
        assertThat(r.text()).isEqualTo("504 Gateway Timeout\n");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofMillis(250), Duration.ofSeconds(4));
        await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
    }

    @Test
    void idleTimeoutAndRequestTimeoutGive504() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.stall());
        h.start(config("\"" + up.endpoint() + "\"", "", "timeouts: { idle: 200ms }"));
        assertThat(h.get("/idle").status()).isEqualTo(504);
        h.reload(config("\"" + up.endpoint() + "\"", "", "timeouts: { request: 200ms }"));
        assertThat(h.get("/request").status()).isEqualTo(504);
    }

    @Test
    void connectionRefusedGets502AfterRetrying() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        h.start(config("\"127.0.0.1:" + closedPort + "\"", "outlierDetection: { consecutiveFailures: 0 }",
                "retries: { attempts: 2, backoff: 1ms }"));
        RawClient.Response r = h.get("/refused");
        assertThat(r.status()).isEqualTo(502);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(h.metrics.scrape())
                .contains("strait_upstream_retries_total{upstream=\"app\"} 2.0")
                .contains("strait_upstream_requests_total{class=\"failed\",upstream=\"app\"} 3.0"));
    }

    @Test
    void noEndpointsGets503() throws Exception {
        h.start(config("", "", ""));
        assertThat(h.get("/none").status()).isEqualTo(503);
    }

    @Test
    void connectFailureIsRetriedOnAnotherEndpoint() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config("\"127.0.0.1:" + closedPort + "\", \"" + up.endpoint() + "\"", "", ""));
        for (int i = 0; i < 6; i++) {
            assertThat(h.get("/x").status()).isEqualTo(200);
        }
    }

    @Test
    void listedStatusesAreRetriedForIdempotentRequestsOnly() throws Exception {
        java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
        TestUpstream up = h.upstream((ctx, req, u) -> ctx.writeAndFlush(
                TestUpstream.response(n.incrementAndGet() % 2 == 1 ? 503 : 200, "try " + n.get())));
        h.start(config("\"" + up.endpoint() + "\"", "outlierDetection: { consecutiveFailures: 0 }",
                "retries: { attempts: 1, retryOn: [ \"503\" ], backoff: 1ms }"));
        RawClient.Response r = h.get("/get");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("try 2");
        RawClient.Response post = h.client().send("POST /post HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi").read();
        assertThat(post.status()).as("a POST is not retried").isEqualTo(503);
        assertThat(post.text()).isEqualTo("try 3");
    }

    @Test
    void retryBudgetKeepsRetriesUnderAFifthOfRequests() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(503, "busy"));
        h.start(config("\"" + up.endpoint() + "\"", "outlierDetection: { consecutiveFailures: 0 }",
                "retries: { attempts: 3, retryOn: [ \"503\" ], backoff: 1ms }"));
        int requests = 60;
        RawClient c = h.client();
        for (int i = 0; i < requests; i++) {
            assertThat(c.send("GET /b HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(503);
        }
        int retries = up.requests() - requests;
        assertThat(retries).as("retries with attempts 3 and no budget would be %d", 3 * requests)
                .isLessThanOrEqualTo((int) (0.2 * requests) + 3 + 2)
                .isGreaterThanOrEqualTo(3);
    }

    @Test
    void staleKeepAliveConnectionIsRetriedOnAFreshOne() throws Exception {
        // Each connection answers once, then closes instead of answering the next request: as when the
        // upstream's keep-alive timeout ends just as the proxy reuses the connection.
        TestUpstream up = h.upstream((ctx, req, u) -> {
            int conn = u.last().connection();
            if (u.seen().stream().filter(s -> s.connection() == conn).count() > 1) {
                ctx.close();
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, "ok"));
            }
        });
        h.start(config("\"" + up.endpoint() + "\"", "", "retries: { attempts: 0 }"));
        assertThat(h.get("/1").status()).isEqualTo(200);
        assertThat(h.get("/2").status()).as("retried once on a fresh connection, outside the attempts").isEqualTo(200);
        assertThat(up.connections()).isEqualTo(2);
        assertThat(up.requests()).isEqualTo(3);
    }

    /** Each connection answers its first request, then closes on the next instead of answering it. */
    private static TestUpstream.Behaviour answerOncePerConnection() {
        return (ctx, req, u) -> {
            int conn = u.last().connection();
            if (u.seen().stream().filter(s -> s.connection() == conn).count() > 1) {
                ctx.close();
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, "got " + u.last().text()));
            }
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("smallBodies")
    void staleKeepAliveConnectionReplaysTheSmallBodyOfAnIdempotentRequest(String framing, String request)
            throws Exception {
        TestUpstream up = h.upstream(answerOncePerConnection());
        h.start(config("\"" + up.endpoint() + "\"", "", "retries: { attempts: 0 }"));
        RawClient c = h.client();
        assertThat(c.send("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);
        RawClient.Response r = c.send(request).read();
        assertThat(r.status()).as("the PUT went again, body and all, on a fresh connection").isEqualTo(200);
        assertThat(r.text()).isEqualTo("got hello world");
        assertThat(up.connections()).isEqualTo(2);
        assertThat(up.last().text()).isEqualTo("hello world");
    }

    static Stream<Arguments> smallBodies() {
        return Stream.of(
                Arguments.of("Content-Length",
                        "PUT /p HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world"),
                Arguments.of("chunked",
                        "PUT /p HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n"));
    }

    @Test
    void staleKeepAliveConnectionDoesNotReplayAPostOrABodyOverTheLimit() throws Exception {
        TestUpstream up = h.upstream(answerOncePerConnection());
        h.start(config("\"" + up.endpoint() + "\"", "", "retries: { attempts: 0 }"));
        assertThat(h.get("/1").status()).isEqualTo(200);
        RawClient.Response post = h.client().send("POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello")
                .read();
        assertThat(post.status()).as("not idempotent: the upstream may have acted on it").isEqualTo(502);

        assertThat(h.get("/2").status()).isEqualTo(200);
        String big = "x".repeat(ProxyCall.REPLAY_LIMIT + 1);
        RawClient.Response put = h.client()
                .send("PUT /p HTTP/1.1\r\nHost: a\r\nContent-Length: " + big.length() + "\r\n\r\n" + big).read();
        assertThat(put.status()).as("more than REPLAY_LIMIT is streamed, not kept").isEqualTo(502);
    }

    @Test
    void requestBodyIsNeverRetriedOnceSent() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.hangUp());
        h.start(config("\"" + up.endpoint() + "\"", "",
                "retries: { attempts: 3, retryOn: [ reset, refused-stream ], backoff: 1ms }"));
        RawClient.Response r = h.client().send("PUT /p HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello").read();
        assertThat(r.status()).isEqualTo(502);
        assertThat(up.requests()).isEqualTo(1);
    }
}
