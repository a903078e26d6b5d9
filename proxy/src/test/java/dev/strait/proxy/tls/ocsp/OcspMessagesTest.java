package dev.strait.proxy.tls.ocsp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestOcspResponder;
import dev.strait.proxy.testing.TestOcspResponder.Answer;
import dev.strait.proxy.tls.Der;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Random;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cert.ocsp.CertificateID;
import org.bouncycastle.cert.ocsp.OCSPReq;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OCSP messages against BouncyCastle's: the request Strait writes is one BouncyCastle reads as asking about the
 * right certificate, and the answers BouncyCastle's responder signs are read and judged as RFC 6960 says.
 */
class OcspMessagesTest {
    static TestCertificates pki;
    static TestOcspResponder responder;
    static Issued site;

    @BeforeAll
    static void setUp() throws Exception {
        pki = new TestCertificates();
        responder = new TestOcspResponder(pki);
        site = pki.issueWithOcsp(responder.uri(), "site.test", "site.test");
    }

    @AfterAll
    static void tearDown() {
        responder.close();
    }

    private static OCSPReq request() throws Exception {
        return new OCSPReq(OcspMessages.request(site.certificate(), pki.ca()));
    }

    private static byte[] answer(Answer a) throws Exception {
        return responder.answer(request(), a);
    }

    @Test
    void theRequestNamesTheCertificateAsBouncyCastleWould() throws Exception {
        OCSPReq req = request();
        assertThat(req.getRequestList()).hasSize(1);
        CertificateID want = new CertificateID(new JcaDigestCalculatorProviderBuilder().build().get(CertificateID.HASH_SHA1),
                new JcaX509CertificateHolder(pki.ca()), site.certificate().getSerialNumber());
        assertThat(req.getRequestList()[0].getCertID()).isEqualTo(want);
        assertThat(req.hasExtensions()).as("no nonce: one answer serves every handshake").isFalse();
    }

    @Test
    void theResponderIsTheOcspEntryOfAuthorityInformationAccess() throws Exception {
        assertThat(OcspMessages.responder(site.certificate())).isEqualTo(URI.create(responder.uri()));
        assertThat(OcspMessages.responder(pki.issue(TestCertificates.KeyType.EC, "plain.test").certificate())).isNull();
        assertThat(OcspMessages.responder(pki.issueWithOcsp("ldap://ocsp.example/", "ldap.test").certificate()))
                .as("only http(s)").isNull();
    }

    @Test
    void aGoodAnswerIsReadAndVerified() throws Exception {
        byte[] good = answer(Answer.GOOD);
        OcspMessages.Answer a = OcspMessages.read(good, site.certificate());
        assertThat(a.status()).isEqualTo(OcspMessages.Status.GOOD);
        assertThat(Duration.between(a.thisUpdate(), a.nextUpdate())).isEqualTo(Duration.ofDays(1));
        assertThat(a.thisUpdate()).isBefore(Instant.now());
        assertThat(OcspMessages.verify(good, site.certificate(), pki.ca(), Instant.now())).isNull();
        // A responder the CA delegated to, with id-kp-OCSPSigning, may sign it too (RFC 6960 4.2.2.2).
        assertThat(OcspMessages.verify(answer(Answer.DELEGATED), site.certificate(), pki.ca(), Instant.now())).isNull();
    }

