package dev.strait.proxy.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.CapturedAccessLog;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code mirrors} on a real proxy, with real upstreams on sockets: the client is answered by the action
 * alone while a copy of its request, body and id included, goes to each sampled mirror, whose answer, slowness or
 * failure never reaches the client.
 */
class MirrorTest {
    private final ProxyHarness h = new ProxyHarness();
    private final List<AutoCloseable> closing = new ArrayList<>();
    /** What the mirror saw, as it saw it. */
    private final BlockingQueue<TestUpstream.Seen> mirrored = new LinkedBlockingQueue<>();

    @AfterEach
    void stop() throws Exception {
        h.close();
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    /** Everything to {@code app} (endpoint first), each request copied to {@code shadow} (endpoint second). */
    private static final String MIRRORED = """
            upstreams:
              - { name: app, endpoints: [ "%s" ] }
              - { name: shadow, endpoints: [ "%s" ] }
            routes:
              - name: site
                hosts: [ "*" ]
                rules:
                  - backends: [ { upstream: app } ]
                    mirrors: [ { upstream: shadow } ]
            """;

    /** The app answers "app" and its body's size; the mirror answers 500 with a body the client must never see. */
    private TestUpstream[] appAndMirror() throws Exception {
        TestUpstream app = h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200,
                "app " + req.method() + " " + req.uri() + " body=" + req.content().readableBytes())));
        TestUpstream mirror = h.upstream("shadow", (ctx, req, up) -> {
            mirrored.add(up.last());
            ctx.writeAndFlush(TestUpstream.response(500, "shadow says no", "x-from", "shadow"));
        });
        return new TestUpstream[] {app, mirror};
    }

    private TestUpstream.Seen nextMirrored() throws InterruptedException {
        TestUpstream.Seen s = mirrored.poll(10, TimeUnit.SECONDS);
        assertThat(s).as("a copy reached the mirror").isNotNull();
        return s;
    }

    @Test
    void theClientGetsTheActionsAnswerAndTheMirrorACopyWithTheSameId() throws Exception {
        TestUpstream[] up = appAndMirror();
        CapturedAccessLog log = CapturedAccessLog.start(h, MIRRORED.formatted(up[0].endpoint(), up[1].endpoint()));

        RawClient.Response r = h.get("/orders/7?full=1", "X-Request-Id: " + "not an id at all");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("app GET /orders/7?full=1 body=0");
        assertThat(r.header("x-from")).isNull();

        TestUpstream.Seen copy = nextMirrored();
        TestUpstream.Seen original = up[0].last();
        assertThat(copy.method()).isEqualTo("GET");
        assertThat(copy.uri()).isEqualTo("/orders/7?full=1");
        assertThat(copy.header("host")).isEqualTo(original.header("host")).isEqualTo("test");
        assertThat(copy.header("x-request-id")).as("one id for the request and its copy")
                .matches("[0-9a-f]{32}").isEqualTo(original.header("x-request-id"));
        assertThat(copy.header("x-forwarded-for")).isEqualTo(original.header("x-forwarded-for")).isEqualTo("127.0.0.1");
        assertThat(copy.header("x-real-ip")).isEqualTo("127.0.0.1");
        assertThat(copy.header("x-forwarded-proto")).isEqualTo("http");
        assertThat(log.await(1)).singleElement().satisfies(line -> {
            assertThat(line.get("request_id").asText()).isEqualTo(original.header("x-request-id"));
            assertThat(line.get("upstream").asText()).as("the action's, not the mirror's").endsWith(":" + up[0].port());
        });

        // A client's own sane id is kept for both (requestId.trustIncoming is on by default).
        h.get("/again", "X-Request-Id: trace-42");
        assertThat(nextMirrored().header("x-request-id")).isEqualTo("trace-42");
        assertThat(up[0].last().header("x-request-id")).isEqualTo("trace-42");
        awaitCount("answered", 2);
    }

    @Test
    void bodiesAreCopiedWholeFixedOrChunkedAndNotWhereTheMirrorTakesNone() throws Exception {
        TestUpstream[] up = appAndMirror();
        TestUpstream bodiless = h.upstream("bodiless", (ctx, req, u) -> {
            mirrored.add(u.last());
            ctx.writeAndFlush(TestUpstream.response(204, ""));
        });
        h.start("""
                upstreams:
                  - { name: app, endpoints: [ "%s" ] }
                  - { name: shadow, endpoints: [ "%s" ] }
                  - { name: bodiless, endpoints: [ "%s" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /heads } } ]
                        backends: [ { upstream: app } ]
                        mirrors: [ { upstream: bodiless, body: false, hostRewrite: shadow.internal } ]
                      - matches: [ { path: { type: Prefix, value: /fixed } } ]
                        respond: { status: 202, body: "taken" }
                        mirrors: [ { upstream: shadow } ]
                      - backends: [ { upstream: app } ]
                        mirrors: [ { upstream: shadow } ]
                """.formatted(up[0].endpoint(), up[1].endpoint(), bodiless.endpoint()));
        byte[] body = new byte[300_000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) ('a' + i % 26);
        }

        try (RawClient c = h.client()) {
            c.send(("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            c.send(body);
            assertThat(c.read().text()).isEqualTo("app POST /upload body=300000");
            TestUpstream.Seen copy = nextMirrored();
            assertThat(copy.method()).isEqualTo("POST");
            assertThat(copy.body()).isEqualTo(body);
            assertThat(copy.header("content-length")).isEqualTo("300000");

            // Chunked, with a trailer: re-chunked to both.
            c.send("POST /chunks HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n6\r\n world\r\n0\r\nx-sum: 11\r\n\r\n");
            assertThat(c.read().text()).isEqualTo("app POST /chunks body=11");
            TestUpstream.Seen chunked = nextMirrored();
            assertThat(chunked.text()).isEqualTo("hello world");
            assertThat(chunked.header("x-sum")).isEqualTo("11");

            // An action that takes no body: the copy still gets it.
            c.send("POST /fixed HTTP/1.1\r\nHost: test\r\nContent-Length: 9\r\n\r\nwebhook!!");
            RawClient.Response fixed = c.read();
            assertThat(fixed.status()).isEqualTo(202);
            assertThat(nextMirrored().text()).isEqualTo("webhook!!");

            // body: false sends the request bodiless, with the mirror's own Host.
            c.send("PUT /heads/1 HTTP/1.1\r\nHost: test\r\nContent-Length: 4\r\n\r\nbody");
            assertThat(c.read().text()).isEqualTo("app PUT /heads/1 body=4");
            TestUpstream.Seen head = nextMirrored();
            assertThat(head.method()).isEqualTo("PUT");
            assertThat(head.body()).isEmpty();
            assertThat(head.header("content-length")).isIn(null, "0");
            assertThat(head.header("host")).isEqualTo("shadow.internal");
            assertThat(up[0].last().header("host")).isEqualTo("test");
        }
    }

    @Test
    void aMirrorThatNeverAnswersNeitherDelaysTheClientNorOutlivesItsTimeout() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.name());
        TestUpstream stalled = h.upstream("stalled", (ctx, req, u) -> mirrored.add(u.last()));
        h.start("""
                upstreams:
                  - { name: app, endpoints: [ "%s" ] }
                  - { name: stalled, endpoints: [ "%s" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        timeouts: { request: 1s }
                        mirrors: [ { upstream: stalled } ]
                """.formatted(app.endpoint(), stalled.endpoint()));

        long start = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            assertThat(h.get("/" + i).text()).isEqualTo("app");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no request waited for the mirror")
                .isLessThan(Duration.ofMillis(900));
        for (int i = 0; i < 5; i++) {
            nextMirrored();
        }
        awaitCount("failed", 5); // each copy's own request timeout ended it
        awaitTrue(() -> stalled.openConnections() == 0, "the copies' connections closed");
    }

    @Test
    void aMirrorThatFallsBehindTheClientsUploadIsGivenUpWhileTheUploadCompletes() throws Exception {
        TestUpstream app = h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200,
                "body=" + req.content().readableBytes())));
        // A mirror that accepts and reads the head, then never reads again: its socket buffers fill up.
        ServerSocket deaf = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        closing.add(deaf);
        List<Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread acceptor = new Thread(() -> {
            try {
                while (!deaf.isClosed()) {
                    Socket s = deaf.accept();
                    s.setReceiveBufferSize(4096);
                    accepted.add(s);
                    closing.add(s);
                }
            } catch (java.io.IOException closed) {
                // the test is over
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        h.start("""
                upstreams:
                  - { name: app, endpoints: [ "%s" ] }
                  - { name: deaf, endpoints: [ "127.0.0.1:%d" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        mirrors: [ { upstream: deaf } ]
                """.formatted(app.endpoint(), deaf.getLocalPort()));

        int size = 24 << 20;
        try (RawClient c = h.client()) {
            c.send(("POST /big HTTP/1.1\r\nHost: test\r\nContent-Length: " + size + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            byte[] block = new byte[64 * 1024];
            Arrays.fill(block, (byte) 'z');
            OutputStream out = c.output();
            for (int sent = 0; sent < size; sent += block.length) {
                out.write(block);
            }
            out.flush();
            assertThat(c.read().text()).isEqualTo("body=" + size);
        }
        awaitCount("abandoned", 1);
        assertThat(scrape()).contains("strait_upstream_connections_open{upstream=\"deaf\"} 0.0");
    }

    @Test
    void aShareOfRequestsIsCopiedAndNoMoreThanTheCapAtOnce() throws Exception {
        TestUpstream stalled = h.upstream("stalled", (ctx, req, u) -> { });
        TestUpstream sampled = h.upstream("sampled", (ctx, req, u) -> ctx.writeAndFlush(TestUpstream.response(200, "")));
        h.start("""
                upstreams:
                  - { name: stalled, endpoints: [ "%s" ] }
                  - { name: sampled, endpoints: [ "%s" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /half } } ]
                        respond: { body: "ok" }
                        mirrors: [ { upstream: sampled, percent: 50 } ]
                      - respond: { body: "ok" }
                        timeouts: { request: 3s }
                        mirrors: [ { upstream: stalled } ]
                """.formatted(stalled.endpoint(), sampled.endpoint()));

        int over = 40;
        try (RawClient c = h.client()) {
            for (int i = 0; i < 400; i++) {
                c.send("GET /half HTTP/1.1\r\nHost: test\r\n\r\n");
                assertThat(c.read().text()).isEqualTo("ok");
            }
            awaitTrue(() -> count("sampled", "answered") + count("sampled", "failed") == sampled.requests(),
                    "every copy sent was answered");
            // 400 draws at one half: 200 expected, sd 10; outside 120..280 is beyond 8 sd.
            assertThat(sampled.requests()).isBetween(120, 280);

        }
        // On connections of 500 requests each: a connection serves no more than 1000 (keep-alive's own cap).
        for (int sent = 0; sent < MirrorHandler.MAX_IN_FLIGHT + over; ) {
            try (RawClient c = h.client()) {
                for (int i = 0; i < 500 && sent < MirrorHandler.MAX_IN_FLIGHT + over; i++, sent++) {
                    c.send("GET /stall HTTP/1.1\r\nHost: test\r\n\r\n");
                    assertThat(c.read().text()).isEqualTo("ok");
                }
            }
        }
        assertThat(count("stalled", "skipped")).isEqualTo(over);
        awaitTrue(() -> stalled.requests() == MirrorHandler.MAX_IN_FLIGHT, "every copy in flight reached the mirror");
        awaitCount("failed", MirrorHandler.MAX_IN_FLIGHT + (int) count("sampled", "failed"));
        awaitTrue(() -> stalled.openConnections() == 0, "the copies' connections closed");
    }

    @Test
    void anHttp2RequestIsCopiedAsAnHttp11One() throws Exception {
        TestUpstream[] up = appAndMirror();
        h.start(MIRRORED.formatted(up[0].endpoint(), up[1].endpoint()));
        HttpClient client = h.h2cClient("/warm-up");
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(h.uri("/h2/post"))
                .POST(HttpRequest.BodyPublishers.ofString("over h2c")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(r.body()).isEqualTo("app POST /h2/post body=8");
        TestUpstream.Seen copy = nextMirrored();
        if (copy.uri().equals("/warm-up")) {
            copy = nextMirrored();
        }
        assertThat(copy.uri()).isEqualTo("/h2/post");
        assertThat(copy.text()).isEqualTo("over h2c");
        assertThat(copy.header("x-request-id")).isEqualTo(up[0].last().header("x-request-id"));
    }

    @Test
    void aWebSocketHandshakeIsNotCopied() throws Exception {
        TestUpstream[] up = appAndMirror();
        h.start(MIRRORED.formatted(up[0].endpoint(), up[1].endpoint()));
        h.get("/socket", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                "Sec-WebSocket-Version: 13");
        h.get("/plain");
        assertThat(nextMirrored().uri()).isEqualTo("/plain");
        assertThat(up[1].seen()).extracting(TestUpstream.Seen::uri).containsExactly("/plain");
    }

    // ---- metrics ----

    private String scrape() {
        return h.metrics.scrape();
    }

    private long count(String upstream, String outcome) {
        Matcher m = Pattern.compile("strait_mirror_requests_total\\{outcome=\"" + outcome
                + "\",route=\"site\",upstream=\"" + upstream + "\"} ([0-9.]+)").matcher(scrape());
        return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
    }

    /** Waits until the copies ending {@code outcome}, over every mirror, reach {@code n}. */
    private void awaitCount(String outcome, int n) {
        awaitTrue(() -> total(outcome) == n, "copies " + outcome + ": " + n);
        assertThat(total(outcome)).isEqualTo(n);
    }

    private long total(String outcome) {
        Matcher m = Pattern.compile("strait_mirror_requests_total\\{outcome=\"" + outcome + "\"[^}]*} ([0-9.]+)")
                .matcher(scrape());
        long sum = 0;
        while (m.find()) {
            sum += (long) Double.parseDouble(m.group(1));
        }
        return sum;
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        Awaitility.await(what).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(10))
                .until(condition::getAsBoolean);
    }
}
