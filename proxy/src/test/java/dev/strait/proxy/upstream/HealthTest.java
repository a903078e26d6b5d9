package dev.strait.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyConfigs;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Active health checks, passive outlier detection and the panic threshold. */
class HealthTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    /** An upstream that answers its name, and /healthz with 200 or 503 as {@code healthy} says. */
    private TestUpstream checked(String name, AtomicBoolean healthy) throws Exception {
        return h.upstream(name, (ctx, req, u) -> {
            if (req.uri().equals("/healthz")) {
                ctx.writeAndFlush(TestUpstream.response(healthy.get() ? 200 : 503, ""));
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, u.name));
            }
        });
    }

    private Map<String, Integer> count(int requests) throws Exception {
        Map<String, Integer> counts = new HashMap<>();
        RawClient c = new RawClient(h.address());
        try (c) {
            for (int i = 0; i < requests; i++) {
                RawClient.Response r = c.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read();
                counts.merge(r.status() == 200 ? r.text() : Integer.toString(r.status()), 1, Integer::sum);
            }
        }
        return counts;
    }

    private static String config(String endpoints, String extra) {
        return ProxyConfigs.proxyAll(endpoints, extra, "");
    }

    @Test
    void failingHealthChecksTakeAnEndpointOutAndPassingOnesBringItBack() throws Exception {
        AtomicBoolean h0 = new AtomicBoolean(true);
        TestUpstream u0 = checked("u0", h0);
        TestUpstream u1 = checked("u1", new AtomicBoolean(true));
        h.start(config("\"%s\", \"%s\"".formatted(u0.endpoint(), u1.endpoint()),
                "healthCheck: { path: /healthz, interval: 100ms, timeout: 1s, unhealthyThreshold: 2, healthyThreshold: 1 }"));
        assertThat(count(4)).containsEntry("u0", 2).containsEntry("u1", 2);
        h0.set(false);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(count(6)).containsOnlyKeys("u1"));
        assertThat(h.metrics.scrape()).contains("strait_upstream_endpoints_healthy{upstream=\"app\"} 1.0");
        h0.set(true);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(count(4)).containsKeys("u0", "u1"));
    }

    @Test
    void unreachableEndpointFailsItsChecks() throws Exception {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        TestUpstream u1 = checked("u1", new AtomicBoolean(true));
        h.start(config("\"127.0.0.1:%d\", \"%s\"".formatted(closed, u1.endpoint()),
                "healthCheck: { interval: 100ms, unhealthyThreshold: 1 }\n    outlierDetection: { consecutiveFailures: 0 }"
                        + "\n    panicThreshold: 0"));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(count(6)).containsOnlyKeys("u1"));
    }

    @Test
    void consecutiveFailuresEjectAnEndpointForAWhileLongerEachTime() throws Exception {
        TestUpstream bad = h.upstream("bad", TestUpstream.reply(500, "bad"));
        TestUpstream good = h.upstream("good", TestUpstream.name());
        h.start(config("\"%s\", \"%s\"".formatted(bad.endpoint(), good.endpoint()),
                "outlierDetection: { consecutiveFailures: 3, baseEjectionTime: 400ms, maxEjectionTime: 10s }"));
        // Taken before the failures: the ejection starts later, so the time measured to its end can only
        // be longer than the ejection (a timestamp taken after it made this flaky on a loaded machine).
        long ejected = System.nanoTime();
        Map<String, Integer> first = count(6);
        assertThat(first).containsEntry("500", 3).containsEntry("good", 3);
        assertThat(h.metrics.scrape()).contains("strait_upstream_ejections_total{upstream=\"app\"} 1.0");
        assertThat(count(10)).as("ejected: only the good endpoint").containsOnlyKeys("good");
        // After the ejection time, the bad endpoint gets traffic again, fails, and is ejected for twice as long.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(count(2)).containsKey("500"));
        assertThat(Duration.ofNanos(System.nanoTime() - ejected)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            count(2);
            assertThat(h.metrics.scrape()).contains("strait_upstream_ejections_total{upstream=\"app\"} 2.0");
        });
    }

    @Test
    void panicThresholdUsesEveryEndpointWhenTooFewAreHealthy() throws Exception {
        AtomicBoolean healthy01 = new AtomicBoolean(false);
        TestUpstream u0 = checked("u0", healthy01);
        TestUpstream u1 = checked("u1", healthy01);
        TestUpstream u2 = checked("u2", new AtomicBoolean(true));
        String eps = "\"%s\", \"%s\", \"%s\"".formatted(u0.endpoint(), u1.endpoint(), u2.endpoint());
        String hc = "healthCheck: { interval: 100ms, unhealthyThreshold: 1 }";
        h.start(config(eps, hc + "\n    panicThreshold: 0"));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(count(6)).containsOnlyKeys("u2"));
        // One healthy of three is under 50%: panic, and traffic goes to all three.
        h.reload(config(eps, hc + "\n    panicThreshold: 50"));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(count(6)).containsKeys("u0", "u1", "u2"));
    }
}
