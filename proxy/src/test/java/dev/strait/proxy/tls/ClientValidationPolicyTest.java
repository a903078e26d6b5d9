package dev.strait.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The verdict on chains the socket tests' certificates cannot make: intermediates, depth, key usage. */
class ClientValidationPolicyTest {
    static KeyPair rootKeys;
    static X509Certificate root;
    static KeyPair interKeys;
    static X509Certificate inter;
    static X509Certificate viaInter;
    static X509Certificate serverOnly;
    static X509Certificate forClients;

    @BeforeAll
    static void chain() throws Exception {
        rootKeys = keys();
        root = cert("CN=root", rootKeys.getPublic(), "CN=root", rootKeys.getPrivate(), true, null);
        interKeys = keys();
        inter = cert("CN=intermediate", interKeys.getPublic(), "CN=root", rootKeys.getPrivate(), true, null);
        viaInter = cert("CN=alice", keys().getPublic(), "CN=intermediate", interKeys.getPrivate(), false, null);
        serverOnly = cert("CN=web", keys().getPublic(), "CN=root", rootKeys.getPrivate(), false,
                KeyPurposeId.id_kp_serverAuth);
        // Encoded as certificates usually are, most significant first: RFC 2253 writes it last.
        forClients = cert("O=Example, CN=bob", keys().getPublic(), "CN=root", rootKeys.getPrivate(), false,
                KeyPurposeId.id_kp_clientAuth);
    }

    private static ClientValidationPolicy policy(int depth) {
        return new ClientValidationPolicy(new Config.ClientValidation(List.of("*"), "-", Config.ClientValidationMode.REQUIRE,
                depth, null, false), List.of(root));
    }

    @Test
    void depthCountsTheCertificatesBetweenTheClientsAndTheCa() {
        Certificate[] sent = {viaInter, inter};
        assertThat(policy(1).judge(sent).verify()).isEqualTo("FAILED:certificate chain too long");
        assertThat(policy(2).judge(sent).verify()).isEqualTo("SUCCESS");
        // The root sent along is the anchor, not one more step.
        assertThat(policy(2).judge(new Certificate[] {viaInter, inter, root}).verify()).isEqualTo("SUCCESS");
        // Without its intermediate the chain does not reach the CA.
        assertThat(policy(2).judge(new Certificate[] {viaInter}).verify())
                .isEqualTo("FAILED:unable to get local issuer certificate");
    }

    @Test
    void aCertificateForServersOnlyIsNotAClientsAndNamesAreRfc2253() {
        assertThat(policy(1).judge(new Certificate[] {serverOnly}).verify()).isEqualTo("FAILED:unsupported certificate purpose");
        ClientCertificate bob = policy(1).judge(new Certificate[] {forClients});
        assertThat(bob.verify()).isEqualTo("SUCCESS");
        assertThat(bob.subjectDn()).isEqualTo("CN=bob,O=Example");
        assertThat(bob.issuerDn()).isEqualTo("CN=root");
        assertThat(policy(1).judge(new Certificate[0])).isEqualTo(ClientCertificate.NONE);
    }

