package dev.strait.proxy.testing;

import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A test CA and the server certificates it issues, as PEM text or files, made with BouncyCastle. */
public final class TestCertificates {
    public enum KeyType { RSA, EC }

    /** A certificate and its key as PEM; {@code keyPem} in the encoding asked for. */
    public record Issued(X509Certificate certificate, PrivateKey key, String certPem, String keyPem) {
        /** Writes {@code name.crt} and {@code name.key} into {@code dir}; returns the two paths. */
        public Path[] write(Path dir, String name) throws Exception {
            Path c = dir.resolve(name + ".crt");
            Path k = dir.resolve(name + ".key");
            Files.writeString(c, certPem);
            Files.writeString(k, keyPem);
            return new Path[] {c, k};
        }

        /** {@code { cert: "PEM", key: "PEM" }}: this pair inline, as one entry of a listener's {@code tls.certificates}. */
        public String configEntry() {
            return "{ cert: " + quoted(certPem) + ", key: " + quoted(keyPem) + " }";
        }

        /** The same pair with the certificate alone, without the CAs that issued it. */
        public Issued withoutChain() {
            return new Issued(certificate, key, pem(certificate), keyPem);
        }

        private static String quoted(String pem) {
            return "\"" + pem.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
        }
    }

    private final KeyPair caKeys;
    private final X509Certificate ca;
    /** The certificates above {@link #ca} as PEM, for an intermediate CA; empty for a root. */
    private final String above;

    private TestCertificates(KeyPair caKeys, X509Certificate ca, String above) {
        this.caKeys = caKeys;
        this.ca = ca;
        this.above = above;
    }

    /** An intermediate CA that this one issued: what it issues carries the chain up to this CA. */
    public TestCertificates intermediate(String name) throws Exception {
        return intermediate(name, null);
    }

