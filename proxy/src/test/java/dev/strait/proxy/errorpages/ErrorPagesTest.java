package dev.strait.proxy.errorpages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code errorPages} on a real proxy: an answer with a listed status, the upstream's or the proxy's
 * own, is replaced by the page an upstream serves for it, with the original status; other answers pass.
 */
class ErrorPagesTest {
    private final ProxyHarness h = new ProxyHarness();
    private TestUpstream app;
    private TestUpstream pages;
    private int deadPort;

    @BeforeEach
    void start() throws Exception {
        app = h.upstream("app", (ctx, req, up) -> {
            int status = req.uri().contains("/missing") ? 404 : req.uri().contains("/boom") ? 500 : 200;
            ctx.writeAndFlush(TestUpstream.response(status, "app " + status + " " + "x".repeat(20_000),
                    "content-type", "text/plain"));
        });
        pages = h.upstream("pages", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200,
                "page " + req.headers().get("x-code") + " for " + req.headers().get("x-original-uri") + " at "
                        + req.uri() + " (" + req.method() + ", " + req.headers().get("x-format") + ")",
                "content-type", "text/html")));
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        h.start("""
                upstreams:
                  - { name: app, endpoints: [ "%s" ] }
                  - { name: pages, endpoints: [ "%s" ] }
                  - { name: dead, endpoints: [ "127.0.0.1:%d" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /down } } ]
                        backends: [ { upstream: dead } ]
                        errorPages: { statuses: [ 502, 503 ], upstream: pages }
                      - matches: [ { path: { type: Prefix, value: /gone } } ]
                        respond: { status: 410, body: "gone" }
                        errorPages: { statuses: [ 410 ], upstream: pages, path: "/static/{status}.html?lang=en" }
                      - matches: [ { path: { type: Prefix, value: /nopage } } ]
                        backends: [ { upstream: app } ]
                        errorPages: { statuses: [ 404 ], upstream: dead }
                      - backends: [ { upstream: app } ]
                        errorPages: { statuses: [ 404, 500 ], upstream: pages, path: "/errors/{status}.html" }
                """.formatted(app.endpoint(), pages.endpoint(), deadPort));
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void aListedStatusGetsThePageWithTheOriginalStatus() throws Exception {
        RawClient.Response ok = h.get("/fine");
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.text()).startsWith("app 200 ");

        RawClient.Response missing = h.get("/missing/a?b=c", "Accept: application/json");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.header("content-type")).isEqualTo("text/html");
        assertThat(missing.text()).isEqualTo("page 404 for /missing/a?b=c at /errors/404.html (GET, application/json)");

        RawClient.Response boom = h.get("/boom");
        assertThat(boom.status()).isEqualTo(500);
        assertThat(boom.text()).startsWith("page 500 for /boom at /errors/500.html");

        // The connection that carried them goes on: the dropped bodies were read to their end.
        RawClient c = h.client();
        for (String path : new String[] {"/missing", "/fine", "/boom", "/fine"}) {
            RawClient.Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertThat(r.text()).as(path).startsWith(path.equals("/fine") ? "app 200" : "page ");
        }
        c.close();
    }

    @Test
    void theProxysOwnErrorsAndFixedAnswersGetPagesToo() throws Exception {
        RawClient.Response down = h.get("/down/x");
        assertThat(down.status()).isEqualTo(502);
        assertThat(down.text()).startsWith("page 502 for /down/x at /");

        RawClient.Response gone = h.get("/gone");
        assertThat(gone.status()).isEqualTo(410);
        assertThat(gone.text()).startsWith("page 410 for /gone at /static/410.html?lang=en");
        assertThat(pages.last().uri()).isEqualTo("/static/410.html?lang=en");
    }

    @Test
    void withoutItsPageTheClientGetsTheOriginalStatus() throws Exception {
        RawClient.Response r = h.get("/nopage/missing");
        assertThat(r.status()).as("the page upstream is down").isEqualTo(404);
        assertThat(r.text()).doesNotContain("app 404");
    }

    /** A client that leaves while its answer is held back, or while its page is fetched, costs nothing. */
    @Test
    void aClientGoneMidwayLeavesNothingBehind() throws Exception {
        for (int i = 0; i < 20; i++) {
            RawClient c = h.client();
            c.send("GET /missing/" + i + " HTTP/1.1\r\nHost: a\r\n\r\n");
            c.close();
        }
        // Some reached the app and had their answers held or their pages fetched for nobody; the proxy goes on
        // (the leak check of every test class fails it on a buffer left behind).
        assertThat(h.get("/missing/last").text()).startsWith("page 404 for /missing/last");
        assertThat(h.get("/fine").status()).isEqualTo(200);
    }

    /** A cached 404 goes out through the same exchange as a fresh one: both get the page. */
    @Test
    void aCacheHitGetsThePageToo() throws Exception {
        TestUpstream cached = h.upstream("cached", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(404,
                "cached 404", "cache-control", "max-age=60")));
        h.reload("""
                cache: { maxBytes: 1048576 }
                upstreams:
                  - { name: cached, endpoints: [ "%s" ] }
                  - { name: pages, endpoints: [ "%s" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: cached } ]
                        cache: { xCacheHeader: true }
                        errorPages: { statuses: [ 404 ], upstream: pages }
                """.formatted(cached.endpoint(), pages.endpoint()));
        RawClient.Response first = h.get("/x");
        assertThat(first.status()).isEqualTo(404);
        assertThat(first.text()).startsWith("page 404 for /x");
        RawClient.Response second = h.get("/x");
        assertThat(cached.requests()).as("the second came from the cache").isEqualTo(1);
        assertThat(second.status()).isEqualTo(404);
        assertThat(second.text()).startsWith("page 404 for /x");
    }

    @Test
    void headAndHttp2() throws Exception {
        RawClient c = h.client();
        RawClient.Response head = c.send("HEAD /missing HTTP/1.1\r\nHost: a\r\n\r\n").read(true);
        assertThat(head.status()).isEqualTo(404);
        assertThat(pages.last().method()).isEqualTo("HEAD");
        c.close();

        java.net.http.HttpClient h2 = h.h2cClient("/fine");
        java.net.http.HttpResponse<String> r = h2.send(java.net.http.HttpRequest.newBuilder(h.uri("/missing"))
                .timeout(Duration.ofSeconds(10)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.version()).isEqualTo(java.net.http.HttpClient.Version.HTTP_2);
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.body()).startsWith("page 404 for /missing at /errors/404.html");
    }
}
