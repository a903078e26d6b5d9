package dev.strait.proxy.tls;

import dev.strait.model.Config;
import dev.strait.proxy.tls.ocsp.ClientOcsp;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXReason;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import javax.net.ssl.X509TrustManager;
import javax.security.auth.x500.X500Principal;

/**
 * One {@code clientValidation} entry of a TLS listener, ready to use (ADR 0075): the CAs, and the verdict on a
 * certificate chain a client sent. The handshake takes any certificate ({@link #trustManager}) and names these
 * CAs in its request; the chain is judged afterwards, once per connection, so that a request can be answered
 * with a readable 400 (as nginx does) instead of a handshake alert a browser shows as a broken site.
 */
public final class ClientValidationPolicy {
    /** {@code clientAuth} in an extended key usage, and "any". */
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final String ANY_USAGE = "2.5.29.37.0";

    private final X509Certificate[] cas;
    private final Set<TrustAnchor> anchors;
    private final Config.ClientValidationMode mode;
    private final int verifyDepth;
    private final Pattern subjectMatch;
    private final boolean forwardCertificate;
    /** Where a refused request is sent (302), or null. */
    private final String errorPage;
    /** Revocation lists by issuer; null: none given, nothing is looked up. */
    private final java.util.Map<X500Principal, java.security.cert.X509CRL> crls;
    /** Which certificates of a valid chain are asked about by OCSP, and the responder asked instead of theirs. */
    private final Config.ClientOcsp ocsp;
    private final java.net.URI ocspResponder;
    private final String key;
    private final String askKey;

    ClientValidationPolicy(Config.ClientValidation spec, List<X509Certificate> cas) {
        this(spec, cas, null);
    }

    /** @param crls the revocation lists of {@code cas}' CAs, each checked to be signed by one; null for none */
    ClientValidationPolicy(Config.ClientValidation spec, List<X509Certificate> cas,
                           List<java.security.cert.X509CRL> crls) {
        this.cas = cas.toArray(new X509Certificate[0]);
        Set<TrustAnchor> a = new HashSet<>();
        for (X509Certificate c : cas) {
            a.add(new TrustAnchor(c, null));
        }
        this.anchors = Set.copyOf(a);
        this.mode = spec.mode();
        this.verifyDepth = spec.verifyDepth();
        this.subjectMatch = spec.subjectMatch() == null ? null : Pattern.compile(spec.subjectMatch());
        this.forwardCertificate = spec.forwardCertificate();
        this.errorPage = spec.errorPage();
        if (crls == null) {
            this.crls = null;
        } else {
            java.util.Map<X500Principal, java.security.cert.X509CRL> byIssuer = new java.util.HashMap<>();
            crls.forEach(c -> byIssuer.put(c.getIssuerX500Principal(), c));
            this.crls = java.util.Map.copyOf(byIssuer);
        }
        this.ocsp = spec.ocsp();
        this.ocspResponder = spec.ocspResponder() == null ? null : java.net.URI.create(spec.ocspResponder());
        // A handshake under OCSP checks asks the responders before its requests are read (ClientOcspGate): one set up
        // without, or asking others, has no verdict to go by.
        String asks = ocsp == Config.ClientOcsp.OFF ? "" : ocsp + "|" + spec.ocspResponder();
        this.askKey = digest(cas, asks);
        this.key = digest(cas, spec.mode() + "|" + spec.verifyDepth() + "|" + spec.subjectMatch() + "|"
                + spec.forwardCertificate() + "|" + crlDigest(crls) + "|" + spec.errorPage() + "|" + asks);
    }

    /**
     * What the policy is, whatever hosts it covers: two snapshots' policies with the same key accept the same
     * certificates, so a verdict made under one holds under the other.
     */
    public String key() {
        return key;
    }

    /**
     * What a handshake under this policy asks for (the CAs it names): a connection set up under a policy with the
     * same ask key has shown whatever certificate this one would have asked for, to be judged by this one.
     */
    public String askKey() {
        return askKey;
    }

    public Config.ClientValidationMode mode() {
        return mode;
    }

    /** Whether the subject of a certificate the request came with is one this policy lets through (null: none sent). */
    boolean subjectAllowed(String subjectDn) {
        return subjectMatch == null || subjectDn != null && subjectMatch.matcher(subjectDn).find();
    }

    boolean forwardCertificate() {
        return forwardCertificate;
    }

    /** Whether handshakes under this policy ask OCSP responders about the client's chain. */
    boolean checksOcsp() {
        return ocsp != Config.ClientOcsp.OFF;
    }

    /** The responder asked instead of the one each certificate names, or null. */
    java.net.URI ocspResponder() {
        return ocspResponder;
    }

