package dev.strait.proxy.handler.redirect;

import dev.strait.model.Route;
import dev.strait.proxy.handler.PathRewriter;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ResponseHead;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.PrefixAware;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The {@code redirect} action (Gateway API's RequestRedirect): the status and an absolute {@code Location}
 * made of the configured parts and, for the others, the request's own (scheme, host, Host's port, path,
 * always its query); no body, no upstream. The status line, the {@code Location: } name, the fixed part of
 * the URL and the {@code Content-Length: 0} line are encoded when the table is built, so a request costs
 * the request-dependent part of the URL and one copy into the head.
 */
public final class RedirectHandler implements PrefixAware {
    private static final byte[] NO_BODY = new byte[0];

    /** Status line and {@code Location: }, plus the URL up to the path when scheme and host are fixed. */
    private final byte[] start;
    /** CRLF ending Location, then {@code Content-Length: 0}. */
    private final byte[] end;
    /** Whether {@link #start} holds scheme, host and port; then only the path and query are added. */
    private final boolean fixedOrigin;
    private final String scheme;
    private final String hostname;
    /** The port to name, 0 for the scheme's default, -1 for the port of the request's Host. */
    private final int port;
    /** The path rewriter, or {@code null} to keep the request's path. */
    private final PathRewriter path;
    private final RedirectHandler unbound;
    /** Only the scheme changes, to https: no host, path, or port other than 443 (see {@link #upgradesToHttps}). */
    private final boolean toHttpsOnly;

    private RedirectHandler(byte[] start, byte[] end, boolean fixedOrigin, String scheme, String hostname, int port,
                            PathRewriter path, RedirectHandler unbound) {
        this.start = start;
        this.end = end;
        this.fixedOrigin = fixedOrigin;
        this.scheme = scheme;
        this.hostname = hostname;
        this.port = port;
        this.path = path;
        this.unbound = unbound == null ? this : unbound;
        this.toHttpsOnly = "https".equals(scheme) && hostname == null && path == null && port == 0;
    }

    public static RedirectHandler of(Route.Redirect r) {
        // Gateway API: a port given is used; a new scheme without a port means that scheme's default;
        // otherwise the port stays what the client's Host said.
        int port = r.port() != null ? r.port() : r.scheme() != null ? 0 : -1;
        if (r.scheme() != null && port == defaultPort(r.scheme())) {
            port = 0;
        }
        boolean fixedOrigin = r.scheme() != null && r.hostname() != null && port >= 0;
        StringBuilder s = new StringBuilder(ResponseHead.status(r.statusCode()).toString()).append("Location: ");
        if (fixedOrigin) {
            s.append(r.scheme()).append("://").append(r.hostname());
            if (port > 0) {
                s.append(':').append(port);
            }
        }
        return new RedirectHandler(s.toString().getBytes(StandardCharsets.ISO_8859_1),
                "\r\nContent-Length: 0\r\n".getBytes(StandardCharsets.ISO_8859_1), fixedOrigin, r.scheme(),
                r.hostname(), port, PathRewriter.of(r.path()), null);
    }

    @Override
    public Handler forPrefix(String prefix) {
        return path == null || !path.byPrefix() ? this
                : new RedirectHandler(start, end, fixedOrigin, scheme, hostname, port, path.forPrefix(prefix), this);
    }

    @Override
    public Handler unbound() {
        return unbound;
    }

    /**
     * {@code redirect: { scheme: https }} (with any status, and at most {@code port: 443}): it would send a
     * request made over https to the URL it already has, so such a request passes it over (ADR 0057).
     */
    @Override
    public boolean upgradesToHttps() {
        return toHttpsOnly;
    }

    @Override
    public void handle(Exchange ex) {
        StringBuilder url = new StringBuilder(96);
        if (!fixedOrigin) {
            origin(ex, url);
        }
        url.append(path == null ? ex.path() : path.apply(ex.path()));
        String q = ex.query();
        if (q != null) {
            url.append('?');
            appendQuery(url, q);
        }
        int n = url.length();
        byte[] head = new byte[start.length + n + end.length];
        System.arraycopy(start, 0, head, 0, start.length);
        for (int i = 0; i < n; i++) {
            head[start.length + i] = (byte) url.charAt(i);
        }
        System.arraycopy(end, 0, head, start.length + n, end.length);
        ex.sendPreEncoded(head, NO_BODY);
    }

    /** {@code scheme://host[:port]} from the configured parts and the request's. */
    private void origin(Exchange ex, StringBuilder url) {
        String s = scheme != null ? scheme : ex.scheme();
        String h = hostname != null ? hostname : ex.host();
        int p = port;
        if (p < 0) {
            p = requestPort(ex);
        }
        if (h == null || h.isEmpty()) {
            // An HTTP/1.0 request without Host: the address it reached is the best name there is.
            if (ex.localAddress() instanceof InetSocketAddress a) {
                h = a.getAddress().getHostAddress();
                h = h.indexOf(':') >= 0 ? "[" + h + "]" : h;
                if (p < 0) {
                    p = a.getPort();
                }
            } else {
                h = "localhost";
            }
        }
        url.append(s).append("://").append(h);
        if (p > 0 && p != defaultPort(s)) {
            url.append(':').append(p);
        }
    }

    /** The port the client's Host (or {@code :authority}) named, or 0 when it named none. */
    private static int requestPort(Exchange ex) {
        String host = ex.request().headers().get(HttpHeaderNames.HOST);
        if (host == null) {
            return 0;
        }
        int colon = host.lastIndexOf(':');
        if (colon < 0 || colon < host.lastIndexOf(']') || colon == host.length() - 1) {
            return 0;
        }
        int p = 0;
        for (int i = colon + 1; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c < '0' || c > '9' || p > 65535) {
                return 0;
            }
            p = p * 10 + (c - '0');
        }
        return p <= 65535 ? p : 0;
    }

    private static int defaultPort(String scheme) {
        return scheme.equals("https") ? 443 : 80;
    }

    /** The query as sent; a byte that may not stand in a header value is percent-encoded. */
    private static void appendQuery(StringBuilder url, String q) {
        for (int i = 0; i < q.length(); i++) {
            char c = q.charAt(i);
            if (c > 0x20 && c < 0x7f) {
                url.append(c);
            } else {
                url.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4 & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
    }
}
