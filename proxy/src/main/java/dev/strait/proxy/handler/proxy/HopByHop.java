package dev.strait.proxy.handler.proxy;

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
    static final AsciiString PROXY_CONNECTION = AsciiString.cached("proxy-connection");

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
        h.remove(PROXY_CONNECTION);
        h.remove(HttpHeaderNames.TE);
        h.remove(HttpHeaderNames.UPGRADE);
        h.remove(HttpHeaderNames.KEEP_ALIVE);
    }
}