    /** As {@link #intermediate(String)}, its Authority Information Access naming {@code ocspResponder} (null: none). */
    public TestCertificates intermediate(String name, String ocspResponder) throws Exception {
        KeyPair keys = keyPair(KeyType.EC);
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca, serial(),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(2))),
                new X500Name("CN=" + name), keys.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        if (ocspResponder != null) {
            b.addExtension(Extension.authorityInfoAccess, false, new org.bouncycastle.asn1.x509.AuthorityInformationAccess(
                    org.bouncycastle.asn1.x509.AccessDescription.id_ad_ocsp,
                    new GeneralName(GeneralName.uniformResourceIdentifier, ocspResponder)));
        }
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(b.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
        return new TestCertificates(keys, cert, pem(ca) + above);
    }

    public TestCertificates() throws Exception {
        this("strait test CA");
    }

    /** A CA of its own key, named {@code CN=caName}. */
    public TestCertificates(String caName) throws Exception {
        caKeys = keyPair(KeyType.EC);
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(new X500Name("CN=" + caName),
                serial(), Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(2))),
                new X500Name("CN=" + caName), caKeys.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        ca = new JcaX509CertificateConverter().getCertificate(b.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
        above = "";
    }

    public X509Certificate ca() {
        return ca;
    }

    /** The CA's private key, PKCS#8 PEM (for openssl's tools). */
    public String caKeyPem() {
        try {
            return pem(new JcaPKCS8Generator(caKeys.getPrivate(), null));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The CA's key pair: what signs its OCSP answers in {@link TestOcspResponder}. */
    public KeyPair caKeys() {
        return caKeys;
    }

    /**
     * A server certificate (EC) whose Authority Information Access names {@code ocspResponder} as its OCSP responder
     * (null: none), and a CA issuers URL too, as public CAs write it.
     */
    public Issued issueWithOcsp(String ocspResponder, String cn, String... sans) throws Exception {
        Instant now = Instant.now();
        return issue(KeyType.EC, false, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)), ocspResponder,
                null, false, cn, sans);
    }

    /** As {@link #issueWithOcsp}, "must-staple": its TLS feature extension (RFC 7633) lists status_request. */
    public Issued issueMustStaple(String ocspResponder, String cn, String... sans) throws Exception {
        Instant now = Instant.now();
        return issue(KeyType.EC, false, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)), ocspResponder,
                null, true, cn, sans);
    }

    /**
     * A certificate for an OCSP responder this CA delegates to: with the {@code id-kp-OCSPSigning} extended key usage
     * when {@code signing}, as RFC 6960 4.2.2.2 requires of one.
     */
    public Issued ocspResponderCertificate(boolean signing) throws Exception {
        Instant now = Instant.now();
        return issue(KeyType.EC, false, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)), null,
                signing ? org.bouncycastle.asn1.x509.KeyPurposeId.id_kp_OCSPSigning
                        : org.bouncycastle.asn1.x509.KeyPurposeId.id_kp_serverAuth, false, "ocsp responder");
    }

    public String caPem() {
        return pem(ca);
    }

    /** A server certificate with these DNS names as SANs (none: the first is only the CN). */
    public Issued issue(KeyType type, String cn, String... sans) throws Exception {
        return issue(type, false, cn, sans);
    }

    /**
     * @param traditional the key in its algorithm's own PEM form (PKCS#1 {@code RSA PRIVATE KEY}, SEC1
     *                    {@code EC PRIVATE KEY}) instead of PKCS#8
     */
    public Issued issue(KeyType type, boolean traditional, String cn, String... sans) throws Exception {
        Instant now = Instant.now();
        return issue(type, traditional, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)), cn, sans);
    }

    /** A certificate valid from {@code notBefore} to {@code notAfter}: expired or not yet valid ones too. */
    public Issued issue(KeyType type, boolean traditional, Instant notBefore, Instant notAfter, String cn,
                        String... sans) throws Exception {
        return issue(type, traditional, notBefore, notAfter, null, null, false, cn, sans);
    }

    private Issued issue(KeyType type, boolean traditional, Instant notBefore, Instant notAfter, String ocspResponder,
                         org.bouncycastle.asn1.x509.KeyPurposeId purpose, boolean mustStaple, String cn, String... sans)
            throws Exception {
        KeyPair kp = keyPair(type);
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca, serial(),
                Date.from(notBefore), Date.from(notAfter),
                new X500Name("CN=" + cn), kp.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        if (ocspResponder != null) {
            b.addExtension(Extension.authorityInfoAccess, false, new org.bouncycastle.asn1.x509.AuthorityInformationAccess(
                    new org.bouncycastle.asn1.x509.AccessDescription[] {
                        new org.bouncycastle.asn1.x509.AccessDescription(
                                org.bouncycastle.asn1.x509.AccessDescription.id_ad_caIssuers,
                                new GeneralName(GeneralName.uniformResourceIdentifier, "http://127.0.0.1:9/ca.crt")),
                        new org.bouncycastle.asn1.x509.AccessDescription(
                                org.bouncycastle.asn1.x509.AccessDescription.id_ad_ocsp,
                                new GeneralName(GeneralName.uniformResourceIdentifier, ocspResponder))}));
        }
        if (mustStaple) {
            b.addExtension(new org.bouncycastle.asn1.ASN1ObjectIdentifier("1.3.6.1.5.5.7.1.24"), false, new org.bouncycastle.asn1.DERSequence(
                    new org.bouncycastle.asn1.ASN1Integer(5)));
        }
        if (purpose != null) {
            b.addExtension(Extension.extendedKeyUsage, false, new org.bouncycastle.asn1.x509.ExtendedKeyUsage(purpose));
        }
        if (sans.length > 0) {
            List<GeneralName> names = new ArrayList<>();
            for (String n : sans) {
                // a URI (a SPIFFE id, say) where it has a scheme, else a DNS name
                names.add(new GeneralName(n.contains("://") ? GeneralName.uniformResourceIdentifier : GeneralName.dNSName, n));
            }
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
        }
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(b.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
        String keyPem = !traditional ? pem(new JcaPKCS8Generator(kp.getPrivate(), null))
                : type == KeyType.RSA ? pem(kp)
                // SEC1 as OpenSSL writes it, with the named curve: BouncyCastle's own form leaves it out.
                : pem(new org.bouncycastle.util.io.pem.PemObject("EC PRIVATE KEY", new org.bouncycastle.asn1.sec.ECPrivateKey(
                        256, ((java.security.interfaces.ECPrivateKey) kp.getPrivate()).getS(),
                        new org.bouncycastle.asn1.x9.X962Parameters(org.bouncycastle.asn1.sec.SECObjectIdentifiers.secp256r1))
                        .getEncoded()));
        return new Issued(cert, kp.getPrivate(), pem(cert) + pem(ca) + above, keyPem);
    }

    /** A revocation list of this CA (PEM) naming {@code revoked}, current for a day. */
    public String crlPem(BigInteger... revoked) throws Exception {
        Instant now = Instant.now();
        org.bouncycastle.cert.X509v2CRLBuilder b = new org.bouncycastle.cert.X509v2CRLBuilder(
                new X500Name(ca.getSubjectX500Principal().getName()), Date.from(now.minus(Duration.ofHours(1))));
        b.setNextUpdate(Date.from(now.plus(Duration.ofDays(1))));
        for (BigInteger serial : revoked) {
            b.addCRLEntry(serial, Date.from(now.minus(Duration.ofMinutes(5))), org.bouncycastle.asn1.x509.CRLReason.keyCompromise);
        }
        return pem(new org.bouncycastle.cert.jcajce.JcaX509CRLConverter().getCRL(b.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate()))));
    }

    /** A client context that trusts only this CA. */
    public SSLContext clientContext() throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, tmf.getTrustManagers(), new SecureRandom());
        return c;
    }

    /** Writes the CA certificate to a file (for curl's --cacert). */
    public Path writeCa(Path dir) throws Exception {
        Path p = dir.resolve("ca.crt");
        Files.writeString(p, caPem());
        return p;
    }

    private static KeyPair keyPair(KeyType type) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance(type.name());
        if (type == KeyType.EC) {
            g.initialize(new ECGenParameterSpec("secp256r1"));
        } else {
            g.initialize(2048);
        }
        return g.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(64, new SecureRandom());
    }

    private static String pem(Object o) {
        StringWriter sw = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(sw)) {
            w.writeObject(o);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return sw.toString();
    }
}
