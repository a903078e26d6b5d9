package dev.strait.proxy.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS to an OpenTelemetry collector (an {@code https} tracing endpoint), as OpenTelemetry's exporters take it from
 * the environment (read by the exporter): trusted CAs instead of the JDK's, and a client certificate for a collector
 * that asks for one; each a PEM file's path. The collector's name is always checked. Made by the exporter's thread when
 * a batch first goes to an {@code https} endpoint, so a proxy that never does loads none of it.
 */
public final class CollectorTls {
    private final SSLContext http;
    private final SslContext h2;

    private CollectorTls(SSLContext http, SslContext h2) {
        this.http = http;
        this.h2 = h2;
    }

    /**
     * A PEM file named by a setting.
     *
     * @param field what names it, for messages (an environment variable)
     * @param path  the file's path
     */
    public record Pem(String field, String path) {}

    /**
     * @param ca   the CAs the collector's certificate must chain to; null: the JDK's
     * @param cert the client's certificate chain; null: none (with {@code key})
     * @param key  its private key
     * @throws IllegalArgumentException naming the setting whose file cannot be used
     */
    public static CollectorTls of(Pem ca, Pem cert, Pem key) {
        if ((cert == null) != (key == null)) {
            Pem set = cert != null ? cert : key;
            throw new IllegalArgumentException(set.field() + " is set without its "
                    + (cert == null ? "certificate" : "key") + "; a client certificate needs both");
        }
        try {
            List<X509Certificate> cas = ca == null ? null
                    : PemMaterial.certificates(PemMaterial.text(ca.path(), ca.field()), ca.field());
            List<X509Certificate> chain = null;
            PrivateKey k = null;
            if (cert != null) {
                chain = PemMaterial.certificates(PemMaterial.text(cert.path(), cert.field()), cert.field());
                k = PemMaterial.privateKey(PemMaterial.text(key.path(), key.field()), key.field());
                PemMaterial.checkPair(chain.get(0), k, key.field());
            }
            return new CollectorTls(jdk(cas, chain, k), netty(cas, chain, k));
        } catch (PemMaterial.Invalid e) {
            throw new IllegalArgumentException(e.field + ": " + e.getMessage(), e);
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot set up TLS to the collector: " + e.getMessage(), e);
        }
    }

    /** For the JDK's HTTP client (OTLP/HTTP); null when the JDK's own defaults do. */
    public SSLSocketFactory socketFactory() {
        return http == null ? null : http.getSocketFactory();
    }

    /** A handler for a new HTTP/2 connection to {@code host:port} (OTLP/gRPC): ALPN offers only {@code h2}. */
    public SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
        return h2.newHandler(alloc, host, port);
    }

    private static SSLContext jdk(List<X509Certificate> cas, List<X509Certificate> chain, PrivateKey key)
            throws Exception {
        if (cas == null && chain == null) {
            return null;
        }
        TrustManagerFactory tmf = null;
        if (cas != null) {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                trust.setCertificateEntry("ca" + i, cas.get(i));
            }
            tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
        }
        KeyManagerFactory kmf = null;
        if (chain != null) {
            KeyStore keys = KeyStore.getInstance(KeyStore.getDefaultType());
            keys.load(null, null);
            keys.setKeyEntry("client", key, new char[0], chain.toArray(new X509Certificate[0]));
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
        }
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
        return c;
    }

    private static SslContext netty(List<X509Certificate> cas, List<X509Certificate> chain, PrivateKey key)
            throws Exception {
        SslContextBuilder b = SslContextBuilder.forClient()
                .sslProvider(TlsEngine.current().provider())
                .protocols("TLSv1.3", "TLSv1.2")
                .endpointIdentificationAlgorithm("HTTPS")
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_2));
        if (cas != null) {
            b.trustManager(cas.toArray(new X509Certificate[0]));
        }
        if (chain != null) {
            b.keyManager(key, chain.toArray(new X509Certificate[0]));
        }
        return b.build();
    }
}
