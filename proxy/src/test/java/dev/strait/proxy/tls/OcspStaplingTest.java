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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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

    static void assumeOpenSsl() {
        assumeTrue(TlsEngine.current() == TlsEngine.OPENSSL, "stapling needs the OpenSSL engine");
    }

    InetSocketAddress https() {
        return proxy.server.address("https");
    }

    List<byte[]> stapled() throws Exception {
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "site.test")) {
            assertThat(c.get("/hello", "site.test").status()).isEqualTo(200);
            return c.statusResponses();
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
                .contains("Serial Number: " + site.certificate().getSerialNumber().toString(16).toUpperCase());

        String metrics = proxy.metrics.scrape();
        assertThat(metrics).contains("strait_tls_ocsp_stapled 1.0").contains("strait_tls_ocsp_unstapled 0.0")
                .contains("strait_tls_ocsp_answers_total{result=\"good\"} 1.0");
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
        assertThat(tls.warnings()).containsExactly(
                "listeners[0].tls.certificates[1].cert: OCSP stapling: the certificate for [plain.test] cannot be"
                        + " stapled: it names no http(s) OCSP responder (Authority Information Access)",
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
