package dev.strait.proxy.http2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/2 attacks of the last years, as raw frames on an h2c connection (prior knowledge) to the
 * real proxy: each must end in a GOAWAY or a refused stream, in bounded time, and the proxy must go on
 * serving everyone else. Frames are written by hand (HPACK from the static table and literals), since
 * a well-behaved client library would never send them.
 */
class Http2FloodTest {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, GOAWAY = 7, WINDOW_UPDATE = 8,
            CONTINUATION = 9;
    private static final int END_STREAM = 1, END_HEADERS = 4;
    private static final int PROTOCOL_ERROR = 1, FLOW_CONTROL_ERROR = 3, REFUSED_STREAM = 7, ENHANCE_YOUR_CALM = 0xb;
    /** :method GET, :scheme http, :path / (static table) and :authority "a" (literal, not indexed). */
    private static final byte[] GET = {(byte) 0x82, (byte) 0x86, (byte) 0x84, 0x01, 0x01, 'a'};

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

    private record Frame(int type, int flags, int stream, byte[] payload) {
        int errorCode() {
            int at = type == GOAWAY ? 4 : 0;
            return (payload[at] & 0xff) << 24 | (payload[at + 1] & 0xff) << 16 | (payload[at + 2] & 0xff) << 8
                    | payload[at + 3] & 0xff;
        }
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        byte[] f = new byte[9 + payload.length];
        f[0] = (byte) (payload.length >>> 16);
        f[1] = (byte) (payload.length >>> 8);
        f[2] = (byte) payload.length;
        f[3] = (byte) type;
        f[4] = (byte) flags;
        f[5] = (byte) (stream >>> 24 & 0x7f);
        f[6] = (byte) (stream >>> 16);
        f[7] = (byte) (stream >>> 8);
        f[8] = (byte) stream;
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }

    private static byte[] int32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /** A raw h2c connection: the preface and an empty SETTINGS are sent at once. */
    private final class Conn implements AutoCloseable {
        final Socket socket = new Socket();
        final OutputStream out;
        final DataInputStream in;

        Conn() throws IOException {
            socket.connect(proxy.address(), 2000);
            socket.setSoTimeout(5000);
            out = socket.getOutputStream();
            in = new DataInputStream(socket.getInputStream());
            out.write(PREFACE);
            out.write(frame(SETTINGS, 0, 0, new byte[0]));
        }

        boolean closed;

        /** Writes, unless the proxy already hung up (then the attack was cut off mid-way). */
        void send(byte[] bytes) throws IOException {
            try {
                out.write(bytes);
            } catch (SocketException reset) {
                closed = true;
            }
        }

        /** The connection was ended: a GOAWAY and then the close, or a reset. */
        void cutOff(List<Frame> frames) throws IOException {
            if (!closed) {
                socket.setSoTimeout(10_000);
                try {
                    while (in.read() >= 0) {
                        // drain until the proxy closes
                    }
                } catch (SocketException | SocketTimeoutException e) {
                    // reset, or still open at the timeout (asserted below)
                }
            }
            assertThat(closed || frames.stream().anyMatch(f -> f.type == GOAWAY) || isEof())
                    .as("GOAWAY or close, after frames " + frames.stream().map(Frame::type).toList()).isTrue();
        }

        private boolean isEof() {
            try {
                socket.setSoTimeout(100);
                return in.read() < 0;
            } catch (IOException e) {
                return true;
            }
        }

        /** Frames until a GOAWAY (included), the connection's end, or {@code maxFrames}. */
        List<Frame> readUntilGoAway(int maxFrames) throws IOException {
            out.flush();
            List<Frame> frames = new ArrayList<>();
            try {
                while (frames.size() < maxFrames) {
                    int len = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
                    int type = in.readUnsignedByte();
                    int flags = in.readUnsignedByte();
                    int stream = in.readInt() & 0x7fffffff;
                    byte[] payload = new byte[len];
                    in.readFully(payload);
                    Frame f = new Frame(type, flags, stream, payload);
                    frames.add(f);
                    if (type == GOAWAY && f.errorCode() != 0) {
                        break; // a graceful GOAWAY (NO_ERROR) may come first; the error one follows
                    }
                }
            } catch (EOFException | SocketException e) {
                closed = true;
            } catch (SocketTimeoutException e) {
                // quiet: what came so far is the answer
            }
            return frames;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static int lastGoAwayCode(List<Frame> frames) {
        return frames.stream().filter(f -> f.type == GOAWAY).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no GOAWAY among " + frames.stream().map(Frame::type).toList()))
                .errorCode();
    }

    private void othersAreStillServed() throws IOException {
        try (RawClient c = new RawClient(proxy.address())) {
            assertThat(c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text()).isEqualTo("ok");
        }
        try (Conn c = new Conn()) {
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, GET));
            List<Frame> frames = c.readUntilGoAway(8);
            assertThat(frames).anyMatch(f -> f.type == DATA && new String(f.payload, StandardCharsets.US_ASCII).equals("ok"));
        }
    }

