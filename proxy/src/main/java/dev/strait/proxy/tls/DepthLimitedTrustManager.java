package dev.strait.proxy.tls;

import java.net.Socket;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * An upstream's trust in its CAs, with nginx's {@code proxy_ssl_verify_depth}: after the JDK's PKIX check (chain,
 * validity, and the name through the engine's endpoint identification), the endpoint's certificate must be at most
 * {@code depth} certificates away from one of the CAs: 1 when a CA issued it directly, 2 through one intermediate.
 * The count runs up the chain as the endpoint sent it, to the first certificate a CA of ours issued ({@link CaChain}).
 */
final class DepthLimitedTrustManager extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager pkix;
    private final X509Certificate[] cas;
    private final int depth;

    private DepthLimitedTrustManager(X509ExtendedTrustManager pkix, X509Certificate[] cas, int depth) {
        this.pkix = pkix;
        this.cas = cas;
        this.depth = depth;
    }

    /** Trust in {@code cas} (PKIX, as the JDK's default), for chains of at most {@code depth}. */
    static TrustManager of(List<X509Certificate> cas, int depth) throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        for (int i = 0; i < cas.size(); i++) {
            store.setCertificateEntry("ca-" + i, cas.get(i));
        }
        TrustManagerFactory f = TrustManagerFactory.getInstance("PKIX");
        f.init(store);
        for (TrustManager tm : f.getTrustManagers()) {
            if (tm instanceof X509ExtendedTrustManager x) {
                return new DepthLimitedTrustManager(x, cas.toArray(new X509Certificate[0]), depth);
            }
        }
        throw new IllegalStateException("the JDK has no X509 trust manager");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        pkix.checkServerTrusted(chain, authType, engine);
        checkDepth(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        pkix.checkServerTrusted(chain, authType, socket);
        checkDepth(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkServerTrusted(chain, authType);
        checkDepth(chain);
    }

    /** Certificates from the endpoint's up to the first one a CA issued ({@link CaChain}); more than {@code depth} fail. */
    void checkDepth(X509Certificate[] chain) throws CertificateException {
        int n = CaChain.toCa(chain[0], chain, cas).size();
        if (n > depth) {
            throw new CertificateException("certificate chain too long: " + n + " certificate(s) to a CA, "
                    + "verifyDepth allows " + depth);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        throw new CertificateException("an upstream's trust checks servers only");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        throw new CertificateException("an upstream's trust checks servers only");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("an upstream's trust checks servers only");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}
