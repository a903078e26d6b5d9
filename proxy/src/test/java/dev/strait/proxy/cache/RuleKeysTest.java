package dev.strait.proxy.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two cached rules that take the same URL, one picked by a header and sent to a canary (audit 2, cache
 * finding 3): each keeps its own entries, so the canary's answers never reach the others. Purging the
 * URL, and an unsafe method on it, reach both.
 */
class RuleKeysTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static TestUpstream.Behaviour numbered(String name, AtomicInteger n) {
        return (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, name + " " + n.incrementAndGet(),
                "cache-control", "max-age=600"));
    }

    @Test
    void aHeaderMatchedRuleDoesNotShareEntriesWithTheOtherRule() throws Exception {
        AtomicInteger appN = new AtomicInteger();
        AtomicInteger canaryN = new AtomicInteger();
        TestUpstream app = h.upstream(numbered("app", appN));
        TestUpstream canary = h.upstream(numbered("canary", canaryN));
        h.start("""
                workers: 2
                upstreams:
                  - { name: app, endpoints: [ "%s" ] }
                  - { name: canary, endpoints: [ "%s" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /c/ }, headers: [ { name: x-canary, value: "1" } ] } ]
                        backends: [ { upstream: canary } ]
                        cache: { xCacheHeader: true }
                      - matches: [ { path: { type: Prefix, value: /c/ } } ]
                        backends: [ { upstream: app } ]
                        cache: { xCacheHeader: true }
                """.formatted(app.endpoint(), canary.endpoint()));
        RawClient.Response toCanary = h.get("/c/a", "x-canary: 1");
        assertThat(toCanary.text()).isEqualTo("canary 1");
        assertThat(toCanary.header("x-cache")).isEqualTo("MISS");
        // Without the header: the other rule, its own entry (not the canary's).
        RawClient.Response toApp = h.get("/c/a");
        assertThat(toApp.text()).isEqualTo("app 1");
        assertThat(toApp.header("x-cache")).isEqualTo("MISS");
        assertThat(h.get("/c/a").text()).isEqualTo("app 1");
        assertThat(h.get("/c/a", "x-canary: 1").text()).isEqualTo("canary 1");
        assertThat(h.get("/c/a").header("x-cache")).isEqualTo("HIT");
        assertThat(app.requests()).isEqualTo(1);
        assertThat(canary.requests()).isEqualTo(1);

        // Purging the URL purges it for both rules.
        ResponseCache cache = h.server.cache();
        assertThat(cache.purge("http://test/c/a")).isEqualTo(2);
        assertThat(h.get("/c/a").text()).isEqualTo("app 2");
        assertThat(h.get("/c/a", "x-canary: 1").text()).isEqualTo("canary 2");
        assertThat(cache.purgePrefix("http://test/c/")).isEqualTo(2);
        assertThat(h.get("/c/a").text()).isEqualTo("app 3");
        assertThat(h.get("/c/a", "x-canary: 1").text()).isEqualTo("canary 3");

        // An unsafe method through one rule drops what both stored for the URL (RFC 9111 4.4).
        try (RawClient c = new RawClient(h.address())) {
            assertThat(c.send("DELETE /c/a HTTP/1.1\r\nHost: test\r\n\r\n").read().text()).isEqualTo("app 4");
        }
        assertThat(h.get("/c/a", "x-canary: 1").text()).isEqualTo("canary 4");
        assertThat(h.get("/c/a").text()).isEqualTo("app 5");
        assertThat(app.requests()).isEqualTo(5);
        assertThat(canary.requests()).isEqualTo(4);
    }
}
