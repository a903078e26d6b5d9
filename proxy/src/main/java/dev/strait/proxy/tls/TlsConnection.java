package dev.strait.proxy.tls;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

/**
 * What a TLS connection was set up with, kept on the channel for the HTTP layers: the SNI name the
 * client sent ({@code null} if none) and the certificate it got. HTTP/2 stream channels look at
 * their parent.
 */
public record TlsConnection(String serverName, ServerCertificate certificate) {
    public static final AttributeKey<TlsConnection> KEY = AttributeKey.valueOf("strait.tls");

    /** The TLS state of a connection or of an HTTP/2 stream's connection; {@code null} for cleartext. */
    public static TlsConnection of(Channel ch) {
        TlsConnection t = ch.attr(KEY).get();
        if (t == null && ch.parent() != null) {
            t = ch.parent().attr(KEY).get();
        }
        return t;
    }

    /**
     * Whether a request for {@code host} came on a connection meant for another name (RFC 9110 15.5.20):
     * the client sent SNI for one name, asks for another, and the certificate it got does not cover that
     * one (HTTP/2 coalescing or a confused client). A new connection with the right SNI will fix it;
     * with no SNI there is nothing a retry would change, so such requests are served.
     */
    public boolean misdirected(String host) {
        return serverName != null && host != null && !host.isEmpty() && !host.equals(serverName)
                && !certificate.covers(host);
    }
}
