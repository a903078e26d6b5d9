package dev.strait.proxy.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code rateLimit} (ADR 0064) on a real proxy: the burst, then 429 with {@code Retry-After} and no
 * upstream asked; per client, and behind a trusted balancer per client it names.
 */
class RateLimitTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String endpoint, String extra) {
        return """
                %s
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /api } } ]
                        backends: [ { upstream: app } ]
                        rateLimit: { requests: 1, per: 1h, burst: 2 }
                      - respond: { body: "free" }
                """.formatted(extra, endpoint);
    }

    @Test
    void theBurstThen429WithRetryAfter() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.name());
        h.start(config(app.endpoint(), ""));
        for (int i = 0; i < 3; i++) {
            assertThat(h.get("/api/x").status()).as("request %d", i).isEqualTo(200);
        }
        RawClient.Response limited = h.get("/api/x");
        assertThat(limited.status()).isEqualTo(429);
        assertThat(Long.parseLong(limited.header("retry-after"))).isBetween(3000L, 3600L);
        assertThat(app.requests()).isEqualTo(3);
        assertThat(h.get("/other").text()).as("other rules are not limited").isEqualTo("free");
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"429\"} 1.0");
    }

    @Test
    void behindATrustedBalancerEachClientItNamesHasItsOwnRate() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.name());
        h.start(config(app.endpoint(), "forwardedHeaders: { trustedPeers: [ 127.0.0.1 ] }"));
        for (int i = 0; i < 3; i++) {
            assertThat(h.get("/api/x", "X-Forwarded-For: 203.0.113.1").status()).isEqualTo(200);
        }
        assertThat(h.get("/api/x", "X-Forwarded-For: 203.0.113.1").status()).isEqualTo(429);
        assertThat(h.get("/api/x", "X-Forwarded-For: 203.0.113.2").status()).as("another client").isEqualTo(200);
    }
}
