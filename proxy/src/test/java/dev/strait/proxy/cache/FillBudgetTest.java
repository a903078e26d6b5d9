package dev.strait.proxy.cache;

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
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What fetches for the cache hold while their bodies arrive (audit 2, cache finding 1): nothing is
 * reserved at the head, the capture grows with the bytes received, and all fills in flight together stay
 * within the fill budget; a fill that would go past it streams on uncached and its waiters go upstream.
 */
class FillBudgetTest {
    /** cache.maxBytes 1 MiB: a fill budget of 512 KiB. */
    private static final long MAX_BYTES = 1 << 20;
    private static final long BUDGET = MAX_BYTES / 2;

    private final ProxyHarness h = new ProxyHarness();
    /** Requests the upstream holds, by path, until the test writes their answers. */
    private final Map<String, ChannelHandlerContext> held = new ConcurrentHashMap<>();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private TestUpstream start(TestUpstream.Behaviour b) throws Exception {
        TestUpstream up = h.upstream(b);
        h.start("""
                workers: 2
                cache: { maxBytes: %d }
                upstreams:
                  - name: app
                    endpoints: [ "%s" ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        cache: { xCacheHeader: true, hitForPass: 0s }
                """.formatted(MAX_BYTES, up.endpoint()));
        assertThat(h.server.cache().fillBudget()).isEqualTo(BUDGET);
        return up;
    }

    /** The first request for a path is held (its head and body are written by the test); later ones are answered whole. */
    private TestUpstream.Behaviour holdFirst(int length) {
        return (ctx, req, up) -> {
            if (held.putIfAbsent(req.uri(), ctx) != null) {
                ctx.writeAndFlush(TestUpstream.response(200, body(length), "cache-control", "max-age=600"));
            }
        };
    }

    private static String body(int length) {
        char[] c = new char[length];
        Arrays.fill(c, 'b');
        return new String(c);
    }

    private static void writeHead(ChannelHandlerContext ctx, int contentLength) {
        DefaultHttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, contentLength).set("cache-control", "max-age=600");
        ctx.writeAndFlush(r);
    }

    private static void writeBody(ChannelHandlerContext ctx, int bytes, boolean last) {
        var part = Unpooled.wrappedBuffer(body(bytes).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        ctx.writeAndFlush(last ? new DefaultLastHttpContent(part) : new DefaultHttpContent(part));
    }

    private double fillBytes() {
        return h.metrics.registry().find("strait_cache_fill_bytes").gauge().value();
    }

    private long counter(String name) {
        var c = h.metrics.registry().find(name).functionCounter();
        return c == null ? -1 : (long) c.count();
    }

    /** A client that reads its whole answer in the background (so the proxy is never held back by it). */
    private CompletableFuture<RawClient.Response> fetch(String path) throws Exception {
        RawClient c = h.client();
        c.setTimeout(30_000);
        c.send("GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n");
        // A thread of its own: three reads block at once, and on two CPUs the common pool runs one task
        // at a time (JDK 17 gave each async task its own thread there, JDK 25 does not).
        return CompletableFuture.supplyAsync(() -> {
            try {
                return c.read();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, task -> {
            Thread t = new Thread(task, "fetch " + path);
            t.setDaemon(true);
            t.start();
        });
    }

    @Test
    void theBodyIsCapturedAsItArrivesNotReservedAtTheHead() throws Exception {
        TestUpstream up = start(holdFirst(400_000));
        CompletableFuture<RawClient.Response> first = fetch("/big");
        await().atMost(Duration.ofSeconds(5)).until(() -> held.containsKey("/big"));
        ChannelHandlerContext ctx = held.get("/big");
        writeHead(ctx, 400_000);
        writeBody(ctx, 1000, false);
        // 1000 bytes arrived of 400,000 announced: the capture holds its first 8 KiB, not the whole length.
        await().atMost(Duration.ofSeconds(5)).until(() -> fillBytes() > 0);
        assertThat(fillBytes()).isLessThanOrEqualTo(8192);
        writeBody(ctx, 399_000, true);
        RawClient.Response r = first.get(10, TimeUnit.SECONDS);
        assertThat(r.body()).hasSize(400_000);
        assertThat(r.header("x-cache")).isEqualTo("MISS");
        await().atMost(Duration.ofSeconds(5)).until(() -> fillBytes() == 0);
        RawClient.Response hit = h.get("/big");
        assertThat(hit.header("x-cache")).isEqualTo("HIT");
        assertThat(hit.body()).hasSize(400_000);
        assertThat(up.requests()).isEqualTo(1);
    }

    @Test
    void fillsInFlightStayWithinTheBudgetAndTheRestPassThrough() throws Exception {
        TestUpstream up = start((ctx, req, u) -> {
            if (held.putIfAbsent(req.uri(), ctx) != null) {
                ctx.writeAndFlush(TestUpstream.response(200, body(req.uri().equals("/one") ? 200_000 : 400_000),
                        "cache-control", "max-age=600"));
            }
        });
        // One fill holds 150,000 bytes of its 200,000 ...
        CompletableFuture<RawClient.Response> one = fetch("/one");
        await().atMost(Duration.ofSeconds(5)).until(() -> held.containsKey("/one"));
        writeHead(held.get("/one"), 200_000);
        writeBody(held.get("/one"), 150_000, false);
        await().atMost(Duration.ofSeconds(5)).until(() -> fillBytes() >= 150_000);

        // ... so another of 400,000 cannot fit in the 512 KiB beside it: it streams on uncached, and the
        // request that waited for it goes upstream itself.
        CompletableFuture<RawClient.Response> two = fetch("/two");
        await().atMost(Duration.ofSeconds(5)).until(() -> held.containsKey("/two"));
        CompletableFuture<RawClient.Response> waiter = fetch("/two");
        await().atMost(Duration.ofSeconds(5)).until(() -> counter("strait_cache_coalesced") == 1);
        writeHead(held.get("/two"), 400_000);
        writeBody(held.get("/two"), 400_000, true);
        RawClient.Response leader = two.get(10, TimeUnit.SECONDS);
        assertThat(leader.body()).hasSize(400_000);
        assertThat(leader.header("x-cache")).isEqualTo("MISS");
        RawClient.Response waited = waiter.get(10, TimeUnit.SECONDS);
        assertThat(waited.body()).hasSize(400_000);
        assertThat(waited.header("x-cache")).isEqualTo("PASS");
        assertThat(counter("strait_cache_fills_over_budget")).isEqualTo(1);
        assertThat(fillBytes()).isGreaterThanOrEqualTo(150_000).isLessThanOrEqualTo(BUDGET);
        assertThat(up.requests()).isEqualTo(3);

        // The first fill ends and is stored; the budget is free again.
        writeBody(held.get("/one"), 50_000, true);
        assertThat(one.get(10, TimeUnit.SECONDS).body()).hasSize(200_000);
        await().atMost(Duration.ofSeconds(5)).until(() -> fillBytes() == 0);
        assertThat(h.get("/one").header("x-cache")).isEqualTo("HIT");
        // The other was not stored (nor marked hit-for-pass): its next request fetches, and that one fits.
        RawClient.Response again = h.get("/two");
        assertThat(again.header("x-cache")).isEqualTo("MISS");
        assertThat(again.body()).hasSize(400_000);
        assertThat(h.get("/two").header("x-cache")).isEqualTo("HIT");
        assertThat(up.requests()).isEqualTo(4);
        assertThat(fillBytes()).isZero();
    }
}
