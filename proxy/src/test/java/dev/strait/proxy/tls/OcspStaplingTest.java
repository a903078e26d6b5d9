package dev.strait.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.strait.model.ConfigParser;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestOcspResponder;
import dev.strait.proxy.testing.TlsClient;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OCSP stapling on a real TLS listener (ADR 0104): the responder's answer reaches clients that ask for it (the JDK's
 * and openssl's), survives a reload, is not fetched where the listener does not ask, and a certificate that cannot
 * be stapled is named by its field path.
 */
class OcspStaplingTest {
    TestCertificates pki;
    TestOcspResponder responder;
    Issued site;
    final ProxyHarness proxy = new ProxyHarness();
    @TempDir
    Path dir;

    @BeforeEach
    void setUp() throws Exception {
        pki = new TestCertificates();
        responder = new TestOcspResponder(pki);
        site = pki.issueWithOcsp(responder.uri(), "site.test", "site.test");
    }

    @AfterEach
    void tearDown() throws Exception {
        proxy.close();
        responder.close();
    }

    static String config(String tls, String body) {
        return """
                accessLog: { enabled: false }
                listeners:
                  - name: https
                    address: "127.0.0.1:0"
                    tls: { %s }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Exact, value: /hello } } ]
                        respond: { status: 200, body: "%s" }
                """.formatted(tls, body);
    }

    /** A serial number as openssl writes it (BN_bn2hex): upper-case hex, whole bytes. */
    static String opensslSerial(Issued cert) {
        String hex = cert.certificate().getSerialNumber().toString(16).toUpperCase(java.util.Locale.ROOT);
        return hex.length() % 2 == 1 ? "0" + hex : hex;
    }

    static void assumeOpenSsl() {
        assumeTrue(TlsEngine.current() == TlsEngine.OPENSSL, "stapling needs the OpenSSL engine");
    }

    InetSocketAddress https() {
        return proxy.server.address("https");
    }

    List<byte[]> stapled() throws Exception {
        return stapled("site.test");
    }

