package dev.strait.proxy.tls;

import dev.strait.proxy.tls.ocsp.ClientOcsp;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.security.cert.Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * What a TLS connection was set up with, kept on the channel for the HTTP layers: the SNI name the
 * client sent ({@code null} if none), the certificate it got and the client-certificate policy its handshake
 * asked under ({@code null}: none asked). HTTP/2 stream channels look at their parent. Read only on the
 * connection's event loop, which its streams share.
 */
public final class TlsConnection {
    public static final AttributeKey<TlsConnection> KEY = AttributeKey.valueOf("strait.tls");

    private final String serverName;
    private final ServerCertificate certificate;
    private final ClientValidationPolicy policy;
    private final SSLEngine engine;
    /** The verdict on the client's certificate, made on the first request that needs it, and the policy's key. */
    private ClientCertificate client;
    private String judgedBy;
    /**
     * What OCSP responders said of the client's chain (null: good), set by {@link ClientOcspGate} before any request
     * is read; until then, or without a gate, a question that failed.
     */
    private String ocspVerdict = ClientOcsp.FAILED;

    public TlsConnection(String serverName, ServerCertificate certificate, ClientValidationPolicy policy,
                         SSLEngine engine) {
        this.serverName = serverName;
        this.certificate = certificate;
        this.policy = policy;
        this.engine = engine;
    }

    public TlsConnection(String serverName, ServerCertificate certificate) {
        this(serverName, certificate, null, null);
    }

    /** The TLS state of a connection or of an HTTP/2 stream's connection; {@code null} for cleartext. */
    public static TlsConnection of(Channel ch) {
        TlsConnection t = ch.attr(KEY).get();
        if (t == null && ch.parent() != null) {
            t = ch.parent().attr(KEY).get();
        }
        return t;
    }

    public String serverName() {
        return serverName;
    }

    public ServerCertificate certificate() {
        return certificate;
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

    /**
     * The client-certificate check of a request for {@code host} on this connection (ADR 0075), by the policy the
     * listener's current table has for the host: its verdict, or why the request is refused.
     */
    public ClientCheck checkClient(String host, SniTable current) {
        ClientValidationPolicy want = current == null ? null : current.policyFor(host);
        if (want == null) {
            return ClientCheck.NOT_ASKED;
        }
        ClientCertificate cert;
        if (policy != null && policy.askKey().equals(want.askKey())) {
            cert = clientCertificate(want);
        } else if (serverName != null) {
            // The handshake asked for certificates of other CAs, or none (HTTP/2 coalescing, a name its SNI did not
            // cover, a reload since): a new connection for this name will ask for the right one.
            return ClientCheck.MISDIRECTED;
        } else {
            cert = ClientCertificate.NONE; // no SNI: the handshake could not know to ask
        }
        return ClientCheck.of(want, cert);
    }

    /** Records what the OCSP responders said of the client's chain (null: good); on the connection's event loop. */
    void ocspAnswered(String verdict) {
        ocspVerdict = verdict;
        client = null; // judged again with it
    }

    /** The verdict under {@code by} (the policy the request's host has now: a reload may have changed its lists). */
    private ClientCertificate clientCertificate(ClientValidationPolicy by) {
        ClientCertificate c = client;
        if (c == null || !by.key().equals(judgedBy)) {
            Certificate[] peer;
            try {
                peer = engine == null ? null : engine.getSession().getPeerCertificates();
            } catch (SSLPeerUnverifiedException e) {
                peer = null;
            }
            c = by.judge(peer, ocspVerdict);
            client = c;
            judgedBy = by.key();
        }
        return c;
    }
}
