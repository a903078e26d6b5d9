package dev.strait.proxy.fastcgi;

import static dev.strait.proxy.fastcgi.FakeFastCgi.end;
import static dev.strait.proxy.fastcgi.FakeFastCgi.respond;
import static dev.strait.proxy.fastcgi.FakeFastCgi.stdout;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.config.Serving;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import dev.strait.proxy.testing.TestServing;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The FastCGI client against a scripted application: what goes over the wire, protocol statuses,
 * broken answers, connections that die at chosen moments, timeouts, and the pool's bound.
 */
class FastCgiProtocolTest {
    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : started) {
            c.close();
        }
    }

    private FakeFastCgi app(FakeFastCgi.Script script) throws IOException {
        FakeFastCgi app = new FakeFastCgi(script);
        started.add(app);
        return app;
    }

    private InetSocketAddress proxy(FakeFastCgi app, int maxConnections, String timeout) throws Exception {
        return proxy(app.port(), maxConnections, timeout);
    }

    private InetSocketAddress proxy(int port, int maxConnections, String timeout) throws Exception {
        return serve("workers: 2", "endpoints: [ \"127.0.0.1:" + port + "\" ], maxConnections: " + maxConnections,
                "timeouts: { request: " + timeout + " }");
    }

    /**
     * A proxy whose one route sends everything to the FastCGI upstream {@code app}; its HTTP listener's address.
     *
     * @param top      the config's own settings ({@code workers}, {@code resolver})
     * @param upstream the upstream's settings after its name and protocol
     * @param rule     the rule's settings after its backend and root
     */
    private InetSocketAddress serve(String top, String upstream, String rule) throws Exception {
        Serving serving = TestServing.serving("""
                %s
                accessLog: { enabled: false }
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                upstreams:
                  - { name: app, protocol: fastcgi, %s }
                routes:
                  - name: fcgi
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        fastcgi: { root: /srv/app }
                        %s
                """.formatted(top, upstream, rule));
        ProxyServer server = new ProxyServer(serving.snapshot().config(), serving, new ProxyMetrics(), null).start();
        started.add(0, server);
        return server.address("http");
    }

    private InetSocketAddress proxy(FakeFastCgi app) throws Exception {
        return proxy(app, 4, "5s");
    }

    @Test
    void requestOnTheWireAndAKeptConnection() throws Exception {
        FakeFastCgi app = app((r, out, s) -> {
            stdout(out, "Status: 200 OK\r\nContent-");
            stdout(out, "Type: text/plain\r\n\r\nyou sent ");
            stdout(out, r.stdinText());
            end(out, FastCgiRecords.REQUEST_COMPLETE);
        });
        InetSocketAddress a = proxy(app);
        try (HttpConn c = new HttpConn(a)) {
            for (int i = 0; i < 3; i++) {
                HttpConn.Response r = c.send("POST /x.php/info?q=" + i + " HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"
                        + "body" + i).read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("content-type")).isEqualTo("text/plain");
                assertThat(r.text()).isEqualTo("you sent body" + i);
            }
        }
        assertThat(app.accepted.get()).as("one kept connection").isEqualTo(1);
        FakeFastCgi.Request first = app.requests.get(0);
        assertThat(first.keepConn()).isTrue();
        assertThat(first.params()).containsEntry("SCRIPT_FILENAME", "/srv/app/x.php")
                .containsEntry("PATH_INFO", "/info").containsEntry("QUERY_STRING", "q=0")
                .containsEntry("CONTENT_LENGTH", "5").containsEntry("REQUEST_METHOD", "POST");
        assertThat(app.requests).extracting(FakeFastCgi.Request::number).containsExactly(1, 2, 3);
    }

    @ParameterizedTest(name = "protocol status {0} -> {1}")
    @CsvSource({"1, 502", "2, 503", "3, 502"})
    void refusedRequests(int protocolStatus, int status) throws Exception {
        FakeFastCgi app = app((r, out, s) -> end(out, protocolStatus));
        InetSocketAddress a = proxy(app);
        assertThat(HttpConn.once(a, HttpConn.get("/a.php")).status()).isEqualTo(status);
        assertThat(HttpConn.once(a, HttpConn.get("/a.php")).status()).isEqualTo(status);
        assertThat(app.accepted.get()).as("a refused request's connection is not reused").isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "no stdout at all | ",
            "head never ends | Content-Type: text/plain\\r\\n",
            "line without colon | Content-Type text/plain\\r\\n\\r\\n",
            "bad status | Status: two hundred\\r\\n\\r\\n",
    })
    void brokenAnswersAre502(String what, String stdout) throws Exception {
        FakeFastCgi app = app((r, out, s) -> respond(out, stdout == null ? "" : stdout.replace("\\r\\n", "\r\n")));
        assertThat(HttpConn.once(proxy(app), HttpConn.get("/a.php")).status()).isEqualTo(502);
    }

    @Test
    void aBodyThatFitsIsReadWholeBeforeAChildIsTaken() throws Exception {
        FakeFastCgi app = app((r, out, s) -> FakeFastCgi.respond(out, "Content-Type: text/plain\r\n\r\ngot "
                + r.stdin().length));
        InetSocketAddress proxy = proxy(app);
        try (HttpConn slow = new HttpConn(proxy)) {
            // A slow upload: its head and half its body, then nothing for a while.
            slow.send("POST /upload.php HTTP/1.1\r\nHost: php.test\r\nContent-Length: 1000\r\n\r\n" + "a".repeat(500));
            // Meanwhile another client is served, on a connection of its own: the upload holds none.
            assertThat(HttpConn.once(proxy, HttpConn.get("/a.php")).text()).isEqualTo("got 0");
            assertThat(app.accepted.get()).as("only the served request's connection").isEqualTo(1);
            assertThat(app.requests).hasSize(1);
            slow.send("b".repeat(500));
            HttpConn.Response r = slow.read(false);
            assertThat(r.text()).isEqualTo("got 1000");
            assertThat(app.requests.get(1).stdinText()).isEqualTo("a".repeat(500) + "b".repeat(500));
        }
    }

    @Test
    void aResponseRateMakesTheApplicationsAnswerGoNoFasterThanIt() throws Exception {
        String body = "x".repeat(150_000);
        FakeFastCgi app = app((r, out, s) -> {
            stdout(out, "Status: 200 OK\r\nContent-Type: text/plain\r\n\r\n");
            for (int at = 0; at < body.length(); at += 30_000) {
                stdout(out, body.substring(at, at + 30_000));
            }
            end(out, FastCgiRecords.REQUEST_COMPLETE);
        });
        // 50,000 bytes at once, then 100,000 at 200,000 a second: half a second at least.
        InetSocketAddress a = serve("workers: 1", "endpoints: [ \"127.0.0.1:" + app.port() + "\" ]",
                "responseRate: { bytesPerSecond: 200000, afterBytes: 50000 }");
        try (HttpConn c = new HttpConn(a)) {
            long t0 = System.nanoTime();
            HttpConn.Response r = c.send("GET /big.php HTTP/1.1\r\nHost: h\r\n\r\n").read();
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(r.text()).isEqualTo(body);
            assertThat(millis).isGreaterThanOrEqualTo(480);
        }
    }

    @Test
    void declaredLengthIsKept() throws Exception {
        FakeFastCgi app = app((r, out, s) -> respond(out, "Content-Length: 5\r\n\r\nhello"));
        HttpConn.Response r = HttpConn.once(proxy(app), HttpConn.get("/a.php"));
        assertThat(r.header("content-length")).isEqualTo("5");
        assertThat(r.header("transfer-encoding")).isNull();
        assertThat(r.text()).isEqualTo("hello");
    }

    /**
     * A page written whole (head without Content-Length, body and END_REQUEST in one write, as php-fpm
     * sends a small page) reaches the proxy in one read: the client gets it with a Content-Length, not
     * chunked, and the connections on both sides stay open for the next request.
     */
    @Test
    void anAnswerThatEndsInTheReadThatBroughtItGetsAContentLength() throws Exception {
        FakeFastCgi app = app((r, out, s) -> {
            java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
            respond(whole, "Content-Type: text/plain\r\n\r\nhello, " + r.params().get("QUERY_STRING"));
            out.write(whole.toByteArray()); // one write: one segment on loopback
        });
        try (HttpConn c = new HttpConn(proxy(app))) {
            for (int i = 0; i < 3; i++) {
                HttpConn.Response r = c.send(HttpConn.get("/a.php?n" + i)).read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("transfer-encoding")).isNull();
                assertThat(r.header("content-length")).isEqualTo(String.valueOf(("hello, n" + i).length()));
                assertThat(r.text()).isEqualTo("hello, n" + i);
            }
            // HEAD streams as before (no length is made up from what the application sent for it).
            HttpConn.Response head = c.send("HEAD /a.php?h HTTP/1.1\r\nHost: h\r\n\r\n").read(true);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("content-length")).isNull();
            assertThat(c.send(HttpConn.get("/a.php?after")).read().text()).isEqualTo("hello, after");
        }
        assertThat(app.accepted.get()).as("one kept connection").isEqualTo(1);
    }

    /**
     * An application still writing when the proxy's read ends: what came so far goes to the client at
     * once, chunked, before the application writes the rest (the script waits until the client has it).
     */
    @Test
    void anAnswerStillBeingWrittenStreamsAsItComes() throws Exception {
        CountDownLatch clientHasFirst = new CountDownLatch(1);
        FakeFastCgi app = app((r, out, s) -> {
            stdout(out, "Content-Type: text/plain\r\n\r\nfirst ");
            out.flush();
            if (!clientHasFirst.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the first part never reached the client");
            }
            stdout(out, "second");
            end(out, FastCgiRecords.REQUEST_COMPLETE);
        });
        InetSocketAddress a = proxy(app);
        try (java.net.Socket client = new java.net.Socket(a.getAddress(), a.getPort())) {
            client.setSoTimeout(10_000);
            client.getOutputStream().write(HttpConn.get("/a.php").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            String got = readUntil(client.getInputStream(), "first ");
            assertThat(got).startsWith("HTTP/1.1 200").containsIgnoringCase("transfer-encoding: chunked\r\n");
            clientHasFirst.countDown();
            String rest = readUntil(client.getInputStream(), "0\r\n\r\n");
            assertThat(rest).contains("second");
        }
    }

    private static String readUntil(java.io.InputStream in, String end) throws IOException {
        StringBuilder b = new StringBuilder();
        while (b.indexOf(end) < 0) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed after: " + b);
            }
            b.append((char) c);
        }
        return b.toString();
    }

    @Test
    void connectionLostMidBodyCutsTheClientResponse() throws Exception {
        FakeFastCgi app = app((r, out, s) -> {
            stdout(out, "Content-Type: text/plain\r\n\r\npartial");
            out.flush();
            s.close();
        });
        InetSocketAddress a = proxy(app);
        try (HttpConn c = new HttpConn(a)) {
            c.send(HttpConn.get("/a.php"));
            assertThatThrownBy(c::read).isInstanceOf(IOException.class).hasMessageContaining("inside a chunked body");
        }
    }

    @Test
    void staleKeptConnectionIsRetriedOnceOnAFreshOne() throws Exception {
        // The second request on the first connection finds it closed by the application (as php-fpm
        // does when a child reaches pm.max_requests), before any answer: it is sent again on a new one.
        FakeFastCgi app = app((r, out, s) -> {
            if (r.connection() == 1 && r.number() == 2) {
                s.close();
                return;
            }
            respond(out, "\r\nok " + r.connection());
        });
        InetSocketAddress a = proxy(app);
        try (HttpConn c = new HttpConn(a)) {
            assertThat(c.send(HttpConn.get("/a.php")).read().text()).isEqualTo("ok 1");
            HttpConn.Response second = c.send(HttpConn.get("/a.php")).read();
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.text()).isEqualTo("ok 2");
        }
    }

    @Test
    void noAnswerWithinTheRequestTimeoutIs504AndTheConnectionIsClosed() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        FakeFastCgi app = app((r, out, s) -> never.await(10, TimeUnit.SECONDS));
        InetSocketAddress a = proxy(app, 4, "300ms");
        long start = System.nanoTime();
        assertThat(HttpConn.once(a, HttpConn.get("/a.php")).status()).isEqualTo(504);
        assertThat((System.nanoTime() - start) / 1_000_000).isBetween(250L, 4000L);
        never.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> app.open.get() == 0);
    }

    @Test
    void clientGoneMidRequestClosesTheFastCgiConnection() throws Exception {
        CountDownLatch answering = new CountDownLatch(1);
        FakeFastCgi app = app((r, out, s) -> {
            answering.countDown();
            Thread.sleep(5000);
        });
        InetSocketAddress a = proxy(app);
        HttpConn c = new HttpConn(a);
        c.send(HttpConn.get("/a.php"));
        assertThat(answering.await(5, TimeUnit.SECONDS)).isTrue();
        c.close();
        // The cut request's connection is closed, not kept idle for the next request.
        InetSocketAddress endpoint = new InetSocketAddress("127.0.0.1", app.port());
        await().atMost(Duration.ofSeconds(3)).until(() -> FastCgiPools.openConnections(endpoint) == 0);
    }

    @Test
    void connectionsStayWithinMaxConnectionsAcrossLoops() throws Exception {
        FakeFastCgi app = app((r, out, s) -> {
            Thread.sleep(50);
            respond(out, "\r\nok");
        });
        InetSocketAddress a = proxy(app, 1, "10s");
        InetSocketAddress endpoint = new InetSocketAddress("127.0.0.1", app.port());
        int clients = 6;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        java.util.concurrent.atomic.AtomicInteger mostOpen = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
            while (running.get()) {
                mostOpen.accumulateAndGet(FastCgiPools.openConnections(endpoint), Math::max);
                Thread.onSpinWait();
            }
        });
        sampler.start();
        try {
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                answers.add(pool.submit(() -> {
                    int ok = 0;
                    try (HttpConn c = new HttpConn(a)) {
                        for (int j = 0; j < 3; j++) {
                            ok += c.send(HttpConn.get("/a.php")).read().status() == 200 ? 1 : 0;
                        }
                    }
                    return ok;
                }));
            }
            int ok = 0;
            for (Future<Integer> f : answers) {
                ok += f.get(30, TimeUnit.SECONDS);
            }
            assertThat(ok).isEqualTo(clients * 3);
        } finally {
            running.set(false);
            sampler.join();
            pool.shutdownNow();
        }
        // Both loops got turns with the single connection (it moved between them), never two at once.
        assertThat(mostOpen.get()).as("connections open at once").isEqualTo(1);
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        FakeFastCgi app = app((r, out, s) -> respond(out, "\r\n" + r.stdinText()));
        try (HttpConn c = new HttpConn(proxy(app))) {
            c.send("POST /a.php HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\none"
                    + "POST /a.php HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\ntwo"
                    + "GET /a.php HTTP/1.1\r\nHost: h\r\n\r\n");
            assertThat(c.read().text()).isEqualTo("one");
            assertThat(c.read().text()).isEqualTo("two");
            assertThat(c.read().text()).isEmpty();
        }
    }

    @Test
    void withoutFilesAnApplicationNotReadingStopsTheClientUpload() throws Exception {
        FakeFastCgi app = app((r, out, s) -> respond(out, "\r\nlen=" + r.stdin().length));
        app.readGate = new CountDownLatch(1);
        InetSocketAddress a = serve("workers: 2\nrequestBodyFiles: { maxBytes: 0 }",
                "endpoints: [ \"127.0.0.1:" + app.port() + "\" ], maxConnections: 4", "timeouts: { request: 60s }");
        int total = 32 * 1024 * 1024;
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        try (HttpConn c = new HttpConn(a, 64 * 1024)) {
            c.send("POST /up.php HTTP/1.1\r\nHost: h\r\nContent-Length: " + total + "\r\n\r\n");
            Thread writer = new Thread(() -> {
                byte[] mib = new byte[1024 * 1024];
                try {
                    for (int i = 0; i < total / mib.length; i++) {
                        c.send(mib);
                        written.addAndGet(mib.length);
                    }
                } catch (IOException e) {
                    // the test fails below
                }
            });
            writer.start();
            Thread.sleep(1000);
            // The proxy's socket buffers hold a few MiB (10 measured here, with default buffers on both
            // ends); without backpressure it would have read all 32 by now.
            assertThat(written.get()).as("bytes the client could write").isLessThan(total / 2);
            app.readGate.countDown();
            writer.join(20_000);
            assertThat(written.get()).isEqualTo(total);
            assertThat(c.read().text()).isEqualTo("len=" + total);
        }
    }

    /**
     * With files (the default), the same 32 MiB upload is taken whole while the application reads nothing: php-fpm
     * is asked only once it is in, and then gets it from the file at the pace it reads.
     */
    @Test
    void anUploadGoesToAFileWhileTheApplicationIsNotAskedYet() throws Exception {
        FakeFastCgi app = app((r, out, s) -> respond(out, "\r\nlen=" + r.stdin().length));
        app.readGate = new CountDownLatch(1);
        InetSocketAddress a = proxy(app, 4, "60s");
        int total = 32 * 1024 * 1024;
        io.netty.buffer.ByteBufAllocatorMetric direct =
                ((io.netty.buffer.ByteBufAllocatorMetricProvider) io.netty.buffer.ByteBufAllocator.DEFAULT).metric();
        long before = direct.usedDirectMemory(); // what this JVM's other servers and pools hold already
        try (HttpConn c = new HttpConn(a, 64 * 1024)) {
            c.send("POST /up.php HTTP/1.1\r\nHost: h\r\nContent-Length: " + total + "\r\n\r\n");
            byte[] mib = new byte[1024 * 1024];
            for (int i = 0; i < total / mib.length; i++) {
                c.send(mib); // would block past the socket buffers if the proxy stopped reading
            }
            assertThat(app.accepted.get()).as("php-fpm not asked before the body is in").isZero();
            // Asked now, but it reads nothing yet: the body waits in its file, not in the proxy's memory (the
            // hand-over stops where php-fpm's connection is backed up, as a client is paused).
            // (A hand-over that ignored the pause would have read the file into memory before connecting.)
            await().atMost(Duration.ofSeconds(10)).until(() -> app.accepted.get() == 1);
            assertThat(direct.usedDirectMemory() - before).as("direct memory taken while php-fpm reads nothing")
                    .isLessThan(total / 2);
            app.readGate.countDown();
            assertThat(c.read().text()).isEqualTo("len=" + total);
        }
    }

    @Test
    void aClientNotReadingStopsTheApplicationsOutput() throws Exception {
        int total = 32 * 1024 * 1024;
        java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
        FakeFastCgi app = app((r, out, s) -> {
            stdout(out, "Content-Type: application/octet-stream\r\n\r\n");
            byte[] block = new byte[32 * 1024];
            java.util.Arrays.fill(block, (byte) 'z');
            for (int i = 0; i < total / block.length; i++) {
                FakeFastCgi.record(out, FastCgiRecords.STDOUT, block, 0);
                sent.addAndGet(block.length);
            }
            end(out, FastCgiRecords.REQUEST_COMPLETE);
        });
        InetSocketAddress a = proxy(app, 4, "60s");
        try (HttpConn c = new HttpConn(a, 64 * 1024)) {
            c.send(HttpConn.get("/down.php"));
            Thread.sleep(1000);
            assertThat(sent.get()).as("bytes the application could write").isLessThan(total / 2);
            HttpConn.Response r = c.read();
            assertThat(r.body()).hasSize(total);
        }
        assertThat(sent.get()).isEqualTo(total);
    }

    @Test
    void aConnectThatIsNotAnsweredIs504() throws Exception {
        // A listener that never accepts, with its accept queue filled: the kernel drops further SYNs.
        List<java.net.Socket> fillers = new ArrayList<>();
        try (java.net.ServerSocket full = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            boolean dropping = false;
            for (int i = 0; i < 16 && !dropping; i++) {
                java.net.Socket f = new java.net.Socket();
                fillers.add(f);
                try {
                    f.connect(full.getLocalSocketAddress(), 300);
                } catch (java.net.SocketTimeoutException e) {
                    dropping = true;
                }
            }
            org.junit.jupiter.api.Assumptions.assumeTrue(dropping, "this kernel does not drop SYNs to a full queue");
            // The request may take 8s; the connect gives up after FastCgiHandler.CONNECT_TIMEOUT (5s).
            InetSocketAddress a = proxy(full.getLocalPort(), 4, "8s");
            long start = System.nanoTime();
            assertThat(HttpConn.once(a, HttpConn.get("/a.php")).status()).isEqualTo(504);
            assertThat((System.nanoTime() - start) / 1_000_000).isBetween(4800L, 7900L);
        } finally {
            for (java.net.Socket f : fillers) {
                f.close();
            }
        }
    }

    @Test
    void refusedConnectionIs502() throws Exception {
        // A bound socket that does not listen: connecting is refused, and no other server can take the port.
        try (java.net.Socket holder = new java.net.Socket()) {
            holder.bind(new InetSocketAddress("127.0.0.1", 0));
            InetSocketAddress a = proxy(holder.getLocalPort(), 4, "5s");
            assertThat(HttpConn.once(a, HttpConn.get("/a.php")).status()).isEqualTo(502);
        }
    }

    /** A named endpoint is looked up on the loop (resolver settings apply), and refuseLocalAddresses holds. */
    @Test
    void aNamedEndpointIsLookedUpOnTheLoop() throws Exception {
        FakeFastCgi app = app((r, out, s) -> respond(out, "Status: 200 OK\r\n\r\nnamed"));
        dev.strait.proxy.testing.TestDnsServer dns = new dev.strait.proxy.testing.TestDnsServer();
        started.add(dns);
        dns.add("php.strait.test", "127.0.0.1", 60);
        for (boolean refuse : new boolean[] {false, true}) {
            InetSocketAddress a = serve("workers: 1\nresolver: { nameservers: [ \"" + dns.address() + "\" ] }",
                    "endpoints: [ \"php.strait.test:" + app.port() + "\" ], refuseLocalAddresses: " + refuse, "");
            HttpConn.Response r = HttpConn.once(a, HttpConn.get("/a.php"));
            assertThat(r.status()).as("refuseLocalAddresses: " + refuse).isEqualTo(refuse ? 502 : 200);
        }
        assertThat(dns.asked("php.strait.test")).isEqualTo(2); // one server each, each with its own cache
        assertThat(app.requests).hasSize(1);
    }
}
