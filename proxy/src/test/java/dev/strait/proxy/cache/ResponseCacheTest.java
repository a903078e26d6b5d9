package dev.strait.proxy.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.model.HostPort;
import dev.strait.proxy.admin.AdminServer;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The response cache against a real upstream that counts its requests: hits never reach it, misses
 * coalesce, Vary splits, revalidation sends validators, stale answers stand in for failures, memory
 * stays bounded, purge and metrics work.
 */
class ResponseCacheTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String endpoint, String cache, String top) {
        return """
                workers: 2
                %s
                upstreams:
                  - name: app
                    endpoints: [ "%s" ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        cache: %s
                """.formatted(top, endpoint, cache);
    }

    private TestUpstream start(TestUpstream.Behaviour b, String cache) throws Exception {
        TestUpstream up = h.upstream(b);
        h.start(config(up.endpoint(), cache, ""));
        return up;
    }

    private RawClient.Response get(String path, String... headers) throws Exception {
        return h.get(path, headers);
    }

    private RawClient.Response head(String path) throws Exception {
        try (RawClient c = new RawClient(h.address())) {
            return c.send("HEAD " + path + " HTTP/1.1\r\nHost: test\r\n\r\n").read(true);
        }
    }

    private long counter(String name) {
        var c = h.metrics.registry().find(name).functionCounter();
        return c == null ? -1 : (long) c.count();
    }

    /** Each answer numbered, so a test sees which request the upstream answered. */
    private static TestUpstream.Behaviour numbered(AtomicInteger n, String... headers) {
        return (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, "answer " + n.incrementAndGet(), headers));
    }

    @Test
    void hitsDoNotReachTheUpstream() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start(numbered(n, "cache-control", "max-age=60", "content-type", "text/plain"),
                "{ xCacheHeader: true }");
        RawClient.Response first = get("/a?x=1");
        assertThat(first.text()).isEqualTo("answer 1");
        assertThat(first.header("x-cache")).isEqualTo("MISS");
        for (int i = 0; i < 5; i++) {
            RawClient.Response r = get("/a?x=1");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("answer 1");
            assertThat(r.header("x-cache")).isEqualTo("HIT");
            assertThat(r.header("age")).isNotNull();
            assertThat(r.header("date")).isNotNull();
            assertThat(r.header("content-type")).isEqualTo("text/plain");
            assertThat(r.header("content-length")).isEqualTo("8");
            assertThat(r.header("cache-control")).isEqualTo("max-age=60");
        }
        assertThat(up.requests()).isEqualTo(1);
        // another query is another key
        assertThat(get("/a?x=2").text()).isEqualTo("answer 2");
        assertThat(up.requests()).isEqualTo(2);
        assertThat(counter("strait_cache_hits")).isEqualTo(5);
        assertThat(counter("strait_cache_misses")).isEqualTo(2);
        assertThat(counter("strait_cache_stored")).isEqualTo(2);
        assertThat(h.metrics.registry().find("strait_cache_bytes").gauge().value()).isGreaterThan(0);
    }

    @Test
    void keepAliveConnectionGetsHitsAndMissesInOrder() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start(numbered(n, "cache-control", "max-age=60"), "{}");
        try (RawClient c = h.client()) {
            for (int i = 0; i < 3; i++) {
                c.send("GET /k HTTP/1.1\r\nHost: test\r\n\r\n");
                assertThat(c.read().text()).isEqualTo("answer 1");
            }
            // pipelined: a miss, then hits behind it
            c.send("GET /p HTTP/1.1\r\nHost: test\r\n\r\nGET /p HTTP/1.1\r\nHost: test\r\n\r\nGET /k HTTP/1.1\r\nHost: test\r\n\r\n");
            assertThat(c.read().text()).isEqualTo("answer 2");
            assertThat(c.read().text()).isEqualTo("answer 2");
            assertThat(c.read().text()).isEqualTo("answer 1");
        }
        assertThat(up.requests()).isEqualTo(2);
    }

    @Test
    void concurrentMissesMakeOneUpstreamRequest() throws Exception {
        // The upstream holds its answers until the test lets them go.
        ConcurrentLinkedQueue<ChannelHandlerContext> held = new ConcurrentLinkedQueue<>();
        TestUpstream up = start((ctx, req, u) -> held.add(ctx), "{ xCacheHeader: true }");
        int clients = 20;
        List<RawClient> cs = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            // Each on its own connection: the kernel spreads them over both event loops.
            RawClient c = h.client();
            c.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n");
            cs.add(c);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> counter("strait_cache_coalesced") == clients - 1);
        assertThat(up.requests()).isEqualTo(1);
        for (ChannelHandlerContext ctx : held) {
            ctx.writeAndFlush(TestUpstream.response(200, "once", "cache-control", "max-age=60"));
        }
        for (RawClient c : cs) {
            RawClient.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("once");
        }
        assertThat(up.requests()).isEqualTo(1);
        assertThat(counter("strait_cache_misses")).isEqualTo(1);
    }

    @Test
    void waitersGoUpstreamAtOnceWhenTheAnswerIsUncacheable() throws Exception {
        ConcurrentLinkedQueue<ChannelHandlerContext> held = new ConcurrentLinkedQueue<>();
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start((ctx, req, u) -> {
            if (n.incrementAndGet() == 1) {
                held.add(ctx);
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, "private " + n.get(), "cache-control", "private"));
            }
        }, "{ xCacheHeader: true }");
        List<RawClient> cs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            RawClient c = h.client();
            c.send("GET /p HTTP/1.1\r\nHost: test\r\n\r\n");
            cs.add(c);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> counter("strait_cache_coalesced") == 3);
        held.poll().writeAndFlush(TestUpstream.response(200, "private 1", "cache-control", "private"));
        for (RawClient c : cs) {
            assertThat(c.read().text()).startsWith("private ");
        }
        assertThat(up.requests()).isEqualTo(4);
        // hit-for-pass: the next ones go straight upstream, marked PASS
        RawClient.Response r = get("/p");
        assertThat(r.header("x-cache")).isEqualTo("PASS");
        assertThat(up.requests()).isEqualTo(5);
    }

    @Test
    void waitersGoUpstreamThemselvesAfterTheLockTimeout() throws Exception {
        ConcurrentLinkedQueue<ChannelHandlerContext> held = new ConcurrentLinkedQueue<>();
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start((ctx, req, u) -> {
            if (n.incrementAndGet() == 1) {
                held.add(ctx); // the first fetch hangs
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, "direct", "cache-control", "max-age=60"));
            }
        }, "{ lockTimeout: 200ms, xCacheHeader: true }");
        RawClient first = h.client();
        first.send("GET /l HTTP/1.1\r\nHost: test\r\n\r\n");
        await().atMost(Duration.ofSeconds(5)).until(() -> held.size() == 1);
        RawClient.Response second = get("/l"); // waits 200 ms for the first fetch, then goes itself
        assertThat(second.text()).isEqualTo("direct");
        assertThat(second.header("x-cache")).isEqualTo("PASS");
        assertThat(up.requests()).isEqualTo(2);
        held.poll().writeAndFlush(TestUpstream.response(200, "slow", "cache-control", "max-age=60"));
        assertThat(first.read().text()).isEqualTo("slow");
        assertThat(get("/l").text()).isEqualTo("slow");
        assertThat(up.requests()).isEqualTo(2);
    }

    @Test
    void staleWhileRevalidateSendsOneBackgroundRequest() throws Exception {
        ConcurrentLinkedQueue<ChannelHandlerContext> held = new ConcurrentLinkedQueue<>();
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start((ctx, req, u) -> {
            if (n.incrementAndGet() == 1) {
                ctx.writeAndFlush(TestUpstream.response(200, "old", "cache-control", "max-age=0, stale-while-revalidate=600"));
            } else {
                held.add(ctx);
            }
        }, "{ xCacheHeader: true }");
        assertThat(get("/once").text()).isEqualTo("old");
        for (int i = 0; i < 5; i++) {
            RawClient.Response r = get("/once");
            assertThat(r.text()).isEqualTo("old");
            assertThat(r.header("x-cache")).isEqualTo("STALE");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> held.size() == 1);
        assertThat(up.requests()).isEqualTo(2);
        held.poll().writeAndFlush(TestUpstream.response(200, "new", "cache-control", "max-age=600"));
        await().atMost(Duration.ofSeconds(5)).until(() -> counter("strait_cache_stored") == 2);
        assertThat(get("/once").text()).isEqualTo("new");
        assertThat(up.requests()).isEqualTo(2);
    }

    @Test
    void aWaiterThatLeavesCostsNothing() throws Exception {
        ConcurrentLinkedQueue<ChannelHandlerContext> held = new ConcurrentLinkedQueue<>();
        TestUpstream up = start((ctx, req, u) -> held.add(ctx), "{}");
        RawClient leader = h.client();
        leader.send("GET /w HTTP/1.1\r\nHost: test\r\n\r\n");
        try (RawClient waiter = new RawClient(h.address())) {
            waiter.send("GET /w HTTP/1.1\r\nHost: test\r\n\r\n");
            await().atMost(Duration.ofSeconds(5)).until(() -> counter("strait_cache_coalesced") == 1);
        }
        held.poll().writeAndFlush(TestUpstream.response(200, "for the leader", "cache-control", "max-age=60"));
        assertThat(leader.read().text()).isEqualTo("for the leader");
        assertThat(get("/w").text()).isEqualTo("for the leader");
        assertThat(up.requests()).isEqualTo(1);
    }

    @Test
    void varySplitsEntries() throws Exception {
        TestUpstream up = start((ctx, req, u) -> ctx.writeAndFlush(TestUpstream.response(200,
                "lang " + req.headers().get("accept-language"), "cache-control", "max-age=60", "vary",
                "Accept-Language")), "{}");
        assertThat(get("/v", "Accept-Language: en").text()).isEqualTo("lang en");
        assertThat(get("/v", "Accept-Language: de").text()).isEqualTo("lang de");
        assertThat(get("/v", "Accept-Language: en").text()).isEqualTo("lang en");
        assertThat(get("/v", "Accept-Language: de").text()).isEqualTo("lang de");
        assertThat(get("/v").text()).isEqualTo("lang null");
        assertThat(get("/v").text()).isEqualTo("lang null");
        assertThat(up.requests()).isEqualTo(3);
    }

    @Test
    void revalidationSendsTheValidatorsAndA304RefreshesTheEntry() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start((ctx, req, u) -> {
            if ("\"v1\"".equals(req.headers().get("if-none-match"))) {
                FullHttpResponse r = TestUpstream.response(304, "", "etag", "\"v1\"", "cache-control", "max-age=60",
                        "x-refreshed", "yes");
                r.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
                ctx.writeAndFlush(r);
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, "body " + n.incrementAndGet(), "etag", "\"v1\"",
                        "last-modified", "Tue, 01 Sep 2026 10:00:00 GMT", "cache-control", "no-cache"));
            }
        }, "{ xCacheHeader: true }");
        // The client's own validators are not sent for the cache's fetch.
        assertThat(get("/r", "If-None-Match: \"client\"").text()).isEqualTo("body 1");
        assertThat(up.last().header("if-none-match")).isNull();
        // no-cache: stored, but each use is revalidated upstream first
        RawClient.Response r = get("/r");
        assertThat(up.requests()).isEqualTo(2);
        assertThat(up.last().header("if-none-match")).isEqualTo("\"v1\"");
        assertThat(up.last().header("if-modified-since")).isEqualTo("Tue, 01 Sep 2026 10:00:00 GMT");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("body 1");
        assertThat(r.header("x-cache")).isEqualTo("REVALIDATED");
        assertThat(r.header("x-refreshed")).isEqualTo("yes");
        // the 304 said max-age=60: now a plain hit
        RawClient.Response hit = get("/r");
        assertThat(hit.text()).isEqualTo("body 1");
        assertThat(hit.header("x-cache")).isEqualTo("HIT");
        assertThat(hit.header("cache-control")).isEqualTo("max-age=60");
        assertThat(up.requests()).isEqualTo(2);
        assertThat(counter("strait_cache_revalidated")).isEqualTo(1);
    }

    @Test
    void a304WithAnotherEntityTagDoesNotRelabelTheStoredBody() throws Exception {
        // A backend that only looks at If-Modified-Since says 304 for a new version (audit 2, cache finding 6):
        // RFC 9111 4.3.4, that 304 updates nothing. The entry goes and the whole response is fetched.
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start((ctx, req, u) -> {
            if (req.headers().contains("if-none-match")) {
                FullHttpResponse r = TestUpstream.response(304, "", "etag", "\"v2\"", "cache-control", "max-age=60");
                r.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
                ctx.writeAndFlush(r);
            } else if (n.incrementAndGet() == 1) {
                ctx.writeAndFlush(TestUpstream.response(200, "body v1", "etag", "\"v1\"", "cache-control", "no-cache"));
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, "body v2", "etag", "\"v2\"", "cache-control", "max-age=60"));
            }
        }, "{ xCacheHeader: true }");
        assertThat(get("/m").text()).isEqualTo("body v1");
        RawClient.Response r = get("/m");
        assertThat(up.requests()).isEqualTo(3);
        assertThat(up.seen().get(1).header("if-none-match")).isEqualTo("\"v1\"");
        assertThat(up.last().header("if-none-match")).isNull(); // fetched again without validators
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("body v2");
        assertThat(r.header("etag")).isEqualTo("\"v2\"");
        RawClient.Response hit = get("/m");
        assertThat(hit.text()).isEqualTo("body v2");
        assertThat(hit.header("x-cache")).isEqualTo("HIT");
        assertThat(up.requests()).isEqualTo(3);
        assertThat(counter("strait_cache_revalidated")).isZero();
    }

    @Test
    void clientConditionalsAreAnsweredFromTheEntry() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start(numbered(n, "cache-control", "max-age=60", "etag", "\"a\"", "last-modified",
                "Tue, 01 Sep 2026 10:00:00 GMT"), "{}");
        assertThat(get("/c").status()).isEqualTo(200);
        RawClient.Response nm = get("/c", "If-None-Match: \"x\", W/\"a\"");
        assertThat(nm.status()).isEqualTo(304);
        assertThat(nm.header("etag")).isEqualTo("\"a\"");
        assertThat(nm.header("cache-control")).isEqualTo("max-age=60");
        assertThat(nm.body()).isEmpty();
        assertThat(get("/c", "If-None-Match: \"b\"").status()).isEqualTo(200);
        assertThat(get("/c", "If-Modified-Since: Tue, 01 Sep 2026 10:00:00 GMT").status()).isEqualTo(304);
        assertThat(get("/c", "If-Modified-Since: Mon, 31 Aug 2026 10:00:00 GMT").status()).isEqualTo(200);
        // on a keep-alive connection the next answer follows the 304 cleanly
        try (RawClient c = h.client()) {
            c.send("GET /c HTTP/1.1\r\nHost: test\r\nIf-None-Match: \"a\"\r\n\r\nGET /c HTTP/1.1\r\nHost: test\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(304);
            assertThat(c.read().text()).isEqualTo("answer 1");
        }
        assertThat(up.requests()).isEqualTo(1);
    }

    @Test
    void aFetchGoesOnForTheCacheWhenItsClientLeaves() throws Exception {
        ConcurrentLinkedQueue<ChannelHandlerContext> held = new ConcurrentLinkedQueue<>();
        TestUpstream up = start((ctx, req, u) -> held.add(ctx), "{}");
        try (RawClient c = new RawClient(h.address())) {
            c.send("GET /gone HTTP/1.1\r\nHost: test\r\n\r\n");
            await().atMost(Duration.ofSeconds(5)).until(() -> held.size() == 1);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> h.server.openConnections() == 0);
        held.poll().writeAndFlush(TestUpstream.response(200, "kept", "cache-control", "max-age=60"));
        await().atMost(Duration.ofSeconds(5)).until(() -> counter("strait_cache_stored") == 1);
        assertThat(get("/gone").text()).isEqualTo("kept");
        assertThat(up.requests()).isEqualTo(1);
    }

    @Test
    void aRefreshByExpiresCountsFromThe304sDate() throws Exception {
        // Expires minus Date is the lifetime: the 304's Date must count, though entries keep no Date.
        TestUpstream up = start((ctx, req, u) -> {
            long now = System.currentTimeMillis();
            String date = io.netty.handler.codec.DateFormatter.format(new java.util.Date(now));
            if (req.headers().contains("if-none-match")) {
                FullHttpResponse r = TestUpstream.response(304, "", "etag", "\"x\"", "date", date, "expires",
                        io.netty.handler.codec.DateFormatter.format(new java.util.Date(now + 3_600_000)));
                r.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
                ctx.writeAndFlush(r);
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, "x", "etag", "\"x\"", "date", date, "expires", date));
            }
        }, "{ xCacheHeader: true }");
        assertThat(get("/x").text()).isEqualTo("x");
        assertThat(get("/x").header("x-cache")).isEqualTo("REVALIDATED");
        assertThat(get("/x").header("x-cache")).isEqualTo("HIT");
        assertThat(up.requests()).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"no-store", "private", "private, max-age=60", "no-store, max-age=60"})
    void noStoreAndPrivateAreNotCached(String cacheControl) throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start(numbered(n, "cache-control", cacheControl), "{ hitForPass: 0s }");
        assertThat(get("/n").text()).isEqualTo("answer 1");
        assertThat(get("/n").text()).isEqualTo("answer 2");
        assertThat(up.requests()).isEqualTo(2);
    }

    @Test
    void setCookieIsNotCachedUnlessTheRuleSaysSo() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = h.upstream(numbered(n, "cache-control", "max-age=60", "set-cookie", "s=1"));
        h.start(config(up.endpoint(), "{}", ""));
        get("/c");
        get("/c");
        assertThat(up.requests()).isEqualTo(2);
        h.reload(config(up.endpoint(), "{ cacheSetCookie: true }", ""));
        assertThat(get("/d").header("set-cookie")).isEqualTo("s=1"); // the client that caused the fetch gets it
        RawClient.Response hit = get("/d");
        assertThat(hit.text()).isEqualTo("answer 3");
        assertThat(hit.header("set-cookie")).isNull(); // never replayed to others
        assertThat(up.requests()).isEqualTo(3);
    }

    @Test
    void authorizationGoesAroundTheCacheUnlessTheRuleSaysSo() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = h.upstream(numbered(n, "cache-control", "public, max-age=60"));
        h.start(config(up.endpoint(), "{}", ""));
        get("/s", "Authorization: Bearer x");
        get("/s", "Authorization: Bearer x");
        assertThat(up.requests()).isEqualTo(2);
        h.reload(config(up.endpoint(), "{ cacheAuthorization: true }", ""));
        get("/t", "Authorization: Bearer x");
        assertThat(get("/t", "Authorization: Bearer x").text()).isEqualTo("answer 3");
        assertThat(up.requests()).isEqualTo(3);
    }

    @Test
    void headIsAnsweredFromAGetEntryAndFetchesAGet() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start(numbered(n, "cache-control", "max-age=60"), "{}");
        RawClient.Response first = head("/h");
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.body()).isEmpty();
        assertThat(up.last().method()).isEqualTo("GET");
        RawClient.Response again = head("/h");
        assertThat(again.header("content-length")).isEqualTo("8");
        assertThat(again.body()).isEmpty();
        assertThat(get("/h").text()).isEqualTo("answer 1");
        assertThat(up.requests()).isEqualTo(1);
    }

    @Test
    void staleIfErrorServesTheStaleEntryOn5xxAndOnConnectionFailure() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start((ctx, req, u) -> {
            if (n.incrementAndGet() == 1) {
                ctx.writeAndFlush(TestUpstream.response(200, "good", "cache-control", "max-age=0, stale-if-error=600"));
            } else {
                ctx.writeAndFlush(TestUpstream.response(503, "down"));
            }
        }, "{ xCacheHeader: true }");
        assertThat(get("/e").text()).isEqualTo("good");
        RawClient.Response stale = get("/e");
        assertThat(up.requests()).isEqualTo(2);
        assertThat(stale.status()).isEqualTo(200);
        assertThat(stale.text()).isEqualTo("good");
        assertThat(stale.header("x-cache")).isEqualTo("STALE");
        // no upstream at all now
        up.close();
        RawClient.Response gone = get("/e");
        assertThat(gone.status()).isEqualTo(200);
        assertThat(gone.text()).isEqualTo("good");
        assertThat(gone.header("x-cache")).isEqualTo("STALE");
        assertThat(counter("strait_cache_stale")).isEqualTo(2);
    }

    @Test
    void withoutStaleIfErrorTheErrorGoesThrough() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start((ctx, req, u) -> ctx.writeAndFlush(n.incrementAndGet() == 1
                ? TestUpstream.response(200, "good", "cache-control", "max-age=0", "etag", "\"e\"")
                : TestUpstream.response(503, "down")), "{}");
        assertThat(get("/e").text()).isEqualTo("good");
        assertThat(get("/e").status()).isEqualTo(503);
        assertThat(up.requests()).isEqualTo(2);
    }

    @Test
    void staleWhileRevalidateAnswersAtOnceAndRefreshesInTheBackground() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start((ctx, req, u) -> ctx.writeAndFlush(n.incrementAndGet() == 1
                ? TestUpstream.response(200, "old", "cache-control", "max-age=0, stale-while-revalidate=600")
                : TestUpstream.response(200, "new", "cache-control", "max-age=600")), "{ xCacheHeader: true }");
        assertThat(get("/w").text()).isEqualTo("old");
        RawClient.Response stale = get("/w");
        assertThat(stale.text()).isEqualTo("old");
        assertThat(stale.header("x-cache")).isEqualTo("STALE");
        await().atMost(Duration.ofSeconds(5)).until(() -> counter("strait_cache_stored") == 2);
        RawClient.Response fresh = get("/w");
        assertThat(fresh.text()).isEqualTo("new");
        assertThat(fresh.header("x-cache")).isEqualTo("HIT");
        assertThat(up.requests()).isEqualTo(2);
    }

    @Test
    void largeBodiesAreStoredWholeAndSurviveRevalidation() throws Exception {
        // Over 1 KiB a body is kept in a direct buffer that hits share: this checks that path end to end.
        String big = "0123456789abcdef".repeat(8192); // 128 KiB
        TestUpstream up = start((ctx, req, u) -> {
            if (req.headers().contains("if-none-match")) {
                FullHttpResponse r = TestUpstream.response(304, "", "etag", "\"big\"", "cache-control", "max-age=60");
                r.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
                ctx.writeAndFlush(r);
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, big, "etag", "\"big\"", "cache-control", "no-cache"));
            }
        }, "{}");
        assertThat(get("/big").text()).isEqualTo(big);
        assertThat(get("/big").text()).isEqualTo(big); // revalidated: the stored body, refreshed
        try (RawClient c = h.client()) {
            for (int i = 0; i < 3; i++) {
                c.send("GET /big HTTP/1.1\r\nHost: test\r\n\r\n");
                assertThat(c.read().text()).isEqualTo(big);
            }
        }
        assertThat(head("/big").header("content-length")).isEqualTo(Integer.toString(big.length()));
        assertThat(up.requests()).isEqualTo(2);
    }

    @Test
    void largeResponsesStreamThroughUncached() throws Exception {
        String big = "x".repeat(5000);
        TestUpstream up = start(TestUpstream.reply(200, big, "cache-control", "max-age=60"),
                "{ maxBodySize: 1000, hitForPass: 0s }");
        assertThat(get("/big").text()).isEqualTo(big);
        assertThat(get("/big").text()).isEqualTo(big);
        assertThat(up.requests()).isEqualTo(2);
    }

    @Test
    void chunkedResponsesAreStoredUpToTheLimit() throws Exception {
        // A body of unknown length in three chunks: stored when it fits, streamed uncached when it outgrows.
        TestUpstream up = start((ctx, req, u) -> {
            int part = req.uri().equals("/small") ? 100 : 700;
            DefaultHttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            r.headers().set(HttpHeaderNames.TRANSFER_ENCODING, "chunked").set("cache-control", "max-age=60");
            ctx.write(r);
            for (int i = 0; i < 3; i++) {
                ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer("y".repeat(part), StandardCharsets.US_ASCII)));
            }
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        }, "{ maxBodySize: 1000, hitForPass: 0s }");
        assertThat(get("/small").text()).hasSize(300);
        RawClient.Response hit = get("/small");
        assertThat(hit.text()).hasSize(300);
        assertThat(hit.header("content-length")).isEqualTo("300");
        assertThat(get("/large").text()).hasSize(2100);
        assertThat(get("/large").text()).hasSize(2100);
        assertThat(up.requests()).isEqualTo(3);
    }

    @Test
    void aChunkedEntryWeighsItsBodyNotItsBuffer() throws Exception {
        // The same 3000 bytes, with a Content-Length and chunked: the entries weigh the same (audit 2,
        // cache finding 8), though the chunked capture grew (doubling) past the body.
        TestUpstream up = start((ctx, req, u) -> {
            if (req.uri().equals("/cl")) {
                ctx.writeAndFlush(TestUpstream.response(200, "y".repeat(3000), "cache-control", "max-age=60"));
                return;
            }
            DefaultHttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            r.headers().set(HttpHeaderNames.TRANSFER_ENCODING, "chunked").set("cache-control", "max-age=60");
            ctx.write(r);
            for (int i = 0; i < 3; i++) {
                ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer("y".repeat(1000), StandardCharsets.US_ASCII)));
            }
            ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        }, "{}");
        ResponseCache cache = h.server.cache();
        assertThat(get("/cl").text()).hasSize(3000);
        cache.cleanUp();
        long withLength = cache.weightedSize();
        assertThat(get("/ch").text()).hasSize(3000);
        cache.cleanUp();
        assertThat(cache.weightedSize() - withLength).isEqualTo(withLength);
        assertThat(get("/ch").header("content-length")).isEqualTo("3000");
        assertThat(up.requests()).isEqualTo(2);
    }

    @Test
    void evictionKeepsMemoryBounded() throws Exception {
        String body = "z".repeat(4000);
        TestUpstream up = h.upstream(TestUpstream.reply(200, body, "cache-control", "max-age=600"));
        h.start(config(up.endpoint(), "{}", "cache: { maxBytes: 65536 }"));
        for (int i = 0; i < 100; i++) {
            assertThat(get("/item/" + i).text()).isEqualTo(body);
        }
        ResponseCache cache = h.server.cache();
        cache.cleanUp();
        assertThat(cache.weightedSize()).isLessThanOrEqualTo(65536).isGreaterThan(0);
        assertThat(counter("strait_cache_evictions")).isGreaterThan(50);
        assertThat(up.requests()).isEqualTo(100);
        // a reload with a smaller store shrinks it at once; the entries that fit stay
        h.reload(config(up.endpoint(), "{}", "cache: { maxBytes: 16384 }"));
        cache.cleanUp();
        assertThat(cache.weightedSize()).isLessThanOrEqualTo(16384).isGreaterThan(0);
    }

    @Test
    void theStoreIsMadeByTheFirstRequestACachingRuleSees() throws Exception {
        h.start("""
                routes:
                  - name: plain
                    hosts: [ "*" ]
                    rules:
                      - respond: { status: 200, body: "plain" }
                """);
        ResponseCache cache = h.server.cache();
        // Requests on rules that do not cache, purges, the metrics and a resize leave it unmade
        // (and Caffeine unloaded).
        assertThat(get("/a").text()).isEqualTo("plain");
        assertThat(cache.purge("http://test/a")).isZero();
        assertThat(cache.purgePrefix("http://")).isZero();
        assertThat(h.metrics.registry().find("strait_cache_bytes").gauge().value()).isZero();
        TestUpstream up = h.upstream(TestUpstream.reply(200, "kept", "cache-control", "max-age=600"));
        h.reload(config(up.endpoint(), "{}", "cache: { maxBytes: 16384 }")); // resizes the unmade store
        assertThat(cache.storeMade()).isFalse();
        // The first request a caching rule sees makes it, with the size the reload set.
        assertThat(get("/a").text()).isEqualTo("kept");
        assertThat(get("/a").text()).isEqualTo("kept");
        assertThat(cache.storeMade()).isTrue();
        assertThat(up.requests()).isEqualTo(1);
        cache.cleanUp();
        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.maximumBytes()).isEqualTo(16384);
    }

    @Test
    void unsafeMethodsInvalidateTheKey() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start(numbered(n, "cache-control", "max-age=60"), "{ xCacheHeader: true }");
        assertThat(get("/u").text()).isEqualTo("answer 1");
        assertThat(get("/u").text()).isEqualTo("answer 1");
        try (RawClient c = new RawClient(h.address())) {
            RawClient.Response post = c.send("POST /u HTTP/1.1\r\nHost: test\r\nContent-Length: 2\r\n\r\nhi").read();
            assertThat(post.text()).isEqualTo("answer 2");
            assertThat(post.header("x-cache")).isEqualTo("PASS");
        }
        assertThat(up.last().text()).isEqualTo("hi"); // the body went through the pass
        assertThat(get("/u").text()).isEqualTo("answer 3");
        assertThat(up.requests()).isEqualTo(3);
    }

    @Test
    void purgeByKeyAndByPrefixOnTheAdminServer() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = start(numbered(n, "cache-control", "max-age=60"), "{}");
        AdminServer admin = h.add(new AdminServer(h.serving, h.metrics, h.server::ready).cache(h.server.cache())
                .start(new HostPort("127.0.0.1", 0)));
        get("/p/1");
        get("/p/2");
        get("/q");
        assertThat(up.requests()).isEqualTo(3);
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + admin.address().getPort();
        HttpResponse<String> one = http.send(HttpRequest.newBuilder(URI.create(base + "/cache/purge?key="
                + "http://test/q")).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(one.body()).isEqualTo("{\"purged\":1}\n");
        get("/q");
        assertThat(up.requests()).isEqualTo(4);
        HttpResponse<String> prefix = http.send(HttpRequest.newBuilder(URI.create(base + "/cache/purge?prefix="
                + "http://test/p/")).POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(prefix.body()).isEqualTo("{\"purged\":2}\n");
        get("/p/1");
        get("/p/2");
        get("/q");
        assertThat(up.requests()).isEqualTo(6);
        HttpResponse<String> asGet = http.send(HttpRequest.newBuilder(URI.create(base + "/cache/purge?key=x")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(asGet.statusCode()).isEqualTo(405);
        assertThat(counter("strait_cache_purged")).isEqualTo(3);
        HttpResponse<String> scrape = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(scrape.body()).contains("strait_cache_hits_total", "strait_cache_misses_total 6.0",
                "strait_cache_bytes", "strait_cache_evictions_total");
    }
}