    @Test
    void aPlainRequestIsAnswered() throws Exception {
        othersAreStillServed();
    }

    @Test
    void rapidResetIsCutOff() throws Exception {
        // CVE-2023-44487: open a stream and cancel it at once, thousands of times.
        try (Conn c = new Conn()) {
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < 2000; i++) {
                int stream = 1 + 2 * i;
                burst.write(frame(HEADERS, END_HEADERS | END_STREAM, stream, GET));
                burst.write(frame(RST_STREAM, 0, stream, int32(8))); // CANCEL
            }
            c.send(burst.toByteArray());
            List<Frame> frames = c.readUntilGoAway(100_000);
            assertThat(lastGoAwayCode(frames)).isEqualTo(ENHANCE_YOUR_CALM);
            c.cutOff(frames);
        }
        othersAreStillServed();
    }

    @Test
    void aContinuationFloodIsCutOff() throws Exception {
        // CVE-2024-27316 and kin: a header block that never ends, in ever more CONTINUATION frames.
        try (Conn c = new Conn()) {
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
            List<Frame> frames = c.readUntilGoAway(1000);
            assertThat(c.closed || frames.stream().anyMatch(f -> f.type == GOAWAY || f.type == RST_STREAM
                    || f.type == HEADERS)).as("a refusal: GOAWAY, RST_STREAM, a 431 answer or the close").isTrue();
        }
        othersAreStillServed();
    }

    @Test
    void aFloodOfEmptyDataFramesIsCutOff() throws Exception {
        try (Conn c = new Conn()) {
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
        try (Conn c = new Conn()) {
            // POSTs whose bodies never come keep their streams open: 120 of them, against a limit of 100.
            for (int i = 0; i < 120; i++) {
                c.send(frame(HEADERS, END_HEADERS, 1 + 2 * i,
                        new byte[] {(byte) 0x83, (byte) 0x86, (byte) 0x84, 0x01, 0x01, 'a'}));
            }
            List<Frame> frames = c.readUntilGoAway(2000);
            assertThat(frames).as("the streams past 100 are refused")
                    .anyMatch(f -> f.type == RST_STREAM && f.errorCode() == REFUSED_STREAM
                            || f.type == GOAWAY && f.errorCode() == PROTOCOL_ERROR);
        }
        othersAreStillServed();
    }

    @Test
    void aWindowOverflowIsAConnectionError() throws Exception {
        try (Conn c = new Conn()) {
            c.send(frame(WINDOW_UPDATE, 0, 0, int32(0x7fffffff)));
            List<Frame> frames = c.readUntilGoAway(100);
            assertThat(lastGoAwayCode(frames)).isEqualTo(FLOW_CONTROL_ERROR);
            c.cutOff(frames);
        }
        othersAreStillServed();
    }

    @Test
    void anHpackBombIsRefused() throws Exception {
        // One 4 KiB header put in the dynamic table, then referenced by one byte 200 times: 800 KiB of
        // headers from a 4 KiB block. The header list limit must stop it.
        try (Conn c = new Conn()) {
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
            List<Frame> frames = c.readUntilGoAway(100);
            assertThat(frames).as("refused: a 431 answer, RST_STREAM or GOAWAY; never a 200")
                    .anyMatch(f -> f.type == RST_STREAM || f.type == GOAWAY
                            || f.type == HEADERS && f.payload.length > 0 && (f.payload[0] & 0xff) != 0x88);
            assertThat(frames).noneMatch(f -> f.type == DATA && new String(f.payload, StandardCharsets.US_ASCII).equals("ok"));
        }
        othersAreStillServed();
    }
}
