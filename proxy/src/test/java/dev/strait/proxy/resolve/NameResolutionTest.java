package dev.strait.proxy.resolve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestDnsServer;
import dev.strait.proxy.testing.TestUpstream;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Endpoint names, looked up on the loops through a real DNS server on 127.0.0.1 (the config's
 * {@code resolver.nameservers}), never with the JDK's blocking lookup.
 */
class NameResolutionTest {
    private final ProxyHarness h = new ProxyHarness();
    private final TestDnsServer dns = h.add(newDns());

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static TestDnsServer newDns() {
        try {
            return new TestDnsServer();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One named upstream behind {@code /}, a fixed answer at {@code /fixed}; one loop, so both share it. */
    private String config(String endpoint, String upstreamExtra, String resolverExtra) {
        return """
                workers: 1
                resolver: { nameservers: [ "%s" ] %s }
                upstreams:
                  - name: app
                    endpoints: [ "%s" ]
                    pool: { maxIdlePerLoop: 0, connectTimeout: 1s }
                    %s
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Exact, value: /fixed } } ]
                        respond: { status: 200, body: "fixed" }
                      - backends: [ { upstream: app } ]
                        retries: { attempts: 0 }
                """.formatted(dns.address(), resolverExtra, endpoint, upstreamExtra);
    }

    private int status(String path) throws Exception {
        try (RawClient c = h.client()) {
            return c.send("GET " + path + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n").read().status();
        }
    }

    @Test
    void aNamedEndpointIsLookedUpOnTheConfiguredServer() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "app"));
        dns.add("app.strait.test", "127.0.0.1", 60);
        h.start(config("app.strait.test:" + up.port(), "", ""));
        assertThat(status("/a")).isEqualTo(200);
        assertThat(status("/b")).isEqualTo(200);
        assertThat(up.requests()).isEqualTo(2);
        assertThat(up.connections()).isEqualTo(2); // no idle connections kept: each request connected anew
        assertThat(dns.asked("app.strait.test")).as("the second connect uses the cached answer").isEqualTo(1);
    }

