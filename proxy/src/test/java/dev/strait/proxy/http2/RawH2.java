package dev.strait.proxy.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A raw h2c connection (prior knowledge) to the proxy for attack and limit tests: frames are written by
 * hand (HPACK from the static table and literals), since a well-behaved client library would never send
 * them, and read back one by one. The preface and a SETTINGS frame are sent at once.
 */
final class RawH2 implements AutoCloseable {
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    static final int DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8,
            CONTINUATION = 9;
    static final int END_STREAM = 1, ACK = 1, END_HEADERS = 4;
    static final int NO_ERROR = 0, PROTOCOL_ERROR = 1, FLOW_CONTROL_ERROR = 3, REFUSED_STREAM = 7, CANCEL = 8,
            ENHANCE_YOUR_CALM = 0xb;
    static final int SETTINGS_INITIAL_WINDOW_SIZE = 4;
    /** :method GET, :scheme http, :path / (static table) and :authority "a" (literal, not indexed). */
    static final byte[] GET = {(byte) 0x82, (byte) 0x86, (byte) 0x84, 0x01, 0x01, 'a'};
    /** The same with :method POST. */
    static final byte[] POST = {(byte) 0x83, (byte) 0x86, (byte) 0x84, 0x01, 0x01, 'a'};

    record Frame(int type, int flags, int stream, byte[] payload) {
        int errorCode() {
            int at = type == GOAWAY ? 4 : 0;
            return int32(payload, at);
        }

        int lastStreamId() {
            return int32(payload, 0) & 0x7fffffff;
        }

        String text() {
            return new String(payload, StandardCharsets.US_ASCII);
        }

        private static int int32(byte[] b, int at) {
            return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | b[at + 3] & 0xff;
        }
    }

    /**
     * A literal field with a new name, no Huffman, name and value under 127 bytes (RFC 7541 6.2.1, 6.2.2):
     * with {@code indexed} it enters the dynamic table.
     */
    static void literal(java.io.ByteArrayOutputStream b, String name, String value, boolean indexed) {
        b.write(indexed ? 0x40 : 0x00);
        b.write(name.length());
        b.writeBytes(name.getBytes(StandardCharsets.US_ASCII));
        b.write(value.length());
        b.writeBytes(value.getBytes(StandardCharsets.US_ASCII));
    }

