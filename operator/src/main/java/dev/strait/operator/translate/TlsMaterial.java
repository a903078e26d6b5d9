package dev.strait.operator.translate;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Checks a TLS Secret's PEM before it goes into a snapshot: a proxy refuses a snapshot whose
 * certificate or key it cannot load, and that would hold back every other route's change too. So a
 * bad Secret is caught here and reported on its Route, which alone is left out. The same key formats
 * as the proxy: PKCS#8, PKCS#1 ({@code RSA PRIVATE KEY}) and SEC1 ({@code EC PRIVATE KEY}).
 */
final class TlsMaterial {
    private TlsMaterial() {}

    /** Null when a CA bundle holds at least one certificate and nothing but certificates, else what is wrong. */
    static String caProblem(String caPem) {
        try {
            Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII)));
            return certs.isEmpty() ? "holds no certificate in ca.crt" : null;
        } catch (GeneralSecurityException | RuntimeException e) {
            return "holds no PEM certificate in ca.crt (" + e.getMessage() + ")";
        }
    }

    /** Null when {@code crlPem} holds revocation lists, each signed by a CA of {@code caPem}, else what is wrong. */
    static String crlProblem(String crlPem, String caPem) {
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            Collection<? extends java.security.cert.CRL> crls = cf.generateCRLs(
                    new ByteArrayInputStream(crlPem.getBytes(StandardCharsets.US_ASCII)));
            if (crls.isEmpty()) {
                return "holds no revocation list in ca.crl";
            }
            Collection<? extends Certificate> cas = cf.generateCertificates(
                    new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII)));
            for (java.security.cert.CRL c : crls) {
                java.security.cert.X509CRL crl = (java.security.cert.X509CRL) c;
                boolean signed = false;
                for (Certificate ca : cas) {
                    X509Certificate x = (X509Certificate) ca;
                    if (x.getSubjectX500Principal().equals(crl.getIssuerX500Principal())) {
                        try {
                            crl.verify(x.getPublicKey());
                            signed = true;
                        } catch (GeneralSecurityException e) {
                            // another CA of that name may have signed it
                        }
                    }
                }
                if (!signed) {
                    return "holds in ca.crl a revocation list of " + crl.getIssuerX500Principal().getName()
                            + " that no CA of ca.crt signed";
                }
            }
            return null;
        } catch (GeneralSecurityException | RuntimeException e) {
            return "holds no PEM revocation list in ca.crl (" + e.getMessage() + ")";
        }
    }

    /** Null when the certificate chain and key load and belong together, else what is wrong. */
    static String problem(String certPem, String keyPem) {
        X509Certificate leaf;
        try {
            Collection<? extends Certificate> chain = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(certPem.getBytes(StandardCharsets.US_ASCII)));
            if (chain.isEmpty()) {
                return "tls.crt holds no certificate";
            }
            leaf = (X509Certificate) chain.iterator().next();
        } catch (GeneralSecurityException | RuntimeException e) {
            return "tls.crt is not a PEM certificate (" + e.getMessage() + ")";
        }
        PrivateKey key;
        try (PEMParser p = new PEMParser(new StringReader(keyPem))) {
            Object o = p.readObject();
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (o instanceof PEMKeyPair kp) {
                key = converter.getKeyPair(kp).getPrivate();
            } else if (o instanceof PrivateKeyInfo info) {
                key = converter.getPrivateKey(info);
            } else {
                return "tls.key holds no unencrypted private key";
            }
        } catch (IOException | RuntimeException e) {
            return "tls.key is not a PEM private key (" + e.getMessage() + ")";
        }
        try {
            String alg = switch (key.getAlgorithm()) {
                case "RSA" -> "SHA256withRSA";
                case "EC", "ECDSA" -> "SHA256withECDSA";
                case "Ed25519", "EdDSA" -> "Ed25519";
                default -> null;
            };
            if (alg == null) {
                return "tls.key is a " + key.getAlgorithm() + " key; RSA, ECDSA and Ed25519 are supported";
            }
            byte[] probe = "strait".getBytes(StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(alg);
            sign.initSign(key);
            sign.update(probe);
            byte[] sig = sign.sign();
            Signature verify = Signature.getInstance(alg);
            verify.initVerify(leaf.getPublicKey());
            verify.update(probe);
            return verify.verify(sig) ? null : "tls.key does not match the certificate in tls.crt";
        } catch (GeneralSecurityException | RuntimeException e) {
            return "tls.key does not match the certificate in tls.crt (" + e.getMessage() + ")";
        }
    }
}
