package dev.strait.proxy.tls;

import dev.strait.proxy.tls.ocsp.OcspStaple;
import io.netty.handler.ssl.SslContext;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * One configured certificate, ready to serve: its TLS context and the host names it covers (the
 * SAN DNS entries, or the subject CN when there are none), lower case.
 */
public final class ServerCertificate {
    private final SslContext context;
    private final Set<String> exact;
    /** Wildcard names as the suffix after {@code *.}: {@code *.example.com} is {@code example.com}. */
    private final Set<String> wildcard;
    /** This certificate's context that asks for client certificates under a policy (ADR 0075); null: none made. */
    private final java.util.function.Function<ClientValidationPolicy, SslContext> asking;
    /** Its OCSP answer to staple (ADR 0104), or null where its listener staples none. */
    private final OcspStaple staple;

    ServerCertificate(SslContext context, List<String> names) {
        this(context, names, null, null);
    }

    ServerCertificate(SslContext context, List<String> names,
                      java.util.function.Function<ClientValidationPolicy, SslContext> asking, OcspStaple staple) {
        this.context = context;
        this.asking = asking;
        this.staple = staple;
        Set<String> e = new java.util.HashSet<>();
        Set<String> w = new java.util.HashSet<>();
        for (String n : names) {
            if (n.startsWith("*.")) {
                w.add(n.substring(2));
            } else {
                e.add(n);
            }
        }
        this.exact = Set.copyOf(e);
        this.wildcard = Set.copyOf(w);
    }

    public SslContext context() {
        return context;
    }

    /** The context for a handshake under {@code policy} ({@code null}: one that asks for no client certificate). */
    SslContext context(ClientValidationPolicy policy) {
        return policy == null || asking == null ? context : asking.apply(policy);
    }

    /** The answer to staple to a handshake now, or null. */
    byte[] ocspResponse() {
        return staple == null ? null : staple.response();
    }

    Set<String> exactNames() {
        return exact;
    }

    Set<String> wildcardSuffixes() {
        return wildcard;
    }

    /** Whether a (lower-case, port-less) host is one of this certificate's names (RFC 6125 6.4.3: one label per '*'). */
    public boolean covers(String host) {
        if (exact.contains(host)) {
            return true;
        }
        int dot = host.indexOf('.');
        return dot > 0 && wildcard.contains(host.substring(dot + 1));
    }

    static List<String> names(X509Certificate cert) {
        List<String> names = new ArrayList<>();
        try {
            var sans = cert.getSubjectAlternativeNames();
            if (sans != null) {
                for (List<?> san : sans) {
                    if (san.size() >= 2 && Integer.valueOf(2).equals(san.get(0)) && san.get(1) instanceof String dns) {
                        names.add(normalize(dns));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // no usable SANs: the CN below
        }
        if (names.isEmpty()) {
            try {
                for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
                    if (rdn.getType().equalsIgnoreCase("CN")) {
                        names.add(normalize(String.valueOf(rdn.getValue())));
                    }
                }
            } catch (InvalidNameException e) {
                // no names: the certificate can still be the default
            }
        }
        return names;
    }

    static String normalize(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
    }
}
