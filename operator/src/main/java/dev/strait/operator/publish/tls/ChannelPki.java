package dev.strait.operator.publish.tls;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;

/**
 * The control channel's certificates, made with BouncyCastle: a CA (P-256, kept in a Secret by
 * {@link CaStore}) and, signed by it, the operator's serving certificate and proxies' client
 * certificates. Short-lived leaves are cheap to remake at every start; the CA is what proxies trust.
 */
public final class ChannelPki {
    private static final SecureRandom RANDOM = new SecureRandom();

    private ChannelPki() {}

    /** A certificate and its key. */
    public record Issued(X509Certificate certificate, PrivateKey key) {
        public String certificatePem() {
            return pem(certificate);
        }

        /** PKCS#8 ("PRIVATE KEY"), which the JDK and Netty read without BouncyCastle. */
        public String keyPem() {
            try {
                return pem(new JcaPKCS8Generator(key, null).generate());
            } catch (org.bouncycastle.util.io.pem.PemGenerationException e) {
                throw new IllegalStateException(e);
            }
        }

        public Instant notAfter() {
            return certificate.getNotAfter().toInstant();
        }
    }

    public static Issued newCa(String commonName, Instant now, Duration validity) {
        KeyPair kp = keyPair();
        X500Name name = new X500Name("CN=" + commonName);
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(validity)), name, kp.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
            return new Issued(sign(b, kp.getPrivate()), kp.getPrivate());
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot make the channel CA", e);
        }
    }

    /** The operator's serving certificate: DNS names and IP addresses as subject alternative names. */
    public static Issued serverCertificate(Issued ca, List<String> names, Instant now, Duration validity) {
        return leaf(ca, names.isEmpty() ? "strait-operator" : names.get(0), names, KeyPurposeId.id_kp_serverAuth,
                now, validity);
    }

    /** A proxy's client certificate; its common name is its identity (see the channel docs). */
    public static Issued clientCertificate(Issued ca, String commonName, Instant now, Duration validity) {
        return leaf(ca, commonName, List.of(), KeyPurposeId.id_kp_clientAuth, now, validity);
    }

    private static Issued leaf(Issued ca, String cn, List<String> names, KeyPurposeId purpose, Instant now,
                               Duration validity) {
        KeyPair kp = keyPair();
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca.certificate(), serial(),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(validity)),
                    new X500Name("CN=" + cn), kp.getPublic());
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
            b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca.certificate()));
            if (!names.isEmpty()) {
                List<GeneralName> sans = new ArrayList<>();
                for (String n : names) {
                    boolean ip = n.matches("[0-9.]+") || n.contains(":");
                    sans.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, n));
                }
                b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans.toArray(GeneralName[]::new)));
            }
            return new Issued(sign(b, ca.key()), kp.getPrivate());
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot issue a channel certificate", e);
        }
    }

    /** Reads a certificate and key written by {@link Issued#certificatePem()} and {@link Issued#keyPem()}. */
    public static Issued read(String certificatePem, String keyPem) throws IOException {
        try (PEMParser certs = new PEMParser(new StringReader(certificatePem));
             PEMParser keys = new PEMParser(new StringReader(keyPem))) {
            X509CertificateHolder holder = (X509CertificateHolder) certs.readObject();
            Object k = keys.readObject();
            JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
            PrivateKey key = k instanceof PEMKeyPair kp ? conv.getKeyPair(kp).getPrivate()
                    : conv.getPrivateKey((PrivateKeyInfo) k);
            return new Issued(new JcaX509CertificateConverter().getCertificate(holder), key);
        } catch (java.security.cert.CertificateException | ClassCastException e) {
            throw new IOException("not a PEM certificate and key: " + e.getMessage(), e);
        }
    }

    static String pem(Object o) {
        StringWriter sw = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(sw)) {
            w.writeObject(o);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return sw.toString();
    }

    private static X509Certificate sign(JcaX509v3CertificateBuilder b, PrivateKey key) throws GeneralSecurityException {
        try {
            ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(key);
            return new JcaX509CertificateConverter().getCertificate(b.build(signer));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }

    private static KeyPair keyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static BigInteger serial() {
        return new BigInteger(127, RANDOM);
    }
}
