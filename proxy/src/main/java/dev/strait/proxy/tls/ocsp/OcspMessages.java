package dev.strait.proxy.tls.ocsp;

import dev.strait.proxy.tls.Der;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXReason;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The OCSP messages of RFC 6960 that stapling needs: the responder a certificate names, the request for its
 * status, and the few fields of an answer that say how long it may be stapled. Whether an answer is genuine
 * (signed by the issuer or a responder the issuer delegated to, about this certificate, current) is left to the
 * JDK's certification-path code, which checks OCSP answers for every Java TLS client.
 */
final class OcspMessages {
    private static final String AUTHORITY_INFO_ACCESS = "1.3.6.1.5.5.7.1.1";
    private static final String AD_OCSP = "1.3.6.1.5.5.7.48.1";
    private static final String SHA1 = "1.3.14.3.2.26";
    private static final String BASIC_RESPONSE = "1.3.6.1.5.5.7.48.1.1";

    private OcspMessages() {}

    /** A certificate's status in an answer. */
    enum Status { GOOD, REVOKED, UNKNOWN }

    /**
     * What a successful answer says about one certificate.
     *
     * @param nextUpdate when newer information will be there; null when the responder always has newer (RFC 6960
     *                   2.4): such an answer is stapled for a while only ({@link OcspStapler.Timing#withoutNextUpdate})
     */
    record Answer(Status status, Instant thisUpdate, Instant nextUpdate) {}

    /** The first http(s) OCSP responder in the certificate's Authority Information Access, or null when it names none. */
    static URI responder(X509Certificate cert) throws Der.Malformed {
        byte[] ext = cert.getExtensionValue(AUTHORITY_INFO_ACCESS);
        if (ext == null) {
            return null;
        }
        // The extension's value comes wrapped in the OCTET STRING it sits in.
        Der.Element value = new Der.Reader(ext).next("authorityInfoAccess").expect(Der.OCTET_STRING, "authorityInfoAccess");
        Der.Reader descriptions = new Der.Reader(value.contents()).next("authorityInfoAccess")
                .expect(Der.SEQUENCE, "authorityInfoAccess").children();
        while (descriptions.hasNext()) {
            Der.Reader d = descriptions.next("accessDescription").expect(Der.SEQUENCE, "accessDescription").children();
            Der.Element method = d.next("accessMethod");
            Der.Element location = d.next("accessLocation");
            if (Der.isOid(method, AD_OCSP) && location.tag() == 0x86) { // [6] uniformResourceIdentifier, IA5String
                String uri = new String(location.contents(), StandardCharsets.US_ASCII);
                try {
                    URI u = new URI(uri);
                    if ("http".equalsIgnoreCase(u.getScheme()) || "https".equalsIgnoreCase(u.getScheme())) {
                        return u;
                    }
                } catch (URISyntaxException e) {
                    // not a URI: the next one, if any
                }
            }
        }
        return null;
    }

    /**
     * The request for {@code leaf}'s status: one CertID, with SHA-1 hashes of the issuer's name and key (what every
     * responder answers to, RFC 5019 2.1.1), no nonce (a stapled answer is shared by every handshake).
     */
    static byte[] request(X509Certificate leaf, X509Certificate issuer) throws GeneralSecurityException, Der.Malformed {
        // OCSPRequest { TBSRequest { requestList { Request { CertID } } } }
        return Der.sequence(Der.sequence(Der.sequence(Der.sequence(certId(leaf, issuer)))));
    }

    /** A CertID ({@code hashAlgorithm, issuerNameHash, issuerKeyHash, serialNumber}). */
    private static byte[] certId(X509Certificate leaf, X509Certificate issuer)
            throws GeneralSecurityException, Der.Malformed {
        MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
        byte[] nameHash = sha1.digest(issuer.getSubjectX500Principal().getEncoded());
        byte[] keyHash = sha1.digest(publicKeyBits(issuer));
        byte[] algorithm = Der.sequence(Der.oid(SHA1), Der.element(Der.NULL));
        return Der.sequence(algorithm, Der.element(Der.OCTET_STRING, nameHash), Der.element(Der.OCTET_STRING, keyHash),
                Der.element(Der.INTEGER, leaf.getSerialNumber().toByteArray()));
    }

    /** The subjectPublicKey BIT STRING's bits (without its unused-bits count): what issuerKeyHash is taken over. */
    private static byte[] publicKeyBits(X509Certificate cert) throws Der.Malformed {
        Der.Reader spki = new Der.Reader(cert.getPublicKey().getEncoded()).next("subjectPublicKeyInfo")
                .expect(Der.SEQUENCE, "subjectPublicKeyInfo").children();
        spki.next("algorithm");
        byte[] bits = spki.next("subjectPublicKey").expect(Der.BIT_STRING, "subjectPublicKey").contents();
        return java.util.Arrays.copyOfRange(bits, 1, bits.length);
    }

