package dev.strait.proxy.tls;

import static dev.strait.proxy.tls.TlsListenerTest.cert;
import static dev.strait.proxy.tls.TlsListenerTest.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestCertificates.KeyType;
import dev.strait.proxy.testing.TestUpstream;
import dev.strait.proxy.testing.TlsClient;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client certificates (ADR 0075) on real sockets: what each mode lets through and answers, what goes upstream,
 * and the ways around a check that must stay shut (another name on the same connection, cleartext, a session
 * made without a certificate).
 */
class ClientValidationTest {
    static TestCertificates pki;
    static TestCertificates stranger;
    static Issued server;
    static Issued alice;
    static Issued carol;
    static Issued expired;
    static Issued outsider;
    static Issued impostor;

    @TempDir
    Path dir;
    final ProxyHarness proxy = new ProxyHarness();
    TestUpstream app;

    @BeforeAll
    static void certificates() throws Exception {
        pki = new TestCertificates();
        stranger = new TestCertificates("stranger CA");
        server = pki.issue(KeyType.EC, "example.test", "*.example.test", "example.test");
        alice = pki.issue(KeyType.EC, "alice");
        carol = pki.issue(KeyType.EC, "carol");
        Instant now = Instant.now();
        expired = pki.issue(KeyType.EC, false, now.minus(Duration.ofDays(2)), now.minus(Duration.ofDays(1)), "alice");
        outsider = stranger.issue(KeyType.EC, "alice");
        // A CA with our CA's name and another key.
        impostor = new TestCertificates().issue(KeyType.EC, "alice");
    }

    @BeforeEach
    void start() throws Exception {
        app = proxy.upstream(TestUpstream.reply(200, "app\n"));
        proxy.startConfig(config(""));
    }

