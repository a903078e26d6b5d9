package dev.strait.proxy.http2;

import static dev.strait.proxy.http2.RawH2.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestUpstream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The per-connection and per-stream limits of docs/config.md on HTTP/2 (issue #9), against the real
 * proxy with raw frames ({@link RawH2}): what Netty does not time (header blocks, stalled bodies, shut
 * windows, idle connections) ends in bounded time, and the request and age caps end a connection with a
 * graceful GOAWAY that lets the streams in flight finish.
 */
class Http2ConnectionLimitsTest {
    /** POST /app (to the upstream), with :authority "a". */
    private static final byte[] POST_APP = {(byte) 0x83, (byte) 0x86, 0x04, 0x04, '/', 'a', 'p', 'p', 0x01, 0x01, 'a'};
    private static final byte[] GET_APP = {(byte) 0x82, (byte) 0x86, 0x04, 0x04, '/', 'a', 'p', 'p', 0x01, 0x01, 'a'};
    private static final int BIG_BODY = 64 << 20;
    /** Kernel socket buffers on loopback (send and receive, both hops) hold a few MiB; the body is far more. */
    private static final int MAX_IN_FLIGHT = 20 << 20;

    private final ProxyHarness proxy = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    /** {@code /app} goes to {@code upstream}, everything else is answered "ok". */
    private void start(String limits, String upstream) throws Exception {
        proxy.start("""
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                limits: %s
                routes:
                  - name: r
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /app } } ]
                        backends: [ { upstream: app } ]
                      - respond: { body: "ok" }
                """.formatted(upstream, limits));
    }

    private void start(String limits) throws Exception {
        start(limits, "127.0.0.1:1");
    }

    private static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }


    private static Frame goAway(List<Frame> frames) {
        return frames.stream().filter(f -> f.type() == GOAWAY).findFirst()
                .orElseThrow(() -> new AssertionError("no GOAWAY among " + frames.stream().map(Frame::type).toList()));
    }

    private void othersAreStillServed() throws IOException {
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, GET));
            assertThat(c.answer(1)).anyMatch(f -> f.type() == DATA && f.text().equals("ok"));
        }
    }

    @Test
    void anIdleConnectionGetsGoAwayAfterKeepAliveTimeoutEvenIfItPings() throws Exception {
        start("{ keepAliveTimeout: 500ms }");
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, GET));
            c.answer(1);
            long idle = System.nanoTime();
            // PINGs every 100 ms open no stream: they do not keep the connection open.
            Frame goAway = null;
            while (goAway == null && since(idle).compareTo(Duration.ofSeconds(5)) < 0) {
                c.send(frame(PING, 0, 0, new byte[8]));
                c.socket.setSoTimeout(100);
                try {
                    for (Frame f; goAway == null && (f = c.next()) != null; ) {
                        goAway = f.type() == GOAWAY ? f : null;
                    }
                } catch (java.net.SocketTimeoutException quiet) {
                    // the pace of the pings
                }
            }
            assertThat(goAway).as("GOAWAY").isNotNull();
            assertThat(goAway.errorCode()).isEqualTo(NO_ERROR);
            assertThat(goAway.lastStreamId()).as("the first of a graceful close's two").isEqualTo(Integer.MAX_VALUE);
            assertThat(since(idle)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(3));
            c.socket.setSoTimeout(5000);
            List<Frame> frames = c.readUntilPing();
            c.ack(frames.get(frames.size() - 1));
            assertThat(goAway(c.readUntil(GOAWAY)).lastStreamId()).isEqualTo(1);
            assertThat(c.closesWithin(3000)).isTrue();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> proxy.metrics.openConnections() == 0);
    }

    @Test
    void aHeaderBlockThatNeverEndsIsClosedAtHeaderTimeout() throws Exception {
        start("{ headerTimeout: 500ms }");
        try (RawH2 c = new RawH2(proxy.address())) {
            long start = System.nanoTime();
            c.send(frame(HEADERS, 0, 1, GET)); // no END_HEADERS, and no CONTINUATION ever
            Frame goAway = goAway(c.readUntil(GOAWAY));
            assertThat(goAway.lastStreamId()).as("no stream was taken").isEqualTo(0);
            assertThat(since(start)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(3));
            assertThat(c.closesWithin(3000)).isTrue();
        }
        othersAreStillServed();
    }

    @Test
    void aFrameTrickledByteByByteIsClosedAtHeaderTimeout() throws Exception {
        start("{ headerTimeout: 500ms, keepAliveTimeout: 60s }");
        try (RawH2 c = new RawH2(proxy.address())) {
            long start = System.nanoTime();
            byte[] ping = frame(PING, 0, 0, new byte[8]);
            boolean closed = false;
            // One byte every 100 ms: always something new, never a whole frame in time.
            for (int i = 0; i < ping.length && !closed; i++) {
                c.send(new byte[] {ping[i]});
                closed = c.closed || c.closesWithin(100);
            }
            assertThat(closed).as("closed before the frame was complete").isTrue();
            assertThat(since(start)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(3));
        }
    }

    @Test
    void aBodyThatStopsArrivingGets408AndTheUpstreamCallEnds() throws Exception {
        TestUpstream up = proxy.upstream(TestUpstream.echo());
        start("{ bodyTimeout: 500ms }", up.endpoint());
        try (RawH2 c = new RawH2(proxy.address())) {
            long start = System.nanoTime();
            c.send(frame(HEADERS, END_HEADERS, 1, POST_APP));
            c.send(frame(DATA, 0, 1, "abc".getBytes(StandardCharsets.US_ASCII))); // and then nothing
            List<Frame> frames = c.readUntil(RST_STREAM);
            Frame head = frames.stream().filter(f -> f.type() == HEADERS && f.stream() == 1).findFirst().orElseThrow();
            assertThat(c.headers(head).status().toString()).isEqualTo("408");
            assertThat(frames.get(frames.size() - 1).stream()).isEqualTo(1);
            assertThat(since(start)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(3));
            // The half-sent request must not stay on an upstream connection.
            await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
            // The connection and its other streams go on.
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, GET));
            assertThat(c.answer(3)).anyMatch(f -> f.type() == DATA && f.text().equals("ok"));
        }
    }

    @Test
    void aBodyThatKeepsComingSlowlyIsNotCutOff() throws Exception {
        TestUpstream up = proxy.upstream(TestUpstream.echo());
        start("{ bodyTimeout: 300ms }", up.endpoint());
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS, 1, POST_APP));
            for (int i = 0; i < 6; i++) {
                Thread.sleep(100); // a slow but steady sender: 600 ms in all, never 300 ms silent
                c.send(frame(DATA, 0, 1, new byte[] {'a'}));
            }
            c.send(frame(DATA, END_STREAM, 1, new byte[0]));
            List<Frame> frames = c.answer(1);
            Frame head = frames.stream().filter(f -> f.type() == HEADERS && f.stream() == 1).findFirst().orElseThrow();
            assertThat(c.headers(head).status().toString()).isEqualTo("200");
            assertThat(frames.stream().filter(f -> f.type() == DATA).map(Frame::text).reduce("", String::concat))
                    .isEqualTo("aaaaaa");
        }
    }

    /**
     * The graceful close's two steps (ADR 0055): GOAWAY (2^31-1) and a PING; at the PING's ack, GOAWAY naming
     * the last stream taken. Until then streams are served ({@code Http2GracefulGoAwayTest} has the rest).
     */
    private static Frame twoGoAways(RawH2 c, List<Frame> seen, Runnable beforeAck) throws IOException {
        List<Frame> frames = new java.util.ArrayList<>(seen);
        if (frames.stream().noneMatch(f -> f.type() == PING && (f.flags() & ACK) == 0)) {
            frames.addAll(c.readUntilPing());
        }
        Frame first = goAway(frames);
        assertThat(first.errorCode()).isEqualTo(NO_ERROR);
        assertThat(first.lastStreamId()).isEqualTo(Integer.MAX_VALUE);
        beforeAck.run();
        c.ack(frames.stream().filter(f -> f.type() == PING && (f.flags() & ACK) == 0).findFirst().orElseThrow());
        Frame last = goAway(c.readUntil(GOAWAY));
        assertThat(last.errorCode()).isEqualTo(NO_ERROR);
        return last;
    }

    @Test
    void afterMaxRequestsGoAwayNamesTheLastStreamAndStreamsInFlightFinish() throws Exception {
        start("{ maxRequestsPerConnection: 2 }");
        try (RawH2 c = new RawH2(proxy.address())) {
            // Stream 1 stays open: answered, but its body has not ended.
            c.send(frame(HEADERS, END_HEADERS, 1, POST));
            c.answer(1);
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, GET));
            List<Frame> frames = c.answer(3);
            List<Frame> answer5 = new java.util.ArrayList<>();
            Frame last = twoGoAways(c, frames, () -> {
                try {
                    // Sent before the client read the GOAWAY (in flight): still served.
                    c.send(frame(HEADERS, END_HEADERS | END_STREAM, 5, GET));
                    answer5.addAll(c.answer(5));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertThat(answer5).anyMatch(f -> f.type() == DATA && f.text().equals("ok"));
            assertThat(last.lastStreamId()).isEqualTo(5);
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 7, GET)); // after the final GOAWAY: not processed
            assertThat(c.closesWithin(300)).as("open while stream 1 is").isFalse();
            c.send(frame(DATA, END_STREAM, 1, new byte[] {'x'}));
            assertThat(c.closesWithin(3000)).as("closed once stream 1 ended").isTrue();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> proxy.metrics.openConnections() == 0);
    }

    @Test
    void afterMaxAgeGoAwayAndStreamsInFlightFinish() throws Exception {
        start("{ maxConnectionAge: 500ms }");
        try (RawH2 c = new RawH2(proxy.address())) {
            long start = System.nanoTime();
            c.send(frame(HEADERS, END_HEADERS, 1, POST));
            Frame last = twoGoAways(c, List.of(), () -> { });
            assertThat(last.lastStreamId()).isEqualTo(1);
            assertThat(since(start)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(3));
            assertThat(c.closesWithin(300)).as("open while stream 1 is").isFalse();
            c.send(frame(DATA, END_STREAM, 1, new byte[] {'x'}));
            assertThat(c.closesWithin(3000)).as("closed once stream 1 ended").isTrue();
        }
    }

    /** An upstream that answers one request with {@link #BIG_BODY} bytes, counting those the proxy took. */
    @ChannelHandler.Sharable
    private static final class BigAnswer extends ChannelInboundHandlerAdapter {
        final AtomicLong written = new AtomicLong();
        final AtomicBoolean answered = new AtomicBoolean();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ((ByteBuf) msg).release();
            if (answered.getAndSet(true)) {
                return;
            }
            ctx.write(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: " + BIG_BODY + "\r\n\r\n",
                    StandardCharsets.US_ASCII));
            byte[] chunk = new byte[64 * 1024];
            for (int i = 0; i < BIG_BODY / chunk.length; i++) {
                ctx.write(Unpooled.wrappedBuffer(chunk)).addListener(f -> {
                    if (f.isSuccess()) {
                        written.addAndGet(chunk.length);
                    }
                });
            }
            ctx.flush();
        }
    }

    @Test
    void aStreamWhoseWindowStaysShutIsResetAtSendTimeoutAndItsUpstreamIsNotDrained() throws Exception {
        BigAnswer big = new BigAnswer();
        TestUpstream up = proxy.add(TestUpstream.raw(big));
        start("{ sendTimeout: 1s }", up.endpoint());
        // A stream window of 0, and never a WINDOW_UPDATE: not one DATA byte may be sent.
        try (RawH2 c = new RawH2(proxy.address(), 0, setting(SETTINGS_INITIAL_WINDOW_SIZE, 0))) {
            long start = System.nanoTime();
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, GET_APP));
            List<Frame> frames = c.readUntil(RST_STREAM);
            Frame reset = frames.get(frames.size() - 1);
            assertThat(reset.type()).isEqualTo(RST_STREAM);
            assertThat(reset.stream()).isEqualTo(1);
            assertThat(reset.errorCode()).isEqualTo(CANCEL);
            assertThat(frames).noneMatch(f -> f.type() == DATA);
            assertThat(since(start)).isBetween(Duration.ofMillis(900), Duration.ofSeconds(5));
            await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
            assertThat(big.written.get()).as("what the proxy read of the upstream's " + BIG_BODY + " bytes")
                    .isLessThan(MAX_IN_FLIGHT);
            // The connection goes on.
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, GET));
            c.send(frame(WINDOW_UPDATE, 0, 3, int32(100)));
            assertThat(c.answer(3)).anyMatch(f -> f.type() == DATA && f.text().equals("ok"));
        }
    }

    @Test
    void aConnectionThatIsNotReadIsCutOffAtSendTimeout() throws Exception {
        BigAnswer big = new BigAnswer();
        TestUpstream up = proxy.add(TestUpstream.raw(big));
        start("{ sendTimeout: 1s }", up.endpoint());
        // Windows wide open, but the socket is never read: the connection itself stops draining.
        try (RawH2 c = new RawH2(proxy.address(), 4096, setting(SETTINGS_INITIAL_WINDOW_SIZE, 0x7fffffff))) {
            c.send(frame(WINDOW_UPDATE, 0, 0, int32(0x7fffffff - 65_535)));
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, GET_APP));
            await().atMost(Duration.ofSeconds(10)).until(() -> big.written.get() > 0);
            long start = System.nanoTime();
            await().atMost(Duration.ofSeconds(10)).until(() -> proxy.metrics.openConnections() == 0);
            assertThat(since(start)).isLessThan(Duration.ofSeconds(6));
            await().atMost(Duration.ofSeconds(5)).until(() -> up.openConnections() == 0);
            assertThat(big.written.get()).isLessThan(MAX_IN_FLIGHT);
        }
        othersAreStillServed();
    }
}
