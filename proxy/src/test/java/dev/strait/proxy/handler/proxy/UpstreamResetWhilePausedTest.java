package dev.strait.proxy.handler.proxy;

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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An upstream that resets its connection (RST) while the proxy has stopped reading it because the client
 * reads slowly: once the client has taken what came before the reset, it must see the response cut
 * (EOF or reset, never the rest of the body), at once, not after the idle timeout. Audit 2 (cache),
 * finding 4: on io_uring the client got no EOF for about 58 s.
 */
class UpstreamResetWhilePausedTest {
    /** What the upstream announces. */
    private static final int BODY = 4_000_000;
    /** What it sends before the reset. */
    private static final int SENT = 2_000_000;
    /** How long the client reads nothing, while the upstream sends and resets (it is done in about 0.3 s). */
    private static final long CLIENT_PAUSE_MILLIS = 1000;
    /** The bug is a race (the reset against the read loop); without the fix, io_uring failed at the first try or the second. */
    private static final int TRIES = 5;
    private static final String GET = "GET /big HTTP/1.1\r\nHost: a\r\n\r\n";
    private static final String WEBSOCKET = """
            GET /ws HTTP/1.1\r
            Host: a\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
            Sec-WebSocket-Version: 13\r
            \r
            """;
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String transport, String endpoint, String ruleExtra) {
        return """
                workers: 1
                transport: %s
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        timeouts: { idle: 30s }
                        %s
                """.formatted(transport, endpoint, ruleExtra);
    }

    private static void assumeAvailable(String transport) {
        org.junit.jupiter.api.Assumptions.assumeTrue(!transport.equals("io_uring")
                || io.netty.channel.uring.IoUring.isAvailable(), "io_uring not available here");
        org.junit.jupiter.api.Assumptions.assumeTrue(!transport.equals("epoll")
                || io.netty.channel.epoll.Epoll.isAvailable(), "epoll not available here");
    }

    /**
     * An upstream on a plain socket: each connection gets {@code head} (a 200 with {@code Content-Length:
     * BODY}, or a 101), then {@code SENT} bytes, then a close with SO_LINGER 0 (a reset) or a FIN.
     */
    private static final class CuttingUpstream implements AutoCloseable {
        final ServerSocket server = new ServerSocket();
        final Thread thread;

        CuttingUpstream(String head, boolean reset) throws IOException {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            thread = new Thread(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        RawClient.skipHead(s.getInputStream());
                        OutputStream out = s.getOutputStream();
                        out.write(head.getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        Thread.sleep(200);
                        byte[] chunk = new byte[4096];
                        for (int sent = 0; sent < SENT; sent += chunk.length) {
                            out.write(chunk, 0, Math.min(chunk.length, SENT - sent));
                        }
                        out.flush();
                        if (reset) {
                            s.setSoLinger(true, 0);
                        }
                    } catch (IOException | InterruptedException e) {
                        // closed by the test, or the proxy went away: next connection
                    }
                }
            }, "cutting-upstream");
            thread.setDaemon(true);
            thread.start();
        }

        String endpoint() {
            return "127.0.0.1:" + server.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    /** What the slow client saw: body bytes, whether the connection ended, and how long after it began to read. */
    private record Seen(long bodyBytes, boolean ended, long millis) { }

    /**
     * Sends {@code request} with a 16 KiB receive buffer, reads nothing for {@link #CLIENT_PAUSE_MILLIS},
     * then reads to the end (at most {@code limitMillis}).
     */
    private Seen slowClient(String request, long limitMillis) throws IOException {
        try (Socket s = new Socket()) {
            s.setReceiveBufferSize(16 * 1024);
            s.connect(h.address(), 2000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            try {
                Thread.sleep(CLIENT_PAUSE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long start = System.nanoTime();
            long deadline = start + TimeUnit.MILLISECONDS.toNanos(limitMillis);
            InputStream in = s.getInputStream();
            byte[] buf = new byte[65536];
            long total = 0;
            long headEnd = -1;
            int state = 0;
            boolean ended = false;
            while (true) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    break;
                }
                s.setSoTimeout((int) left);
                int n;
                try {
                    n = in.read(buf);
                } catch (SocketTimeoutException e) {
                    break;
                } catch (IOException e) {
                    ended = true; // reset: the cut is seen too
                    break;
                }
                if (n < 0) {
                    ended = true;
                    break;
                }
                for (int i = 0; i < n && headEnd < 0; i++) {
                    int c = buf[i];
                    state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3))
                            ? state + 1 : 0;
                    if (state == 4) {
                        headEnd = total + i + 1;
                    }
                }
                total += n;
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            return new Seen(headEnd < 0 ? 0 : total - headEnd, ended, millis);
        }
    }

    @ParameterizedTest(name = "{0}, {1}, {2}")
    @CsvSource({
        "io_uring, reset, uncached",
        "io_uring, reset, cached",
        "io_uring, fin,   uncached",
        "epoll,    reset, uncached",
        "nio,      reset, uncached",
    })
    void theClientSeesTheCutOnceItHasReadWhatCameBefore(String transport, String end, String cache) throws Exception {
        assumeAvailable(transport);
        CuttingUpstream up = h.add(new CuttingUpstream(
                "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: " + BODY + "\r\n\r\n",
                end.equals("reset")));
        boolean cached = cache.equals("cached");
        String yaml = config(transport, up.endpoint(), cached ? "cache: { maxBodySize: 8388608 }" : "");
        h.start(cached ? "cache: { maxBytes: 16777216 }\n" + yaml : yaml);
        int tries = transport.equals("io_uring") && end.equals("reset") ? TRIES : 2; // the others are controls
        for (int i = 0; i < tries; i++) {
            Seen seen = slowClient(GET, 10_000);
            assertThat(seen.ended()).as("try %d: the client saw the response end (EOF or reset), %s", i, seen).isTrue();
            assertThat(seen.bodyBytes()).as("try %d: never the whole body", i).isLessThan(BODY);
            assertThat(seen.millis()).as("try %d: the client saw the cut as soon as it had read", i).isLessThan(3000);
        }
    }

    /** The same in a WebSocket tunnel: the upstream side is not read while the client is slow (TunnelRelay). */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"io_uring", "epoll"})
    void aTunnelWhoseUpstreamResetsClosesTheClientOnceItHasRead(String transport) throws Exception {
        assumeAvailable(transport);
        CuttingUpstream up = h.add(new CuttingUpstream(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", true));
        h.start(config(transport, up.endpoint(), ""));
        for (int i = 0; i < TRIES; i++) {
            Seen seen = slowClient(WEBSOCKET, 10_000);
            assertThat(seen.ended()).as("try %d: the client saw the tunnel end (EOF or reset), %s", i, seen).isTrue();
            assertThat(seen.millis()).as("try %d: the client saw the end as soon as it had read", i).isLessThan(3000);
        }
    }
}
