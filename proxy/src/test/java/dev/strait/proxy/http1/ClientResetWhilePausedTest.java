package dev.strait.proxy.http1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A client that resets its connection while the proxy holds its upload back (the upstream reads
 * slowly): the proxy must notice at once and give up the upstream call, not at {@code bodyTimeout}.
 * The client-side twin of UpstreamResetWhilePausedTest (ADR 0044): on io_uring the reset went unseen.
 */
class ClientResetWhilePausedTest {
    /** What the client announces: more than every socket buffer on the way can hold. */
    private static final int BODY = 64_000_000;
    /** How long the upstream reads nothing after the request head; the client resets meanwhile. */
    private static final long UPSTREAM_PAUSE_MILLIS = 1000;
    private static final int TRIES = 3;
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    /** What the upstream saw of one upload once it began to read: whether it ended, and how long that took. */
    private record Seen(boolean ended, long bodyBytes, long millis) { }

    /** An upstream that reads a request head, then nothing for a while, then the body to its end. */
    private static final class SlowReader implements AutoCloseable {
        final ServerSocket server = new ServerSocket();
        volatile CompletableFuture<Seen> next = new CompletableFuture<>();

        SlowReader() throws IOException {
            server.setReceiveBufferSize(16 * 1024); // inherited by accepted sockets
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            Thread t = new Thread(this::serve, "slow-reader");
            t.setDaemon(true);
            t.start();
        }

        private void serve() {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    RawClient.skipHead(in);
                    Thread.sleep(UPSTREAM_PAUSE_MILLIS);
                    long start = System.nanoTime();
                    s.setSoTimeout(10_000);
                    byte[] buf = new byte[65536];
                    long total = 0;
                    boolean ended = false;
                    try {
                        for (int n; (n = in.read(buf)) >= 0; ) {
                            total += n;
                        }
                        ended = true;
                    } catch (SocketTimeoutException e) {
                        ended = false;
                    } catch (IOException e) {
                        ended = true; // a reset ends it too
                    }
                    next.complete(new Seen(ended, total, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
                } catch (IOException | InterruptedException e) {
                    // closed by the test
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    /** Starts an upload of {@code BODY} bytes and resets the connection once the proxy has stopped taking it. */
    private void uploadAndReset() throws Exception {
        Socket s = new Socket();
        s.setSendBufferSize(64 * 1024);
        s.connect(h.address(), 2000);
        OutputStream out = s.getOutputStream();
        out.write(("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: " + BODY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            byte[] chunk = new byte[16384];
            try {
                for (int sent = 0; sent < BODY; sent += chunk.length) {
                    out.write(chunk);
                }
            } catch (IOException e) {
                // the reset below
            }
        });
        Thread.sleep(UPSTREAM_PAUSE_MILLIS / 2); // every buffer on the way is full by now: the proxy holds back
        assertThat(writer).as("the proxy held the upload back").isNotDone();
        s.setSoLinger(true, 0);
        s.close();
        writer.get(5, TimeUnit.SECONDS);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"io_uring", "epoll", "nio"})
    void theUpstreamCallEndsWhenTheClientResets(String transport) throws Exception {
        Assumptions.assumeTrue(!transport.equals("io_uring") || io.netty.channel.uring.IoUring.isAvailable());
        Assumptions.assumeTrue(!transport.equals("epoll") || io.netty.channel.epoll.Epoll.isAvailable());
        SlowReader up = h.add(new SlowReader());
        h.start("""
                workers: 1
                transport: %s
                upstreams: [ { name: app, endpoints: [ "127.0.0.1:%d" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        timeouts: { idle: 30s }
                """.formatted(transport, up.server.getLocalPort()));
        for (int i = 0; i < TRIES; i++) {
            up.next = new CompletableFuture<>();
            uploadAndReset();
            Seen seen = up.next.get(15, TimeUnit.SECONDS);
            assertThat(seen.ended()).as("try %d: the upstream connection ended, %s", i, seen).isTrue();
            assertThat(seen.bodyBytes()).as("try %d: never the whole body", i).isLessThan(BODY);
            assertThat(seen.millis()).as("try %d: as soon as the upstream read, %s", i, seen).isLessThan(3000);
        }
    }
}
