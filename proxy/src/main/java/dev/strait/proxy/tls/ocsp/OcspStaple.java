package dev.strait.proxy.tls.ocsp;

import dev.strait.proxy.tls.Der;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;

/**
 * One served certificate's OCSP answer, to staple to its handshakes (RFC 6066 8): what to ask its responder, and
 * the last good answer until it expires. Handshakes read it on the event loops (one volatile read); only the
 * {@link OcspStapler} writes it. A certificate keeps its staple across reloads that leave it alone (the TLS
 * side's context cache holds both), so a reload never starts a handshake without one.
 */
public final class OcspStaple {
    /** A good answer and until when it may be stapled (its nextUpdate). */
    private record Held(byte[] der, long untilMillis) {}

    final X509Certificate leaf;
    final X509Certificate issuer;
    final URI responder;
    final byte[] request;
    /** The certificate's names, for logs. */
    final String names;
    private volatile Held held;

    /** Why a certificate cannot be stapled, said as the end of a sentence about it. */
    public static final class Unusable extends Exception {
        Unusable(String message) {
            super(message);
        }
    }

    private OcspStaple(X509Certificate leaf, X509Certificate issuer, URI responder, byte[] request, String names) {
        this.leaf = leaf;
        this.issuer = issuer;
        this.responder = responder;
        this.request = request;
        this.names = names;
    }

    /**
     * The staple of a served chain, leaf first, or null when the certificate names no http(s) OCSP responder: its CA
     * offers none (Let's Encrypt's have not since 2025, as the CA/Browser Forum made OCSP optional), and there is
     * nothing to staple. Its issuer must follow it in the chain, as servers send it: an OCSP request names the
     * issuer's name and key.
     */
    public static OcspStaple of(List<X509Certificate> chain, List<String> names) throws Unusable {
        X509Certificate leaf = chain.get(0);
        URI responder;
        try {
            responder = OcspMessages.responder(leaf);
        } catch (Der.Malformed e) {
            throw new Unusable("its Authority Information Access cannot be read: " + e.getMessage());
        }
        if (responder == null) {
            return null;
        }
        X509Certificate issuer = issuer(chain);
        byte[] request;
        try {
            request = OcspMessages.request(leaf, issuer);
        } catch (Der.Malformed | GeneralSecurityException e) {
            throw new Unusable("its OCSP request cannot be made: " + e.getMessage());
        }
        return new OcspStaple(leaf, issuer, responder, request, String.valueOf(names));
    }

    /** The certificate in the chain after the leaf that issued it. */
    private static X509Certificate issuer(List<X509Certificate> chain) throws Unusable {
        X509Certificate leaf = chain.get(0);
        for (X509Certificate c : chain.subList(1, chain.size())) {
            if (c.getSubjectX500Principal().equals(leaf.getIssuerX500Principal())) {
                try {
                    leaf.verify(c.getPublicKey());
                    return c;
                } catch (GeneralSecurityException e) {
                    // another certificate of the same name may have signed it
                }
            }
        }
        throw new Unusable("the chain holds no certificate of its issuer (" + leaf.getIssuerX500Principal().getName()
                + "): put the issuing CA's certificate after it");
    }

    /**
     * The staple of an answer someone else fetched (a file: nginx's {@code ssl_stapling_file}), held until its
     * nextUpdate; nothing fetches it again. It must be a good answer about this certificate that the JDK's checks
     * accept (at its own thisUpdate when it has expired: the caller tells an expired answer by {@link #response()}
     * being null, and serves without).
     *
     * @throws Unusable when it is no OCSP answer, not about this certificate, not genuine, or not "good"
     */
    public static OcspStaple ofAnswer(List<X509Certificate> chain, List<String> names, byte[] der, Instant now)
            throws Unusable {
        X509Certificate leaf = chain.get(0);
        X509Certificate issuer = issuer(chain);
        OcspMessages.Answer a;
        try {
            a = OcspMessages.read(der, leaf);
        } catch (Der.Malformed e) {
            throw new Unusable("not an OCSP answer about the certificate: " + e.getMessage());
        }
        if (a.status() != OcspMessages.Status.GOOD) {
            throw new Unusable("the answer says the certificate is " + a.status().name().toLowerCase(java.util.Locale.ROOT));
        }
        boolean expired = a.nextUpdate() != null && !a.nextUpdate().isAfter(now);
        // An expired answer is checked as of when it held (and the certificate did): genuine, only late.
        Instant at = now;
        if (expired) {
            Instant from = leaf.getNotBefore().toInstant();
            at = a.thisUpdate().isAfter(from) ? a.thisUpdate() : from;
            at = at.isAfter(a.nextUpdate()) ? a.nextUpdate() : at;
        }
        String invalid = OcspMessages.verify(der, leaf, issuer, at);
        if (invalid != null) {
            throw new Unusable("not a valid answer: " + invalid);
        }
        OcspStaple s = new OcspStaple(leaf, issuer, null, null, String.valueOf(names));
        // Without nextUpdate it holds until the file changes.
        s.hold(der, a.nextUpdate() != null ? a.nextUpdate() : Instant.ofEpochMilli(Long.MAX_VALUE));
        return s;
    }

    /**
     * Whether the certificate demands a staple (RFC 7633 "must-staple": the TLS feature extension lists
     * status_request): clients that honour it (Firefox) refuse its handshakes without one.
     */
    public static boolean mustStaple(X509Certificate cert) {
        byte[] ext = cert.getExtensionValue(TLS_FEATURE);
        if (ext == null) {
            return false;
        }
        try {
            Der.Element value = new Der.Reader(ext).next("tlsFeature").expect(Der.OCTET_STRING, "tlsFeature");
            Der.Reader features = new Der.Reader(value.contents()).next("tlsFeature").expect(Der.SEQUENCE, "tlsFeature")
                    .children();
            while (features.hasNext()) {
                Der.Element f = features.next("feature").expect(Der.INTEGER, "feature");
                if (f.length() == 1 && f.bytes()[f.start()] == STATUS_REQUEST) {
                    return true;
                }
            }
        } catch (Der.Malformed e) {
            // an extension that does not read demands nothing we can tell
        }
        return false;
    }

    private static final String TLS_FEATURE = "1.3.6.1.5.5.7.1.24";
    /** The status_request TLS extension's number (RFC 6066 8). */
    private static final int STATUS_REQUEST = 5;

    /** The answer to staple now, or null: none yet, the last one expired, or the certificate was found revoked. */
    public byte[] response() {
        Held h = held;
        return h != null && System.currentTimeMillis() < h.untilMillis ? h.der : null;
    }

    /** Until when the held answer may be stapled, or null when none is held. */
    public Instant heldUntil() {
        Held h = held;
        return h == null ? null : Instant.ofEpochMilli(h.untilMillis);
    }

    void hold(byte[] der, Instant until) {
        held = new Held(der, until.toEpochMilli());
    }

    void drop() {
        held = null;
    }

    @Override
    public String toString() {
        return "the certificate for " + names + " (OCSP responder " + responder + ")";
    }
}
