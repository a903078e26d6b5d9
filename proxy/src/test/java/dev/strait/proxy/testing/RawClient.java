package dev.strait.proxy.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A plain socket that writes raw bytes and reads HTTP/1.1 responses (framed by Content-Length, chunked,
 * or ended by the close), for protocol edge cases a well-behaved client library would refuse to send.
 * Reads time out, so a hang fails the test instead of stalling it.
 */
public final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** Reads a message head up to and including its blank line (an upstream reading a request, say). */
    public static void skipHead(InputStream in) throws IOException {
        int state = 0;
        while (state < 4) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed before the end of the head");
            }
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3))
                    ? state + 1 : 0;
        }
    }

    public RawClient(InetSocketAddress address) throws IOException {
        this(address, 0);
    }

    /** With {@code receiveBuffer} over 0, a small socket receive buffer (to test backpressure). */
    public RawClient(InetSocketAddress address, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(address, 2000);
        socket.setSoTimeout(5000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    public RawClient send(String raw) throws IOException {
        out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return this;
    }

    public RawClient send(byte[] raw) throws IOException {
        out.write(raw);
        out.flush();
        return this;
    }

    public void setTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    /** One response; {@code head} tells whether it answers a HEAD request (no body). */
    public Response read(boolean head) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        String l;
        while (!(l = line()).isEmpty()) {
            int colon = l.indexOf(':');
            headers.merge(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim(),
                    (a, b) -> a + ", " + b);
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        byte[] body = new byte[0];
        String cl = headers.get("content-length");
        boolean bodyless = head || status == 304 || status == 204 || status / 100 == 1;
        Map<String, String> trailers = Map.of();
        if (!bodyless && "chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            while (true) {
                String size = line();
                if (size == null) {
                    throw new IOException("connection closed inside a chunked body");
                }
                int semi = size.indexOf(';');
                int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (n == 0) {
                    break;
                }
                b.write(in.readNBytes(n));
                line();
            }
            Map<String, String> t = new LinkedHashMap<>();
            String tl;
            while ((tl = line()) != null && !tl.isEmpty()) {
                int colon = tl.indexOf(':');
                t.put(tl.substring(0, colon).trim().toLowerCase(Locale.ROOT), tl.substring(colon + 1).trim());
            }
            trailers = t;
            body = b.toByteArray();
        } else if (!bodyless && cl != null) {
            body = in.readNBytes(Integer.parseInt(cl));
        } else if (!bodyless && "close".equalsIgnoreCase(headers.get("connection"))) {
            body = in.readAllBytes();
        }
        return new Response(statusLine, status, headers, body, trailers);
    }

    public InputStream input() {
        return in;
    }

    public OutputStream output() {
        return out;
    }

    public Response read() throws IOException {
        return read(false);
    }

    /** True when the server closed the connection (EOF) within the read timeout. */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    public record Response(String statusLine, int status, Map<String, String> headers, byte[] body,
                           Map<String, String> trailers) {
        public Response(String statusLine, int status, Map<String, String> headers, byte[] body) {
            this(statusLine, status, headers, body, Map.of());
        }

        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }
}
