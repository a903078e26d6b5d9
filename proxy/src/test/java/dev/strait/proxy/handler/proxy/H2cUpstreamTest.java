package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestDnsServer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * HTTP/1.1 clients through the proxy to an h2c upstream (a real Netty HTTP/2 server on loopback,
 * prior knowledge): what goes up, what comes back (trailers too, as gRPC needs), one multiplexed
 * connection per loop, retries on REFUSED_STREAM, timeouts, and a stream reset when the client leaves.
 */
class H2cUpstreamTest {
    private final ProxyHarness proxy = new ProxyHarness();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger streams = new AtomicInteger();
    private final AtomicInteger resetsSeen = new AtomicInteger();
    private final AtomicInteger refuseFirst = new AtomicInteger();
    private final List<Http2Headers> seen = new CopyOnWriteArrayList<>();
    private Channel server;

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        if (server != null) {
            server.close().sync();
        }
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
    }

    /** The upstream: answers by path once the request has ended. */
    private final class Stream extends ChannelInboundHandlerAdapter {
        private Http2Headers headers;
        private final StringBuilder body = new StringBuilder();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                boolean end = false;
                if (msg instanceof Http2HeadersFrame h) {
                    if (headers == null) {
                        headers = h.headers();
                        seen.add(headers);
                    }
                    end = h.isEndStream();
                } else if (msg instanceof Http2DataFrame d) {
                    body.append(d.content().toString(StandardCharsets.UTF_8));
                    end = d.isEndStream();
                }
                if (end) {
                    answer(ctx);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void answer(ChannelHandlerContext ctx) {
            String path = headers.path().toString();
            switch (path) {
                case "/grpc" -> {
                    ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")
                            .add("content-type", "application/grpc")));
                    ctx.write(new DefaultHttp2DataFrame(Unpooled.copiedBuffer("\0\0\0\0\5hello", StandardCharsets.UTF_8)));
                    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers()
                            .add("grpc-status", "0").add("grpc-message", "ok"), true));
                }
                case "/refused" -> {
                    if (refuseFirst.getAndIncrement() == 0) {
                        ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.REFUSED_STREAM));
                    } else {
                        reply(ctx, "second try");
                    }
                }
                case "/big" -> {
                    ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")));
                    for (int i = 0; i < 64; i++) {
                        ByteBuf b = ctx.alloc().buffer(16384);
                        b.writeZero(16384);
                        ctx.write(new DefaultHttp2DataFrame(b, i == 63));
                    }
                    ctx.flush();
                }
                case "/stall" -> { }
                case "/status600" -> ctx.writeAndFlush(new DefaultHttp2HeadersFrame(
                        new DefaultHttp2Headers().status("600"), true));
                default -> reply(ctx, headers.method() + " " + path + " authority=" + headers.authority()
                        + " xfp=" + headers.get("x-forwarded-proto") + " xff=" + headers.get("x-forwarded-for")
                        + " te=" + headers.get("te") + " connection=" + headers.get("connection")
                        + " body=" + body);
            }
        }

        private void reply(ChannelHandlerContext ctx, String text) {
            ByteBuf b = Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
            ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")
                    .add("content-type", "text/plain").addInt("content-length", b.readableBytes())));
            ctx.writeAndFlush(new DefaultHttp2DataFrame(b, true));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (headers != null && "/stall".contentEquals(headers.path())) {
                resetsSeen.incrementAndGet();
            }
            ctx.fireChannelInactive();
        }
    }

    private String startUpstream() throws Exception {
        return startUpstream(null);
    }

    /** With {@code tls}, HTTP/2 over TLS (ALPN h2), else h2c. */
    private String startUpstream(io.netty.handler.ssl.SslContext tls) throws Exception {
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.incrementAndGet();
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
                                new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                                    @Override
                                    protected void initChannel(Http2StreamChannel s) {
                                        streams.incrementAndGet();
                                        s.pipeline().addLast(new Stream());
                                    }
                                }));
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        return "127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
    }

    private void startProxy(String endpoint, String ruleExtra) throws Exception {
        startProxy("", endpoint, ruleExtra);
    }

    /** With {@code top} (whole lines) at the top of the config. */
    private void startProxy(String top, String endpoint, String ruleExtra) throws Exception {
        proxy.start(top + """
                workers: 1
                upstreams: [ { name: grpc, endpoints: [ "%s" ], protocol: h2c } ]
                routes:
                  - name: r
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: grpc } ]
                        %s
                """.formatted(endpoint, ruleExtra));
    }

    /**
     * The one h2c connection per loop follows a moved endpoint name: once the new answer is at hand, new streams
     * go to a new connection at the new address (nothing listens there: 502), none to the old connection.
     */
    @Test
    void theMultiplexedConnectionFollowsAMovedName() throws Exception {
        String port = startUpstream().substring("127.0.0.1:".length());
        try (TestDnsServer dns = new TestDnsServer()) {
            dns.add("grpc.strait.test", "127.0.0.1", 1);
            startProxy("resolver: { nameservers: [ \"" + dns.address() + "\" ] }\n", "grpc.strait.test:" + port,
                    "retries: { attempts: 0 }");
            assertThat(proxy.get("/a").status()).isEqualTo(200);
            assertThat(proxy.get("/b").status()).isEqualTo(200);
            assertThat(streams.get()).isEqualTo(2);
            dns.add("grpc.strait.test", "127.0.0.3", 1);
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> proxy.get("/c").status() == 502);
            assertThat(connections.get()).as("one connection, to the old address, ever").isEqualTo(1);
        }
    }

    @Test
    void requestsGoUpAsStreamsWithTheForwardedHeaders() throws Exception {
        startProxy(startUpstream(), "");
        RawClient c = proxy.client();
        RawClient.Response r = c.send("POST /echo?x=1 HTTP/1.1\r\nHost: api.example.com\r\nConnection: keep-alive\r\n"
                + "TE: trailers\r\nX-Real-IP: 6.6.6.6\r\nContent-Length: 5\r\n\r\nhello").read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("POST /echo?x=1 authority=api.example.com xfp=http xff=127.0.0.1 te=trailers"
                + " connection=null body=hello");
        assertThat(seen.get(0).getAll("x-real-ip")).as("the client, never the client's own").extracting(Object::toString)
                .containsExactly("127.0.0.1");
        RawClient.Response chunked = c.send("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n").read();
        assertThat(chunked.text()).endsWith("body=abcdef");
    }

    /**
     * {@code curl --http2 -d} on a cleartext URL sends {@code Upgrade: h2c} on a POST, which the server
     * does not take (it has a body): the request is an ordinary one and goes up over HTTP/2. Only a
     * WebSocket handshake needs HTTP/1.1 upstream; any Upgrade header used to send it there (a 502).
     */
    @Test
    void aRequestWithAnUpgradeOtherThanWebSocketGoesUpOverHttp2() throws Exception {
        startProxy(startUpstream(), "");
        RawClient c = proxy.client();
        RawClient.Response r = c.send("POST /echo HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\nContent-Length: 5\r\n\r\nhello").read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("POST /echo authority=a xfp=http xff=127.0.0.1 te=null connection=null body=hello");
        assertThat(seen.get(0).contains("upgrade")).isFalse();
        assertThat(seen.get(0).contains("http2-settings")).isFalse();
        RawClient.Response other = c.send("GET /echo HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: foo\r\n\r\n")
                .read();
        assertThat(other.text()).startsWith("GET /echo authority=a");
        assertThat(streams.get()).isEqualTo(2);
    }

    @Test
    void anAffinityCookieComesBackFromAnH2cUpstream() throws Exception {
        String endpoint = startUpstream();
        proxy.start("""
                workers: 1
                upstreams:
                  - { name: grpc, endpoints: [ "%s" ], protocol: h2c, loadBalancer: consistent-hash,
                      hashOn: { source: cookie, name: pin, setCookie: {} } }
                routes:
                  - name: r
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: grpc } ]
                """.formatted(endpoint));
        RawClient c = proxy.client();
        RawClient.Response first = c.send("GET /echo HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.header("set-cookie")).matches("pin=[0-9a-f]{16}; Path=/; HttpOnly");
        RawClient.Response again = c.send("GET /echo HTTP/1.1\r\nHost: a\r\nCookie: "
                + first.header("set-cookie").split(";")[0] + "\r\n\r\n").read();
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.header("set-cookie")).isNull();
    }

    @Test
    void trailersComeBackToAnHttp1Client() throws Exception {
        startProxy(startUpstream(), "");
        RawClient.Response r = proxy.client().send("POST /grpc HTTP/1.1\r\nHost: a\r\nTE: trailers\r\n"
                + "Content-Type: application/grpc\r\nContent-Length: 0\r\n\r\n").read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-type")).isEqualTo("application/grpc");
        assertThat(r.header("transfer-encoding")).isEqualTo("chunked");
        assertThat(r.trailers()).containsEntry("grpc-status", "0").containsEntry("grpc-message", "ok");
    }

    @Test
    void concurrentRequestsShareOneConnection() throws Exception {
        startProxy(startUpstream(), "");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                results.add(pool.submit(() -> {
                    try (RawClient c = new RawClient(proxy.address())) {
                        return c.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read().status();
                    }
                }));
            }
            for (Future<Integer> f : results) {
                assertThat(f.get()).isEqualTo(200);
            }
        } finally {
            pool.shutdown();
        }
        assertThat(streams.get()).isEqualTo(40);
        assertThat(connections.get()).as("one event loop, one multiplexed connection").isEqualTo(1);
    }

    @Test
    void aRefusedStreamIsRetried() throws Exception {
        startProxy(startUpstream(), "");
        RawClient.Response r = proxy.client().send("GET /refused HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(r.text()).isEqualTo("second try");
        assertThat(refuseFirst.get()).isEqualTo(2);
    }

    @Test
    void aLargeAnswerStreamsThrough() throws Exception {
        startProxy(startUpstream(), "");
        RawClient c = new RawClient(proxy.address(), 8192);
        proxy.add(c);
        RawClient.Response r = c.send("GET /big HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(r.body()).hasSize(64 * 16384);
    }

    @Test
    void aStalledUpstreamTimesOutAndItsStreamIsReset() throws Exception {
        startProxy(startUpstream(), "timeouts: { request: 300ms }");
        RawClient.Response r = proxy.client().send("GET /stall HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(r.status()).isEqualTo(504);
        await().atMost(Duration.ofSeconds(5)).until(() -> resetsSeen.get() == 1);
    }

    @Test
    void aClientThatLeavesResetsTheStream() throws Exception {
        startProxy(startUpstream(), "");
        try (RawClient c = new RawClient(proxy.address())) {
            c.send("GET /stall HTTP/1.1\r\nHost: a\r\n\r\n");
            await().atMost(Duration.ofSeconds(5)).until(() -> streams.get() == 1);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> resetsSeen.get() == 1);
        // The connection itself stays for the next request.
        assertThat(proxy.client().send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);
        assertThat(connections.get()).isEqualTo(1);
    }

    @Test
    void aStatusOutsideTheRangeIsAProtocolError() throws Exception {
        startProxy(startUpstream(), "retries: { attempts: 1, retryOn: [ 5xx ] }");
        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
        RawClient.Response r;
        try {
            r = proxy.client().send("GET /status600 HTTP/1.1\r\nHost: a\r\n\r\n").read();
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        original.print(log);
        assertThat(r.status()).isEqualTo(502);
        assertThat(log).contains(":status 600 outside 100-599").doesNotContain("Exception");
    }

    @Test
    void aClosedPortIs502() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        startProxy("127.0.0.1:" + port, "");
        assertThat(proxy.client().send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(502);
    }

    @Test
    void h2UpstreamsSpeakHttp2OverTlsChosenByAlpn() throws Exception {
        dev.strait.proxy.testing.TestCertificates pki = new dev.strait.proxy.testing.TestCertificates();
        var issued = pki.issue(dev.strait.proxy.testing.TestCertificates.KeyType.EC, "upstream.test", "upstream.test");
        var tls = io.netty.handler.ssl.SslContextBuilder.forServer(issued.key(), issued.certificate())
                .applicationProtocolConfig(new io.netty.handler.ssl.ApplicationProtocolConfig(
                        io.netty.handler.ssl.ApplicationProtocolConfig.Protocol.ALPN,
                        io.netty.handler.ssl.ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        io.netty.handler.ssl.ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        io.netty.handler.ssl.ApplicationProtocolNames.HTTP_2))
                .build();
        String endpoint = startUpstream(tls);
        proxy.start("""
                workers: 1
                upstreams:
                  - name: grpc
                    endpoints: [ "%s" ]
                    protocol: h2
                    tls: { ca: "%s", serverName: upstream.test }
                routes:
                  - name: r
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: grpc } ]
                """.formatted(endpoint, pki.caPem().replace("\n", "\\n")));
        RawClient c = proxy.client();
        assertThat(c.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read().text()).startsWith("GET /x authority=a");
        RawClient.Response grpc = c.send("POST /grpc HTTP/1.1\r\nHost: a\r\nTE: trailers\r\nContent-Length: 0\r\n\r\n").read();
        assertThat(grpc.trailers()).containsEntry("grpc-status", "0");
        assertThat(seen).allSatisfy(h -> assertThat(h.scheme().toString()).isEqualTo("https"));
        assertThat(connections.get()).isEqualTo(1);
    }

    @Test
    void anH2UpstreamWithAnUntrustedCertificateIs502() throws Exception {
        dev.strait.proxy.testing.TestCertificates pki = new dev.strait.proxy.testing.TestCertificates();
        var issued = pki.issue(dev.strait.proxy.testing.TestCertificates.KeyType.EC, "upstream.test", "upstream.test");
        var tls = io.netty.handler.ssl.SslContextBuilder.forServer(issued.key(), issued.certificate()).build();
        String endpoint = startUpstream(tls);
        proxy.start("""
                workers: 1
                upstreams: [ { name: grpc, endpoints: [ "%s" ], protocol: h2, tls: { serverName: upstream.test } } ]
                routes: [ { name: r, hosts: [ "*" ], rules: [ { backends: [ { upstream: grpc } ] } ] } ]
                """.formatted(endpoint));
        assertThat(proxy.client().send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(502);
    }
}