    /**
     * What to ask OCSP responders about a chain a client sent: nothing when the policy asks nothing, or when the chain
     * fails without them (no certificate, not ours, expired, revoked by a list); else the client's certificate, or
     * ({@code chain}) each one from it up to the one a CA of ours issued, each with its issuer.
     */
    java.util.List<ClientOcsp.Query> ocspQueries(Certificate[] peer) {
        if (ocsp == Config.ClientOcsp.OFF || peer == null || peer.length == 0
                || !(peer[0] instanceof X509Certificate leaf) || failure(peer, leaf, null) != null) {
            return List.of();
        }
        List<X509Certificate> path = CaChain.toCa(leaf, peer, cas);
        int asked = ocsp == Config.ClientOcsp.LEAF ? 1 : path.size();
        java.util.List<ClientOcsp.Query> queries = new java.util.ArrayList<>(asked);
        for (int i = 0; i < asked; i++) {
            X509Certificate c = path.get(i);
            X509Certificate issuer = i + 1 < path.size() ? path.get(i + 1) : caOf(c);
            if (issuer == null) {
                return List.of(); // cannot be: the path was just validated up to one of the CAs
            }
            queries.add(new ClientOcsp.Query(c, issuer));
        }
        return List.copyOf(queries);
    }

    /** The CA of ours that signed {@code c} (by name, then by key: a CA may have been re-keyed under its name). */
    private X509Certificate caOf(X509Certificate c) {
        for (X509Certificate ca : cas) {
            if (ca.getSubjectX500Principal().equals(c.getIssuerX500Principal())) {
                try {
                    c.verify(ca.getPublicKey());
                    return ca;
                } catch (java.security.GeneralSecurityException e) {
                    // another key under the same name: the next one
                }
            }
        }
        return null;
    }

    String errorPage() {
        return errorPage;
    }

