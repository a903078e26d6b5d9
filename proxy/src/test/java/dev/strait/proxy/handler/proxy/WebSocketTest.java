package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** WebSocket through the proxy: the tunnel starts only once the upstream answered 101. */
class WebSocketTest {
    private static final String HANDSHAKE = """
            GET /ws HTTP/1.1\r
            Host: chat.example\r
            Upgrade: websocket\r
            Connection: keep-alive, Upgrade\r
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
            Sec-WebSocket-Version: 13\r
            \r
            """;
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private TestUpstream echoServer() throws InterruptedException {
        return echoServer(null);
    }

    /** On the unix socket {@code socket} when not null. */
    private TestUpstream echoServer(java.nio.file.Path socket) throws InterruptedException {
        return h.add(TestUpstream.withPipeline(p -> p
                .addLast(new HttpServerCodec())
                .addLast(new HttpObjectAggregator(65536))
                .addLast(new WebSocketServerProtocolHandler("/ws"))
                .addLast(new SimpleChannelInboundHandler<TextWebSocketFrame>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, TextWebSocketFrame frame) {
                        ctx.writeAndFlush(new TextWebSocketFrame("echo: " + frame.text()));
                    }
                }), socket));
    }

    private static String config(String endpoint) {
        return """
                workers: 1
                upstreams: [ { name: chat, endpoints: [ "%s" ] } ]
                routes:
                  - name: chat
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: chat } ]
                """.formatted(endpoint);
    }

    /** A masked text frame, as a client must send (RFC 6455 5.3). */
    private static byte[] clientFrame(String text) {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        byte[] mask = new byte[4];
        ThreadLocalRandom.current().nextBytes(mask);
        byte[] f = new byte[2 + 4 + payload.length];
        f[0] = (byte) 0x81;
        f[1] = (byte) (0x80 | payload.length);
        System.arraycopy(mask, 0, f, 2, 4);
        for (int i = 0; i < payload.length; i++) {
            f[6 + i] = (byte) (payload[i] ^ mask[i % 4]);
        }
        return f;
    }

    private static String readFrame(InputStream in) throws IOException {
        int b0 = in.read();
        int len = in.read() & 0x7f;
        assertThat(b0).isEqualTo(0x81);
        return new String(in.readNBytes(len), StandardCharsets.UTF_8);
    }

    /** A checked WebSocket: the check is a plain GET (no Upgrade), and the tunnel opens only once it said yes. */
    @Test
    void aForwardAuthCheckComesBeforeTheTunnel() throws Exception {
        TestUpstream up = echoServer();
        TestUpstream auth = h.upstream("auth", (ctx, req, u) -> ctx.writeAndFlush(TestUpstream.response(
                "let me".equals(req.headers().get("x-pass")) ? 200 : 403, "")));
        h.start("""
                workers: 1
                upstreams: [ { name: chat, endpoints: [ "%s" ] }, { name: auth, endpoints: [ "%s" ] } ]
                routes:
                  - name: chat
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: chat } ]
                        forwardAuth: { upstream: auth }
                """.formatted(up.endpoint(), auth.endpoint()));
        RawClient refused = h.client();
        assertThat(refused.send(HANDSHAKE).read().status()).isEqualTo(403);
        assertThat(up.connections()).as("a refused upgrade never reaches the app").isZero();

        RawClient c = h.client();
        RawClient.Response r = c.send(HANDSHAKE.replace("Host:", "X-Pass: let me\r\nHost:")).read();
        assertThat(r.status()).isEqualTo(101);
        c.send(clientFrame("hello"));
        assertThat(readFrame(c.input())).isEqualTo("echo: hello");
        assertThat(auth.seen()).allSatisfy(seen -> {
            assertThat(seen.method()).isEqualTo("GET");
            assertThat(seen.header("upgrade")).isNull();
            assertThat(seen.header("sec-websocket-key")).isEqualTo("dGhlIHNhbXBsZSBub25jZQ==");
        });
    }

    /** Over TCP, and to an app on a unix socket (ADR 0103): a tunnel is a tunnel. */
    @org.junit.jupiter.params.ParameterizedTest(name = "upstream over {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"tcp", "unix"})
    void messagesFlowBothWaysAfterThe101(String over, @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        TestUpstream up = echoServer(over.equals("unix") ? dir.resolve("chat.sock") : null);
        h.start(config(up.endpoint()));
        RawClient c = h.client();
        RawClient.Response r = c.send(HANDSHAKE).read();
        assertThat(r.status()).isEqualTo(101);
        assertThat(r.header("upgrade")).isEqualToIgnoringCase("websocket");
        assertThat(r.header("connection")).isEqualToIgnoringCase("upgrade");
        assertThat(r.header("sec-websocket-accept")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
        for (int i = 0; i < 3; i++) {
            c.send(clientFrame("hello " + i));
            assertThat(readFrame(c.input())).isEqualTo("echo: hello " + i);
        }
    }

    @Test
    void closingOneSideClosesTheOther() throws Exception {
        TestUpstream up = echoServer();
        h.start(config(up.endpoint()));
        RawClient c = h.client();
        assertThat(c.send(HANDSHAKE).read().status()).isEqualTo(101);
        up.dropConnections();
        // Whatever the upstream said last (its handler sends a close frame) is relayed, then the end of the stream.
        byte[] rest = c.input().readAllBytes(); // a read timeout would fail the test
        assertThat(rest.length).isLessThan(64);
    }

    /**
     * A tunnel holds its request's in-flight place for as long as it lives (nginx's limit_conn counts an
     * upgraded connection the same way) and gives it back when either side closes it.
     */
    @Test
    void aTunnelHoldsItsInFlightPlaceUntilItCloses() throws Exception {
        TestUpstream up = echoServer();
        h.start(config(up.endpoint()).replace("- backends: [ { upstream: chat } ]",
                "- backends: [ { upstream: chat } ]\n        inFlightLimit: { requests: 1 }"));
        RawClient tunnel = h.client();
        assertThat(tunnel.send(HANDSHAKE).read().status()).isEqualTo(101);
        tunnel.send(clientFrame("still here"));
        assertThat(readFrame(tunnel.input())).isEqualTo("echo: still here");
        assertThat(h.get("/ws").status()).as("the tunnel holds the one place").isEqualTo(429);

        tunnel.close();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                .until(() -> h.get("/ws").status() != 429);
        // The upstream closes it this time: the place comes back as well.
        RawClient second = h.client();
        assertThat(second.send(HANDSHAKE).read().status()).isEqualTo(101);
        assertThat(h.get("/ws").status()).isEqualTo(429);
        up.dropConnections();
        second.input().readAllBytes();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                .until(() -> h.get("/ws").status() != 429);
    }

    /**
     * A WebSocket tunnel ends when either side ends, as nginx ends an upgraded connection: a client's half-close
     * (its FIN) is not passed on as one, unlike TLS passthrough's (TlsPassthroughTest), and both sides close.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"io_uring", "epoll", "nio"})
    void aClientsHalfCloseEndsTheTunnel(String transport) throws Exception {
        TestUpstream up = echoServer();
        h.start("transport: " + transport + "\n" + config(up.endpoint()));
        try (java.net.Socket c = new java.net.Socket(h.address().getAddress(), h.address().getPort())) {
            c.setSoTimeout(10_000);
            c.getOutputStream().write(HANDSHAKE.getBytes(StandardCharsets.US_ASCII));
            InputStream in = c.getInputStream();
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                head.append((char) in.read());
            }
            assertThat(head.toString()).startsWith("HTTP/1.1 101 ");
            org.awaitility.Awaitility.await().until(() -> up.openConnections() == 1);
            c.shutdownOutput();
            in.readAllBytes(); // the end comes (a read timeout would fail the test)
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                    .until(() -> up.openConnections() == 0);
        }
    }

    @Test
    void clientClosingClosesTheUpstreamSide() throws Exception {
        TestUpstream up = echoServer();
        h.start(config(up.endpoint()));
        RawClient c = new RawClient(h.address());
        assertThat(c.send(HANDSHAKE).read().status()).isEqualTo(101);
        org.awaitility.Awaitility.await().until(() -> up.openConnections() == 1);
        c.close();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
    }

    @Test
    void aQuietTunnelEndsAfterTheIdleTimeout() throws Exception {
        TestUpstream up = echoServer();
        h.start(config(up.endpoint()).replace("- backends: [ { upstream: chat } ]",
                "- backends: [ { upstream: chat } ]\n        timeouts: { idle: 300ms }"));
        RawClient c = h.client();
        assertThat(c.send(HANDSHAKE).read().status()).isEqualTo(101);
        c.send(clientFrame("still here"));
        assertThat(readFrame(c.input())).isEqualTo("echo: still here");
        long t0 = System.nanoTime();
        c.input().readAllBytes();
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - t0)).isBetween(java.time.Duration.ofMillis(200),
                java.time.Duration.ofSeconds(4));
    }

    /** How a tunnel ends in {@link #aTunnelIsLoggedWhenItEndsWithItsBytesAndItsWholeDuration}. */
    enum TunnelEnd { CLIENT_CLOSES, UPSTREAM_CLOSES, IDLE_TIMEOUT }

    /**
     * A tunnel is one access-log line, written when it ends however it ends, with status 101, the bytes
     * sent to the client over its life and its whole duration, as nginx logs it (ADR 0055). It was
     * logged at the 101, with 0 bytes and the handshake's time. The request is counted, and its latency
     * recorded, at the 101: the histogram keeps the handshake's time, not the tunnel's.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(TunnelEnd.class)
    void aTunnelIsLoggedWhenItEndsWithItsBytesAndItsWholeDuration(TunnelEnd end) throws Exception {
        TestUpstream up = echoServer();
        String idle = end == TunnelEnd.IDLE_TIMEOUT ? "\n        timeouts: { idle: 800ms }" : "";
        dev.strait.proxy.testing.CapturedAccessLog log = dev.strait.proxy.testing.CapturedAccessLog.start(h, """
                workers: 1
                upstreams: [ { name: chat, endpoints: [ "%s" ] } ]
                routes:
                  - name: probe
                    hosts: [ "test" ]
                    rules:
                      - respond: { body: "here" }
                  - name: chat
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: chat } ]%s
                """.formatted(up.endpoint(), idle));
        RawClient c = h.client();
        long asked = System.nanoTime();
        assertThat(c.send(HANDSHAKE).read().status()).isEqualTo(101);
        long opened = System.nanoTime();
        long received = 0;
        c.send(clientFrame("first"));
        received += 2 + readFrame(c.input()).length();
        Thread.sleep(300); // the tunnel is held open, quiet, for a while: what its duration must cover
        c.send(clientFrame("second"));
        received += 2 + readFrame(c.input()).length();
        java.time.Duration held = java.time.Duration.ofNanos(System.nanoTime() - opened);

        // Nothing logged for the tunnel while it is open: a request after it is the only line (one loop, one queue).
        assertThat(h.get("/here").status()).isEqualTo(200);
        assertThat(log.await(1)).extracting(l -> l.get("uri").asText()).containsExactly("/here");
        String meters = h.metrics.scrape();
        assertThat(meters).contains("strait_requests_total{route=\"chat\",status=\"101\"} 1.0")
                .contains("strait_request_duration_seconds_count{route=\"chat\"} 1");
        assertThat(histogramSum(meters, "chat")).as("the handshake's time, not the tunnel's")
                .isLessThanOrEqualTo((opened - asked) / 1e9);

        switch (end) {
            case CLIENT_CLOSES -> c.close();
            case UPSTREAM_CLOSES -> up.dropConnections();
            case IDLE_TIMEOUT -> { } // nothing more is sent
        }
        if (end != TunnelEnd.CLIENT_CLOSES) {
            received += c.input().readAllBytes().length; // what the upstream said last (a close frame), then the end
        }
        var line = log.await(2).get(1);
        assertThat(line.get("status").asInt()).isEqualTo(101);
        assertThat(line.get("uri").asText()).isEqualTo("/ws");
        assertThat(line.get("route").asText()).isEqualTo("chat");
        assertThat(line.get("upstream").asText()).isEqualTo(up.endpoint());
        assertThat(line.get("bytes").asLong()).as("bytes sent to the client through the tunnel").isEqualTo(received);
        assertThat(line.get("duration_ms").asDouble()).isGreaterThanOrEqualTo(held.toNanos() / 1e6);
        assertThat(log.lines()).hasSize(2);
        assertThat(h.metrics.scrape()).as("counted once, at the 101")
                .contains("strait_requests_total{route=\"chat\",status=\"101\"} 1.0");
    }

    private static double histogramSum(String scrape, String route) {
        String prefix = "strait_request_duration_seconds_sum{route=\"" + route + "\"} ";
        return scrape.lines().filter(l -> l.startsWith(prefix)).mapToDouble(l -> Double.parseDouble(l.substring(prefix.length())))
                .findFirst().orElseThrow(() -> new AssertionError("no " + prefix + " in " + scrape));
    }

    /**
     * A handshake is a GET without a body (RFC 6455 4.1). One with a body is an ordinary request: a tunnel
     * started at a 101 that came while the body was still arriving would carry its rest as tunnel bytes.
     */
    @Test
    void aHandshakeWithABodyOrOnHttp10IsNotForwardedAsAnUpgrade() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "plain"));
        h.start(config(up.endpoint()));
        RawClient c = h.client();
        RawClient.Response r = c.send(HANDSHAKE.replace("Sec-WebSocket-Version: 13\r\n",
                "Sec-WebSocket-Version: 13\r\nContent-Length: 5\r\n") + "hello").read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(up.last().header("upgrade")).isNull();
        assertThat(up.last().header("connection")).isNull();
        // Nor is one on HTTP/1.0, whose Upgrade a server must ignore (RFC 9110 7.8).
        RawClient old = h.client();
        assertThat(old.send(HANDSHAKE.replace("HTTP/1.1", "HTTP/1.0")).read().status()).isEqualTo(200);
        assertThat(up.last().header("upgrade")).isNull();
    }

    /**
     * An upstream that answers any head with 101 and then echoes every byte as it is: what the tunnel
     * carries, unframed, so a test sees exactly which bytes reached it.
     */
    private TestUpstream rawEcho() throws InterruptedException {
        return h.add(TestUpstream.withPipeline(p -> p.addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
            private final StringBuilder head = new StringBuilder();
            private boolean switched;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                io.netty.buffer.ByteBuf b = (io.netty.buffer.ByteBuf) msg;
                if (switched) {
                    ctx.writeAndFlush(b);
                    return;
                }
                head.append(b.toString(StandardCharsets.ISO_8859_1));
                b.release();
                int end = head.indexOf("\r\n\r\n");
                if (end >= 0) {
                    switched = true;
                    ctx.writeAndFlush(io.netty.buffer.Unpooled.copiedBuffer("HTTP/1.1 101 Switching Protocols\r\n"
                            + "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n" + head.substring(end + 4),
                            StandardCharsets.ISO_8859_1));
                }
            }
        })));
    }

    /**
     * Bytes a client sends right behind its handshake belong to whatever the answer makes of the
     * connection: after a 101, the tunnel's. They used to be decoded at once as a pipelined request and,
     * when the 101 came, dropped with it.
     */
    @Test
    void bytesSentBehindTheHandshakeReachTheTunnelEvenIfTheyLookLikeHttp() throws Exception {
        TestUpstream up = rawEcho();
        h.start(config(up.endpoint()));
        RawClient c = h.client();
        String early = "GET /next HTTP/1.1\r\nHost: chat.example\r\n\r\n";
        RawClient.Response r = c.send(HANDSHAKE + early).read();
        assertThat(r.status()).isEqualTo(101);
        assertThat(new String(c.input().readNBytes(early.length()), StandardCharsets.ISO_8859_1)).isEqualTo(early);
        c.send("after");
        assertThat(new String(c.input().readNBytes(5), StandardCharsets.ISO_8859_1)).isEqualTo("after");
    }

    /**
     * A client that stops reading a tunnel is cut at {@code limits.sendTimeout}, like any client that stops
     * reading (nginx's send_timeout does the same in an upgraded connection), and the upstream side with
     * it. It used to be held for the tunnel's stall limit (60 s at least), whatever sendTimeout said.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "upstream closes after sending: {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void aClientThatStopsReadingATunnelIsCutAtTheSendTimeout(boolean upstreamCloses) throws Exception {
        TestUpstream up = h.add(TestUpstream.withPipeline(p -> p.addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
            private boolean switched;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                io.netty.util.ReferenceCountUtil.release(msg);
                if (switched) {
                    return;
                }
                switched = true;
                ctx.write(io.netty.buffer.Unpooled.copiedBuffer("HTTP/1.1 101 Switching Protocols\r\n"
                        + "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n", StandardCharsets.ISO_8859_1));
                // 16 MiB: more than the sockets between here and the client hold; 4 MiB to close after: about
                // what loopback sockets hold, so that the end comes while the client still owes reading.
                for (int i = 0; i < (upstreamCloses ? 64 : 256); i++) {
                    ctx.write(io.netty.buffer.Unpooled.wrappedBuffer(new byte[64 * 1024]));
                }
                // Closing after the last byte: the proxy's side of the tunnel ended with bytes still owed to
                // the client, which once stayed open for as long as the client kept not reading.
                ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(f -> {
                    if (upstreamCloses) {
                        ctx.close();
                    }
                });
            }
        })));
        h.start("limits: { sendTimeout: 500ms }\n" + config(up.endpoint()));
        RawClient c = h.add(new RawClient(h.address(), 4096));
        c.send(HANDSHAKE); // and never read
        org.awaitility.Awaitility.await().until(() -> up.connections() == 1);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> h.metrics.openConnections() == 0 && up.openConnections() == 0);
    }

    /** The same bytes after a refused handshake are the next request, answered in order. */
    @Test
    void aRequestPipelinedBehindARefusedHandshakeIsAnswered() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(426, "upgrade refused"));
        h.start(config(up.endpoint()));
        RawClient c = h.client();
        c.send(HANDSHAKE + "GET /next HTTP/1.1\r\nHost: chat.example\r\n\r\n");
        assertThat(c.read().status()).isEqualTo(426);
        assertThat(c.read().status()).isEqualTo(426);
        assertThat(up.seen()).extracting(TestUpstream.Seen::uri).containsExactly("/ws", "/next");
    }

    @Test
    void anUpstreamThatRefusesTheUpgradeAnswersNormally() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(426, "upgrade refused"));
        h.start(config(up.endpoint()));
        RawClient c = h.client();
        RawClient.Response r = c.send(HANDSHAKE).read();
        assertThat(r.status()).isEqualTo(426);
        assertThat(up.last().header("upgrade")).isEqualTo("websocket");
        assertThat(up.last().header("connection")).isEqualTo("Upgrade");
        assertThat(c.send("GET /after HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(426);
    }
}