    /** nginx's ssl_crl: a listed certificate is refused, and with a list for one CA only, the others are unknown. */
    @Test
    void revocationListsRefuseWhatTheyListAndWhatTheyCannotSpeakFor() throws Exception {
        java.security.cert.X509CRL listsBob = crl(root, rootKeys.getPrivate(), forClients.getSerialNumber(), 1);
        ClientValidationPolicy checked = new ClientValidationPolicy(new Config.ClientValidation(List.of("*"), "-",
                Config.ClientValidationMode.REQUIRE, 2, null, false, "-"), List.of(root), List.of(listsBob));
        assertThat(checked.judge(new Certificate[] {forClients}).verify()).isEqualTo("FAILED:certificate revoked");
        assertThat(checked.judge(new Certificate[] {serverOnly}).verify())
                .as("key usage is checked first").isEqualTo("FAILED:unsupported certificate purpose");
        // alice's intermediate has no list of its own here: what it issued cannot be known not to be revoked.
        assertThat(checked.judge(new Certificate[] {viaInter, inter}).verify())
                .isEqualTo("FAILED:unable to get certificate CRL");
        java.security.cert.X509CRL stale = crl(root, rootKeys.getPrivate(), BigInteger.TEN, -1);
        ClientValidationPolicy expired = new ClientValidationPolicy(new Config.ClientValidation(List.of("*"), "-",
                Config.ClientValidationMode.REQUIRE, 1, null, false, "-"), List.of(root), List.of(stale));
        assertThat(expired.judge(new Certificate[] {forClients}).verify()).isEqualTo("FAILED:CRL has expired");
        // A new list is a new policy, for verdicts; what the handshake asks for is the same.
        assertThat(checked.key()).isNotEqualTo(expired.key());
        assertThat(checked.askKey()).isEqualTo(expired.askKey()).isEqualTo(policy(1).askKey());
    }

    private static java.security.cert.X509CRL crl(X509Certificate ca, PrivateKey key, BigInteger revoked, int days)
            throws Exception {
        Instant now = Instant.now();
        org.bouncycastle.cert.X509v2CRLBuilder b = new org.bouncycastle.cert.X509v2CRLBuilder(
                new X500Name(ca.getSubjectX500Principal().getName()), Date.from(now.minus(Duration.ofDays(2))));
        b.setNextUpdate(Date.from(now.plus(Duration.ofDays(days))));
        b.addCRLEntry(revoked, Date.from(now.minus(Duration.ofHours(1))), org.bouncycastle.asn1.x509.CRLReason.keyCompromise);
        return new org.bouncycastle.cert.jcajce.JcaX509CRLConverter().getCRL(b.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    }

    @Test
    void theKeyIsThePolicyNotItsHosts() {
        ClientValidationPolicy a = policy(1);
        ClientValidationPolicy b = new ClientValidationPolicy(new Config.ClientValidation(List.of("other.test"), "-",
                Config.ClientValidationMode.REQUIRE, 1, null, false), List.of(root));
        assertThat(a.key()).isEqualTo(b.key()).isNotEqualTo(policy(2).key());
    }

    private static KeyPair keys() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static X509Certificate cert(String subject, PublicKey key, String issuer, PrivateKey signer, boolean ca,
                                        KeyPurposeId usage) throws Exception {
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(new X500Name(issuer),
                new BigInteger(64, new SecureRandom()), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(1))), new X500Name(subject), key);
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
        if (usage != null) {
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(usage));
        }
        return new JcaX509CertificateConverter().getCertificate(b.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
    }

    /** Envoy's x-forwarded-client-cert element: the certificate's hash, its subject, and its URI and DNS names. */
    @Test
    void theForwardedClientCertElementNamesTheCertificateAsEnvoyDoes() throws Exception {
        dev.strait.proxy.testing.TestCertificates pki = new dev.strait.proxy.testing.TestCertificates();
        X509Certificate web = pki.issue(dev.strait.proxy.testing.TestCertificates.KeyType.EC, "web",
                "spiffe://cluster.local/ns/shop/sa/web", "web.shop.svc").certificate();
        String hash = java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(web.getEncoded()));
        assertThat(ClientValidationPolicy.forwardedClientCert(web, "CN=web", null)).isEqualTo("Hash=" + hash
                + ";Subject=\"CN=web\";URI=spiffe://cluster.local/ns/shop/sa/web;DNS=web.shop.svc");
        // Quotes where the subject holds them; the escaped PEM when it is forwarded.
        assertThat(ClientValidationPolicy.forwardedClientCert(web, "CN=a\\,b,O=\"x\"", "PEM%0A"))
                .isEqualTo("Hash=" + hash + ";Cert=\"PEM%0A\";Subject=\"CN=a\\\\,b,O=\\\"x\\\"\""
                        + ";URI=spiffe://cluster.local/ns/shop/sa/web;DNS=web.shop.svc");
    }
}
