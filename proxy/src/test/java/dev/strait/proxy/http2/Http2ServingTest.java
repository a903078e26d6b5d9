package dev.strait.proxy.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestCertificates.KeyType;
import dev.strait.proxy.testing.TestUpstream;
import dev.strait.proxy.testing.TlsClient;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.ReferenceCountUtil;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same routes over HTTP/2: h2 over TLS (ALPN), h2c with prior knowledge and by Upgrade, with the
 * JDK HttpClient, curl and a Netty client; respond, files and proxy; 421; a reset stream cancels its
 * upstream request.
 */
@org.junit.jupiter.api.Timeout(60)
class Http2ServingTest {
    static TestCertificates pki;
    static Issued local;
    static Issued named;
    static Path big;
    static byte[] bigBytes;
    @TempDir
    static Path dir;

    final ProxyHarness proxy = new ProxyHarness();
    TestUpstream app;
    TestUpstream stalled;

    @BeforeAll
    static void setUp() throws Exception {
        pki = new TestCertificates();
        local = pki.issue(KeyType.EC, "localhost", "localhost");
        named = pki.issue(KeyType.RSA, "a.example.test", "a.example.test");
        bigBytes = new byte[3 * 1024 * 1024 + 17];
        new Random(7).nextBytes(bigBytes);
        Files.createDirectories(dir.resolve("www/files")); // files: the request path under the root
        big = Files.write(dir.resolve("www/files/big.bin"), bigBytes);
        Files.writeString(dir.resolve("www/files/small.txt"), "small file\n");
        pki.writeCa(dir);
    }

    static String q(String s) {
        return "\"" + s.replace("\n", "\\n") + "\"";
    }

