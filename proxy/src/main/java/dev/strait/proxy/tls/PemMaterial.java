package dev.strait.proxy.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a certificate chain and its private key. A {@code cert} or {@code key} value that contains
 * {@code -----BEGIN } is PEM text (what the operator sends from a Secret), anything else a file path
 * (a config file). Keys may be PKCS#8 ({@code PRIVATE KEY}), PKCS#1 ({@code RSA PRIVATE KEY}, what
 * cert-manager writes by default) or SEC1 ({@code EC PRIVATE KEY}); the last two are rewrapped as
 * PKCS#8 here, so no BouncyCastle is needed at run time.
 */
final class PemMaterial {
    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----");
    private static final byte[] RSA_ALGORITHM = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86,
            (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};
    /** A PKCS#8 PrivateKeyInfo's version, 0. */
    private static final byte[] VERSION_0 = {0x02, 0x01, 0x00};
    private static final byte[] EC_PUBLIC_KEY_OID = {0x06, 0x07, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};

    private PemMaterial() {}

    /** A problem with one field, said in words fit for a config error. */
    static final class Invalid extends Exception {
        final String field;

        Invalid(String field, String message) {
            super(message);
            this.field = field;
        }
    }

    static boolean isInline(String value) {
        return value.contains("-----BEGIN ");
    }

    /** The PEM text of a value: itself when inline, else the file's content. */
    static String text(String value, String field) throws Invalid {
        if (isInline(value)) {
            return value;
        }
        try {
            return Files.readString(Path.of(value), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            throw new Invalid(field, "file " + value + " does not exist");
        } catch (IOException | RuntimeException e) {
            throw new Invalid(field, "cannot read " + value + ": " + e.getMessage());
        }
    }

    static List<X509Certificate> certificates(String pem, String field) throws Invalid {
        List<X509Certificate> chain = new ArrayList<>();
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            Matcher m = BLOCK.matcher(pem);
            while (m.find()) {
                if (m.group(1).equals("CERTIFICATE")) {
                    byte[] der = decode(m.group(2), field);
                    chain.add((X509Certificate) cf.generateCertificate(new ByteArrayInputStream(der)));
                }
            }
        } catch (CertificateException e) {
            throw new Invalid(field, "not a valid X.509 certificate: " + e.getMessage());
        }
        if (chain.isEmpty()) {
            throw new Invalid(field, "no PEM CERTIFICATE block found");
        }
        return chain;
    }

    /** The {@code X509 CRL} blocks of a PEM text (at least one). */
    static List<java.security.cert.X509CRL> crls(String pem, String field) throws Invalid {
        List<java.security.cert.X509CRL> out = new ArrayList<>();
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            Matcher m = BLOCK.matcher(pem);
            while (m.find()) {
                if (m.group(1).equals("X509 CRL")) {
                    out.add((java.security.cert.X509CRL) cf.generateCRL(new ByteArrayInputStream(decode(m.group(2), field))));
                }
            }
        } catch (CertificateException | java.security.cert.CRLException e) {
            throw new Invalid(field, "not a valid X.509 CRL: " + e.getMessage());
        }
        if (out.isEmpty()) {
            throw new Invalid(field, "no PEM X509 CRL block found");
        }
        return out;
    }

    static PrivateKey privateKey(String pem, String field) throws Invalid {
        Matcher m = BLOCK.matcher(pem);
        while (m.find()) {
            String type = m.group(1);
            switch (type) {
                case "PRIVATE KEY" -> {
                    return pkcs8(decode(m.group(2), field), field);
                }
                case "RSA PRIVATE KEY" -> {
                    if (m.group(2).contains("ENCRYPTED")) {
                        throw new Invalid(field, "encrypted private keys are not supported");
                    }
                    byte[] pkcs1 = decode(m.group(2), field);
                    return pkcs8(Der.sequence(VERSION_0, RSA_ALGORITHM, Der.element(Der.OCTET_STRING, pkcs1)), field);
                }
                case "EC PRIVATE KEY" -> {
                    byte[] sec1 = decode(m.group(2), field);
                    byte[] curve = sec1Curve(sec1, field);
                    return pkcs8(Der.sequence(VERSION_0, Der.sequence(EC_PUBLIC_KEY_OID, curve),
                            Der.element(Der.OCTET_STRING, sec1)), field);
                }
                case "ENCRYPTED PRIVATE KEY" -> throw new Invalid(field, "encrypted private keys are not supported");
                default -> { } // EC PARAMETERS and the like: skip
            }
        }
        throw new Invalid(field, "no PEM private key block found (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)");
    }

    /** Fails unless {@code key} belongs to the chain's first certificate: a mixed-up pair fails every handshake. */
    static void checkPair(X509Certificate leaf, PrivateKey key, String field) throws Invalid {
        String alg = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> throw new Invalid(field, "key type " + key.getAlgorithm() + " is not supported (RSA or ECDSA)");
        };
        try {
            byte[] probe = "strait key check".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(alg);
            s.initSign(key);
            s.update(probe);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(alg);
            v.initVerify(leaf.getPublicKey());
            v.update(probe);
            if (!v.verify(sig)) {
                throw new Invalid(field, "does not match the certificate (its public key is another one)");
            }
        } catch (GeneralSecurityException e) {
            throw new Invalid(field, "does not match the certificate: " + e.getMessage());
        }
    }

    private static PrivateKey pkcs8(byte[] der, String field) throws Invalid {
        for (String alg : new String[] {"RSA", "EC"}) {
            try {
                return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new Invalid(field, "not a valid RSA or EC private key");
    }

    private static byte[] decode(String base64, String field) throws Invalid {
        try {
            return Base64.getMimeDecoder().decode(base64.strip());
        } catch (IllegalArgumentException e) {
            throw new Invalid(field, "bad base64 in PEM block: " + e.getMessage());
        }
    }

    /** The named-curve OID TLV from a SEC1 ECPrivateKey's [0] parameters (RFC 5915 3). */
    private static byte[] sec1Curve(byte[] der, String field) throws Invalid {
        try {
            Der.Reader key = new Der.Reader(der).next("ECPrivateKey").expect(Der.SEQUENCE, "ECPrivateKey").children();
            key.next("version");
            key.next("privateKey");
            if (key.peekTag() == 0xa0) {
                return key.next("parameters").children().next("namedCurve").expect(Der.OID, "namedCurve").encoded();
            }
        } catch (Der.Malformed e) {
            // fall through
        }
        throw new Invalid(field, "EC private key without a named curve");
    }
}
