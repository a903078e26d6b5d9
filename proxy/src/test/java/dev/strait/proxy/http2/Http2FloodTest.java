package dev.strait.proxy.http2;

import static dev.strait.proxy.http2.RawH2.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/2 attacks of the last years, as raw frames on an h2c connection (prior knowledge) to the
 * real proxy: each must end in a GOAWAY or a refused stream, in bounded time, and the proxy must go on
 * serving everyone else. Frames are written by hand ({@link RawH2}).
 */
class Http2FloodTest {
    private final ProxyHarness proxy = new ProxyHarness();

    @BeforeEach
    void start() throws Exception {
        proxy.start("""
                routes: [ { name: r, hosts: [ "*" ], rules: [ { respond: { body: "ok" } } ] } ]
                """);
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    private void othersAreStillServed() throws IOException {
        try (RawClient c = new RawClient(proxy.address())) {
            assertThat(c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text()).isEqualTo("ok");
        }
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, GET));
            List<RawH2.Frame> frames = c.answer(1); // to its end, not a read timeout
            assertThat(frames).anyMatch(f -> f.type() == DATA && new String(f.payload(), StandardCharsets.US_ASCII).equals("ok"));
        }
    }

    @Test
    void aPlainRequestIsAnswered() throws Exception {
        othersAreStillServed();
    }

    @Test
    void rapidResetIsCutOff() throws Exception {
        // CVE-2023-44487: open a stream and cancel it at once, thousands of times.
        try (RawH2 c = new RawH2(proxy.address())) {
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < 2000; i++) {
                int stream = 1 + 2 * i;
                burst.write(frame(HEADERS, END_HEADERS | END_STREAM, stream, GET));
                burst.write(frame(RST_STREAM, 0, stream, int32(8))); // CANCEL
            }
            c.send(burst.toByteArray());
            List<RawH2.Frame> frames = c.readUntilGoAway(100_000);
            assertThat(lastGoAwayCode(frames)).isEqualTo(ENHANCE_YOUR_CALM);
            c.cutOff(frames);
        }
        othersAreStillServed();
    }

    @Test
    void aContinuationFloodIsCutOff() throws Exception {
        // CVE-2024-27316 and kin: a header block that never ends, in ever more CONTINUATION frames.
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, 0, 1, GET));
            byte[] literal = new byte[1 + 1 + 5 + 2 + 1000];
            literal[0] = 0x00; // literal header field without indexing, new name
            literal[1] = 5;
            System.arraycopy("x-pad".getBytes(StandardCharsets.US_ASCII), 0, literal, 2, 5);
            literal[7] = 0x7f; // value length 1000 as an HPACK integer: 127 + 873
            literal[8] = (byte) 0xe9;
            literal[9] = 0x06;
            java.util.Arrays.fill(literal, 10, literal.length, (byte) 'a');
            for (int i = 0; i < 5000 && !c.closed; i++) {
                c.send(frame(CONTINUATION, 0, 1, literal));
            }
            List<RawH2.Frame> frames = c.readUntilGoAway(1000);
            assertThat(c.closed || frames.stream().anyMatch(f -> f.type() == GOAWAY || f.type() == RST_STREAM
                    || f.type() == HEADERS)).as("a refusal: GOAWAY, RST_STREAM, a 431 answer or the close").isTrue();
        }
        othersAreStillServed();
    }

    @Test
    void aFloodOfEmptyDataFramesIsCutOff() throws Exception {
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS, 1, new byte[] {(byte) 0x83, (byte) 0x86, (byte) 0x84, 0x01, 0x01, 'a'}));
            for (int i = 0; i < 1000 && !c.closed; i++) {
                c.send(frame(DATA, 0, 1, new byte[0]));
            }
            c.cutOff(c.readUntilGoAway(1000));
        }
        othersAreStillServed();
    }

    @Test
    void streamsOverTheLimitAreRefused() throws Exception {
        try (RawH2 c = new RawH2(proxy.address())) {
            // POSTs whose bodies never come keep their streams open: 120 of them, against a limit of 100.
            for (int i = 0; i < 120; i++) {
                c.send(frame(HEADERS, END_HEADERS, 1 + 2 * i,
                        new byte[] {(byte) 0x83, (byte) 0x86, (byte) 0x84, 0x01, 0x01, 'a'}));
            }
            java.util.function.Predicate<RawH2.Frame> refused = f -> f.type() == RST_STREAM && f.errorCode() == REFUSED_STREAM
                    || f.type() == GOAWAY && f.errorCode() == PROTOCOL_ERROR;
            assertThat(c.readUntil(refused)).as("the streams past 100 are refused").anyMatch(refused);
        }
        othersAreStillServed();
    }

    @Test
    void aWindowOverflowIsAConnectionError() throws Exception {
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(WINDOW_UPDATE, 0, 0, int32(0x7fffffff)));
            List<RawH2.Frame> frames = c.readUntilGoAway(100);
            assertThat(lastGoAwayCode(frames)).isEqualTo(FLOW_CONTROL_ERROR);
            c.cutOff(frames);
        }
        othersAreStillServed();
    }

    @Test
    void anHpackBombIsRefused() throws Exception {
        // One 4 KiB header put in the dynamic table, then referenced by one byte 200 times: 800 KiB of
        // headers from a 4 KiB block. The header list limit must stop it.
        try (RawH2 c = new RawH2(proxy.address())) {
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            block.write(GET);
            block.write(0x40); // literal with incremental indexing, new name
            block.write(5);
            block.write("x-big".getBytes(StandardCharsets.US_ASCII));
            block.write(0x7f); // value length 4000: 127 + 3873 = 0x7f, then 3873 as 7-bit groups
            block.write(0xa1 | 0x80);
            block.write(0x1e);
            block.write("b".repeat(4000).getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 200; i++) {
                block.write(0x80 | 62); // the newest dynamic entry
            }
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, block.toByteArray()));
            List<RawH2.Frame> frames = c.readUntil(f -> f.type() == GOAWAY
                    || f.stream() == 1 && (f.type() == RST_STREAM || (f.flags() & END_STREAM) != 0)); // stream 1's end
            assertThat(frames).as("refused: a 431 answer, RST_STREAM or GOAWAY; never a 200")
                    .anyMatch(f -> f.type() == RST_STREAM || f.type() == GOAWAY
                            || f.type() == HEADERS && f.payload().length > 0 && (f.payload()[0] & 0xff) != 0x88);
            assertThat(frames).noneMatch(f -> f.type() == DATA && new String(f.payload(), StandardCharsets.US_ASCII).equals("ok"));
        }
        othersAreStillServed();
    }

    @Test
    void aPingFloodFromAClientThatDoesNotReadIsCutOff() throws Exception {
        // Every PING asks for a PING ACK; a client that never reads makes them queue in the proxy.
        controlFloodIsCutOff(frame(PING, 0, 0, new byte[8]));
    }

    @Test
    void aSettingsFloodFromAClientThatDoesNotReadIsCutOff() throws Exception {
        // Every SETTINGS asks for a SETTINGS ACK (RFC 9113 6.5.3), queued the same way.
        controlFloodIsCutOff(frame(SETTINGS, 0, 0, new byte[0]));
    }

    /**
     * Sends {@code frame} over and over on a connection whose 4 KiB receive buffer is never read, until the
     * proxy hangs up: once the kernel's socket buffers are full (a few MB of ACKs on loopback, which is
     * most of this test's time), the ACKs it owes queue in the proxy up to Netty's queued-control-frame
     * limit (10,000), and there the connection is closed: the queue is bounded, and so is the time.
     */
    private void controlFloodIsCutOff(byte[] frame) throws Exception {
        long start = System.nanoTime();
        try (RawH2 c = new RawH2(proxy.address(), 4096, new byte[0])) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int i = 0; i < 1000; i++) {
                b.write(frame);
            }
            byte[] burst = b.toByteArray();
            for (int i = 0; i < 1500 && !c.closed; i++) { // up to 1.5 million frames
                c.send(burst);
            }
            await().atMost(Duration.ofSeconds(90)).until(() -> proxy.metrics.openConnections() == 0);
            assertThat(c.closesWithin(5000)).as("the client sees the close").isTrue();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(90));
        othersAreStillServed();
    }
}
