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
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS to an OpenTelemetry collector (an {@code https} tracing endpoint), as OpenTelemetry's exporters take it from
 * the environment: the CAs of {@code OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE} (else {@code OTEL_EXPORTER_OTLP_CERTIFICATE})
 * instead of the JDK's, and a client certificate from {@code ..._CLIENT_CERTIFICATE} and {@code ..._CLIENT_KEY} for a
 * collector that asks for one; each a PEM file's path. The collector's name is always checked. Made by the exporter's
 * thread when a batch first goes to an {@code https} endpoint, so a proxy that never does loads none of it.
 */
public final class CollectorTls {
    private static final String PREFIX = "OTEL_EXPORTER_OTLP_";

    private final SSLContext http;
    private final SslContext h2;

    private CollectorTls(SSLContext http, SslContext h2) {
        this.http = http;
        this.h2 = h2;
    }

    /**
     * The TLS the environment asks for.
     *
     * @throws IllegalArgumentException naming the variable whose file cannot be used
     */
    public static CollectorTls fromEnvironment(Map<String, String> env) {
        String[] ca = variable(env, "CERTIFICATE");
        String[] cert = variable(env, "CLIENT_CERTIFICATE");
        String[] key = variable(env, "CLIENT_KEY");
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException(PREFIX + "CLIENT_CERTIFICATE and " + PREFIX
                    + "CLIENT_KEY go together (or their TRACES_ forms); one is set without the other");
        }
        try {
            List<X509Certificate> cas = ca == null ? null
                    : PemMaterial.certificates(PemMaterial.text(ca[1], ca[0]), ca[0]);
            List<X509Certificate> chain = null;
            PrivateKey k = null;
            if (cert != null) {
                chain = PemMaterial.certificates(PemMaterial.text(cert[1], cert[0]), cert[0]);
                k = PemMaterial.privateKey(PemMaterial.text(key[1], key[0]), key[0]);
                PemMaterial.checkPair(chain.get(0), k, key[0]);
            }
            return new CollectorTls(jdk(cas, chain, k), netty(cas, chain, k));
        } catch (PemMaterial.Invalid e) {
            throw new IllegalArgumentException(e.field + ": " + e.getMessage(), e);
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot set up TLS to the collector: " + e.getMessage(), e);
        }
    }

    /** {@code {name, value}} of the traces' variable, else the general one; null when neither is set. */
    private static String[] variable(Map<String, String> env, String suffix) {
        for (String name : new String[] {PREFIX + "TRACES_" + suffix, PREFIX + suffix}) {
            String v = env.get(name);
            if (v != null && !v.isBlank()) {
                return new String[] {name, v.trim()};
            }
        }
        return null;
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
