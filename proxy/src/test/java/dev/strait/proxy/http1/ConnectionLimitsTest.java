package dev.strait.proxy.http1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-connection limits of docs/config.md on the real proxy: clients that send or read too slowly
 * are cut off in bounded time, connections end after so many requests or so long, and the number of
 * open connections is capped.
 */
class ConnectionLimitsTest {
    private static final String GET = "GET /hello HTTP/1.1\r\nHost: example.com\r\n\r\n";
    private static final String SITE = """
            routes:
              - name: site
                hosts: [ "*" ]
                rules:
                  - matches: [ { path: { type: Exact, value: /big } } ]
                    respond: { body: "%s" }
                  - respond: { body: "hello\\n" }
            """.formatted("x".repeat(60_000));

    private final ProxyHarness proxy = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    @Test
    void aBodyThatStopsArrivingGets408AndTheUpstreamCallEnds() throws Exception {
        TestUpstream up = proxy.upstream(TestUpstream.echo());
        proxy.start("""
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                limits: { bodyTimeout: 300ms }
                routes: [ { name: r, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ] } ] } ]
                """.formatted(up.endpoint()));
        RawClient c = proxy.client();
        long start = System.nanoTime();
        c.send("POST /echo HTTP/1.1\r\nHost: example.com\r\nContent-Length: 10\r\n\r\nabc");
        RawClient.Response r = c.read();
        assertThat(r.status()).isEqualTo(408);
        assertThat(c.closedByServer()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(250), Duration.ofSeconds(3));
        // The half-sent request must not stay on an upstream connection that could be reused.
        await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
    }

    @Test
    void anEarlyAnswerDoesNotWaitForeverForTheRestOfTheBody() throws Exception {
        proxy.start("limits: { bodyTimeout: 300ms }\n" + SITE);
        RawClient c = proxy.client();
        c.send("POST /hello HTTP/1.1\r\nHost: example.com\r\nContent-Length: 10\r\n\r\nabc");
        assertThat(c.read().text()).isEqualTo("hello\n");
        assertThat(c.closedByServer()).isTrue();
    }

    @Test
    void aBodyThatKeepsComingIsNotCutOff() throws Exception {
        proxy.start("limits: { bodyTimeout: 300ms }\n" + SITE);
        TestUpstream up = proxy.upstream(TestUpstream.echo());
        proxy.reload("""
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                limits: { bodyTimeout: 300ms }
                routes: [ { name: r, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ] } ] } ]
                """.formatted(up.endpoint()));
        RawClient c = proxy.client();
        c.send("POST /echo HTTP/1.1\r\nHost: example.com\r\nContent-Length: 6\r\n\r\n");
        for (int i = 0; i < 6; i++) {
            Thread.sleep(100); // a slow but steady sender: 600 ms in all, never 300 ms silent
            c.send("a");
        }
        assertThat(c.read().text()).isEqualTo("aaaaaa");
    }

    @Test
    void aClientThatDoesNotReadIsCutOffAndNotBuffered() throws Exception {
        proxy.start("limits: { sendTimeout: 500ms }\n" + SITE);
        try (RawClient c = new RawClient(proxy.address(), 4096)) {
            // 400 pipelined requests for 60 KB each (24 MB) that are never read.
            c.send((("GET /big HTTP/1.1\r\nHost: example.com\r\n\r\n").repeat(400)));
            await().atMost(Duration.ofSeconds(10)).until(() -> proxy.metrics.openConnections() == 0);
            // Requests are answered only as fast as the client reads: most were never answered.
            assertThat(answered()).isBetween(1.0, 200.0);
            assertThat(drained(c.input())).as("what reached the client before the cut").isLessThan(24_000_000);
        }
    }

