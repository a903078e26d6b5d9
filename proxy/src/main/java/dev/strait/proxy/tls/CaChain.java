package dev.strait.proxy.tls;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The part of a chain a peer sent that leads to our CAs: from its own certificate up to the first one a CA of
 * ours issued. A peer may send its root too, or certificates that belong to no chain; what follows is not
 * looked at. Its length is what nginx's {@code ssl_verify_depth} and {@code proxy_ssl_verify_depth} limit.
 */
final class CaChain {
    private CaChain() {}

    /** {@code leaf} and the sent certificates above it, up to the first a CA of {@code cas} issued. */
    static List<X509Certificate> toCa(X509Certificate leaf, Certificate[] sent, X509Certificate[] cas) {
        List<X509Certificate> path = new ArrayList<>(sent.length);
        path.add(leaf);
        X509Certificate top = leaf;
        for (int i = 1; i < sent.length && !issuedByCa(top, cas); i++) {
            if (!(sent[i] instanceof X509Certificate next) || Arrays.asList(cas).contains(next)
                    || !next.getSubjectX500Principal().equals(top.getIssuerX500Principal())) {
                break;
            }
            path.add(next);
            top = next;
        }
        return path;
    }

    private static boolean issuedByCa(X509Certificate c, X509Certificate[] cas) {
        for (X509Certificate ca : cas) {
            if (ca.getSubjectX500Principal().equals(c.getIssuerX500Principal())) {
                return true;
            }
        }
        return false;
    }
}
