package dev.strait.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestCertificates.KeyType;
import java.io.StringWriter;
import java.security.interfaces.ECPrivateKey;
import java.util.Base64;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;
import org.junit.jupiter.api.Test;

/** Private keys in each PEM form a Secret or a file may hold, and the SEC1 keys that cannot be used, by message. */
class PemMaterialTest {
    @Test
    void pkcs1AndSec1KeysAreTheCertificatesOwn() throws Exception {
        TestCertificates pki = new TestCertificates();
        for (KeyType type : KeyType.values()) {
            Issued traditional = pki.issue(type, true, "k.test");
            assertThat(traditional.keyPem()).contains(type == KeyType.RSA ? "RSA PRIVATE KEY" : "EC PRIVATE KEY");
            // It signs what the certificate's public key verifies (throws otherwise).
            PemMaterial.checkPair(traditional.certificate(), PemMaterial.privateKey(traditional.keyPem(), "key"), "key");
            Issued other = pki.issue(type, true, "other.test");
            assertThatThrownBy(() -> PemMaterial.checkPair(traditional.certificate(),
                    PemMaterial.privateKey(other.keyPem(), "key"), "key")).isInstanceOf(PemMaterial.Invalid.class);
        }
    }

    /** BouncyCastle's own SEC1 form leaves the curve out (OpenSSL's names it): nothing says which curve the key is on. */
    @Test
    void aSec1KeyWithoutItsCurveIsRefusedSayingSo() throws Exception {
        Issued ec = new TestCertificates().issue(KeyType.EC, "k.test");
        byte[] noCurve = new org.bouncycastle.asn1.sec.ECPrivateKey(256, ((ECPrivateKey) ec.key()).getS()).getEncoded();
        assertThatThrownBy(() -> PemMaterial.privateKey(pem("EC PRIVATE KEY", noCurve), "listeners[0].tls.certificates[0].key"))
                .isInstanceOf(PemMaterial.Invalid.class).hasMessage("EC private key without a named curve")
                .extracting(e -> ((PemMaterial.Invalid) e).field).isEqualTo("listeners[0].tls.certificates[0].key");
        // Cut short anywhere, it is refused with a message too, never an exception of another kind.
        for (int n = 0; n < noCurve.length; n++) {
            String cut = pem("EC PRIVATE KEY", java.util.Arrays.copyOf(noCurve, n));
            assertThatThrownBy(() -> PemMaterial.privateKey(cut, "key")).isInstanceOf(PemMaterial.Invalid.class);
        }
        String garbage = "-----BEGIN EC PRIVATE KEY-----\n" + Base64.getEncoder().encodeToString(new byte[] {0x30, 0x7f})
                + "\n-----END EC PRIVATE KEY-----\n";
        assertThatThrownBy(() -> PemMaterial.privateKey(garbage, "key")).isInstanceOf(PemMaterial.Invalid.class);
    }

    private static String pem(String type, byte[] der) throws Exception {
        StringWriter out = new StringWriter();
        try (PemWriter w = new PemWriter(out)) {
            w.writeObject(new PemObject(type, der));
        }
        return out.toString();
    }
}