    /**
     * headerTimeout runs from a head's first bytes, not from the end of the answer before it: a head
     * begun late in a keep-alive spell still gets all of it (known to a second, and never cut short).
     */
    @Test
    void aHeadBegunAfterAnIdleSpellGetsTheWholeHeaderTimeout() throws Exception {
        proxy.start(SITE + "limits: { headerTimeout: 2s, keepAliveTimeout: 4s }\n");
        RawClient c = proxy.client();
        assertThat(c.send(GET).read().status()).isEqualTo(200);
        Thread.sleep(3000); // idle, within keepAliveTimeout
        c.send("GET /hello HTTP/1.1\r\n");
        Thread.sleep(1500); // past the keep-alive deadline, within the head's own headerTimeout
        RawClient.Response r = c.send("Host: example.com\r\n\r\n").read();
        assertThat(r.status()).isEqualTo(200);
    }

    /** The start of the next head in the same packet as a request is a partial head, not an idle connection. */
    @Test
    void aPartialHeadThatCameWithTheLastRequestGets408AtTheHeaderTimeout() throws Exception {
        proxy.start(SITE + "limits: { headerTimeout: 500ms, keepAliveTimeout: 60s }\n");
        RawClient c = proxy.client();
        long start = System.nanoTime();
        c.send(GET + "GET /hel");
        assertThat(c.read().status()).isEqualTo(200);
        assertThat(c.read().status()).isEqualTo(408);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(450), Duration.ofSeconds(5));
    }

    /**
     * An answer given before the request body was read, on a connection that then closes: without a lingering
     * close the unread body makes the kernel reset the connection and the client never sees the answer.
     */
    @Test
    void anAnswerBeforeTheBodyWasReadIsNotLostToAReset() throws Exception {
        proxy.start(SITE + "limits: { maxBodyBytes: 1048576 }\n");
        byte[] body = new byte[32 << 20]; // more than the socket buffers between the two ends hold
        RawClient c = proxy.client();
        c.send("POST /hello HTTP/1.1\r\nHost: example.com\r\nContent-Length: " + body.length + "\r\n\r\n");
        c.output().write(body); // the proxy answered 413 at the head, and reads on (and drops) until this ends
        c.output().flush();
        RawClient.Response r = c.read();
        assertThat(r.status()).isEqualTo(413);
        assertThat(c.closedByServer()).isTrue();

        RawClient d = proxy.client(); // the same for an answer that does not need the body at all
        byte[] allowed = new byte[1_000_000];
        d.send("POST /big HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\nContent-Length: " + allowed.length
                + "\r\n\r\n");
        d.output().write(allowed);
        d.output().flush();
        RawClient.Response big = d.read();
        assertThat(big.status()).isEqualTo(200);
        assertThat(big.body()).hasSize(60_000);
        assertThat(d.closedByServer()).isTrue();
    }

    @Test
    void theConnectionClosesAfterMaxRequests() throws Exception {
        proxy.start("limits: { maxRequestsPerConnection: 3 }\n" + SITE);
        RawClient c = proxy.client();
        assertThat(c.send(GET).read().header("connection")).isNotEqualTo("close");
        assertThat(c.send(GET).read().header("connection")).isNotEqualTo("close");
        assertThat(c.send(GET).read().header("connection")).isEqualTo("close");
        assertThat(c.closedByServer()).isTrue();
    }

    @Test
    void theConnectionClosesAfterMaxAge() throws Exception {
        proxy.start("limits: { maxConnectionAge: 100ms }\n" + SITE);
        RawClient c = proxy.client();
        assertThat(c.send(GET).read().header("connection")).isNotEqualTo("close");
        Thread.sleep(150); // let the connection grow older than its limit
        assertThat(c.send(GET).read().header("connection")).isEqualTo("close");
        assertThat(c.closedByServer()).isTrue();
    }

    @Test
    void connectionsOverTheCapAreClosedAtOnce() throws Exception {
        proxy.start("limits: { maxConnections: 2 }\n" + SITE);
        RawClient a = proxy.client();
        RawClient b = proxy.client();
        assertThat(a.send(GET).read().status()).isEqualTo(200);
        assertThat(b.send(GET).read().status()).isEqualTo(200);
        try (RawClient third = new RawClient(proxy.address())) {
            third.send(GET);
            assertThat(third.closedByServer()).isTrue();
        } catch (SocketException reset) {
            // closed before our request went out: refused all the same
        }
        assertThat(proxy.metrics.registry().scrape()).contains("strait_connections_refused_total 1.0");
        a.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> proxy.metrics.openConnections() == 1);
        try (RawClient again = new RawClient(proxy.address())) {
            assertThat(again.send(GET).read().status()).isEqualTo(200);
        }
    }

    /** The gauge counts what the cap counts: connections that have sent nothing yet too (a slowloris shows). */
    @Test
    void openConnectionsCountFromTheAcceptLikeTheCap() throws Exception {
        proxy.start("limits: { maxConnections: 3 }\n" + SITE);
        RawClient a = proxy.client();
        RawClient b = proxy.client();
        RawClient c = proxy.client(); // none of them sends a byte
        await().atMost(Duration.ofSeconds(5)).until(() -> proxy.metrics.openConnections() == 3);
        assertThat(proxy.metrics.registry().scrape()).contains("strait_connections_open 3.0");
        a.close();
        b.close();
        c.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> proxy.metrics.openConnections() == 0);
    }

    @Test
    void aListenerCapsItsOwnConnectionsAndTheOthersGoOn() throws Exception {
        proxy.startConfig("""
                listeners:
                  - { name: small, address: "127.0.0.1:0", maxConnections: 1 }
                  - { name: big, address: "127.0.0.1:0" }
                accessLog: { enabled: false }
                limits: { maxConnections: 10 }
                """ + SITE);
        RawClient a = proxy.add(new RawClient(proxy.server.address("small")));
        assertThat(a.send(GET).read().status()).isEqualTo(200);
        try (RawClient second = new RawClient(proxy.server.address("small"))) {
            second.send(GET);
            assertThat(second.closedByServer()).as("over the listener's cap").isTrue();
        } catch (SocketException reset) {
            // closed before our request went out: refused all the same
        }
        try (RawClient other = new RawClient(proxy.server.address("big"))) {
            assertThat(other.send(GET).read().status()).as("another listener").isEqualTo(200);
        }
        assertThat(proxy.metrics.registry().scrape()).contains("strait_connections_refused_total 1.0");
        a.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> proxy.metrics.openConnections() == 0);
        try (RawClient again = new RawClient(proxy.server.address("small"))) {
            assertThat(again.send(GET).read().status()).as("room again once the first left").isEqualTo(200);
        }
    }

    @Test
    void underscoreNamesCanBeRefusedOrAllowed() throws Exception {
        TestUpstream up = proxy.upstream(TestUpstream.echo());
        String config = """
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes: [ { name: r, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ] } ] } ]
                """.formatted(up.endpoint());
        proxy.start("limits: { underscoreHeaders: reject }\n" + config);
        RawClient c = proxy.client();
        assertThat(c.send("GET / HTTP/1.1\r\nHost: a\r\nX_Id: 1\r\n\r\n").read().status()).isEqualTo(400);

        proxy.reload("limits: { underscoreHeaders: allow }\n" + config);
        RawClient d = proxy.client(); // limits apply to connections opened after the change
        assertThat(d.send("GET / HTTP/1.1\r\nHost: a\r\nX_Id: 1\r\n\r\n").read().status()).isEqualTo(200);
        assertThat(up.last().header("x_id")).isEqualTo("1");
    }

    private double answered() {
        return proxy.metrics.registry().scrape().lines().filter(l -> l.startsWith("strait_requests_total{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /** Reads what is there until the server closes; the count of bytes read. */
    private static long drained(InputStream in) throws IOException {
        long n = 0;
        byte[] buf = new byte[65536];
        try {
            for (int r; (r = in.read(buf)) > 0; ) {
                n += r;
            }
        } catch (SocketTimeoutException | SocketException e) {
            // reset or nothing more: done
        }
        return n;
    }
}
