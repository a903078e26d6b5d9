package dev.strait.proxy.fastcgi;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A keep-alive HTTP/1.1 client connection on a plain socket that reads responses framed by
 * Content-Length, chunked or by the close (FastCGI responses are mostly chunked). Reads time out, so a
 * hang fails the test instead of stalling it.
 */
final class HttpConn implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    HttpConn(InetSocketAddress address) throws IOException {
        this(address, 0);
    }

    /** With {@code bufferBytes} over 0, small socket buffers: what is in flight stays in the proxy's. */
    HttpConn(InetSocketAddress address, int bufferBytes) throws IOException {
        socket = new Socket();
        if (bufferBytes > 0) {
            socket.setSendBufferSize(bufferBytes);
            socket.setReceiveBufferSize(bufferBytes);
        }
        socket.connect(address, 2000);
        socket.setSoTimeout(10_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** One request on a new connection. */
    static Response once(InetSocketAddress address, String raw) throws IOException {
        try (HttpConn c = new HttpConn(address)) {
            return c.send(raw).read(raw.startsWith("HEAD "));
        }
    }

    static String get(String path, String... headerLines) {
        StringBuilder sb = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: php.test\r\n");
        for (String h : headerLines) {
            sb.append(h).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    HttpConn send(String raw) throws IOException {
        return send(raw.getBytes(StandardCharsets.ISO_8859_1));
    }

    HttpConn send(byte[] raw) throws IOException {
        out.write(raw);
        out.flush();
        return this;
    }

    void setTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    Response read() throws IOException {
        return read(false);
    }

    Response read(boolean head) throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        String l;
        while ((l = line()) != null && !l.isEmpty()) {
            int colon = l.indexOf(':');
            headers.merge(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim(),
                    (a, b) -> a + "\n" + b);
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean bodyless = head || status == 204 || status == 304;
        if (!bodyless) {
            String cl = headers.get("content-length");
            if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                while (true) {
                    String size = line();
                    if (size == null) {
                        throw new IOException("connection closed inside a chunked body after " + body.size() + " bytes");
                    }
                    int n = Integer.parseInt(size.split(";")[0].trim(), 16);
                    if (n == 0) {
                        while ((l = line()) != null && !l.isEmpty()) {
                            headers.put("trailer:" + l.substring(0, l.indexOf(':')).toLowerCase(Locale.ROOT), l);
                        }
                        break;
                    }
                    byte[] chunk = in.readNBytes(n);
                    if (chunk.length < n) {
                        throw new IOException("connection closed inside a chunk");
                    }
                    body.write(chunk);
                    line();
                }
            } else if (cl != null) {
                int n = Integer.parseInt(cl);
                byte[] b = in.readNBytes(n);
                if (b.length < n) {
                    throw new IOException("connection closed after " + b.length + " of " + n + " body bytes");
                }
                body.write(b);
            } else {
                body.write(in.readAllBytes());
            }
        }
        return new Response(status, headers, body.toByteArray());
    }

    /** True when the server closed the connection (EOF or reset) within the read timeout. */
    boolean closedByServer() {
        try {
            return in.read() == -1;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
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

    record Response(int status, Map<String, String> headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }
}
