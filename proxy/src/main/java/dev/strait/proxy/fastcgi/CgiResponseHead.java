package dev.strait.proxy.fastcgi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

/**
 * Reads the CGI response head at the start of a FastCGI STDOUT stream (RFC 3875 6): header lines
 * ending in LF or CRLF, then an empty line. The head may arrive split over any number of records
 * and reads; its bytes are kept until the empty line is seen, up to {@link #MAX_HEAD_BYTES}.
 *
 * <ul>
 *   <li>{@code Status: 404 Not Found} sets the status (its reason phrase is not kept: the server writes
 *       the standard one); without it a {@code Location} means 302 (RFC 3875 6.2.3), else 200.
 *   <li>{@code Content-Length} becomes the response's declared length; the framing and hop-by-hop
 *       headers ({@code Transfer-Encoding}, {@code Connection}, ...) are dropped: the server frames.
 *   <li>Anything else malformed (a line without ':', a bad name, a control character in a value, a bad
 *       status) is refused: the caller answers 502, as nginx does for an invalid upstream header.
 * </ul>
 */
final class CgiResponseHead {
    /** Like our request header limit: a head this large is broken, not big. */
    static final int MAX_HEAD_BYTES = 32 * 1024;
    private static final Set<String> DROPPED = Set.of("status", "content-length", "transfer-encoding", "connection",
            "keep-alive", "proxy-connection", "upgrade", "te", "trailer");

    private final ByteBufAllocator alloc;
    /** The head's bytes so far, when it did not come in one piece; {@code null} otherwise. */
    private ByteBuf acc;
    /** Offset (from the head's start) where the line being scanned begins, and how far scanning got. */
    private int lineStart;
    private int scanned;

    private int status = 200;
    private boolean hasStatus;
    private long contentLength = -1;
    private final HttpHeaders headers = new DefaultHttpHeaders();

    CgiResponseHead(ByteBufAllocator alloc) {
        this.alloc = alloc;
    }

    /** A response head the application sent that cannot be passed on. */
    static final class InvalidHeadException extends Exception {
        InvalidHeadException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Takes the next STDOUT bytes (and ownership of {@code data}). Returns {@code null} while the head
     * is incomplete, else the body bytes that followed it in what was fed (possibly empty; the caller
     * owns them).
     */
    ByteBuf feed(ByteBuf data) throws InvalidHeadException {
        ByteBuf buf;
        if (acc == null) {
            buf = data;
        } else {
            acc.writeBytes(data);
            data.release();
            buf = acc;
        }
        int start = buf.readerIndex();
        int end = findEnd(buf, start);
        // Over the limit whether or not its end came in the same piece: how STDOUT is cut is PHP-FPM's choice.
        if (end < 0 ? buf.readableBytes() > MAX_HEAD_BYTES : end - start > MAX_HEAD_BYTES) {
            buf.release();
            acc = null;
            throw new InvalidHeadException("response head longer than " + MAX_HEAD_BYTES + " bytes");
        }
        if (end < 0) {
            if (acc == null) {
                acc = alloc.heapBuffer(Math.max(512, buf.readableBytes() * 2));
                acc.writeBytes(buf);
                buf.release();
            }
            return null;
        }
        try {
            parse(buf, start, end);
            return buf.retainedSlice(end, buf.writerIndex() - end);
        } finally {
            buf.release();
            acc = null;
        }
    }

    /** Releases a head that will not be completed. */
    void discard() {
        if (acc != null) {
            acc.release();
            acc = null;
        }
    }

    int status() {
        return status;
    }

    /** The declared body length, or -1. */
    long contentLength() {
        return contentLength;
    }

    /** Headers to send, without status, framing and hop-by-hop ones. */
    HttpHeaders headers() {
        return headers;
    }

    /** The index just after the empty line that ends the head, or -1. */
    private int findEnd(ByteBuf buf, int start) {
        int limit = buf.writerIndex();
        for (int i = start + scanned; i < limit; i++) {
            if (buf.getByte(i) == '\n') {
                int len = i - (start + lineStart);
                if (len == 0 || len == 1 && buf.getByte(i - 1) == '\r') {
                    return i + 1;
                }
                lineStart = i + 1 - start;
            }
        }
        scanned = limit - start;
        return -1;
    }

    private void parse(ByteBuf buf, int start, int end) throws InvalidHeadException {
        String head = buf.toString(start, end - start, StandardCharsets.ISO_8859_1);
        boolean hasLocation = false;
        int pos = 0;
        while (pos < head.length()) {
            int nl = head.indexOf('\n', pos);
            int lineEnd = nl > 0 && head.charAt(nl - 1) == '\r' ? nl - 1 : nl;
            String line = head.substring(pos, lineEnd);
            pos = nl + 1;
            if (line.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new InvalidHeadException("response header line without a name: \"" + shorten(line) + "\"");
            }
            String name = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            if (!isToken(name)) {
                throw new InvalidHeadException("invalid response header name \"" + shorten(name) + "\"");
            }
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c < 0x20 && c != '\t' || c == 0x7f) {
                    throw new InvalidHeadException("control character in response header " + name);
                }
            }
            String lower = name.toLowerCase(Locale.ROOT);
            switch (lower) {
                case "status" -> status(value);
                case "content-length" -> contentLength(value);
                case "location" -> hasLocation = true;
                default -> { }
            }
            if (!DROPPED.contains(lower)) {
                headers.add(name, value);
            }
        }
        if (!hasStatus && hasLocation) {
            status = 302;
        }
    }

    private void status(String value) throws InvalidHeadException {
        if (hasStatus) {
            throw new InvalidHeadException("two Status headers");
        }
        hasStatus = true;
        int sp = value.indexOf(' ');
        String code = sp < 0 ? value : value.substring(0, sp);
        if (code.length() != 3 || !code.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new InvalidHeadException("invalid Status \"" + shorten(value) + "\"");
        }
        status = Integer.parseInt(code);
        if (status < 200 || status > 599) {
            throw new InvalidHeadException("Status " + status + " is not a final status");
        }
    }

    private void contentLength(String value) throws InvalidHeadException {
        if (value.isEmpty() || value.length() > 18 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new InvalidHeadException("invalid Content-Length \"" + shorten(value) + "\"");
        }
        long len = Long.parseLong(value);
        if (contentLength >= 0 && contentLength != len) {
            throw new InvalidHeadException("two different Content-Length values");
        }
        contentLength = len;
    }

    private static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static String shorten(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
