package dev.strait.model;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The TLS 1.2 cipher suites a listener's {@code tls.ciphers} may name, by their IANA names (what Java and
 * Netty take) and their OpenSSL names (what nginx's {@code ssl_ciphers} and ingress-nginx's {@code ssl-ciphers}
 * take): the forward-secret ECDHE suites both of Strait's engines (BoringSSL, the JDK) have. Suites without
 * forward secrecy (RSA key exchange), finite-field DHE (BoringSSL has none), 3DES, RC4, NULL and anonymous ones are
 * not among them, nor the CBC suites with SHA-256/384 MACs that BoringSSL dropped.
 */
public final class TlsCiphers {
    private TlsCiphers() {}

    /** IANA name by OpenSSL name, in the order the default list prefers them. */
    private static final Map<String, String> BY_OPENSSL_NAME = new LinkedHashMap<>();

    static {
        String[][] suites = {
                {"ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
                {"ECDHE-RSA-AES128-GCM-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"},
                {"ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
                {"ECDHE-RSA-AES256-GCM-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"},
                {"ECDHE-ECDSA-CHACHA20-POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"},
                {"ECDHE-RSA-CHACHA20-POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"},
                {"ECDHE-ECDSA-AES128-SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"},
                {"ECDHE-RSA-AES128-SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"},
                {"ECDHE-ECDSA-AES256-SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"},
                {"ECDHE-RSA-AES256-SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"},
        };
        for (String[] s : suites) {
            BY_OPENSSL_NAME.put(s[0], s[1]);
        }
    }

    /** The IANA name of a suite given by either name (any case), or null when it is not one a listener may use. */
    public static String ianaName(String name) {
        String upper = name.trim().toUpperCase(Locale.ROOT);
        if (BY_OPENSSL_NAME.containsKey(upper)) {
            return BY_OPENSSL_NAME.get(upper);
        }
        return BY_OPENSSL_NAME.containsValue(upper) ? upper : null;
    }

    /** Whether the suite (an IANA name) has no AEAD cipher: HTTP/2 refuses it (RFC 9113 9.2.2). */
    public static boolean cbc(String ianaName) {
        return ianaName.contains("_CBC_");
    }

    /** The OpenSSL names of the suites a listener may use, for error messages. */
    public static String names() {
        return String.join(", ", BY_OPENSSL_NAME.keySet());
    }
}
