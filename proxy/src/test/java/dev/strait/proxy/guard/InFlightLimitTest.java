package dev.strait.proxy.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import io.netty.channel.ChannelHandlerContext;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code inFlightLimit} on a real proxy: a client with that many requests under way gets 429 for
 * another, others and other rules are served, and a place comes back when a request ends, however it ends
 * (answered, or its client gone).
 */
class InFlightLimitTest {
    private final ProxyHarness h = new ProxyHarness();
    /** Requests the upstream holds unanswered (their path holds "hold"), by their X-Who. */
    private final Map<String, ChannelHandlerContext> held = new ConcurrentHashMap<>();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private void start(String extra) throws Exception {
        TestUpstream app = h.upstream("app", (ctx, req, up) -> {
            if (req.uri().contains("hold")) {
                held.put(String.valueOf(req.headers().get("x-who")), ctx);
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, "ok"));
            }
        });
        h.start("""
                %s
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /api } } ]
                        backends: [ { upstream: app } ]
                        inFlightLimit: { requests: 2 }
                      - backends: [ { upstream: app } ]
                """.formatted(extra, app.endpoint()));
    }

    private RawClient hold(String who) throws Exception {
        RawClient c = h.client();
        c.send("GET /api/hold HTTP/1.1\r\nHost: a\r\nX-Who: " + who + "\r\n\r\n");
        return c;
    }

    @Test
    void aClientWithTheLimitUnderWayGets429UntilOneEnds() throws Exception {
        start("");
        RawClient a = hold("a");
        RawClient b = hold("b");
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 2);
        RawClient.Response refused = h.get("/api/x");
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.header("retry-after")).isEqualTo("1");
        assertThat(h.get("/other").status()).as("other rules are not limited").isEqualTo(200);

        held.remove("a").writeAndFlush(TestUpstream.response(200, "done"));
        assertThat(a.read().text()).isEqualTo("done");
        RawClient c = hold("c");
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 2);
        assertThat(h.get("/api/x").status()).as("b and c under way").isEqualTo(429);

        // A client that leaves gives its place back too.
        b.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> h.get("/api/x").status() == 200);
        a.close();
        c.close();
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"429\"}");
    }

    @Test
    void behindATrustedBalancerEachClientItNamesHasItsOwnPlaces() throws Exception {
        start("forwardedHeaders: { trustedPeers: [ 127.0.0.1 ] }");
        for (int i = 0; i < 2; i++) {
            RawClient c = h.client();
            c.send("GET /api/hold HTTP/1.1\r\nHost: a\r\nX-Who: " + i + "\r\nX-Forwarded-For: 203.0.113.1\r\n\r\n");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 2);
        assertThat(h.get("/api/x", "X-Forwarded-For: 203.0.113.1").status()).isEqualTo(429);
        assertThat(h.get("/api/x", "X-Forwarded-For: 203.0.113.2").status()).as("another client").isEqualTo(200);
    }

    @Test
    void overHttp2EachEndedStreamGivesItsPlaceBack() throws Exception {
        start("");
        java.net.http.HttpClient c = h.h2cClient("/api/x");
        java.net.URI uri = h.uri("/api/x");
        for (int i = 0; i < 5; i++) {
            java.net.http.HttpResponse<String> r = c.send(java.net.http.HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(10)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as("request %d", i).isEqualTo(200);
            assertThat(r.version()).isEqualTo(java.net.http.HttpClient.Version.HTTP_2);
        }
        for (int i = 0; i < 2; i++) {
            c.sendAsync(java.net.http.HttpRequest.newBuilder(h.uri("/api/hold")).header("X-Who", "h2-" + i).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 2);
        assertThat(c.send(java.net.http.HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(429);
    }
}
