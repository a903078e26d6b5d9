package dev.strait.proxy.handler.proxy;

import dev.strait.proxy.http1.HeadParser;
import dev.strait.proxy.upstream.UpstreamResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Headers that belong to one connection, not to the message (RFC 9110 7.6.1): never forwarded.
 * Besides the fixed list, a {@code Connection} header names more of them.
 */
final class HopByHop {
    private HopByHop() {}

    /** Header names a {@code Connection} field lists besides {@code close} and {@code keep-alive}; {@code null} if none. */
    static List<String> connectionTokens(HttpHeaders headers) {
        List<String> out = null;
        for (Iterator<String> it = headers.valueStringIterator(HttpHeaderNames.CONNECTION); it.hasNext(); ) {
            String v = it.next();
            int i = 0;
            int n = v.length();
            while (i < n) {
                int comma = v.indexOf(',', i);
                int end = comma < 0 ? n : comma;
                String token = v.substring(i, end).trim();
                if (!token.isEmpty() && !token.equalsIgnoreCase("close") && !token.equalsIgnoreCase("keep-alive")) {
                    if (out == null) {
                        out = new ArrayList<>(2);
                    }
                    out.add(token);
                }
                i = end + 1;
            }
        }
        return out;
    }

    static boolean named(CharSequence name, List<String> tokens) {
        if (tokens != null) {
            for (String t : tokens) {
                if (AsciiString.contentEqualsIgnoreCase(name, t)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * {@link #stripResponse(HttpHeaders)} for an HTTP/1.1 upstream's answer, whose decoder already noted which
     * of those fields are present ({@link UpstreamResponse#connectionFields}): only those are removed.
     */
    static void stripResponse(HttpHeaders h, int fields) {
        if (fields == 0) {
            return;
        }
        if ((fields & UpstreamResponse.CONNECTION_TOKENS) != 0) {
            stripResponse(h); // Connection names further fields: the general path finds them
            return;
        }
        if ((fields & UpstreamResponse.CONNECTION) != 0) {
            h.remove(HttpHeaderNames.CONNECTION);
        }
        if ((fields & UpstreamResponse.KEEP_ALIVE) != 0) {
            h.remove(HttpHeaderNames.KEEP_ALIVE);
        }
        if ((fields & UpstreamResponse.PROXY_CONNECTION) != 0) {
            h.remove(HeadParser.PROXY_CONNECTION);
        }
        if ((fields & UpstreamResponse.TE) != 0) {
            h.remove(HttpHeaderNames.TE);
        }
        if ((fields & UpstreamResponse.UPGRADE) != 0) {
            h.remove(HttpHeaderNames.UPGRADE);
        }
    }

    /** Removes from a response what must not reach the client (framing and Connection the server writes itself). */
    static void stripResponse(HttpHeaders h) {
        if (h.contains(HttpHeaderNames.CONNECTION)) {
            List<String> tokens = connectionTokens(h);
            if (tokens != null) {
                for (String t : tokens) {
                    h.remove(t);
                }
            }
            h.remove(HttpHeaderNames.CONNECTION);
        }
        h.remove(HeadParser.PROXY_CONNECTION);
        h.remove(HttpHeaderNames.TE);
        h.remove(HttpHeaderNames.UPGRADE);
        h.remove(HttpHeaderNames.KEEP_ALIVE);
    }
}