    /** Takes whatever the client sends: the verdict is {@link #judge}'s, per request. */
    X509TrustManager trustManager() {
        return new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
                throw new UnsupportedOperationException("a server context checks clients only");
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return cas.clone(); // named in the CertificateRequest, so clients offer a certificate they hold for these
            }
        };
    }

    /**
     * The verdict on what a client sent in its handshake ({@code null} or empty: nothing), with no OCSP answer: a
     * policy that asks for one takes that as a question that failed.
     */
    ClientCertificate judge(Certificate[] peer) {
        return judge(peer, ClientOcsp.FAILED);
    }

    /**
     * The verdict on what a client sent in its handshake ({@code null} or empty: nothing).
     *
     * @param ocspVerdict what the OCSP responders said of the chain ({@link ClientOcspGate}): null when good; not
     *                    looked at unless the policy asks them
     */
    ClientCertificate judge(Certificate[] peer, String ocspVerdict) {
        if (peer == null || peer.length == 0 || !(peer[0] instanceof X509Certificate leaf)) {
            return ClientCertificate.NONE;
        }
        String subject = leaf.getSubjectX500Principal().getName(X500Principal.RFC2253);
        String issuer = leaf.getIssuerX500Principal().getName(X500Principal.RFC2253);
        String pem = forwardCertificate ? escapedPem(leaf) : null;
        String failure = failure(peer, leaf, ocspVerdict);
        return new ClientCertificate(failure == null ? "SUCCESS" : "FAILED:" + failure, subject, issuer, pem,
                failure == null ? forwardedClientCert(leaf, subject, pem) : null);
    }

    /**
     * Envoy's {@code x-forwarded-client-cert} element for {@code leaf} (what Envoy, Istio and Contour send apps
     * behind them): {@code Hash} (SHA-256 of the DER, hex), {@code Cert} (the escaped PEM, when forwarded),
     * {@code Subject}, and a {@code URI} (a SPIFFE id, say) and {@code DNS} pair per such subject alternative name.
     */
    static String forwardedClientCert(X509Certificate leaf, String subject, String escapedPem) {
        StringBuilder sb = new StringBuilder("Hash=");
        try {
            sb.append(HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(leaf.getEncoded())));
        } catch (CertificateEncodingException | NoSuchAlgorithmException e) {
            return null;
        }
        if (escapedPem != null) {
            sb.append(";Cert=\"").append(escapedPem).append('"');
        }
        sb.append(";Subject=").append(xfccValue(subject, true));
        try {
            java.util.Collection<List<?>> sans = leaf.getSubjectAlternativeNames();
            if (sans != null) {
                for (List<?> san : sans) {
                    if (san.size() == 2 && san.get(0) instanceof Integer type && san.get(1) instanceof String v
                            && (type == SAN_URI || type == SAN_DNS)) {
                        sb.append(type == SAN_URI ? ";URI=" : ";DNS=").append(xfccValue(v, false));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // names that cannot be read are left out; the hash still identifies the certificate
        }
        return sb.toString();
    }

    /** The GeneralName tags of X509Certificate.getSubjectAlternativeNames (RFC 5280 4.2.1.6). */
    private static final int SAN_DNS = 2, SAN_URI = 6;

    /** A value as XFCC writes it: in double quotes (with {@code "} and {@code \} escaped) when asked or needed. */
    private static String xfccValue(String v, boolean quote) {
        if (!quote && v.chars().noneMatch(c -> c == ',' || c == ';' || c == '=' || c == '"' || c == '\\')) {
            return v;
        }
        return '"' + v.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /** Why the chain is not one of this policy's CAs' (OpenSSL's words, as nginx's {@code $ssl_client_verify}), or null. */
    private String failure(Certificate[] peer, X509Certificate leaf, String ocspVerdict) {
        if (anchors.isEmpty()) {
            return "unable to get local issuer certificate";
        }
        try {
            List<X509Certificate> path = CaChain.toCa(leaf, peer, cas);
            List<String> usage = leaf.getExtendedKeyUsage();
            if (usage != null && !usage.contains(CLIENT_AUTH) && !usage.contains(ANY_USAGE)) {
                return "unsupported certificate purpose";
            }
            PKIXParameters params = new PKIXParameters(anchors);
            params.setRevocationEnabled(false);
            CertPathValidator.getInstance("PKIX").validate(
                    CertificateFactory.getInstance("X.509").generateCertPath(path), params);
            // nginx's ssl_verify_depth: how many certificates may stand between the client's and a CA of ours.
            if (path.size() > verifyDepth) {
                return "certificate chain too long";
            }
            String revoked = crls == null ? null : revoked(path);
            return revoked != null || ocsp == Config.ClientOcsp.OFF ? revoked : ocspVerdict;
        } catch (CertPathValidatorException e) {
            CertPathValidatorException.Reason r = e.getReason();
            if (r == CertPathValidatorException.BasicReason.EXPIRED) {
                return "certificate has expired";
            }
            if (r == CertPathValidatorException.BasicReason.NOT_YET_VALID) {
                return "certificate is not yet valid";
            }
            if (r == PKIXReason.NO_TRUST_ANCHOR) {
                return "unable to get local issuer certificate";
            }
            if (r == CertPathValidatorException.BasicReason.INVALID_SIGNATURE) {
                return "certificate signature failure";
            }
            if (r == PKIXReason.PATH_TOO_LONG) {
                return "certificate chain too long";
            }
            return "certificate verify failed";
        } catch (CertificateParsingException e) {
            return "unsupported certificate purpose";
        } catch (java.security.GeneralSecurityException | RuntimeException e) {
            return "certificate verify failed";
        }
    }

    /**
     * Why a certificate of a valid path is revoked, as nginx with {@code ssl_crl} checks (OpenSSL's CRL_CHECK_ALL):
     * each one's issuer must have a list, current, that does not name it.
     */
    private String revoked(List<X509Certificate> path) {
        java.util.Date now = new java.util.Date();
        for (X509Certificate c : path) {
            java.security.cert.X509CRL crl = crls.get(c.getIssuerX500Principal());
            if (crl == null) {
                return "unable to get certificate CRL";
            }
            if (crl.getNextUpdate() != null && crl.getNextUpdate().before(now)) {
                return "CRL has expired";
            }
            if (crl.isRevoked(c)) {
                return "certificate revoked";
            }
        }
        return null;
    }

    /** The certificate as PEM, percent-escaped but for RFC 3986's unreserved characters (nginx's {@code $ssl_client_escaped_cert}). */
    static String escapedPem(X509Certificate c) {
        String pem;
        try {
            pem = "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(c.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
        } catch (CertificateEncodingException e) {
            return null;
        }
        return dev.strait.proxy.http.PercentEncoding.component(pem);
    }

    private static String digest(List<X509Certificate> cas, String more) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (X509Certificate c : cas) {
                d.update(c.getEncoded());
            }
            d.update(more.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d.digest(), 0, 16);
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String crlDigest(List<java.security.cert.X509CRL> crls) {
        if (crls == null) {
            return "";
        }
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (java.security.cert.X509CRL c : crls) {
                d.update(c.getEncoded());
            }
            return HexFormat.of().formatHex(d.digest(), 0, 16);
        } catch (NoSuchAlgorithmException | java.security.cert.CRLException e) {
            throw new IllegalStateException(e);
        }
    }
}