    @Test
    void anAnswerIsKeptForItsTtlAndThenAskedForAgain() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "app"));
        dns.add("app.strait.test", "127.0.0.1", 1);
        h.start(config("app.strait.test:" + up.port(), "", ""));
        assertThat(status("/a")).isEqualTo(200);
        assertThat(dns.asked("app.strait.test")).isEqualTo(1);
        // The name moves to an address where nothing listens: once the TTL ends, connects go there.
        dns.add("app.strait.test", "127.0.0.3", 1);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> status("/b") == 502);
        assertThat(dns.asked("app.strait.test")).isGreaterThanOrEqualTo(2);
    }

    /**
     * A pooled keep-alive connection follows a moved name too: once the new answer is at hand, the idle
     * connection to the old address is closed rather than reused, and requests go where new connections go.
     */
    @Test
    void aPooledConnectionIsNotReusedOnceItsNameMoved() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "app"));
        dns.add("app.strait.test", "127.0.0.1", 1);
        h.start(config("app.strait.test:" + up.port(), "", "").replace("maxIdlePerLoop: 0", "maxIdlePerLoop: 4"));
        assertThat(status("/a")).isEqualTo(200);
        assertThat(status("/b")).isEqualTo(200);
        assertThat(up.connections()).as("the second request reused the pooled connection").isEqualTo(1);
        // The name moves to an address where nothing listens; the pooled connection to the old one still works.
        dns.add("app.strait.test", "127.0.0.3", 1);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> status("/c") == 502);
        assertThat(up.connections()).as("no new connection went to the old address").isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
    }

    @Test
    void anUnknownNameIsABadGateway() throws Exception {
        h.start(config("nowhere.strait.test:80", "", ""));
        assertThat(status("/a")).isEqualTo(502);
        assertThat(status("/fixed")).isEqualTo(200);
    }

    @Test
    void aServerThatDoesNotAnswerHoldsUpNoOtherRequestOfTheLoop() throws Exception {
        dns.silence();
        h.start(config("slow.strait.test:80", "", ", timeout: 5s"));
        long t0 = System.nanoTime();
        CompletableFuture<Integer> named = CompletableFuture.supplyAsync(() -> {
            try {
                return status("/a");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // While the one loop waits for the lookup, it serves other requests at once.
        await().atMost(Duration.ofSeconds(5)).until(() -> h.server.upstreamRequestsInFlight() == 1);
        long f0 = System.nanoTime();
        assertThat(status("/fixed")).isEqualTo(200);
        assertThat(Duration.ofNanos(System.nanoTime() - f0)).isLessThan(Duration.ofMillis(500));
        assertThat(named.get()).as("the lookup counts against the 1 s connect timeout").isEqualTo(504);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofMillis(900), Duration.ofSeconds(4));
    }

    @Test
    void namesInTheHostsFileNeedNoServer() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "app"));
        dns.silence();
        h.start(config("localhost:" + up.port(), "", ""));
        assertThat(status("/a")).isEqualTo(200);
    }

    @Test
    void anUpstreamThatRefusesLocalAddressesIsNotLedToThem() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "app"));
        dns.add("metadata.strait.test", "169.254.169.254", 60).add("self.strait.test", "127.0.0.1", 60);
        h.start(config("self.strait.test:" + up.port(), "refuseLocalAddresses: true", ""));
        assertThat(status("/a")).isEqualTo(502);
        h.reload(config("metadata.strait.test:80", "refuseLocalAddresses: true", ""));
        assertThat(status("/a")).isEqualTo(502);
        h.reload(config("127.0.0.1:" + up.port(), "refuseLocalAddresses: true", ""));
        assertThat(status("/a")).as("an address literal is held to it too").isEqualTo(502);
        assertThat(up.requests()).isZero();
        h.reload(config("self.strait.test:" + up.port(), "", ""));
        assertThat(status("/a")).isEqualTo(200);
    }

    @Test
    void localMeansLoopbackLinkLocalUnspecifiedAndMulticast() throws Exception {
        for (String ip : new String[] {"127.0.0.1", "127.8.9.10", "::1", "169.254.169.254", "fe80::1", "0.0.0.0",
                "::", "224.0.0.1", "ff02::1", "::ffff:127.0.0.1"}) {
            assertThat(NameResolution.isLocal(InetAddress.getByName(ip))).as(ip).isTrue();
        }
        for (String ip : new String[] {"10.0.0.1", "192.168.1.1", "8.8.8.8", "2001:db8::1", "fd00::1"}) {
            assertThat(NameResolution.isLocal(InetAddress.getByName(ip))).as(ip).isFalse();
        }
    }

    @Test
    void healthChecksLookNamesUpToo() throws Exception {
        TestUpstream good = h.upstream("good", (ctx, req, u) -> ctx.writeAndFlush(TestUpstream.response(200, u.name)));
        dns.add("good.strait.test", "127.0.0.1", 60);
        h.start("""
                workers: 1
                resolver: { nameservers: [ "%s" ] }
                upstreams:
                  - name: app
                    endpoints: [ "good.strait.test:%d", "gone.strait.test:80" ]
                    healthCheck: { path: /healthz, interval: 100ms, unhealthyThreshold: 1, healthyThreshold: 1 }
                    outlierDetection: { consecutiveFailures: 0 }
                    panicThreshold: 0
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        retries: { attempts: 0 }
                """.formatted(dns.address(), good.port()));
        await().atMost(Duration.ofSeconds(5)).until(() -> h.metrics.scrape()
                .contains("strait_upstream_endpoints_healthy{upstream=\"app\"} 1.0"));
        for (int i = 0; i < 4; i++) {
            assertThat(status("/x")).isEqualTo(200);
        }
        assertThat(good.seen()).extracting(TestUpstream.Seen::uri).contains("/healthz", "/x");
    }

    /** The pod's search domains would turn a short ExternalName into another namespace's Service. */
    @Test
    void aNameThatMayNotLeadAnywhereLocalIsTakenAsAbsolute() throws Exception {
        dns.add("api.identity.svc.cluster.local", "10.1.2.3", 60);
        io.netty.channel.EventLoopGroup group = new io.netty.channel.MultiThreadIoEventLoopGroup(1,
                io.netty.channel.nio.NioIoHandler.newFactory());
        NameResolution names = new NameResolution(
                new dev.strait.model.Config.Resolver(java.util.List.of(dev.strait.model.HostPort.parse(dns.address())), null),
                () -> io.netty.channel.socket.nio.NioDatagramChannel.class, io.netty.channel.socket.nio.NioSocketChannel.class,
                new NameResolution.Search(java.util.List.of("svc.cluster.local", "cluster.local"), 5));
        try {
            io.netty.channel.EventLoop loop = group.next();
            dev.strait.model.HostPort api = new dev.strait.model.HostPort("api.identity", 80);
            var searched = loop.submit(() -> names.resolve(loop, api, false)).get().await();
            assertThat(searched.getNow().getAddress().getHostAddress()).as("with the search domains").isEqualTo("10.1.2.3");
            var absolute = loop.submit(() -> names.resolve(loop, api, true)).get().await();
            assertThat(absolute.cause()).isInstanceOf(java.net.UnknownHostException.class)
                    .hasMessageStartingWith("cannot resolve api.identity:");
        } finally {
            names.close();
            group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).await();
        }
    }
}