    static byte[] frame(int type, int flags, int stream, byte[] payload) {
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

    static byte[] int32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /** One SETTINGS entry (RFC 9113 6.5.1). */
    static byte[] setting(int id, int value) {
        return new byte[] {(byte) (id >>> 8), (byte) id, (byte) (value >>> 24), (byte) (value >>> 16),
                (byte) (value >>> 8), (byte) value};
    }

    final Socket socket;
    final OutputStream out;
    final DataInputStream in;
    /** The proxy hung up (a write or read failed, or EOF). */
    boolean closed;
    private final DefaultHttp2HeadersDecoder hpack = new DefaultHttp2HeadersDecoder(false);

    RawH2(InetSocketAddress address) throws IOException {
        this(address, 0, new byte[0]);
    }

    /** With {@code receiveBuffer} over 0, a small socket receive buffer; {@code settings} go in the first SETTINGS. */
    RawH2(InetSocketAddress address, int receiveBuffer, byte[] settings) throws IOException {
        this(plain(address, receiveBuffer), settings);
    }

    /** On a socket already connected (TLS with ALPN h2, or past an h2c Upgrade's 101). */
    RawH2(Socket connected, byte[] settings) throws IOException {
        socket = connected;
        socket.setSoTimeout(5000);
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
        out.write(PREFACE);
        out.write(frame(SETTINGS, 0, 0, settings));
    }

    private static Socket plain(InetSocketAddress address, int receiveBuffer) throws IOException {
        Socket s = new Socket();
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer);
        }
        s.connect(address, 2000);
        return s;
    }

    /** Writes, unless the proxy already hung up (then the attack was cut off mid-way). */
    void send(byte[] bytes) throws IOException {
        try {
            out.write(bytes);
        } catch (SocketException reset) {
            closed = true;
        }
    }

    /** The next frame, or {@code null} at the connection's end; a read timeout is thrown. */
    Frame next() throws IOException {
        try {
            int len = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
            int type = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int stream = in.readInt() & 0x7fffffff;
            byte[] payload = new byte[len];
            in.readFully(payload);
            return new Frame(type, flags, stream, payload);
        } catch (EOFException | SocketException e) {
            closed = true;
            return null;
        }
    }

    /** Frames up to and including the first of {@code type} (on any stream), or the end of the connection. */
    List<Frame> readUntil(int type) throws IOException {
        List<Frame> frames = new ArrayList<>();
        for (Frame f; (f = next()) != null; ) {
            frames.add(f);
            if (f.type == type) {
                break;
            }
        }
        return frames;
    }

    /** Frames up to and including the first that {@code last} accepts, or to the end of the connection or a read timeout. */
    List<Frame> readUntil(java.util.function.Predicate<Frame> last) throws IOException {
        List<Frame> frames = new ArrayList<>();
        try {
            for (Frame f; (f = next()) != null; ) {
                frames.add(f);
                if (last.test(f)) {
                    break;
                }
            }
        } catch (SocketTimeoutException e) {
            // quiet: what came so far is the answer
        }
        return frames;
    }

    /** Frames until the answer on {@code stream} has ended (a frame with END_STREAM on it), all included. */
    List<Frame> answer(int stream) throws IOException {
        List<Frame> frames = new ArrayList<>();
        for (Frame f; (f = next()) != null; ) {
            frames.add(f);
            if (f.stream == stream && (f.flags & END_STREAM) != 0 && (f.type == DATA || f.type == HEADERS)) {
                return frames;
            }
        }
        throw new AssertionError("the connection ended before the answer on stream " + stream + ": " + frames);
    }

    /** The decoded headers of a HEADERS frame (frames must be decoded in the order they came: HPACK state). */
    Http2Headers headers(Frame f) throws Http2Exception {
        ByteBuf block = Unpooled.wrappedBuffer(f.payload);
        try {
            return hpack.decodeHeaders(f.stream, block);
        } finally {
            block.release();
        }
    }

    /** Frames until a GOAWAY with an error (included), the connection's end, a quiet read timeout, or {@code maxFrames}. */
    List<Frame> readUntilGoAway(int maxFrames) throws IOException {
        out.flush();
        List<Frame> frames = new ArrayList<>();
        try {
            for (Frame f; frames.size() < maxFrames && (f = next()) != null; ) {
                frames.add(f);
                if (f.type == GOAWAY && f.errorCode() != 0) {
                    break; // a graceful GOAWAY (NO_ERROR) may come first; the error one follows
                }
            }
        } catch (SocketTimeoutException e) {
            // quiet: what came so far is the answer
        }
        return frames;
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

    /** True when the proxy closed the connection within the read timeout (what is still unread is skipped). */
    boolean closesWithin(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            while (in.read() >= 0) {
                // skip
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    private boolean isEof() {
        try {
            socket.setSoTimeout(100);
            return in.read() < 0;
        } catch (IOException e) {
            return true;
        }
    }

    /** Frames up to and including the first PING the proxy sent of its own (not an ACK), or the connection's end. */
    List<Frame> readUntilPing() throws IOException {
        List<Frame> frames = new ArrayList<>();
        for (Frame f; (f = next()) != null; ) {
            frames.add(f);
            if (f.type == PING && (f.flags & ACK) == 0) {
                break;
            }
        }
        return frames;
    }

    /** Acknowledges a PING the proxy sent, echoing its payload (RFC 9113 6.7). */
    void ack(Frame ping) throws IOException {
        assertThat(ping.type()).isEqualTo(PING);
        send(frame(PING, ACK, 0, ping.payload()));
    }

    static int lastGoAwayCode(List<Frame> frames) {
        return frames.stream().filter(f -> f.type == GOAWAY).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no GOAWAY among " + frames.stream().map(Frame::type).toList()))
                .errorCode();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