    /** The test's config; {@code optExtra} is added to opt.example.test's entry. */
    private String config(String optExtra) {
        String ca = q(pki.caPem());
        return """
                accessLog: { enabled: false }
                listeners:
                  - { name: http, address: "127.0.0.1:0" }
                  - name: https
                    address: "127.0.0.1:0"
                    tls:
                      certificates: [ %s ]
                      clientValidation:
                        - { hosts: [ secure.example.test ], ca: %s, subjectMatch: "CN=(alice|bob)$", forwardCertificate: true }
                        - { hosts: [ opt.example.test ], ca: %s, mode: optional%s }
                        - { hosts: [ any.example.test ], mode: optional-no-ca }
                upstreams:
                  - { name: app, endpoints: [ "127.0.0.1:%d" ] }
                routes:
                  - name: to-https
                    hosts: [ secure.example.test ]
                    listeners: [ http ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /go } } ]
                        redirect: { scheme: https }
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                """.formatted(cert(server), ca, ca, optExtra, app.port());
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    InetSocketAddress https() {
        return proxy.server.address("https");
    }

    /** A client that shows {@code id} (none: null) and trusts any server: these tests look at the other side. */
    static SSLContext client(Issued id) throws Exception {
        KeyManagerFactory kmf = null;
        if (id != null) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            char[] pw = "test".toCharArray();
            java.util.List<X509Certificate> chain = new java.util.ArrayList<>();
            for (var c : java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificates(new java.io.ByteArrayInputStream(id.certPem().getBytes(StandardCharsets.US_ASCII)))) {
                chain.add((X509Certificate) c);
            }
            ks.setKeyEntry("me", id.key(), pw, chain.toArray(new X509Certificate[0]));
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pw);
        }
        TrustManager any = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(kmf == null ? null : kmf.getKeyManagers(), new TrustManager[] {any}, new SecureRandom());
        return c;
    }

    private TlsClient.Response get(Issued id, String sni, String host) throws Exception {
        try (TlsClient c = new TlsClient(client(id), https(), sni)) {
            return c.get("/x", host);
        }
    }

    @Test
    void requireLetsAValidCertificateThroughAndTellsTheAppWhoItWas() throws Exception {
        TlsClient.Response r = get(alice, "secure.example.test", "secure.example.test");
        assertThat(r.status()).isEqualTo(200);
        TestUpstream.Seen seen = app.last();
        assertThat(seen.header("ssl-client-verify")).isEqualTo("SUCCESS");
        assertThat(seen.header("ssl-client-subject-dn")).isEqualTo("CN=alice");
        assertThat(seen.header("ssl-client-issuer-dn")).isEqualTo("CN=strait test CA");
        // The certificate itself, escaped as nginx's $ssl_client_escaped_cert, as forwardCertificate asks.
        String pem = java.net.URLDecoder.decode(seen.header("ssl-client-cert"), StandardCharsets.UTF_8);
        assertThat(pem).startsWith("-----BEGIN CERTIFICATE-----\n").endsWith("-----END CERTIFICATE-----\n");
        assertThat(seen.header("ssl-client-cert")).startsWith("-----BEGIN%20CERTIFICATE-----%0A");
        // And Envoy's field, for apps written for Envoy, Istio or Contour.
        String hash = java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(alice.certificate().getEncoded()));
        assertThat(seen.header("x-forwarded-client-cert")).isEqualTo("Hash=" + hash + ";Cert=\""
                + seen.header("ssl-client-cert") + "\";Subject=\"CN=alice\"");
    }

    @Test
    void requireRefusesNoCertificateAnUntrustedOneAnExpiredOneAndAnotherSubject() throws Exception {
        int before = app.requests();
        TlsClient.Response none = get(null, "secure.example.test", "secure.example.test");
        assertThat(none.status()).isEqualTo(400);
        assertThat(none.body()).isEqualTo("400 Bad Request: a client certificate is required\n");
        // The JDK's client offers only a certificate of a CA the server names: this one has none to offer.
        assertThat(get(outsider, "secure.example.test", "secure.example.test").body())
                .isEqualTo("400 Bad Request: a client certificate is required\n");
        // curl sends it all the same.
        assertThat(curlWith(outsider, "secure.example.test"))
                .endsWith("the client certificate was not accepted: unable to get local issuer certificate\n400");
        TlsClient.Response forged = get(impostor, "secure.example.test", "secure.example.test");
        assertThat(forged.status()).isEqualTo(400);
        assertThat(forged.body()).contains("certificate signature failure");
        TlsClient.Response old = get(expired, "secure.example.test", "secure.example.test");
        assertThat(old.status()).isEqualTo(400);
        assertThat(old.body()).contains("certificate has expired");
        TlsClient.Response other = get(carol, "secure.example.test", "secure.example.test");
        assertThat(other.status()).as("subjectMatch").isEqualTo(403);
        assertThat(app.requests()).as("none of them reached the app").isEqualTo(before);
    }

    @Test
    void optionalTakesNoCertificateButNotABadOneAndNoCaTakesAny() throws Exception {
        // A client's own ssl-client-verify, or x-forwarded-client-cert, never reaches the app as if a certificate had
        // been shown.
        try (TlsClient c = new TlsClient(client(null), https(), "opt.example.test")) {
            assertThat(c.rawRequest("GET /x HTTP/1.1\r\nHost: opt.example.test\r\nSSL-Client-Verify: SUCCESS\r\n"
                    + "X-Forwarded-Client-Cert: Hash=forged;Subject=\"CN=admin\"\r\n\r\n").status()).isEqualTo(200);
        }
        assertThat(app.last().header("x-forwarded-client-cert")).isNull();
        assertThat(app.last().header("ssl-client-verify")).isEqualTo("NONE");
        assertThat(app.last().header("ssl-client-subject-dn")).isNull();
        assertThat(get(alice, "opt.example.test", "opt.example.test").status()).isEqualTo(200);
        assertThat(app.last().header("ssl-client-verify")).isEqualTo("SUCCESS");
        assertThat(app.last().header("ssl-client-cert")).as("not forwarded unless asked").isNull();
        assertThat(curlWith(outsider, "opt.example.test")).endsWith("400");

        assertThat(get(outsider, "any.example.test", "any.example.test").status()).isEqualTo(200);
        assertThat(app.last().header("ssl-client-verify")).isEqualTo("FAILED:unable to get local issuer certificate");
        assertThat(app.last().header("ssl-client-subject-dn")).isEqualTo("CN=alice");
        // A host without a policy sends nothing of the kind, and asks for nothing.
        assertThat(get(null, "plain.example.test", "plain.example.test").status()).isEqualTo(200);
        assertThat(app.last().header("ssl-client-verify")).isNull();
    }

    @Test
    void aForgedVerdictFromTheClientIsReplaced() throws Exception {
        try (TlsClient c = new TlsClient(client(null), https(), "opt.example.test")) {
            c.rawRequest("GET /x HTTP/1.1\r\nHost: opt.example.test\r\nssl-client-verify: SUCCESS\r\n"
                    + "ssl-client-subject-dn: CN=admin\r\n\r\n");
        }
        assertThat(app.last().headers().getAll("ssl-client-verify")).containsExactly("NONE");
        assertThat(app.last().header("ssl-client-subject-dn")).isNull();
    }

    /**
     * A connection set up for one name cannot carry a request for a host that asks for certificates of other CAs (or
     * for any, where the handshake asked for none); one whose handshake asked for the same CAs is judged by the
     * host's own policy.
     */
    @Test
    void anotherHostOnTheSameConnectionIsMisdirected() throws Exception {
        try (TlsClient c = new TlsClient(client(null), https(), "opt.example.test")) {
            // Asked for the same CAs, the client showed none: secure's policy refuses that.
            assertThat(c.get("/x", "secure.example.test").body()).isEqualTo("400 Bad Request: a client certificate is required\n");
            assertThat(c.get("/x", "opt.example.test").status()).as("still usable for its own").isEqualTo(200);
        }
        try (TlsClient c = new TlsClient(client(alice), https(), "opt.example.test")) {
            assertThat(c.get("/x", "secure.example.test").status()).isEqualTo(200);
            assertThat(c.get("/x", "any.example.test").status()).as("any's handshake names no CA").isEqualTo(421);
        }
        try (TlsClient c = new TlsClient(client(alice), https(), "plain.example.test")) {
            // The server certificate covers both names, but this handshake asked for no client certificate.
            assertThat(c.get("/x", "secure.example.test").status()).isEqualTo(421);
        }
        try (TlsClient c = new TlsClient(client(alice), https(), null)) {
            TlsClient.Response r = c.get("/x", "secure.example.test");
            assertThat(r.status()).as("no SNI: nothing asked, nothing shown").isEqualTo(400);
        }
    }

    @Test
    void cleartextCannotReachAHostThatAsksForCertificatesButForItsRedirect() throws Exception {
        RawClient.Response r = plain("/x", "secure.example.test");
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.text()).contains("this host takes requests over https with a client certificate only");
        RawClient.Response go = plain("/go", "secure.example.test");
        assertThat(go.status()).isEqualTo(302);
        assertThat(plain("/x", "plain.example.test").status()).isEqualTo(200);
    }

    private RawClient.Response plain(String path, String host) throws Exception {
        try (RawClient c = new RawClient(proxy.address())) {
            return c.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").read();
        }
    }

    /**
     * A session made without a client certificate must not resume where one is asked for: the client would get in
     * without showing one. openssl's s_client, as in TlsListenerTest.
     */
    @Test
    void aSessionWithoutACertificateDoesNotResumeWhereOneIsAsked() throws Exception {
        Path[] files = alice.write(dir, "alice");
        Path certFile = files[0];
        Path keyFile = files[1];
        for (String version : new String[] {"-tls1_2", "-tls1_3"}) {
            Path session = dir.resolve("session" + version);
            assertThat(sClient(version, "plain.example.test", "-sess_out", session)).contains("New,");
            assertThat(sClient(version, "plain.example.test", "-sess_in", session)).as("resumes for its own name")
                    .contains("Reused,");
            String secure = sClient(version, "secure.example.test", "-sess_in", session);
            assertThat(secure).as(version).contains("New,").contains("400 Bad Request");
            Path withCert = dir.resolve("cert-session" + version);
            String shown = sClient(version, "secure.example.test", "-sess_out", withCert, "-cert", certFile.toString(),
                    "-key", keyFile.toString());
            assertThat(shown).contains("200 OK");
            // Resumed, the session still carries alice's certificate.
            assertThat(sClient(version, "secure.example.test", "-sess_in", withCert)).contains("Reused,").contains("200 OK");
        }
    }

    private String sClient(String version, String sni, String sessionFlag, Path session, String... more) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("openssl", "s_client", version,
                "-connect", "127.0.0.1:" + https().getPort(), "-servername", sni, sessionFlag, session.toString(),
                "-ign_eof"));
        cmd.addAll(java.util.List.of(more));
        return run(cmd, "GET /x HTTP/1.1\r\nHost: " + sni + "\r\nConnection: close\r\n\r\n");
    }

    /** Runs a command with {@code input} on its stdin; its output (stderr too). */
    private static String run(java.util.List<String> cmd, String input) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().write(input.getBytes(StandardCharsets.US_ASCII));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    /** nginx's ssl_crl: a certificate its CA has revoked is refused; a list no CA of ca signed is a config error. */
    @Test
    void aRevokedCertificateIsRefusedAndAStrangersListIsAConfigError() throws Exception {
        String crl = pki.crlPem(carol.certificate().getSerialNumber());
        proxy.reloadConfig(config(", crl: " + q(crl)));
        await().atMost(Duration.ofSeconds(10)).until(() -> get(carol, "opt.example.test", "opt.example.test").status() == 400);
        assertThat(get(carol, "opt.example.test", "opt.example.test").body())
                .isEqualTo("400 Bad Request: the client certificate was not accepted: certificate revoked\n");
        assertThat(get(alice, "opt.example.test", "opt.example.test").status()).isEqualTo(200);

        String[][] bad = {
                {stranger.crlPem(), "listeners[1].tls.clientValidation[1].crl: the list of CN=stranger CA is not signed by a CA of ca"},
                {"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----", "listeners[1].tls.clientValidation[1].crl: no PEM X509 CRL block found"},
        };
        for (String[] c : bad) {
            assertThatThrownBy(() -> dev.strait.proxy.config.SnapshotBuilder.build(
                    dev.strait.model.ConfigParser.parse(config(", crl: " + q(c[0])), "t"), "t"))
                    .isInstanceOf(dev.strait.model.InvalidConfigException.class).hasMessageContaining(c[1]);
        }
    }

    /** ingress-nginx's auth-tls-error-page: a refused request is sent there instead of answered. */
    @Test
    void aRefusedRequestGoesToTheErrorPageWhenOneIsGiven() throws Exception {
        proxy.reloadConfig(config(", crl: " + q(pki.crlPem(carol.certificate().getSerialNumber()))
                + ", errorPage: \"https://example.test/certificates?why=1\""));
        await().atMost(Duration.ofSeconds(10)).until(() -> get(carol, "opt.example.test", "opt.example.test").status() == 302);
        TlsClient.Response r = get(carol, "opt.example.test", "opt.example.test");
        assertThat(r.headers()).containsEntry("location", "https://example.test/certificates?why=1")
                .containsEntry("cache-control", "no-store");
        assertThat(get(alice, "opt.example.test", "opt.example.test").status()).isEqualTo(200);
    }

    /** HTTP/2 takes the same check (curl: the JDK's client cannot be pointed at a name without DNS). */
    @Test
    void http2RequestsAreCheckedToo() throws Exception {
        Path[] files = alice.write(dir, "alice");
        Path certFile = files[0];
        Path keyFile = files[1];
        String resolve = "secure.example.test:" + https().getPort() + ":127.0.0.1";
        String url = "https://secure.example.test:" + https().getPort() + "/x";
        assertThat(curl("--http2", "-k", "--resolve", resolve, "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                "--cert", certFile.toString(), "--key", keyFile.toString(), url)).isEqualTo("2 200");
        assertThat(app.last().header("ssl-client-verify")).isEqualTo("SUCCESS");
        assertThat(curl("--http2", "-k", "--resolve", resolve, "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                url)).isEqualTo("2 400");
    }

    /** The body and status of a request over HTTP/1.1 with {@code id}'s certificate, sent whatever CAs the server names. */
    private String curlWith(Issued id, String host) throws Exception {
        Path[] files = id.write(dir, host);
        return curl("--http1.1", "-k", "--resolve", host + ":" + https().getPort() + ":127.0.0.1", "-w", "%{http_code}",
                "--cert", files[0].toString(), "--key", files[1].toString(), "https://" + host + ":" + https().getPort() + "/x");
    }

    private static String curl(String... args) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("curl", "-s", "--max-time", "10"));
        cmd.addAll(java.util.List.of(args));
        return run(cmd, "").trim();
    }
}
