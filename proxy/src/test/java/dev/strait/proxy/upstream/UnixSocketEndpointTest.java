package dev.strait.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.H2cServer;
import dev.strait.proxy.testing.ProxyConfigs;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP upstreams on unix sockets ({@code unix:/path}, ADR 0103): an app in the same pod listening on a socket
 * in a shared volume (uvicorn's {@code --uds}, gunicorn's {@code --bind unix:}), reached through the real proxy
 * on each transport, with its connections kept, its health checked and a missing socket answered 502.
 */
class UnixSocketEndpointTest {
    private final ProxyHarness h = new ProxyHarness();
    @TempDir
    Path dir;

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String transport, String endpoints, String extra) {
        return "transport: " + transport + "\n" + ProxyConfigs.proxyAll(endpoints, extra, "");
    }

    @ParameterizedTest
    @ValueSource(strings = {"auto", "epoll", "nio"})
    void requestsAndBodiesGoThroughTheSocketOnKeptConnections(String transport) throws Exception {
        TestUpstream app = h.add(TestUpstream.startOnUnixSocket(dir.resolve("app.sock"), TestUpstream.echo()));
        h.start(config(transport, "\"" + app.endpoint() + "\"", ""));
        byte[] body = new byte[200_000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) ('a' + i % 26);
        }
        try (RawClient c = new RawClient(h.address())) {
            for (int i = 0; i < 3; i++) {
                RawClient.Response r = c.send(("POST /echo/" + i + " HTTP/1.1\r\nHost: app.example\r\nContent-Length: "
                        + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)).send(body).read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo(body);
            }
        }
        assertThat(app.requests()).isEqualTo(3);
        assertThat(app.last().uri()).isEqualTo("/echo/2");
        assertThat(app.last().header("host")).as("the client's Host goes up, as for TCP").isEqualTo("app.example");
        assertThat(app.connections()).as("one kept connection").isEqualTo(1);
    }

    @Test
    void anH2cUpstreamOnASocketGetsItsStreams() throws Exception {
        java.util.List<String> paths = new java.util.concurrent.CopyOnWriteArrayList<>();
        H2cServer app = h.add(new H2cServer(() -> new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                try {
                    if (msg instanceof Http2HeadersFrame f) {
                        paths.add(f.headers().path().toString());
                        ctx.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("204"), true));
                    }
                } finally {
                    ReferenceCountUtil.release(msg);
                }
            }
        }, dir.resolve("h2c.sock")));
        h.start(config("auto", "\"" + app.endpoint() + "\"", "protocol: h2c"));
        try (RawClient c = new RawClient(h.address())) {
            assertThat(c.send("GET /a HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(204);
            assertThat(c.send("GET /b HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(204);
        }
        assertThat(paths).containsExactly("/a", "/b");
    }

    @Test
    void aClientWithoutHostSendsLocalhostAsNginxDoes() throws Exception {
        TestUpstream app = h.add(TestUpstream.startOnUnixSocket(dir.resolve("app.sock"), TestUpstream.echo()));
        h.start(config("auto", "\"" + app.endpoint() + "\"", ""));
        try (RawClient c = new RawClient(h.address())) {
            assertThat(c.send("GET /old HTTP/1.0\r\n\r\n").read().status()).isEqualTo(200);
        }
        assertThat(app.last().header("host")).isEqualTo("localhost");
    }

    @Test
    void aMissingSocketIs502NamingTheEndpoint() throws Exception {
        Path missing = dir.resolve("gone.sock");
        h.start(config("auto", "\"unix:" + missing + "\"", ""));
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (RawClient c = new RawClient(h.address())) {
            assertThat(c.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(502);
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        original.print(log);
        assertThat(log).contains("endpoint unix:" + missing);
    }

    @Test
    void aMissingSocketsRequestsAreRetriedOnTheOtherEndpoint() throws Exception {
        TestUpstream app = h.add(TestUpstream.startOnUnixSocket(dir.resolve("app.sock"), TestUpstream.name()));
        h.start(config("auto", "\"unix:" + dir.resolve("gone.sock") + "\", \"" + app.endpoint() + "\"", ""));
        try (RawClient c = new RawClient(h.address())) {
            for (int i = 0; i < 4; i++) {
                // A connect failure is retried on the other endpoint (nothing was sent): every request is served.
                assertThat(c.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);
            }
        }
        assertThat(app.requests()).isEqualTo(4);
    }

    @Test
    void healthChecksReachTheSocket() throws Exception {
        AtomicBoolean healthy = new AtomicBoolean(true);
        TestUpstream app = h.add(TestUpstream.startOnUnixSocket(dir.resolve("app.sock"), (ctx, req, u) ->
                ctx.writeAndFlush(TestUpstream.response(req.uri().equals("/healthz") && !healthy.get() ? 503 : 200,
                        req.headers().get("host")))));
        h.start(config("auto", "\"" + app.endpoint() + "\"",
                "healthCheck: { path: /healthz, interval: 100ms, timeout: 1s, unhealthyThreshold: 1, healthyThreshold: 1 }"
                        + "\n    panicThreshold: 0"));
        await().atMost(Duration.ofSeconds(5)).until(() -> app.seen().stream().anyMatch(s -> s.uri().equals("/healthz")));
        assertThat(app.seen().stream().filter(s -> s.uri().equals("/healthz")).findFirst().orElseThrow().header("host"))
                .isEqualTo("localhost");
        healthy.set(false);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(h.metrics.scrape()).contains("strait_upstream_endpoints_healthy{upstream=\"app\"} 0.0"));
        try (RawClient c = new RawClient(h.address())) {
            assertThat(c.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(503);
        }
    }
}