    /** The answers stapled to a new handshake for {@code name}, after a request over it. */
    List<byte[]> stapled(String name) throws Exception {
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), name)) {
            assertThat(c.get("/hello", name).status()).isEqualTo(200);
            return c.statusResponses();
        }
    }

    /**
     * An answer someone else fetched, from a file (nginx's ssl_stapling_file): stapled without asking any responder,
     * read again at each reload; one that is no good answer about the certificate is a config error by field path, an
     * expired one a warning.
     */
    @Test
    void anAnswerFromAFileIsStapledWithoutAskingAnyone() throws Exception {
        assumeOpenSsl();
        Path file = dir.resolve("site.ocsp");
        Files.write(file, responder.answerFor(site.certificate(), TestOcspResponder.Answer.GOOD));
        String entry = "{ cert: " + TlsListenerTest.q(site.certPem()) + ", key: " + TlsListenerTest.q(site.keyPem())
                + ", ocspResponse: " + TlsListenerTest.q(file.toString()) + " }";
        String yaml = config("certificates: [ " + entry + " ]", "hello");
        var tls = SnapshotBuilder.build(ConfigParser.parse(yaml, "t"), "t").tls();
        assertThat(tls.warnings()).isEmpty();
        assertThat(tls.staples()).as("nothing to fetch").isEmpty();
        assertThat(tls.files()).as("watched for its renewal").contains(file.toAbsolutePath());

        proxy.startConfig(yaml);
        assertThat(stapled()).singleElement().isEqualTo(Files.readAllBytes(file));
        // Renewed: the reload a change of the file brings staples the new answer.
        Files.write(file, responder.answerFor(site.certificate(), TestOcspResponder.Answer.DELEGATED));
        proxy.reloadConfig(yaml);
        assertThat(stapled()).singleElement().isEqualTo(Files.readAllBytes(file));
        assertThat(responder.requests.get()).as("no responder asked").isZero();

        // Expired: served without, and said.
        Files.write(file, responder.answerFor(site.certificate(), TestOcspResponder.Answer.EXPIRED));
        var expired = SnapshotBuilder.build(ConfigParser.parse(yaml, "t"), "t").tls();
        assertThat(expired.warnings()).singleElement().asString()
                .startsWith("listeners[0].tls.certificates[0].ocspResponse: the OCSP answer for [site.test] expired at ");
        proxy.reloadConfig(yaml);
        assertThat(stapled()).isEmpty();

        // Not to staple at all: the config is refused, naming the field.
        Issued other = pki.issueWithOcsp(responder.uri(), "other.test", "other.test");
        Object[][] bad = {
                {responder.answerFor(site.certificate(), TestOcspResponder.Answer.REVOKED), "the certificate is revoked"},
                {responder.answerFor(site.certificate(), TestOcspResponder.Answer.WRONG_SIGNER), "not a valid answer"},
                {responder.answerFor(other.certificate(), TestOcspResponder.Answer.GOOD), "no response about serial number"},
                {"not der".getBytes(StandardCharsets.US_ASCII), "not an OCSP answer"}};
        for (Object[] b : bad) {
            Files.write(file, (byte[]) b[0]);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> SnapshotBuilder.build(ConfigParser.parse(yaml, "t"), "t"))
                    .isInstanceOf(dev.strait.model.InvalidConfigException.class)
                    .hasMessageContaining("listeners[0].tls.certificates[0].ocspResponse: ").hasMessageContaining((String) b[1]);
        }
        Files.delete(file);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SnapshotBuilder.build(ConfigParser.parse(yaml, "t"), "t"))
                .hasMessageContaining("listeners[0].tls.certificates[0].ocspResponse: cannot read ");
    }

    /** A must-staple certificate (RFC 7633) served without a staple would be refused by Firefox: said at each load. */
    @Test
    void aMustStapleCertificateWithoutStaplingIsWarnedAbout() throws Exception {
        Issued must = pki.issueMustStaple(responder.uri(), "must.test", "must.test");
        assertThat(dev.strait.proxy.tls.ocsp.OcspStaple.mustStaple(must.certificate())).isTrue();
        assertThat(dev.strait.proxy.tls.ocsp.OcspStaple.mustStaple(site.certificate())).isFalse();
        var plain = SnapshotBuilder.build(ConfigParser.parse(config("certificates: [ " + site.configEntry() + ", "
                + must.configEntry() + " ]", "hello"), "t"), "t").tls();
        assertThat(plain.warnings()).containsExactly("listeners[0].tls.certificates[1].cert: the certificate for"
                + " [must.test] is must-staple (its TLS feature extension asks for status_request), and"
                + " listeners[0].tls.ocspStapling is not true: clients that honour it (Firefox) refuse its handshakes");
        var noIssuer = SnapshotBuilder.build(ConfigParser.parse(config("certificates: [ " + must.withoutChain()
                .configEntry() + " ], ocspStapling: true", "hello"), "t"), "t").tls();
        // Why it cannot (no issuer here; the JDK engine in the tls-jdk-engine execution), then what that means.
        assertThat(noIssuer.warnings()).hasSize(2)
                .last().asString().endsWith("and it cannot be stapled: clients that honour it (Firefox) refuse its"
                        + " handshakes");
        if (TlsEngine.current() == TlsEngine.OPENSSL) {
            var stapled = SnapshotBuilder.build(ConfigParser.parse(config("certificates: [ " + must.configEntry()
                    + " ], ocspStapling: true", "hello"), "t"), "t").tls();
            assertThat(stapled.warnings()).isEmpty();
        }
    }

    /** The JDK's engine cannot be handed an answer to staple: a listener that asks is told so, and served as before. */
    @Test
    void theJdkEngineSaysItCannotStaple() throws Exception {
        assumeTrue(TlsEngine.current() == TlsEngine.JDK, "runs in the tls-jdk-engine execution");
        String yaml = config("certificates: [ " + site.configEntry() + " ], ocspStapling: true", "hello");
        var tls = SnapshotBuilder.build(ConfigParser.parse(yaml, "t"), "t").tls();
        assertThat(tls.warnings()).containsExactly("listeners[0].tls.ocspStapling: needs the OpenSSL engine, and this"
                + " process runs the JDK's (docs/config.md, TLS): no handshake gets a staple");
        assertThat(tls.staples()).isEmpty();
        proxy.startConfig(yaml);
        assertThat(stapled()).isEmpty();
        assertThat(responder.requests.get()).isZero();
        // An answer from a file is not stapled either, and the field says why.
        Path file = Files.write(dir.resolve("site.ocsp"), responder.answerFor(site.certificate(),
                TestOcspResponder.Answer.GOOD));
        var fromFile = SnapshotBuilder.build(ConfigParser.parse(config("certificates: [ { cert: "
                + TlsListenerTest.q(site.certPem()) + ", key: " + TlsListenerTest.q(site.keyPem()) + ", ocspResponse: "
                + TlsListenerTest.q(file.toString()) + " } ]", "hello"), "t"), "t").tls();
        assertThat(fromFile.warnings()).containsExactly("listeners[0].tls.certificates[0].ocspResponse: needs the"
                + " OpenSSL engine, and this process runs the JDK's (docs/config.md, TLS): not stapled");
    }

    @Test
    void handshakesCarryTheResponderAnswer() throws Exception {
        assumeOpenSsl();
        proxy.startConfig(config("certificates: [ " + site.configEntry() + " ], ocspStapling: true", "hello"));
        await().atMost(Duration.ofSeconds(10)).until(() -> !stapled().isEmpty());
        assertThat(stapled()).singleElement().isEqualTo(responder.lastAnswer);
        assertThat(responder.requests.get()).isEqualTo(1);

        // openssl's client reads it as good, for this certificate.
        Process p = new ProcessBuilder("openssl", "s_client", "-connect", "127.0.0.1:" + https().getPort(),
                "-servername", "site.test", "-status").redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("OCSP Response Status: successful").contains("Cert Status: good")
                .contains("Serial Number: " + opensslSerial(site));

        String metrics = proxy.metrics.scrape();
        assertThat(metrics).contains("strait_tls_ocsp_stapled 1.0").contains("strait_tls_ocsp_unstapled 0.0")
                .contains("strait_tls_ocsp_answers_total{result=\"good\"} 1.0");
    }

    /** Another responder than BouncyCastle's: openssl's own (`openssl ocsp -port`), answering from its CA index. */
    @Test
    void opensslsResponderIsUnderstoodToo() throws Exception {
        assumeOpenSsl();
        Path ca = Files.writeString(dir.resolve("ca.crt"), pki.caPem());
        Path key = Files.writeString(dir.resolve("ca.key"), pki.caKeyPem());
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort(); // openssl cannot say which port 0 became
        }
        Issued cert = pki.issueWithOcsp("http://127.0.0.1:" + port + "/", "openssl.test", "openssl.test");
        String serial = opensslSerial(cert);
        String expiry = java.time.format.DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(java.time.ZoneOffset.UTC)
                .format(cert.certificate().getNotAfter().toInstant());
        Path index = Files.writeString(dir.resolve("index.txt"),
                "V\t" + expiry + "\t\t" + serial + "\tunknown\t/CN=openssl.test\n");
        Process responder = new ProcessBuilder("openssl", "ocsp", "-index", index.toString(), "-port", String.valueOf(port),
                "-rsigner", ca.toString(), "-rkey", key.toString(), "-CA", ca.toString(), "-nmin", "60", "-ignore_err")
                .redirectErrorStream(true).redirectOutput(dir.resolve("responder.log").toFile()).start();
        try {
            proxy.startConfig(config("certificates: [ " + cert.configEntry() + " ], ocspStapling: true", "hello"));
            await().atMost(Duration.ofSeconds(20)).until(() -> !stapled("openssl.test").isEmpty());
            var basic = (org.bouncycastle.cert.ocsp.BasicOCSPResp) new org.bouncycastle.cert.ocsp.OCSPResp(
                    stapled("openssl.test").get(0)).getResponseObject();
            assertThat(basic.getResponses()).singleElement().satisfies(r -> {
                assertThat(r.getCertID().getSerialNumber()).isEqualTo(cert.certificate().getSerialNumber());
                assertThat(r.getCertStatus()).isNull(); // good
                assertThat(r.getNextUpdate()).isAfter(new java.util.Date());
            });
        } finally {
            responder.destroy();
            responder.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aReloadThatKeepsTheCertificateKeepsItsStaple() throws Exception {
        assumeOpenSsl();
        proxy.startConfig(config("certificates: [ " + site.configEntry() + " ], ocspStapling: true", "hello"));
        await().atMost(Duration.ofSeconds(10)).until(() -> !stapled().isEmpty());
        long swaps = proxy.serving.swaps();
        proxy.reloadConfig(config("certificates: [ " + site.configEntry() + " ], ocspStapling: true", "hello again"));
        await().atMost(Duration.ofSeconds(10)).until(() -> proxy.serving.swaps() > swaps);
        List<byte[]> after = stapled();
        assertThat(after).singleElement().isEqualTo(responder.lastAnswer);
        assertThat(responder.requests.get()).as("not asked again").isEqualTo(1);
    }

    @Test
    void nothingIsFetchedOrStapledUnlessTheListenerAsks() throws Exception {
        assumeOpenSsl();
        proxy.startConfig(config("certificates: [ " + site.configEntry() + " ]", "hello"));
        assertThat(stapled()).isEmpty();
        // Turned on by a reload: fetched then, and stapled.
        proxy.reloadConfig(config("certificates: [ " + site.configEntry() + " ], ocspStapling: true", "hello"));
        await().atMost(Duration.ofSeconds(10)).until(() -> !stapled().isEmpty());
        // And off again: the certificate's plain context serves, the responder is left alone.
        proxy.reloadConfig(config("certificates: [ " + site.configEntry() + " ]", "hello"));
        await().atMost(Duration.ofSeconds(10)).until(() -> stapled().isEmpty());
        int asked = responder.requests.get();
        assertThat(proxy.metrics.scrape()).contains("strait_tls_ocsp_stapled 0.0");
        assertThat(responder.requests.get()).isEqualTo(asked);
    }

    @Test
    void aCertificateThatCannotBeStapledIsNamedAndStillServed() throws Exception {
        assumeOpenSsl();
        Issued noResponder = pki.issue(TestCertificates.KeyType.EC, "plain.test", "plain.test");
        Issued noIssuer = pki.issueWithOcsp(responder.uri(), "alone.test", "alone.test").withoutChain();
        String yaml = config("certificates: [ " + site.configEntry() + ", " + noResponder.configEntry() + ", "
                + noIssuer.configEntry() + " ], ocspStapling: true", "hello");
        var tls = SnapshotBuilder.build(ConfigParser.parse(yaml, "t"), "t").tls();
        // A certificate whose CA offers no OCSP is no mistake (logged once, not a warning); a chain without the
        // issuer of a certificate that names a responder is.
        assertThat(tls.warnings()).containsExactly(
                "listeners[0].tls.certificates[2].cert: OCSP stapling: the certificate for [alone.test] cannot be"
                        + " stapled: the chain holds no certificate of its issuer (CN=strait test CA): put the issuing"
                        + " CA's certificate after it");
        assertThat(tls.staples()).hasSize(1);

        proxy.startConfig(yaml);
        await().atMost(Duration.ofSeconds(10)).until(() -> !stapled().isEmpty());
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "plain.test")) {
            assertThat(c.get("/hello", "plain.test").status()).isEqualTo(200);
            assertThat(c.statusResponses()).isEmpty();
        }
        assertThat(responder.requests.get()).isEqualTo(1);
    }
}
