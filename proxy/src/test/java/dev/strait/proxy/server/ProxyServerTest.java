package dev.strait.proxy.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.config.Serving;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestServing;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The proxy on real sockets (port 0): keep-alive, pipelining, timeouts, bad input, drain, transports. */
class ProxyServerTest {
    private static String config(String transport, String limits) {
        return """
                workers: 2
                transport: %s
                accessLog: { enabled: false }
                limits: { %s }
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Exact, value: /hello } } ]
                        respond: { status: 200, body: "hello, world!\\n" }
                """.formatted(transport, limits);
    }

    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : started) {
            c.close();
        }
    }

    /** Skips a transport this machine lacks (no io_uring in the kernel or allowed by seccomp; no epoll off Linux). */
    private static void assumeAvailable(String transport) {
        org.junit.jupiter.api.Assumptions.assumeTrue(!transport.equals("io_uring")
                || io.netty.channel.uring.IoUring.isAvailable(), "io_uring not available here");
        org.junit.jupiter.api.Assumptions.assumeTrue(!transport.equals("epoll")
                || io.netty.channel.epoll.Epoll.isAvailable(), "epoll not available here");
    }

    private ProxyServer start(String yaml) throws Exception {
        Serving serving = TestServing.serving(yaml);
        ProxyServer server = new ProxyServer(serving.snapshot().config(), serving, new ProxyMetrics(), null).start();
        started.add(server);
        return server;
    }

    private RawClient client(ProxyServer server) throws Exception {
        RawClient c = new RawClient(server.address("http"));
        started.add(0, c);
        return c;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"auto", "epoll", "io_uring", "nio"})
    void servesKeepAliveAndPipelinedRequestsOnEachTransport(String transport) throws Exception {
        assumeAvailable(transport);
        ProxyServer server = start(config(transport, ""));
        RawClient c = client(server);
        for (int i = 0; i < 3; i++) {
            RawClient.Response r = c.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("hello, world!\n");
            assertThat(r.header("date")).endsWith(" GMT");
        }
        c.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\nHEAD /hello HTTP/1.1\r\nHost: a\r\n\r\nGET /x HTTP/1.1\r\nHost: a\r\n\r\n");
        assertThat(c.read().status()).isEqualTo(200);
        assertThat(c.read(true).header("content-length")).isEqualTo("14");
        assertThat(c.read().status()).isEqualTo(404);
    }

    /**
     * A large file goes out from its memory mapping on every transport (ADR 0034): whole, as a range,
     * pipelined, to a client that leaves halfway, to one with a small receive buffer, and after the
     * file changed.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void largeFilesGoOutWholeOnEachTransport(String transport, @TempDir Path root) throws Exception {
        assumeAvailable(transport);
        byte[] big = new byte[1 << 20];
        new java.util.Random(7).nextBytes(big);
        Files.write(root.resolve("big.bin"), big);
        ProxyServer server = start(filesConfig(transport, root));
        String get = "GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\n";
        RawClient c = client(server);
        c.send(get + get + "GET /big.bin HTTP/1.1\r\nHost: a\r\nRange: bytes=1000-200999\r\n\r\n");
        assertThat(c.read().body()).isEqualTo(big);
        assertThat(c.read().body()).isEqualTo(big);
        RawClient.Response range = c.read();
        assertThat(range.status()).isEqualTo(206);
        assertThat(range.body()).isEqualTo(Arrays.copyOfRange(big, 1000, 201000));

        try (RawClient leaver = new RawClient(server.address("http"), 4096)) {
            leaver.send(get);
            assertThat(leaver.input().readNBytes(4096)).hasSize(4096);
        } // gone with most of the body unsent: the write fails, the server goes on

        RawClient slow = new RawClient(server.address("http"), 4096);
        started.add(0, slow);
        slow.send(get); // a 4 KiB receive buffer: the server writes as room appears
        assertThat(slow.read().body()).isEqualTo(big);

        byte[] changed = big.clone();
        changed[12345] ^= 1;
        Files.write(root.resolve("big.bin"), changed);
        Files.setLastModifiedTime(root.resolve("big.bin"),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5000));
        assertThat(c.send(get).read().body()).isEqualTo(changed);
    }

    /**
     * A mapped file truncated while a response is being written from it: the kernel's copy from the
     * vanished pages fails, so that response's connection ends early; the process does not fault
     * (nothing in Java reads the mapping) and the next request sees the file as it now is.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void aFileTruncatedWhileSentEndsThatResponseOnly(String transport, @TempDir Path root) throws Exception {
        assumeAvailable(transport);
        // Larger than any socket buffers between the two ends: most of it is still unsent when truncated.
        int size = 16 << 20;
        Path file = root.resolve("big.bin");
        Files.write(file, new byte[size]);
        ProxyServer server = start(filesConfig(transport, root));
        RawClient c = new RawClient(server.address("http"), 4096);
        started.add(0, c);
        c.send("GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\n");
        java.io.InputStream in = c.input();
        assertThat(in.readNBytes(65536)).hasSize(65536);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        long received = 65536;
        try {
            for (int n; (n = in.read(new byte[65536])) > 0; ) {
                received += n;
            }
        } catch (java.io.IOException reset) {
            // the server closed the connection while bytes were in flight: as good as an early end
        }
        assertThat(received).as("the response ends early").isLessThan(size);

        RawClient.Response now = client(server).send("GET /big.bin HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(now.status()).isEqualTo(200);
        assertThat(now.header("content-length")).isEqualTo("0");
    }

    /**
     * Offsets past 2 and 4 GiB: Netty's io_uring file region keeps them in an int, so there the proxy
     * sends such ranges in chunks. A sparse 5 GiB file with markers; each answer must carry the bytes
     * its Content-Range names.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void rangesPastTwoAndFourGiBCarryTheirOwnBytes(String transport, @TempDir Path root) throws Exception {
        assumeAvailable(transport);
        long size = 5L << 30;
        long[] at = {0, (2L << 30) - 3, 3L << 30, 4L << 30, size - 4};
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(root.resolve("huge.bin").toFile(), "rw")) {
            f.setLength(size);
            for (int i = 0; i < at.length; i++) {
                f.seek(at[i]);
                f.write(("M" + i + "!!").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            }
        }
        ProxyServer server = start(filesConfig(transport, root));
        RawClient c = client(server);
        for (int i = 0; i < at.length; i++) {
            RawClient.Response r = c.send("GET /huge.bin HTTP/1.1\r\nHost: a\r\nRange: bytes=" + at[i] + "-"
                    + (at[i] + 3) + "\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(206);
            assertThat(r.header("content-range")).isEqualTo("bytes " + at[i] + "-" + (at[i] + 3) + "/" + size);
            assertThat(r.text()).as("the 4 bytes at %d", at[i]).isEqualTo("M" + i + "!!");
        }
        // 1 MiB across 2 GiB: the marker 3 bytes before it, then zeros.
        long from = (2L << 30) - (512 << 10);
        RawClient.Response across = c.send("GET /huge.bin HTTP/1.1\r\nHost: a\r\nRange: bytes=" + from + "-"
                + (from + (1 << 20) - 1) + "\r\n\r\n").read();
        byte[] expected = new byte[1 << 20];
        System.arraycopy("M1!!".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, expected, (512 << 10) - 3, 4);
        assertThat(across.body()).isEqualTo(expected);
        RawClient.Response tail = c.send("GET /huge.bin HTTP/1.1\r\nHost: a\r\nRange: bytes=-4\r\n\r\n").read();
        assertThat(tail.text()).isEqualTo("M4!!");
    }

    private static String filesConfig(String transport, Path root) {
        return """
                workers: 1
                transport: %s
                accessLog: { enabled: false }
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - files: { root: '%s' }
                """.formatted(transport, root);
    }

    @Test
    void autoTakesIoUringWhereItIsAvailableThenEpoll() throws Exception {
        ProxyServer server = start(config("auto", ""));
        // Without Unsafe (JDK 24+, and the without-unsafe test run) auto keeps to epoll.
        Transport expected = io.netty.channel.uring.IoUring.isAvailable()
                && io.netty.util.internal.PlatformDependent.hasUnsafe() ? Transport.IO_URING
                : io.netty.channel.epoll.Epoll.isAvailable() ? Transport.EPOLL : Transport.NIO;
        assertThat(server.transport()).isEqualTo(expected);
        assertThat(client(server).send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);
    }

    @Test
    void everyLoopGetsItsOwnListeningSocket() throws Exception {
        ProxyServer server = start(config("auto", ""));
        org.junit.jupiter.api.Assumptions.assumeTrue(server.transport().reusePort());
        // Many short connections: with one socket per loop (SO_REUSEPORT) the kernel spreads them.
        for (int i = 0; i < 40; i++) {
            try (RawClient c = new RawClient(server.address("http"))) {
                assertThat(c.send("GET /hello HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n").read().status())
                        .isEqualTo(200);
            }
        }
        assertThat(server.listenerSockets()).isEqualTo(2);
    }

    @Test
    void malformedRequestGets400AndTheConnectionCloses() throws Exception {
        RawClient c = client(start(config("auto", "")));
        RawClient.Response r = c.send("GET /hello HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n").read();
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.header("connection")).isEqualTo("close");
        assertThat(c.closedByServer()).isTrue();
    }

    @Test
    void slowRequestHeadGets408() throws Exception {
        RawClient c = client(start(config("auto", "headerTimeout: 300ms")));
        c.send("GET /hello HTTP/1.1\r\nHost: a\r\n");
        long t0 = System.nanoTime();
        RawClient.Response r = c.read();
        assertThat(r.status()).isEqualTo(408);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
        assertThat(c.closedByServer()).isTrue();
    }

    @Test
    void idleKeepAliveConnectionIsClosedQuietly() throws Exception {
        RawClient c = client(start(config("auto", "keepAliveTimeout: 300ms")));
        assertThat(c.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);
        assertThat(c.closedByServer()).isTrue();
    }

    @Test
    void drainClosesIdleConnectionsAndStopsAccepting() throws Exception {
        ProxyServer server = start(config("auto", ""));
        InetSocketAddress address = server.address("http");
        RawClient c = client(server);
        assertThat(c.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);
        assertThat(server.ready()).isTrue();
        assertThat(server.drain(Duration.ofSeconds(5))).isTrue();
        assertThat(server.ready()).isFalse();
        assertThat(c.closedByServer()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 0);
        try (java.net.Socket s = new java.net.Socket()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> s.connect(address, 1000))
                    .isInstanceOf(java.io.IOException.class);
        }
    }

    @Test
    void requestsAfterDrainStartedAreAnsweredWithConnectionClose() throws Exception {
        Serving serving = TestServing.serving(config("auto", ""));
        ProxyServer server = new ProxyServer(serving.snapshot().config(), serving, new ProxyMetrics(), null).start();
        started.add(server);
        RawClient c = client(server);
        serving.startDraining();
        RawClient.Response r = c.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("connection")).isEqualTo("close");
        assertThat(c.closedByServer()).isTrue();
    }

    @Test
    void drainLetsARequestHeadThatIsArrivingFinish() throws Exception {
        ProxyServer server = start(config("auto", ""));
        RawClient c = client(server);
        c.send("GET /hello HTTP/1.1\r\nHost: a\r\n");
        await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 1);
        var drained = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return server.drain(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> !server.ready());
        RawClient.Response r = c.send("\r\n").read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("connection")).isEqualTo("close");
        assertThat(drained.get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aPortAlreadyInUseIsReportedWithTheListenerName() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            String yaml = config("auto", "").replace("127.0.0.1:0", "127.0.0.1:" + taken.getLocalPort());
            Serving serving = TestServing.serving(yaml);
            ProxyServer server = new ProxyServer(serving.snapshot().config(), serving, new ProxyMetrics(), null);
            started.add(server);
            org.assertj.core.api.Assertions.assertThatThrownBy(server::start)
                    .hasMessageContaining("listener http: cannot bind 127.0.0.1:" + taken.getLocalPort());
        }
    }

    @Test
    void aStartFailureIsDescribedWithTheCausesUnderIt() {
        // Netty's own message for a loop that could not be made says nothing of why.
        Exception e = new IllegalStateException("failed to create a child event loop",
                new NullPointerException("Cannot invoke \"sun.misc.Unsafe.allocateMemory(long)\""));
        assertThat(ProxyServer.describe(e)).isEqualTo("java.lang.IllegalStateException: failed to create a child event loop"
                + ": caused by java.lang.NullPointerException: Cannot invoke \"sun.misc.Unsafe.allocateMemory(long)\"");
    }
}
