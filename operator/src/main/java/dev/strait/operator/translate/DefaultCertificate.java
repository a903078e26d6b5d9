package dev.strait.operator.translate;

import dev.strait.model.Config;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.Map;

/**
 * The operator's {@code --default-ssl-certificate} as one translation finds its Secret (ingress-nginx's flag, ADR 0096):
 * the certificate, checked as a Route's ({@link Translator#tlsSecret}), or why it cannot be used. Usable, it is the
 * ingress proxies' https listener's first certificate (the one for names no other certificate has, and for clients
 * without SNI), and the hosts an Ingress lists in a {@code spec.tls} entry without {@code secretName} are TLS hosts
 * served with it. Not usable, such hosts stay on plain HTTP, reported: never served with some other Route's
 * certificate, which would be no one's choice.
 *
 * @param secret      the flag's Secret; null without the flag
 * @param certificate the Secret's certificate and key; null when they cannot be used
 * @param reason      without a certificate, the reason an Ingress's report gives ({@code SecretNotFound},
 *                    {@code InvalidSecret})
 * @param problem     without a certificate, why, naming the flag
 */
record DefaultCertificate(ProxyDefaults.SecretRef secret, Config.Certificate certificate, String reason, String problem) {
    /** The operator runs without the flag. */
    static final DefaultCertificate NONE = new DefaultCertificate(null, null, "SecretNotFound",
            "the operator has no --default-ssl-certificate");
    /** What a sidecar's Ingress hosts get: the flag is the ingress proxies' (a sidecar's clients are pods). */
    static final DefaultCertificate SIDECAR = new DefaultCertificate(null, null, "SecretNotFound",
            "--default-ssl-certificate serves the ingress proxies only, not sidecars");

    /** The flag's Secret among {@code secrets} ({@code namespace/name}), under {@code defaults}. */
    static DefaultCertificate resolve(ProxyDefaults defaults, Map<String, Secret> secrets) {
        ProxyDefaults.SecretRef ref = defaults.defaultCertificate();
        if (ref == null) {
            return NONE;
        }
        String flag = "--default-ssl-certificate " + ref;
        if (defaults.https() == null) {
            return new DefaultCertificate(ref, null, "SecretNotFound", flag + ": the proxies have no https listener"
                    + " (--proxy-https-address) to serve it on");
        }
        Translator.TlsSecret found = Translator.tlsSecret(secrets.get(ref.toString()));
        if (found.certificate() == null) {
            return new DefaultCertificate(ref, null, found.reason(), flag + ": Secret" + found.problem());
        }
        return new DefaultCertificate(ref, found.certificate(), null, null);
    }

    boolean usable() {
        return certificate != null;
    }

    /**
     * What an Ingress is told when a host of its {@code field} (a {@code spec.tls[k].secretName} left out) cannot be
     * served with the default certificate.
     */
    String unusable(String field, String host) {
        return field + ": not given, and " + (secret == null && this != SIDECAR
                ? "the operator has no --default-ssl-certificate to serve host \"" + host + "\" with"
                : "host \"" + host + "\" cannot take the default certificate (" + problem + ")")
                + ": it is served as a host without TLS (plain HTTP, no redirect to https)";
    }
}