    /**
     * Reads an answer down to the single response about {@code leaf} (by serial number: which responses are about
     * it for sure is {@link #verify}'s to say).
     *
     * @throws Der.Malformed when it is not an OCSP answer, not a successful one (the responder's status is in the
     *                       message), or has no response about {@code leaf}
     */
    static Answer read(byte[] response, X509Certificate leaf) throws Der.Malformed {
        Der.Reader top = new Der.Reader(response).next("OCSPResponse").expect(Der.SEQUENCE, "OCSPResponse").children();
        Der.Element status = top.next("responseStatus").expect(Der.ENUMERATED, "responseStatus");
        int code = status.length() == 1 ? status.bytes()[status.start()] : -1;
        if (code != 0) {
            throw new Der.Malformed("the responder answered " + statusName(code));
        }
        Der.Element bytes = top.next("responseBytes");
        if (!bytes.isContext(0)) {
            throw new Der.Malformed("responseBytes: missing");
        }
        Der.Reader rb = bytes.children().next("responseBytes").expect(Der.SEQUENCE, "responseBytes").children();
        if (!Der.isOid(rb.next("responseType"), BASIC_RESPONSE)) {
            throw new Der.Malformed("responseType: not a basic OCSP response");
        }
        byte[] basic = rb.next("response").expect(Der.OCTET_STRING, "response").contents();
        Der.Reader tbs = new Der.Reader(basic).next("BasicOCSPResponse").expect(Der.SEQUENCE, "BasicOCSPResponse")
                .children().next("tbsResponseData").expect(Der.SEQUENCE, "tbsResponseData").children();
        if (tbs.peekTag() == 0xa0) {
            tbs.next("version");
        }
        tbs.next("responderID");
        tbs.next("producedAt").time("producedAt");
        Der.Reader responses = tbs.next("responses").expect(Der.SEQUENCE, "responses").children();
        byte[] serial = leaf.getSerialNumber().toByteArray();
        while (responses.hasNext()) {
            Der.Reader single = responses.next("SingleResponse").expect(Der.SEQUENCE, "SingleResponse").children();
            Der.Reader certId = single.next("certID").expect(Der.SEQUENCE, "certID").children();
            certId.next("hashAlgorithm");
            certId.next("issuerNameHash");
            certId.next("issuerKeyHash");
            byte[] theirs = certId.next("serialNumber").expect(Der.INTEGER, "serialNumber").contents();
            Der.Element certStatus = single.next("certStatus");
            Instant thisUpdate = single.next("thisUpdate").time("thisUpdate");
            Instant nextUpdate = null;
            if (single.peekTag() == 0xa0) {
                nextUpdate = single.next("nextUpdate").children().next("nextUpdate").time("nextUpdate");
            }
            if (!java.util.Arrays.equals(theirs, serial)) {
                continue;
            }
            Status s = certStatus.isContext(0) ? Status.GOOD : certStatus.isContext(1) ? Status.REVOKED : Status.UNKNOWN;
            return new Answer(s, thisUpdate, nextUpdate);
        }
        throw new Der.Malformed("no response about serial number " + leaf.getSerialNumber().toString(16));
    }

    private static String statusName(int code) {
        return switch (code) {
            case 1 -> "malformedRequest";
            case 2 -> "internalError";
            case 3 -> "tryLater";
            case 5 -> "sigRequired";
            case 6 -> "unauthorized";
            default -> "status " + code;
        };
    }

    /**
     * Whether the JDK takes {@code response} as proof that {@code leaf} is good at {@code at}: signed by {@code issuer}
     * or by a responder it authorised, about this certificate, current (RFC 6960 3.2). Returns null when it does,
     * else why not.
     */
    static String verify(byte[] response, X509Certificate leaf, X509Certificate issuer, Instant at) {
        try {
            CertPathValidator validator = CertPathValidator.getInstance("PKIX");
            PKIXRevocationChecker checker = (PKIXRevocationChecker) validator.getRevocationChecker();
            // This answer and no other: nothing is fetched, and no revocation list is tried instead. Not ONLY_END_ENTITY:
            // the path is this one certificate, and the JDK would skip a CA's (an intermediate a client sent).
            checker.setOptions(EnumSet.of(PKIXRevocationChecker.Option.NO_FALLBACK));
            checker.setOcspResponses(Map.of(leaf, response));
            PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(issuer, null)));
            params.setRevocationEnabled(false); // the checker below runs all the same, and it alone
            params.addCertPathChecker(checker);
            params.setDate(Date.from(at));
            validator.validate(CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), params);
            return null;
        } catch (CertPathValidatorException e) {
            if (e.getReason() == CertPathValidatorException.BasicReason.REVOKED) {
                return "revoked";
            }
            if (e.getReason() == CertPathValidatorException.BasicReason.EXPIRED
                    || e.getReason() == PKIXReason.NO_TRUST_ANCHOR) {
                return "the certificate itself does not check: " + e.getMessage();
            }
            return e.getMessage();
        } catch (GeneralSecurityException e) {
            return e.toString();
        } catch (RuntimeException e) {
            // The JDK's parser lets some malformed answers out as IllegalArgumentException (a bad responder name).
            return "not a valid OCSP answer: " + e;
        }
    }
}
