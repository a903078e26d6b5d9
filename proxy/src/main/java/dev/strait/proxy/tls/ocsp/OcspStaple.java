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
        X509Certificate issuer = null;
        for (X509Certificate c : chain.subList(1, chain.size())) {
            if (c.getSubjectX500Principal().equals(leaf.getIssuerX500Principal())) {
                try {
                    leaf.verify(c.getPublicKey());
                    issuer = c;
                    break;
                } catch (GeneralSecurityException e) {
                    // another certificate of the same name may have signed it
                }
            }
        }
        if (issuer == null) {
            throw new Unusable("the chain holds no certificate of its issuer (" + leaf.getIssuerX500Principal().getName()
                    + "): put the issuing CA's certificate after it");
        }
        byte[] request;
        try {
            request = OcspMessages.request(leaf, issuer);
        } catch (Der.Malformed | GeneralSecurityException e) {
            throw new Unusable("its OCSP request cannot be made: " + e.getMessage());
        }
        return new OcspStaple(leaf, issuer, responder, request, String.valueOf(names));
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
    Instant heldUntil() {
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
