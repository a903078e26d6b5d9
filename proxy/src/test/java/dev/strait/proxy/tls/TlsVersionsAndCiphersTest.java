package dev.strait.proxy.tls;

import static dev.strait.proxy.tls.TlsListenerTest.cert;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestCertificates.KeyType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A listener's {@code minVersion} and {@code ciphers} (nginx's {@code ssl_protocols} and {@code ssl_ciphers}), seen by
 * openssl's own client: which handshakes each listener takes, on both engines.
 */
class TlsVersionsAndCiphersTest {
    static Issued ec;
    final ProxyHarness proxy = new ProxyHarness();

    @BeforeAll
    static void certificates() throws Exception {
        ec = new TestCertificates().issue(KeyType.EC, "site.test", "site.test");
    }

    @BeforeEach
    void start() throws Exception {
        proxy.startConfig(config(", minVersion: 1.3"));
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    /** {@code modern}'s extra settings as given; {@code legacy} takes two suites, one of them CBC; {@code plain} none. */
    private static String config(String modern) {
        return """
                accessLog: { enabled: false }
                listeners:
                  - { name: modern, address: "127.0.0.1:0", tls: { certificates: [ %s ]%s } }
                  - { name: legacy, address: "127.0.0.1:0", tls: { certificates: [ %s ],
                      ciphers: "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-SHA" } }
                  - { name: plain, address: "127.0.0.1:0", tls: { certificates: [ %s ] } }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - respond: { status: 200, body: "hello\\n" }
                """.formatted(cert(ec), modern, cert(ec), cert(ec));
    }

    /** What openssl's client reports of a handshake with the listener, or its failure. */
    private String handshake(String listener, String... options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("openssl", "s_client", "-brief", "-connect",
                "127.0.0.1:" + proxy.server.address(listener).getPort(), "-servername", "site.test"));
        cmd.addAll(List.of(options));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    private static boolean made(String out) {
        return out.contains("CONNECTION ESTABLISHED");
    }

    @Test
    void minVersionOneThreeRefusesTlsOneTwo() throws Exception {
        assertThat(handshake("modern", "-tls1_3")).contains("Protocol version: TLSv1.3");
        assertThat(made(handshake("modern", "-tls1_2"))).isFalse();
        assertThat(handshake("plain", "-tls1_2")).contains("Protocol version: TLSv1.2");
    }

    @Test
    void ciphersAreTheSuitesATlsOneTwoHandshakeMayUse() throws Exception {
        assertThat(handshake("legacy", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"))
                .contains("Ciphersuite: ECDHE-ECDSA-AES128-SHA");
        assertThat(handshake("legacy", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES256-GCM-SHA384"))
                .contains("Ciphersuite: ECDHE-ECDSA-AES256-GCM-SHA384");
        // The listener's order wins over the client's (nginx's ssl_prefer_server_ciphers on).
        assertThat(handshake("legacy", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-GCM-SHA384"))
                .contains("Ciphersuite: ECDHE-ECDSA-AES256-GCM-SHA384");
        assertThat(made(handshake("legacy", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256")))
                .as("not listed").isFalse();
        assertThat(handshake("legacy", "-tls1_3")).as("TLS 1.3 keeps its own suites")
                .contains("Protocol version: TLSv1.3");
        // The default list has no CBC suite.
        assertThat(made(handshake("plain", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"))).isFalse();
        assertThat(handshake("plain", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"))
                .contains("Ciphersuite: ECDHE-ECDSA-AES128-GCM-SHA256");
    }

    @Test
    void aReloadAppliesToTheNextHandshake() throws Exception {
        assertThat(made(handshake("modern", "-tls1_2"))).isFalse();
        proxy.reloadConfig(config(""));
        assertThat(handshake("modern", "-tls1_2")).contains("Protocol version: TLSv1.2");
    }
}
