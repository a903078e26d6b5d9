package dev.strait.proxy.tls;

import dev.strait.model.Config;
import dev.strait.model.ConfigError;
import dev.strait.model.Upstream;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * TLS to upstream endpoints ({@code upstreams[].tls}): a client context per upstream, built with the
 * snapshot so a bad CA bundle or client key is a config error with its field path. The endpoint's
 * certificate is checked against the CA bundle (or the JDK's trust store) and its name against
 * {@code serverName} (or the endpoint's host), which is also sent as SNI. Contexts are cached by their
 * PEM content, so reloads keep upstream TLS sessions resumable.
 */
public final class UpstreamTls {
    private static final Map<String, SslContext> CACHE = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, SslContext> e) {
            return size() > 1000;
        }
    };

    private final SslContext context;
    private final String serverName;

    private UpstreamTls(SslContext context, String serverName) {
        this.context = context;
        this.serverName = serverName;
    }

    /**
     * Whether connections made with {@code a} may serve {@code b}: the same trust, client certificate
     * and name. A pooled connection outlives reloads only when this holds.
     */
    public static boolean same(UpstreamTls a, UpstreamTls b) {
        return a == b || a != null && b != null && a.context == b.context
                && java.util.Objects.equals(a.serverName, b.serverName);
    }

    /** A handler for a new connection to {@code host:port} (SNI and the name checked: serverName, else host). */
    public SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
        return context.newHandler(alloc, serverName != null ? serverName : host, port);
    }

    /** The TLS of every upstream that has {@code tls}, by upstream name; errors are added with field paths. */
    public static Map<String, UpstreamTls> build(Config config, List<ConfigError> errors) {
        Map<String, UpstreamTls> out = new HashMap<>();
        for (int i = 0; i < config.upstreams().size(); i++) {
            Upstream u = config.upstreams().get(i);
            if (u.tls() == null) {
                continue;
            }
            String path = "upstreams[" + i + "].tls";
            try {
                out.put(u.name(), new UpstreamTls(context(u.tls(), path, u.protocol() == Upstream.Protocol.H2),
                        u.tls().serverName()));
            } catch (PemMaterial.Invalid e) {
                errors.add(new ConfigError(e.field, e.getMessage()));
            }
        }
        return out;
    }

    /** @param h2 offer only {@code h2} by ALPN (an h2 upstream), else no ALPN (HTTP/1.1) */
    private static SslContext context(Upstream.Tls t, String path, boolean h2) throws PemMaterial.Invalid {
        String ca = t.ca() == null ? null : PemMaterial.text(t.ca(), path + ".ca");
        String cert = t.cert() == null ? null : PemMaterial.text(t.cert(), path + ".cert");
        String key = t.key() == null ? null : PemMaterial.text(t.key(), path + ".key");
        String id = digest(ca + "\u0000" + cert + "\u0000" + key + (h2 ? "\u0000h2" : "") + (t.verify() ? "" : "\u0000unverified")
                + (t.verifyDepth() > 0 ? "\u0000depth" + t.verifyDepth() : ""));
        synchronized (CACHE) {
            SslContext c = CACHE.get(id);
            if (c != null) {
                return c;
            }
        }
        SslContextBuilder b = SslContextBuilder.forClient()
                .sslProvider(TlsEngine.current().provider())
                .protocols("TLSv1.3", "TLSv1.2")
                // Check the endpoint's name, not only its chain (Netty 4.2's default, stated), unless asked not to
                // check the certificate at all (tls.verify: false).
                .endpointIdentificationAlgorithm(t.verify() ? "HTTPS" : null);
        if (!t.verify()) {
            b.trustManager(io.netty.handler.ssl.util.InsecureTrustManagerFactory.INSTANCE);
        }
        if (h2) {
            b.applicationProtocolConfig(new io.netty.handler.ssl.ApplicationProtocolConfig(
                    io.netty.handler.ssl.ApplicationProtocolConfig.Protocol.ALPN,
                    io.netty.handler.ssl.ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    io.netty.handler.ssl.ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                    io.netty.handler.ssl.ApplicationProtocolNames.HTTP_2));
        }
        if (ca != null && t.verifyDepth() > 0) {
            try {
                b.trustManager(DepthLimitedTrustManager.of(PemMaterial.certificates(ca, path + ".ca"), t.verifyDepth()));
            } catch (PemMaterial.Invalid e) {
                throw e;
            } catch (Exception e) {
                throw new PemMaterial.Invalid(path + ".ca", "cannot set up the CAs: " + e.getMessage());
            }
        } else if (ca != null) {
            b.trustManager(PemMaterial.certificates(ca, path + ".ca").toArray(new X509Certificate[0]));
        }
        if (cert != null && key != null) {
            List<X509Certificate> chain = PemMaterial.certificates(cert, path + ".cert");
            PrivateKey k = PemMaterial.privateKey(key, path + ".key");
            PemMaterial.checkPair(chain.get(0), k, path + ".key");
            b.keyManager(k, chain.toArray(new X509Certificate[0]));
        }
        SslContext c;
        try {
            c = b.build();
        } catch (Exception e) {
            throw new PemMaterial.Invalid(path, "cannot set up TLS: " + e.getMessage());
        }
        synchronized (CACHE) {
            CACHE.put(id, c);
        }
        return c;
    }

    private static String digest(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
