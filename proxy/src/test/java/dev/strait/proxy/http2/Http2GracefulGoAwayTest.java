package dev.strait.proxy.http2;

import static dev.strait.proxy.http2.RawH2.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A graceful close of an HTTP/2 connection in two steps (RFC 9113 6.8, ADR 0055), on the real proxy with raw
 * frames: GOAWAY naming 2^31-1 and a PING; streams the client sent before it read them are served; at the
 * PING's ack (or a second later) the final GOAWAY names the last stream taken; the close once open streams
 * end, within drainTimeout. A GOAWAY for an error stays one step. The request and age caps and the idle
 * timeout, which close the same way, are in {@code Http2ConnectionLimitsTest}.
 */
class Http2GracefulGoAwayTest {
    private final ProxyHarness proxy = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    private void start(String drainTimeout) throws Exception {
        proxy.start("""
                limits: { drainTimeout: %s }
                routes:
                  - name: r
                    hosts: [ "*" ]
                    rules:
                      - respond: { body: "ok" }
                """.formatted(drainTimeout));
    }

    /** A stream that stays open: POST answered at once, its body never ended by the client. */
    private static void openStream(RawH2 c, int stream) throws IOException {
        c.send(frame(HEADERS, END_HEADERS, stream, POST));
        c.answer(stream);
    }

    private CompletableFuture<Boolean> drain(Duration timeout) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return proxy.server.drain(timeout);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The first step: GOAWAY (NO_ERROR, 2^31-1), then a PING, which is returned. */
    private static Frame firstStep(RawH2 c) throws IOException {
        List<Frame> frames = c.readUntilPing();
        List<Frame> goAways = frames.stream().filter(f -> f.type() == GOAWAY).toList();
        assertThat(goAways).as("GOAWAYs before the PING, among " + types(frames)).hasSize(1);
        assertThat(goAways.get(0).errorCode()).isEqualTo(NO_ERROR);
        assertThat(goAways.get(0).lastStreamId()).isEqualTo(Integer.MAX_VALUE);
        Frame ping = frames.get(frames.size() - 1);
        assertThat(ping.type()).as("a PING after " + types(frames)).isEqualTo(PING);
        assertThat(ping.flags() & ACK).isZero();
        return ping;
    }

    private static List<Integer> types(List<Frame> frames) {
        return frames.stream().map(Frame::type).toList();
    }

    private static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Test
    void aStreamSentBeforeThePingAckIsServedAndTheFinalGoAwayNamesIt() throws Exception {
        start("10s");
        try (RawH2 c = new RawH2(proxy.address())) {
            openStream(c, 1);
            CompletableFuture<Boolean> drained = drain(Duration.ofSeconds(10));
            Frame ping = firstStep(c);
            long noticed = System.nanoTime();
            // Stream 3 was in flight: the client had not read the GOAWAY when it sent it.
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, GET));
            c.ack(ping);
            List<Frame> frames = new ArrayList<>();
            Frame last = null;
            boolean answered = false;
            for (Frame f; (last == null || !answered) && (f = c.next()) != null; ) {
                frames.add(f);
                last = f.type() == GOAWAY ? f : last;
                answered |= f.stream() == 3 && f.type() == DATA && f.text().equals("ok") && (f.flags() & END_STREAM) != 0;
            }
            assertThat(answered).as("stream 3 answered, among " + types(frames)).isTrue();
            assertThat(last).as("the final GOAWAY, among " + types(frames)).isNotNull();
            assertThat(last.errorCode()).isEqualTo(NO_ERROR);
            assertThat(last.lastStreamId()).isEqualTo(3);
            assertThat(since(noticed)).as("sent on the ack, not after the wait for it")
                    .isLessThan(Duration.ofNanos(Http2ServerHandler.SHUTDOWN_ACK_WAIT / 2));
            // After the final GOAWAY a new stream is not processed; the connection waits for stream 1 only.
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 5, GET));
            assertThat(c.closesWithin(300)).as("open while stream 1 is").isFalse();
            c.send(frame(DATA, END_STREAM, 1, new byte[] {'x'}));
            c.socket.setSoTimeout(5000);
            List<Frame> rest = c.readUntil(-1); // to the end of the connection; a read timeout fails
            assertThat(rest).noneMatch(f -> f.stream() == 5);
            c.close(); // as clients do at the end of the stream: the proxy's close lingers until then
            assertThat(drained.get(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void withoutAPingAckTheFinalGoAwayComesAfterASecondAndTheDrainEndsWithinItsTimeout() throws Exception {
        start("3s");
        try (RawH2 c = new RawH2(proxy.address())) {
            openStream(c, 1); // and never ended: only the drain timeout ends it
            long started = System.nanoTime();
            CompletableFuture<Boolean> drained = drain(Duration.ofSeconds(3));
            firstStep(c); // never acknowledged
            List<Frame> frames = c.readUntil(GOAWAY);
            Frame last = frames.get(frames.size() - 1);
            assertThat(last.type()).as("the final GOAWAY, among " + types(frames)).isEqualTo(GOAWAY);
            assertThat(last.errorCode()).isEqualTo(NO_ERROR);
            assertThat(last.lastStreamId()).isEqualTo(1);
            assertThat(since(started)).isBetween(Duration.ofMillis(900), Duration.ofMillis(2500));
            assertThat(c.closesWithin(5000)).as("closed at the drain timeout").isTrue();
            // The two steps share drainTimeout: the stream does not get 3 s more after the final GOAWAY.
            assertThat(since(started)).isBetween(Duration.ofMillis(2500), Duration.ofMillis(3700));
            drained.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aGoAwayForAnErrorIsOneStep() throws Exception {
        start("10s");
        try (RawH2 c = new RawH2(proxy.address())) {
            openStream(c, 1);
            c.send(frame(DATA, 0, 0, new byte[] {'x'})); // DATA on stream 0: PROTOCOL_ERROR (RFC 9113 6.1)
            c.socket.setSoTimeout(5000);
            List<Frame> frames = c.readUntil(-1);
            List<Frame> goAways = frames.stream().filter(f -> f.type() == GOAWAY).toList();
            assertThat(goAways).as("GOAWAYs among " + types(frames)).hasSize(1);
            assertThat(goAways.get(0).errorCode()).isEqualTo(PROTOCOL_ERROR);
            assertThat(goAways.get(0).lastStreamId()).isEqualTo(1);
            assertThat(frames).noneMatch(f -> f.type() == PING);
        }
    }
}
