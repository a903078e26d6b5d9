package dev.strait.proxy.http;

import dev.strait.model.Config;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Iterator;

/**
 * The scheme a request was made with (ADR 0057): its connection's, unless the peer is one the config
 * trusts ({@code forwardedHeaders.trustedPeers}, a load balancer that ends TLS in front of us) and its
 * {@code X-Forwarded-Proto} names one. Both servers set it on each request's {@code Exchange}, so that
 * what goes upstream ({@code X-Forwarded-Proto}, FastCGI's {@code HTTPS}), the cache key, redirects and
 * the choice of rule all see the same scheme.
 */
public final class ForwardedProto {
    public static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");

    private ForwardedProto() {}

    /**
     * @param connection {@code https} on a TLS connection, else {@code http}
     * @return {@code connection}, or the trusted peer's value: exactly one field line holding {@code http} or
     *         {@code https} (any case); a list (proxies that append) or anything else is not believed, since
     *         only the last hop's part would be the trusted peer's own
     */
    public static String scheme(String connection, HttpHeaders headers, SocketAddress peer, Config.ForwardedHeaders trust) {
        if (trust.trustedPeers().isEmpty()) {
            return connection;
        }
        Iterator<String> values = headers.valueStringIterator(X_FORWARDED_PROTO);
        if (!values.hasNext()) {
            return connection;
        }
        String v = values.next().trim();
        if (values.hasNext() || !(peer instanceof InetSocketAddress a) || a.getAddress() == null
                || !trust.trusts(a.getAddress())) {
            return connection;
        }
        return v.equalsIgnoreCase("https") ? "https" : v.equalsIgnoreCase("http") ? "http" : connection;
    }
}
