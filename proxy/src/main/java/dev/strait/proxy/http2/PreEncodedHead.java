package dev.strait.proxy.http2;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;

/**
 * Turns a pre-encoded HTTP/1.1 response head ({@code HTTP/1.1 200 OK\r\nName: value\r\n...}, see
 * {@link dev.strait.proxy.http.ResponseHead}) into HTTP/2 headers: {@code :status}, lower-case names,
 * connection-specific fields dropped (RFC 9113 8.2.2). Handlers encode heads once for HTTP/1.1; this
 * parse is the price HTTP/2 pays per answer (HPACK then compresses the result).
 */
final class PreEncodedHead {
    private PreEncodedHead() {}

    static Http2Headers parse(byte[] head) {
        Http2Headers h = new DefaultHttp2Headers(false, 12);
        h.status(new AsciiString(head, 9, 3, false));
        int i = indexOf(head, 0, '\n') + 1;
        while (i > 0 && i < head.length) {
            int end = indexOf(head, i, '\n');
            if (end < 0) {
                end = head.length;
            }
            int lineEnd = end > i && head[end - 1] == '\r' ? end - 1 : end;
            int colon = indexOf(head, i, ':');
            if (colon > i && colon < lineEnd) {
                AsciiString name = new AsciiString(head, i, colon - i, true).toLowerCase();
                int v = colon + 1;
                while (v < lineEnd && (head[v] == ' ' || head[v] == '\t')) {
                    v++;
                }
                if (!isConnectionSpecific(name)) {
                    h.add(name, new AsciiString(head, v, lineEnd - v, true));
                }
            }
            i = end + 1;
        }
        return h;
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
