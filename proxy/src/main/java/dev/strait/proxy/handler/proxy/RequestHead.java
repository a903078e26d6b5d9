package dev.strait.proxy.handler.proxy;

import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http1.HeadParser;
import dev.strait.proxy.upstream.LoopContext;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.AsciiString;
import io.netty.util.CharsetUtil;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Writes the request head sent upstream straight into one buffer, once per request (a retry resends
 * the same bytes): the client's request line (origin form; the rule's path rewrite, if any, replaces its
 * path), its end-to-end headers, and ours:
 *
 * <ul>
 *   <li>hop-by-hop headers dropped: {@code Connection} and the headers it names, {@code Keep-Alive},
 *       {@code Proxy-Connection}, {@code TE} (except {@code trailers}), {@code Transfer-Encoding},
 *       {@code Upgrade}, {@code Proxy-Authorization}; {@code Expect} too (the client already had its
 *       100 Continue from us, and the body follows regardless);</li>
 *   <li>exactly one framing header: the client's {@code Content-Length}, or {@code Transfer-Encoding: chunked}
 *       when the client's body was chunked (we re-chunk it as it streams);</li>
 *   <li>{@code Host} kept (or the rule's {@code hostRewrite}); {@code X-Forwarded-For} appended with the
 *       client's address; {@code X-Real-IP} set to the client (a trusted peer's client; a client's own is
 *       dropped, since apps behind ingress-nginx and Traefik trust it); {@code X-Forwarded-Proto} set to the exchange's scheme, which is a trusted peer's
 *       own {@code X-Forwarded-Proto} where it sent one ({@code ForwardedProto}, ADR 0057), and
 *       {@code X-Forwarded-Host} set (a client's own are replaced); {@code X-Request-Id} kept when trusted
 *       and sane, else a new one.</li>
 * </ul>
 */
final class RequestHead {
    private static final byte[] HTTP11 = " HTTP/1.1\r\n".getBytes(CharsetUtil.US_ASCII);
    private static final byte[] HOST = "Host: ".getBytes(CharsetUtil.US_ASCII);
    private static final byte[] XFF = "X-Forwarded-For: ".getBytes(CharsetUtil.US_ASCII);
    private static final byte[] XREALIP = "X-Real-IP: ".getBytes(CharsetUtil.US_ASCII);
    private static final byte[] XFPROTO = "X-Forwarded-Proto: ".getBytes(CharsetUtil.US_ASCII);
    private static final byte[] XFHOST = "X-Forwarded-Host: ".getBytes(CharsetUtil.US_ASCII);
    private static final byte[] XRID = "X-Request-Id: ".getBytes(CharsetUtil.US_ASCII);
    private static final byte[] TE_TRAILERS = "TE: trailers\r\n".getBytes(CharsetUtil.US_ASCII);
    private static final byte[] CHUNKED = "Transfer-Encoding: chunked\r\n".getBytes(CharsetUtil.US_ASCII);
    private static final byte[] CONTENT_LENGTH = "Content-Length: ".getBytes(CharsetUtil.US_ASCII);
    private static final byte[] CONNECTION_UPGRADE = "Connection: Upgrade\r\n".getBytes(CharsetUtil.US_ASCII);
    private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
    private static final AsciiString X_REAL_IP = AsciiString.cached("x-real-ip");
    private static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");
    private static final AsciiString X_FORWARDED_HOST = AsciiString.cached("x-forwarded-host");
    private static final AsciiString X_REQUEST_ID = AsciiString.cached("x-request-id");

    // What a header name is to the proxy.
    private static final int FORWARD = 0;
    private static final int DROP = 1;
    private static final int TE = 2;
    private static final int XFF_KIND = 3;
    private static final int XRID_KIND = 4;

    private RequestHead() {}

    /**
     * @param target           the request target to send instead of the client's (a path rewrite), or {@code null}
     * @param chunked          the body goes upstream chunked (the client's was)
     * @param fallbackHost     the Host to send when the client sent none (HTTP/1.0)
     */
    static ByteBuf encode(Exchange ex, LoopContext lc, String hostRewrite, String target, boolean trustRequestId,
                          boolean chunked, String fallbackHost, boolean upgrade) {
        HttpRequest req = ex.request();
        HttpHeaders h = req.headers();
        ByteBuf b = ex.alloc().ioBuffer(512);
        ByteBufUtil.copy(req.method().asciiName(), b);
        b.writeByte(' ');
        Target t = target(req);
        String uri = target != null ? target : t.path;
        String clientHost = t.authority;
        b.writeCharSequence(uri, CharsetUtil.ISO_8859_1);
        b.writeBytes(HTTP11);

        String host = hostRewrite != null ? hostRewrite : clientHost != null ? clientHost
                : ex.host() != null && !ex.host().isEmpty() ? ex.host() : fallbackHost;
        b.writeBytes(HOST);
        b.writeCharSequence(host, CharsetUtil.ISO_8859_1);
        crlf(b);

        List<String> connectionNamed = h.contains(HttpHeaderNames.CONNECTION) ? HopByHop.connectionTokens(h) : null;
        if (upgrade) {
            // A WebSocket handshake: Upgrade and "Connection: Upgrade" go along (RFC 6455 4.1), the rest as usual.
            b.writeBytes(CONNECTION_UPGRADE);
        }
        boolean sawXff = false;
        String requestId = null;
        boolean sawRequestId = false;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            CharSequence name = e.getKey();
            int kind = kind(name);
            if (upgrade && kind == DROP && HttpHeaderNames.UPGRADE.contentEqualsIgnoreCase(name)) {
                kind = FORWARD;
            }
            switch (kind) {
                case FORWARD -> {
                    if (upgrade && HttpHeaderNames.UPGRADE.contentEqualsIgnoreCase(name)) {
                        writeName(b, name);
                        b.writeCharSequence(e.getValue(), CharsetUtil.ISO_8859_1);
                        crlf(b);
                        continue;
                    }
                    if (connectionNamed != null && HopByHop.named(name, connectionNamed)) {
                        continue;
                    }
                    writeName(b, name);
                    b.writeCharSequence(e.getValue(), CharsetUtil.ISO_8859_1);
                    crlf(b);
                }
                case TE -> {
                    if (containsToken(e.getValue(), "trailers")) {
                        b.writeBytes(TE_TRAILERS);
                    }
                }
                case XFF_KIND -> sawXff = true;
                case XRID_KIND -> {
                    if (!sawRequestId) {
                        sawRequestId = true;
                        CharSequence v = e.getValue();
                        requestId = trustRequestId && saneRequestId(v) ? v.toString() : null;
                    }
                }
                default -> { }
            }
        }

        b.writeBytes(XFF);
        if (sawXff) {
            for (String v0 : h.getAll(X_FORWARDED_FOR)) {
                String v = v0.trim();
                if (!v.isEmpty()) {
                    b.writeCharSequence(v, CharsetUtil.ISO_8859_1);
                    b.writeByte(',').writeByte(' ');
                }
            }
        }
        b.writeCharSequence(lc.addressText(ex.remoteAddress()), CharsetUtil.US_ASCII);
        crlf(b);
        b.writeBytes(XREALIP);
        b.writeCharSequence(lc.addressText(ex.clientAddress()), CharsetUtil.US_ASCII);
        crlf(b);
        b.writeBytes(XFPROTO);
        b.writeCharSequence(ex.scheme(), CharsetUtil.US_ASCII);
        crlf(b);
        if (clientHost != null) {
            b.writeBytes(XFHOST);
            b.writeCharSequence(clientHost, CharsetUtil.ISO_8859_1);
            crlf(b);
        }
        b.writeBytes(XRID);
        if (requestId != null) {
            b.writeCharSequence(requestId, CharsetUtil.US_ASCII);
        } else {
            int at = b.writerIndex();
            lc.writeRequestId(b);
            if (AccessLog.onHere()) {
                showInLog(h, b.toString(at, b.writerIndex() - at, CharsetUtil.US_ASCII));
            }
        }
        crlf(b);

        if (ex.hasBody()) {
            if (chunked) {
                b.writeBytes(CHUNKED);
            } else {
                b.writeBytes(CONTENT_LENGTH);
                ByteBufUtil.writeAscii(b, Long.toString(HttpUtil.getContentLength(req, 0L)));
                crlf(b);
            }
        } else if (h.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            b.writeBytes(CONTENT_LENGTH);
            b.writeByte('0');
            crlf(b);
        }
        crlf(b);
        return b;
    }

    private static void writeName(ByteBuf b, CharSequence name) {
        if (name instanceof AsciiString a) {
            ByteBufUtil.copy(a, b);
        } else {
            b.writeCharSequence(name, CharsetUtil.ISO_8859_1);
        }
        b.writeByte(':').writeByte(' ');
    }

    private static void crlf(ByteBuf b) {
        b.writeByte('\r').writeByte('\n');
    }

    /**
     * The same request as {@link #encode} for an HTTP/2 upstream: pseudo-headers from the request line
     * and Host, names in lower case (RFC 9113 8.2.1), the same X-Forwarded set and request id, and no
     * connection-specific fields (8.2.2; {@code TE} only as {@code trailers}, which gRPC needs).
     */
    static io.netty.handler.codec.http2.Http2Headers encodeHttp2(Exchange ex, LoopContext lc, String hostRewrite,
                                                                  String target, boolean trustRequestId,
                                                                  String fallbackHost, String upstreamScheme) {
        HttpRequest req = ex.request();
        HttpHeaders h = req.headers();
        Target t = target(req);
        String uri = target != null ? target : t.path;
        String clientHost = t.authority;
        String host = hostRewrite != null ? hostRewrite : clientHost != null ? clientHost
                : ex.host() != null && !ex.host().isEmpty() ? ex.host() : fallbackHost;
        var out = new io.netty.handler.codec.http2.DefaultHttp2Headers(false, h.size() + 8)
                .method(req.method().asciiName()).scheme(upstreamScheme).authority(host).path(uri);
        List<String> connectionNamed = h.contains(HttpHeaderNames.CONNECTION) ? HopByHop.connectionTokens(h) : null;
        StringBuilder xff = null;
        String requestId = null;
        boolean sawRequestId = false;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            CharSequence name = e.getKey();
            switch (kind(name)) {
                case FORWARD -> {
                    if (connectionNamed == null || !HopByHop.named(name, connectionNamed)) {
                        out.add(AsciiString.of(name).toLowerCase(), e.getValue());
                    }
                }
                case TE -> {
                    if (containsToken(e.getValue(), "trailers")) {
                        out.add(HttpHeaderNames.TE, "trailers");
                    }
                }
                case XFF_KIND -> {
                    String v = e.getValue().toString().trim();
                    if (!v.isEmpty()) {
                        xff = (xff == null ? new StringBuilder() : xff).append(v).append(", ");
                    }
                }
                case XRID_KIND -> {
                    if (!sawRequestId) {
                        sawRequestId = true;
                        CharSequence v = e.getValue();
                        requestId = trustRequestId && saneRequestId(v) ? v.toString() : null;
                    }
                }
                default -> { }
            }
        }
        String client = lc.addressText(ex.remoteAddress());
        out.add(X_FORWARDED_FOR, xff == null ? client : xff.append(client).toString());
        out.add(X_REAL_IP, lc.addressText(ex.clientAddress()));
        out.add(X_FORWARDED_PROTO, ex.scheme());
        if (clientHost != null) {
            out.add(X_FORWARDED_HOST, clientHost);
        }
        if (requestId == null) {
            ByteBuf id = io.netty.buffer.Unpooled.buffer(32);
            lc.writeRequestId(id);
            requestId = id.toString(CharsetUtil.US_ASCII);
            if (AccessLog.onHere()) {
                showInLog(h, requestId);
            }
        }
        out.add(X_REQUEST_ID, requestId);
        if (ex.hasBody() && h.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            out.add(HttpHeaderNames.CONTENT_LENGTH, Long.toString(HttpUtil.getContentLength(req, 0L)));
        }
        return out;
    }

    /** The path (origin form) to send upstream, and the client's authority: its Host, or an absolute target's. */
    private record Target(String path, String authority) {}

    private static Target target(HttpRequest req) {
        String uri = req.uri();
        if (uri.isEmpty() || uri.charAt(0) == '/' || uri.equals("*")) {
            return new Target(uri, req.headers().get(HttpHeaderNames.HOST));
        }
        // absolute form (RFC 9112 3.2.2): the authority is the Host; send the origin form
        int scheme = uri.indexOf("://");
        int pathStart = uri.indexOf('/', scheme + 3);
        int q = uri.indexOf('?', scheme + 3);
        int authEnd = pathStart < 0 ? (q < 0 ? uri.length() : q) : (q >= 0 && q < pathStart ? q : pathStart);
        String path = authEnd == uri.length() ? "/" : uri.charAt(authEnd) == '?' ? "/" + uri.substring(authEnd)
                : uri.substring(authEnd);
        return new Target(path, uri.substring(scheme + 3, authEnd));
    }

    /** What a request header is to the proxy; a switch on length first keeps the common case to one compare. */
    static int kind(CharSequence n) {
        return switch (n.length()) {
            case 2 -> eq(n, HttpHeaderNames.TE) ? TE : FORWARD;
            case 4 -> eq(n, HttpHeaderNames.HOST) ? DROP : FORWARD;
            case 6 -> eq(n, HttpHeaderNames.EXPECT) ? DROP : FORWARD;
            case 7 -> eq(n, HttpHeaderNames.UPGRADE) ? DROP : FORWARD;
            case 9 -> eq(n, X_REAL_IP) ? DROP : FORWARD;
            case 10 -> eq(n, HttpHeaderNames.CONNECTION) || eq(n, HttpHeaderNames.KEEP_ALIVE) ? DROP : FORWARD;
            case 12 -> eq(n, X_REQUEST_ID) ? XRID_KIND : FORWARD;
            case 14 -> eq(n, HttpHeaderNames.CONTENT_LENGTH) ? DROP : FORWARD;
            case 15 -> eq(n, X_FORWARDED_FOR) ? XFF_KIND : FORWARD;
            case 16 -> eq(n, HeadParser.PROXY_CONNECTION) || eq(n, X_FORWARDED_HOST) ? DROP : FORWARD;
            case 17 -> eq(n, HttpHeaderNames.TRANSFER_ENCODING) || eq(n, X_FORWARDED_PROTO) ? DROP : FORWARD;
            case 19 -> eq(n, HttpHeaderNames.PROXY_AUTHORIZATION) ? DROP : FORWARD;
            default -> FORWARD;
        };
    }

    private static boolean eq(CharSequence a, AsciiString b) {
        return b.contentEqualsIgnoreCase(a);
    }

    private static boolean containsToken(CharSequence value, String token) {
        String v = value.toString();
        int i = 0;
        while (i <= v.length()) {
            int comma = v.indexOf(',', i);
            int end = comma < 0 ? v.length() : comma;
            String t = v.substring(i, end).trim();
            int semi = t.indexOf(';');
            if ((semi < 0 ? t : t.substring(0, semi).trim()).equalsIgnoreCase(token)) {
                return true;
            }
            i = end + 1;
        }
        return false;
    }

    /** A request id worth keeping: 1 to 128 of {@code A-Z a-z 0-9 - _ . : + / = @ ~} (the log keeps the same). */
    static boolean saneRequestId(CharSequence v) {
        return AccessLog.saneRequestId(v);
    }

    /**
     * The access log shows a request's first sane X-Request-Id ({@link AccessLog#requestId}): a client's
     * kept id is that already; an id made here replaces the client's in the request's own headers, so the
     * line shows the id the upstream got. Called only while the log is on: with it off, no String is made.
     */
    private static void showInLog(HttpHeaders h, String madeId) {
        h.set(X_REQUEST_ID, madeId);
    }
}