    @Test
    void answersNotToBeStapledAreToldApart() throws Exception {
        Instant now = Instant.now();
        assertThat(OcspMessages.read(answer(Answer.REVOKED), site.certificate()).status())
                .isEqualTo(OcspMessages.Status.REVOKED);
        assertThat(OcspMessages.verify(answer(Answer.REVOKED), site.certificate(), pki.ca(), now)).isEqualTo("revoked");
        assertThat(OcspMessages.read(answer(Answer.UNKNOWN), site.certificate()).status())
                .isEqualTo(OcspMessages.Status.UNKNOWN);
        assertThat(OcspMessages.verify(answer(Answer.WRONG_SIGNER), site.certificate(), pki.ca(), now)).isNotNull();
        assertThat(OcspMessages.verify(answer(Answer.DELEGATED_WITHOUT_EKU), site.certificate(), pki.ca(), now))
                .isNotNull();
        assertThat(OcspMessages.verify(answer(Answer.EXPIRED), site.certificate(), pki.ca(), now)).isNotNull();
        // Good now, not a day and a half later.
        byte[] good = answer(Answer.GOOD);
        assertThat(OcspMessages.verify(good, site.certificate(), pki.ca(), now.plus(Duration.ofHours(36)))).isNotNull();
        // About another certificate of the same CA.
        Issued other = pki.issueWithOcsp(responder.uri(), "other.test");
        assertThatThrownBy(() -> OcspMessages.read(good, other.certificate())).isInstanceOf(Der.Malformed.class)
                .hasMessageContaining("no response about serial number");
        assertThat(OcspMessages.verify(good, other.certificate(), pki.ca(), now)).isNotNull();
    }

    @Test
    void aResponderThatCannotAnswerSaysSo() throws Exception {
        assertThatThrownBy(() -> OcspMessages.read(answer(Answer.TRY_LATER), site.certificate()))
                .isInstanceOf(Der.Malformed.class).hasMessage("the responder answered tryLater");
        assertThatThrownBy(() -> OcspMessages.read("<html>not here</html>".getBytes(), site.certificate()))
                .isInstanceOf(Der.Malformed.class);
    }

    /** An answer cut short anywhere, or with any byte changed, is Malformed or read: never another exception. */
    @Test
    void brokenAnswersAreMalformedNeverACrash() throws Exception {
        byte[] good = answer(Answer.GOOD);
        for (int n = 0; n < good.length; n++) {
            byte[] cut = java.util.Arrays.copyOf(good, n);
            assertThatThrownBy(() -> OcspMessages.read(cut, site.certificate())).isInstanceOf(Der.Malformed.class);
        }
        Der.Element signed = signedData(good);
        Random random = new Random(42);
        for (int i = 0; i < 5000; i++) {
            byte[] changed = good.clone();
            int at = random.nextInt(changed.length);
            changed[at] = (byte) random.nextInt(256);
            try {
                OcspMessages.read(changed, site.certificate());
            } catch (Der.Malformed expected) {
                // fine: said what was wrong
            }
            if (!java.util.Arrays.equals(changed, good)) {
                // a changed byte inside the signed part or the signature fails the JDK's checks
                String verdict = OcspMessages.verify(changed, site.certificate(), pki.ca(), Instant.now());
                if (verdict == null) {
                    // Only bytes outside what is signed may change and still verify (a tag's constructed bit, the
                    // signature BIT STRING's unused-bits count, which the JDK does not look at): a change within
                    // what the signature covers would be a forgery.
                    assertThat(at >= signed.from() && at < signed.end())
                            .as("byte %d of the signed data (%d-%d) changed, and it verified", at, signed.from(),
                                    signed.end() - 1).isFalse();
                }
            }
        }
    }

    /** Where the tbsResponseData of a basic answer lies in it: what its signature covers. */
    private static Der.Element signedData(byte[] answer) throws Exception {
        Der.Reader top = new Der.Reader(answer).next("OCSPResponse").children();
        top.next("responseStatus");
        Der.Reader responseBytes = top.next("responseBytes").children().next("ResponseBytes").children();
        responseBytes.next("responseType");
        Der.Element tbs = responseBytes.next("response").children().next("BasicOCSPResponse").children()
                .next("tbsResponseData");
        assertThat(tbs.encoded()).isEqualTo(((org.bouncycastle.cert.ocsp.BasicOCSPResp)
                new org.bouncycastle.cert.ocsp.OCSPResp(answer).getResponseObject()).getTBSResponseData());
        return tbs;
    }
}
