package dev.strait.proxy.http2;

import dev.strait.proxy.http.DateHeader;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.IdentityHashMap;

/**
 * Turns a pre-encoded HTTP/1.1 response head ({@code HTTP/1.1 200 OK\r\nName: value\r\n...}, see
 * {@link dev.strait.proxy.http.ResponseHead}) into HTTP/2 headers: {@code :status}, lower-case names,
 * connection-specific fields dropped (RFC 9113 8.2.2). Handlers encode heads once for HTTP/1.1 (when a
 * snapshot is built, or a file or cache entry is stored), so the same array comes back answer after
 * answer: {@link #shared} converts each one once per event loop and hands out the same headers again,
 * with only {@code Date} refreshed when the second changes.
 */
final class PreEncodedHead {
    /** Heads remembered per loop; a working set larger than this is converted again, never grown. */
    static final int MAX_SHARED = 256;

    /** A converted head and the {@code Date} value it carries now. */
    static final class Shared {
        final Http2Headers headers;
        final int status;
        private AsciiString date;

        private Shared(Http2Headers headers) {
            this.headers = headers;
            this.status = ((AsciiString) headers.status()).parseInt();
        }
    }

    // Only this loop's thread touches its map; keys by identity, as the arrays are never modified.
    private static final FastThreadLocal<IdentityHashMap<byte[], Shared>> SHARED = new FastThreadLocal<>() {
        @Override
        protected IdentityHashMap<byte[], Shared> initialValue() {
            return new IdentityHashMap<>();
        }
    };

    private PreEncodedHead() {}

    /**
     * The HTTP/2 headers of {@code head} with the current {@code Date}, shared by every answer on this
     * thread that sends the same array. Callers must not modify them; they stay valid for one write (a
     * frame queued behind flow control may go out with the next second's Date, which is still correct).
     */
    static Shared shared(byte[] head) {
        IdentityHashMap<byte[], Shared> map = SHARED.get();
        Shared s = map.get(head);
        if (s == null) {
            if (map.size() >= MAX_SHARED) {
                map.clear();
            }
            s = new Shared(parse(head));
            map.put(head, s);
        }
        AsciiString now = DateHeader.value();
        if (s.date != now) {
            s.headers.set(HttpHeaderNames.DATE, now);
            s.date = now;
        }
        return s;
    }

    static Http2Headers parse(byte[] head) {
        Http2Headers h = new DefaultHttp2Headers(false, 12);
        h.status(new AsciiString(head, 9, 3, false));
        addLines(h, head, indexOf(head, 0, '\n') + 1);
        return h;
    }

    /** Adds the header lines of {@code lines} from {@code from} on to {@code h} (lines alone start at 0). */
    static void addLines(Http2Headers h, byte[] lines, int from) {
        int i = from;
        while (i >= 0 && i < lines.length) {
            int end = indexOf(lines, i, '\n');
            if (end < 0) {
                end = lines.length;
            }
            int lineEnd = end > i && lines[end - 1] == '\r' ? end - 1 : end;
            int colon = indexOf(lines, i, ':');
            if (colon > i && colon < lineEnd) {
                AsciiString name = new AsciiString(lines, i, colon - i, true).toLowerCase();
                int v = colon + 1;
                while (v < lineEnd && (lines[v] == ' ' || lines[v] == '\t')) {
                    v++;
                }
                if (!isConnectionSpecific(name)) {
                    h.add(name, new AsciiString(lines, v, lineEnd - v, true));
                }
            }
            i = end + 1;
        }
    }

    /** Fields that describe an HTTP/1.1 connection and are malformed in HTTP/2 (RFC 9113 8.2.2). */
    static boolean isConnectionSpecific(CharSequence lowerName) {
        return HttpHeaderNames.CONNECTION.contentEquals(lowerName)
                || HttpHeaderNames.KEEP_ALIVE.contentEquals(lowerName)
                || HttpHeaderNames.PROXY_CONNECTION.contentEquals(lowerName)
                || HttpHeaderNames.TRANSFER_ENCODING.contentEquals(lowerName)
                || HttpHeaderNames.UPGRADE.contentEquals(lowerName);
    }

    private static int indexOf(byte[] b, int from, char c) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
