package dev.strait.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Per-loop connection pools: reuse, limits, idle timeout, and reloads that keep (or drop) them. */
class PoolTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String endpoint, String pool, String ruleExtra) {
        return """
                workers: 1
                upstreams:
                  - name: app
                    endpoints: [ "%s" ]
                    pool: { %s }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        %s
                """.formatted(endpoint, pool, ruleExtra);
    }

    private void requests(int n) throws Exception {
        RawClient c = h.client();
        for (int i = 0; i < n; i++) {
            assertThat(c.send("GET /p HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    /** The loop's count of requests waiting on upstreams (its I/O waits batch on it, ADR 0039). */
    @Test
    void theLoopCountsRequestsInFlightToUpstreamsUntilEachEndsOrIsAbandoned() throws Exception {
        TestUpstream slow = h.upstream("slow", TestUpstream.stall());
        TestUpstream quick = h.upstream("quick", TestUpstream.reply(200, "ok"));
        var server = h.start("""
                workers: 1
                upstreams:
                  - { name: slow, endpoints: [ "%s" ] }
                  - { name: quick, endpoints: [ "%s" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /slow } } ]
                        backends: [ { upstream: slow } ]
                      - backends: [ { upstream: quick } ]
                """.formatted(slow.endpoint(), quick.endpoint()));
        requests(3);
        assertThat(server.upstreamRequestsInFlight()).isZero();
        RawClient a = h.client().send("GET /slow/1 HTTP/1.1\r\nHost: a\r\n\r\n");
        RawClient b = h.client().send("GET /slow/2 HTTP/1.1\r\nHost: a\r\n\r\n");
        await().atMost(Duration.ofSeconds(5)).until(() -> server.upstreamRequestsInFlight() == 2);
        a.close();
        b.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.upstreamRequestsInFlight() == 0);
        requests(2);
        assertThat(server.upstreamRequestsInFlight()).isZero();
    }

    @Test
    void aReloadKeepsWarmConnections() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config(up.endpoint(), "", ""));
        requests(2);
        h.reload(config(up.endpoint(), "", "timeouts: { request: 30s }"));
        requests(2);
        assertThat(up.connections()).isEqualTo(1);
        assertThat(up.requests()).isEqualTo(4);
    }

    @Test
    void anEndpointRemovedByAReloadHasItsIdleConnectionsClosed() throws Exception {
        TestUpstream old = h.upstream("old", TestUpstream.name());
        TestUpstream fresh = h.upstream("new", TestUpstream.name());
        h.start(config(old.endpoint(), "", ""));
        requests(2);
        assertThat(old.openConnections()).isEqualTo(1);
        h.reload(config(fresh.endpoint(), "", ""));
        await().atMost(Duration.ofSeconds(5)).until(() -> old.openConnections() == 0);
        requests(1);
        assertThat(fresh.requests()).isEqualTo(1);
    }

    @Test
    void idleConnectionsCloseAfterTheIdleTimeout() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config(up.endpoint(), "idleTimeout: 200ms", ""));
        requests(1);
        long t0 = System.nanoTime();
        await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
        requests(1);
        assertThat(up.connections()).isEqualTo(2);
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"epoll", "io_uring", "nio"})
    void poolsArePerEventLoopOnEachTransport(String transport) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(!transport.equals("io_uring")
                || io.netty.channel.uring.IoUring.isAvailable(), "io_uring not available here");
        org.junit.jupiter.api.Assumptions.assumeTrue(!transport.equals("epoll")
                || io.netty.channel.epoll.Epoll.isAvailable(), "epoll not available here");
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config(up.endpoint(), "", "").replace("workers: 1", "workers: 2\ntransport: " + transport));
        for (int i = 0; i < 12; i++) {
            assertThat(h.get("/loop").status()).isEqualTo(200); // a new client connection each time
        }
        // Each loop that served a client made (at most) one upstream connection and then reused it.
        assertThat(up.connections()).isBetween(1, 2);
        assertThat(up.requests()).isEqualTo(12);
    }

    @Test
    void aConnectionIsRetiredAfterMaxRequests() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config(up.endpoint(), "maxRequestsPerConnection: 2", ""));
        requests(5);
        assertThat(up.connections()).isEqualTo(3);
    }

    @Test
    void maxIdleZeroKeepsNothing() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config(up.endpoint(), "maxIdlePerLoop: 0", ""));
        requests(3);
        assertThat(up.connections()).isEqualTo(3);
    }

    /** A connect that times out is a gateway timeout (504, as nginx and our FastCGI calls answer), not a 502. */
    @Test
    void connectTimeoutGives504() throws Exception {
        // A loopback listener that never accepts, with its backlog full: further connects hang until the timeout.
        java.net.ServerSocket s = h.add(new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()));
        // Fill the backlog so further connects wait (Linux keeps SYNs of a full accept queue unanswered).
        java.util.List<java.net.Socket> fill = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            java.net.Socket f = new java.net.Socket();
            try {
                f.connect(s.getLocalSocketAddress(), 200);
                fill.add(h.add(f));
            } catch (java.io.IOException e) {
                f.close();
                break;
            }
        }
        h.start(config("127.0.0.1:" + s.getLocalPort(), "connectTimeout: 200ms", "retries: { attempts: 0 }"));
        long t0 = System.nanoTime();
        int status = h.get("/c").status();
        assertThat(status).isEqualTo(504);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
    }

    /** Answers after {@code millis}, noting the most connections it ever had open at once. */
    private static TestUpstream.Behaviour slow(int millis, java.util.concurrent.atomic.AtomicInteger peak) {
        return (ctx, req, up) -> {
            peak.accumulateAndGet(up.openConnections(), Math::max);
            ctx.executor().schedule(() -> ctx.writeAndFlush(TestUpstream.response(200, "ok")), millis,
                    java.util.concurrent.TimeUnit.MILLISECONDS);
        };
    }

    @Test
    void maxConnectionsCapsTheConnectionsAndQueuesTheRest() throws Exception {
        java.util.concurrent.atomic.AtomicInteger peak = new java.util.concurrent.atomic.AtomicInteger();
        TestUpstream up = h.upstream(slow(100, peak));
        h.start(config(up.endpoint(), "", "").replace("pool: {  }", "maxConnections: 2"));
        java.util.List<RawClient> clients = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            RawClient c = h.client();
            c.send("GET /p HTTP/1.1\r\nHost: a\r\n\r\n");
            clients.add(c);
        }
        for (RawClient c : clients) {
            assertThat(c.read().status()).isEqualTo(200);
        }
        assertThat(up.requests()).isEqualTo(6);
        assertThat(up.connections()).as("connections ever opened").isEqualTo(2);
        assertThat(peak.get()).isLessThanOrEqualTo(2);
    }

    @Test
    void aQueuedRequestThatTimesOutLeavesTheQueue() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.stall());
        h.start(config(up.endpoint(), "", "timeouts: { request: 300ms }").replace("pool: {  }", "maxConnections: 1"));
        RawClient first = h.client();
        first.send("GET /p HTTP/1.1\r\nHost: a\r\n\r\n");
        await().atMost(Duration.ofSeconds(5)).until(() -> up.requests() == 1);
        RawClient second = h.client();
        assertThat(second.send("GET /p HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(504);
        assertThat(first.read().status()).isEqualTo(504);
        // The stalled connection was given up on; a new request gets a new one.
        up.behave(TestUpstream.reply(200, "ok"));
        assertThat(h.client().send("GET /p HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);
    }
}