    @BeforeEach
    void start() throws Exception {
        app = proxy.upstream(TestUpstream.echo());
        stalled = proxy.upstream(TestUpstream.stall());
        proxy.startConfig("""
                accessLog: { enabled: false }
                listeners:
                  - { name: http, address: "127.0.0.1:0" }
                  - name: https
                    address: "127.0.0.1:0"
                    tls:
                      certificates:
                        - { cert: %s, key: %s }
                        - { cert: %s, key: %s }
                upstreams:
                  - { name: app, endpoints: [ "%s" ] }
                  - { name: stalled, endpoints: [ "%s" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Exact, value: /hello } } ]
                        respond: { status: 200, body: "hello, world!\\n", headers: { content-type: text/plain } }
                      - matches: [ { path: { type: Prefix, value: /files/ } } ]
                        files: { root: '%s' }
                      - matches: [ { path: { type: Prefix, value: /app/ } } ]
                        backends: [ { upstream: app } ]
                      - matches: [ { path: { type: Prefix, value: /slow/ } } ]
                        backends: [ { upstream: stalled } ]
                """.formatted(q(local.certPem()), q(local.keyPem()), q(named.certPem()), q(named.keyPem()),
                app.endpoint(), stalled.endpoint(), dir.resolve("www").toString().replace("'", "''")));
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    int httpsPort() {
        return proxy.server.address("https").getPort();
    }

    int httpPort() {
        return proxy.server.address("http").getPort();
    }

    HttpClient client() throws Exception {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(pki.clientContext())
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    static String sha(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    @Test
    void h2OverTlsServesRespondFilesAndProxy() throws Exception {
        HttpClient c = client();
        String base = "https://localhost:" + httpsPort();
        HttpResponse<String> hello = c.send(HttpRequest.newBuilder().timeout(Duration.ofSeconds(10)).uri(URI.create(base + "/hello")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(hello.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(hello.statusCode()).isEqualTo(200);
        assertThat(hello.body()).isEqualTo("hello, world!\n");
        assertThat(hello.headers().firstValue("content-type")).hasValue("text/plain");
        assertThat(hello.headers().firstValue("date")).isPresent();

        HttpResponse<byte[]> file = c.send(HttpRequest.newBuilder().timeout(Duration.ofSeconds(10)).uri(URI.create(base + "/files/big.bin")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(file.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(file.statusCode()).isEqualTo(200);
        assertThat(file.body().length).isEqualTo(bigBytes.length);
        assertThat(sha(file.body())).isEqualTo(sha(bigBytes));

        HttpResponse<String> small = c.send(HttpRequest.newBuilder().timeout(Duration.ofSeconds(10)).uri(URI.create(base + "/files/small.txt")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(small.body()).isEqualTo("small file\n");

        HttpResponse<Void> missing = c.send(HttpRequest.newBuilder().timeout(Duration.ofSeconds(10)).uri(URI.create(base + "/nope")).build(),
                HttpResponse.BodyHandlers.discarding());
        assertThat(missing.statusCode()).isEqualTo(404);

        // A body without a declared length goes upstream chunked; one with a length, with it.
        byte[] payload = new byte[5 * 1024 * 1024 + 3]; // several stream windows: flow control both ways
        new Random(1).nextBytes(payload);
        HttpResponse<byte[]> echoed = c.send(HttpRequest.newBuilder().timeout(Duration.ofSeconds(10)).uri(URI.create(base + "/app/echo"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(payload)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(echoed.statusCode()).isEqualTo(200);
        assertThat(sha(echoed.body())).isEqualTo(sha(payload));
        TestUpstream.Seen seen = app.last();
        assertThat(seen.header("x-forwarded-proto")).isEqualTo("https");
        assertThat(seen.header("host")).isEqualTo("localhost:" + httpsPort());
        assertThat(seen.uri()).isEqualTo("/app/echo");

        HttpResponse<String> head = c.send(HttpRequest.newBuilder().timeout(Duration.ofSeconds(10)).uri(URI.create(base + "/hello"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValue("content-length")).hasValue("14");
    }

    @Test
    void h2cByUpgradeWithTheJdkClient() throws Exception {
        // The JDK client asks for h2c with Upgrade on its first cleartext request, then uses HTTP/2.
        HttpClient c = client();
        String base = "http://127.0.0.1:" + httpPort();
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = c.send(HttpRequest.newBuilder().timeout(Duration.ofSeconds(10)).uri(URI.create(base + "/hello")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("hello, world!\n");
            if (i > 0) {
                assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
            }
        }
        HttpResponse<String> proxied = c.send(HttpRequest.newBuilder().timeout(Duration.ofSeconds(10)).uri(URI.create(base + "/app/x"))
                .POST(HttpRequest.BodyPublishers.ofString("ping")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(proxied.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(proxied.body()).isEqualTo("ping");
        assertThat(app.last().header("x-forwarded-proto")).isEqualTo("http");
    }

    /** Runs curl; returns its stdout. */
    static String curl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "10"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("curl %s", String.join(" ", args)).isZero();
        return out;
    }

    @Test
    void curlOverEveryWay() throws Exception {
        String ca = dir.resolve("ca.crt").toString();
        String fmt = "%{http_version} %{http_code} %{size_download}";
        String tls = "https://a.example.test:" + httpsPort();
        String resolve = "a.example.test:" + httpsPort() + ":127.0.0.1";
        assertThat(curl("--http2", "--cacert", ca, "--resolve", resolve, "-o", "/dev/null", "-w", fmt, tls + "/hello"))
                .isEqualTo("2 200 14");
        assertThat(curl("--http2", "--cacert", ca, "--resolve", resolve, "-o", "/dev/null", "-w", fmt,
                tls + "/files/big.bin")).isEqualTo("2 200 " + bigBytes.length);
        // ALPN: a client that offers only http/1.1 gets HTTP/1.1, with the file sent in chunks over TLS.
        assertThat(curl("--http1.1", "--cacert", ca, "--resolve", resolve, "-o", "/dev/null", "-w", fmt,
                tls + "/files/big.bin")).isEqualTo("1.1 200 " + bigBytes.length);
        // 421: the connection's certificate (a.example.test) does not cover the host asked for.
        assertThat(curl("--http2", "--cacert", ca, "--resolve", resolve, "-H", "Host: other.test", "-o", "/dev/null",
                "-w", fmt, tls + "/hello")).startsWith("2 421");
        String clear = "http://127.0.0.1:" + httpPort();
        assertThat(curl("--http2-prior-knowledge", "-o", "/dev/null", "-w", fmt, clear + "/hello")).isEqualTo("2 200 14");
        assertThat(curl("--http2-prior-knowledge", "-o", "/dev/null", "-w", fmt, clear + "/files/big.bin"))
                .isEqualTo("2 200 " + bigBytes.length);
        assertThat(curl("--http2-prior-knowledge", "-w", " " + fmt, "--data-binary", "abc", clear + "/app/p"))
                .isEqualTo("abc 2 200 3");
        assertThat(curl("--http2", "-o", "/dev/null", "-w", fmt, clear + "/hello")).isEqualTo("2 200 14"); // Upgrade
        assertThat(curl("--http1.1", "-o", "/dev/null", "-w", fmt, clear + "/hello")).isEqualTo("1.1 200 14");
    }

    @Test
    void alpnFallsBackToHttp11() throws Exception {
        try (TlsClient c = new TlsClient(pki.clientContext(), proxy.server.address("https"), "localhost", "http/1.1")) {
            assertThat(c.protocol()).isEqualTo("http/1.1");
            assertThat(c.get("/hello", "localhost").body()).isEqualTo("hello, world!\n");
        }
        try (TlsClient c = new TlsClient(pki.clientContext(), proxy.server.address("https"), "localhost", "h2", "http/1.1")) {
            assertThat(c.protocol()).isEqualTo("h2");
        }
        try (TlsClient c = new TlsClient(pki.clientContext(), proxy.server.address("https"), "localhost")) {
            assertThat(c.protocol()).as("no ALPN at all").isEmpty();
            assertThat(c.get("/hello", "localhost").status()).isEqualTo(200);
        }
    }

    /** An h2c connection (prior knowledge) from a Netty client; {@code goAway} counts GOAWAY frames received. */
    private Channel h2c(EventLoopGroup group, java.util.concurrent.atomic.AtomicInteger goAway) throws Exception {
        return new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(Http2FrameCodecBuilder.forClient().build(),
                                new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()),
                                new ChannelInboundHandlerAdapter() {
                                    @Override
                                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                        if (goAway != null && msg instanceof io.netty.handler.codec.http2.Http2GoAwayFrame) {
                                            goAway.incrementAndGet();
                                        }
                                        ReferenceCountUtil.release(msg);
                                    }
                                });
                    }
                }).connect("127.0.0.1", httpPort()).sync().channel();
    }

    @Test
    void drainSendsGoAwayAndClosesConnectionsThatHaveSaidNothing() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (java.net.Socket silent = new java.net.Socket("127.0.0.1", httpPort())) {
            var goAway = new java.util.concurrent.atomic.AtomicInteger();
            Channel conn = h2c(group, goAway);
            await().atMost(Duration.ofSeconds(5)).until(() -> proxy.server.openConnections() == 2);
            long start = System.nanoTime();
            assertThat(proxy.server.drain(Duration.ofSeconds(20))).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            assertThat(conn.closeFuture().await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(goAway.get()).as("two: 2^31-1, then the last stream after Netty's client acked the PING")
                    .isEqualTo(2);
            silent.setSoTimeout(5000);
            assertThat(silent.getInputStream().read()).as("closed by the proxy").isEqualTo(-1);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void aResetStreamCancelsItsUpstreamRequest() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel conn = h2c(group, null);
            Http2StreamChannel stream = new Http2StreamChannelBootstrap(conn).handler(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ReferenceCountUtil.release(msg);
                }
            }).open().sync().getNow();
            stream.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().method("GET").path("/slow/x")
                    .scheme("http").authority("127.0.0.1"), true)).sync();
            await().atMost(Duration.ofSeconds(5)).until(() -> stalled.requests() == 1 && stalled.openConnections() == 1);
            stream.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL)).sync();
            // The proxy gives up on the upstream request: its connection is closed, not pooled.
            await().atMost(Duration.ofSeconds(5)).until(() -> stalled.openConnections() == 0);
            assertThat(conn.isActive()).as("the connection outlives the stream").isTrue();
            conn.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * {@code Expect: 100-continue} over HTTP/2: an interim 100 HEADERS frame once the request goes to its action,
     * then the answer to the body sent after it; a request refused before its action (no rule) gets its answer
     * and a NO_ERROR reset instead (RFC 9113 8.1), so its client never sends the body.
     */
    @Test
    void expectContinueGetsAnInterim100OnlyFromTheAction() throws Exception {
        try (RawH2 c = new RawH2(proxy.server.address("http"))) {
            c.send(RawH2.frame(RawH2.HEADERS, RawH2.END_HEADERS, 1, expecting("/app/x")));
            assertThat(seen(c, c.readUntil(f -> f.stream() == 1 && f.type() == RawH2.HEADERS), 1))
                    .containsExactly("100");
            c.send(RawH2.frame(RawH2.DATA, RawH2.END_STREAM, 1, "hello".getBytes(StandardCharsets.US_ASCII)));
            assertThat(seen(c, c.answer(1), 1)).containsExactly("200", "data hello");

            c.send(RawH2.frame(RawH2.HEADERS, RawH2.END_HEADERS, 3, expecting("/nothing")));
            assertThat(seen(c, c.readUntil(f -> f.stream() == 3 && f.type() == RawH2.RST_STREAM), 3))
                    .containsExactly("404", "data 404 Not Found\n", "reset " + RawH2.NO_ERROR);
        }
    }

    /** A POST to {@code path} with {@code Expect: 100-continue}, its body to follow. */
    private static byte[] expecting(String path) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.writeBytes(new byte[] {(byte) 0x83, (byte) 0x86}); // :method POST, :scheme http (static table)
        RawH2.literal(b, ":path", path, false);
        RawH2.literal(b, ":authority", "a", false);
        RawH2.literal(b, "expect", "100-continue", false);
        return b.toByteArray();
    }

    /** What came on {@code stream}: each HEADERS frame's status, DATA as text, a reset with its code. */
    private static List<String> seen(RawH2 c, List<RawH2.Frame> frames, int stream) throws Exception {
        List<String> seen = new ArrayList<>();
        for (RawH2.Frame f : frames) {
            if (f.type() == RawH2.HEADERS) {
                CharSequence status = c.headers(f).status(); // decoded in order, whichever stream: HPACK state
                if (f.stream() == stream) {
                    seen.add(status.toString());
                }
            } else if (f.stream() == stream && f.type() == RawH2.DATA && f.payload().length > 0) {
                seen.add("data " + f.text());
            } else if (f.stream() == stream && f.type() == RawH2.RST_STREAM) {
                seen.add("reset " + f.errorCode());
            }
        }
        return seen;
    }

    /** 103 Early Hints from the upstream reach an HTTP/2 client as an interim HEADERS frame, then the answer. */
    @Test
    void earlyHintsGoAheadOfTheAnswerAsAnInterimHeadersFrame() throws Exception {
        app.behave(TestUpstream.raw("HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false));
        byte[] get = {(byte) 0x82, (byte) 0x86, 0x04, 0x06, '/', 'a', 'p', 'p', '/', 'x', 0x01, 0x01, 'a'};
        try (RawH2 c = new RawH2(proxy.server.address("http"))) {
            c.send(RawH2.frame(RawH2.HEADERS, RawH2.END_HEADERS | RawH2.END_STREAM, 1, get));
            List<String> seen = new ArrayList<>();
            for (RawH2.Frame f : c.answer(1)) {
                if (f.stream() == 1 && f.type() == RawH2.HEADERS) {
                    var h = c.headers(f);
                    seen.add(h.status() + (h.contains("link") ? " " + h.get("link") : "")
                            + ((f.flags() & RawH2.END_STREAM) != 0 ? " end" : ""));
                } else if (f.stream() == 1 && f.type() == RawH2.DATA) {
                    seen.add("data " + new String(f.payload(), java.nio.charset.StandardCharsets.US_ASCII));
                }
            }
            assertThat(seen).containsExactly("103 </a.css>; rel=preload", "200", "data ok");
        }
    }
}
