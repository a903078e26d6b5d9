package dev.strait.proxy.tls;

import static dev.strait.proxy.tls.ClientValidationTest.client;
import static dev.strait.proxy.tls.TlsListenerTest.cert;
import static dev.strait.proxy.tls.TlsListenerTest.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestCertificates.KeyType;
import dev.strait.proxy.testing.TestOcspResponder;
import dev.strait.proxy.testing.TestOcspResponder.Answer;
import dev.strait.proxy.testing.TestUpstream;
import dev.strait.proxy.testing.TlsClient;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OCSP checks of client certificates (ADR 0106; nginx's {@code ssl_ocsp}) on real sockets, against BouncyCastle
 * responders of a root CA and of an intermediate one: what each answer does to a request, which certificates are
 * asked about, that the first request waits for the answer, and that answers are kept.
 */
class ClientCertificateOcspTest {
    static TestCertificates root;
    static TestOcspResponder rootOcsp;
    static TestCertificates mid;
    static TestOcspResponder midOcsp;
    static TestOcspResponder named;
    static Issued server;

    @TempDir
    Path dir;
    final ProxyHarness proxy = new ProxyHarness();
    TestUpstream app;

    @BeforeAll
    static void pki() throws Exception {
        root = new TestCertificates();
        rootOcsp = new TestOcspResponder(root);
        mid = root.intermediate("mid CA", rootOcsp.uri());
        midOcsp = new TestOcspResponder(mid);
        named = new TestOcspResponder(root);
        server = root.issue(KeyType.EC, "example.test", "*.example.test");
    }

    @AfterAll
    static void responders() {
        rootOcsp.close();
        midOcsp.close();
        named.close();
    }

    @BeforeEach
    void start() throws Exception {
        rootOcsp.answer = Answer.GOOD;
        midOcsp.answer = Answer.GOOD;
        named.answer = Answer.GOOD;
        rootOcsp.delay = Duration.ZERO;
        app = proxy.upstream(TestUpstream.reply(200, "app\n"));
        proxy.startConfig(config("leaf"));
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    /** {@code leafOcsp}: what leaf.example.test's entry asks. */
    private String config(String leafOcsp) {
        String ca = q(root.caPem());
        return """
                accessLog: { enabled: false }
                listeners:
                  - name: https
                    address: "127.0.0.1:0"
                    tls:
                      certificates: [ %s ]
                      clientValidation:
                        - { hosts: [ leaf.example.test ], ca: %s, verifyDepth: 2, ocsp: %s }
                        - { hosts: [ chain.example.test ], ca: %s, verifyDepth: 2, ocsp: chain }
                        - { hosts: [ named.example.test ], ca: %s, ocsp: leaf, ocspResponder: "%s" }
                        - { hosts: [ opt.example.test ], ca: %s, mode: optional, ocsp: leaf }
                upstreams:
                  - { name: app, endpoints: [ "127.0.0.1:%d" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                """.formatted(cert(server), ca, leafOcsp, ca, ca, named.uri(), ca, app.port());
    }

    InetSocketAddress https() {
        return proxy.server.address("https");
    }

    private TlsClient.Response get(Issued id, String host) throws Exception {
        try (TlsClient c = new TlsClient(client(id), https(), host)) {
            return c.get("/x", host);
        }
    }

    private static String refused(String why) {
        return "400 Bad Request: the client certificate was not accepted: " + why + "\n";
    }

    @Test
    void aGoodCertificateIsServedAndItsAnswerKeptForTheNextConnection() throws Exception {
        Issued alice = root.issueWithOcsp(rootOcsp.uri(), "alice");
        int asked = rootOcsp.requests.get();
        TlsClient.Response r = get(alice, "leaf.example.test");
        assertThat(r.status()).isEqualTo(200);
        assertThat(app.last().header("ssl-client-verify")).isEqualTo("SUCCESS");
        assertThat(rootOcsp.requests.get()).isEqualTo(asked + 1);
        assertThat(get(alice, "leaf.example.test").status()).isEqualTo(200);
        assertThat(rootOcsp.requests.get()).as("kept").isEqualTo(asked + 1);
        assertThat(proxy.metrics.scrape())
                .contains("strait_tls_client_ocsp_answers_total{result=\"good\"} 1.0")
                .contains("strait_tls_client_ocsp_kept_total 1.0");
    }

    @Test
    void aRevokedAnUnknownAndAnUnansweredCertificateAreRefused() throws Exception {
        int before = app.requests();
        rootOcsp.answer = Answer.REVOKED;
        Issued carol = root.issueWithOcsp(rootOcsp.uri(), "carol");
        assertThat(get(carol, "leaf.example.test").body()).isEqualTo(refused("certificate revoked"));
        int asked = rootOcsp.requests.get();
        rootOcsp.answer = Answer.GOOD;
        assertThat(get(carol, "leaf.example.test").body()).as("the kept answer, not asked again")
                .isEqualTo(refused("certificate revoked"));
        assertThat(rootOcsp.requests.get()).isEqualTo(asked);
        rootOcsp.answer = Answer.REVOKED;
        rootOcsp.answer = Answer.UNKNOWN;
        assertThat(get(root.issueWithOcsp(rootOcsp.uri(), "erin"), "leaf.example.test").body())
                .isEqualTo(refused("certificate status unknown"));
        for (Answer a : new Answer[] {Answer.HTTP_500, Answer.WRONG_SIGNER, Answer.EXPIRED, Answer.GARBAGE}) {
            rootOcsp.answer = a;
            assertThat(get(root.issueWithOcsp(rootOcsp.uri(), "frank"), "leaf.example.test").body()).as(a.toString())
                    .isEqualTo(refused("certificate status request failed"));
        }
        // A certificate that names no responder cannot be checked: refused, as by nginx.
        assertThat(get(root.issue(KeyType.EC, "dora"), "leaf.example.test").body())
                .isEqualTo(refused("certificate status request failed"));
        assertThat(app.requests()).as("none reached the app").isEqualTo(before);
        // And the app is told why where the mode lets such a request through.
        rootOcsp.answer = Answer.REVOKED;
        assertThat(get(root.issueWithOcsp(rootOcsp.uri(), "gina"), "opt.example.test").status()).isEqualTo(400);
    }

    @Test
    void leafAsksAboutTheClientsCertificateAndChainAboutEachUpToTheCa() throws Exception {
        Issued bob = mid.issueWithOcsp(midOcsp.uri(), "bob");
        int rootAsked = rootOcsp.requests.get();
        int midAsked = midOcsp.requests.get();
        assertThat(get(bob, "leaf.example.test").status()).isEqualTo(200);
        assertThat(midOcsp.requests.get()).isEqualTo(midAsked + 1);
        assertThat(rootOcsp.requests.get()).as("the intermediate is not asked about").isEqualTo(rootAsked);

        assertThat(get(bob, "chain.example.test").status()).isEqualTo(200);
        assertThat(rootOcsp.requests.get()).as("the intermediate, of the root's responder").isEqualTo(rootAsked + 1);

        // The intermediate revoked: everything it issued is refused under chain, and still served under leaf.
        TestCertificates mid2 = root.intermediate("mid CA 2", rootOcsp.uri());
        TestOcspResponder mid2Ocsp = new TestOcspResponder(mid2);
        try {
            Issued ben = mid2.issueWithOcsp(mid2Ocsp.uri(), "ben");
            rootOcsp.answer = Answer.REVOKED;
            assertThat(get(ben, "chain.example.test").body()).isEqualTo(refused("certificate revoked"));
            assertThat(get(ben, "leaf.example.test").status()).isEqualTo(200);
        } finally {
            mid2Ocsp.close();
        }
    }

    @Test
    void theNamedResponderIsAskedInsteadOfTheCertificatesOwn() throws Exception {
        int asked = named.requests.get();
        assertThat(get(root.issue(KeyType.EC, "dora"), "named.example.test").status()).isEqualTo(200);
        Issued alice = root.issueWithOcsp(rootOcsp.uri(), "alice");
        int rootAsked = rootOcsp.requests.get();
        assertThat(get(alice, "named.example.test").status()).isEqualTo(200);
        assertThat(named.requests.get()).isEqualTo(asked + 2);
        assertThat(rootOcsp.requests.get()).isEqualTo(rootAsked);
    }

    /**
     * The request sent right after the handshake waits for the answer, and reaches the app only with it; connections
     * that show the same certificate meanwhile wait for the same question.
     */
    @Test
    void theFirstRequestWaitsForTheAnswerAndConnectionsMeanwhileShareIt() throws Exception {
        Issued alice = root.issueWithOcsp(rootOcsp.uri(), "alice");
        rootOcsp.delay = Duration.ofSeconds(1);
        int asked = rootOcsp.requests.get();
        int before = app.requests();
        CompletableFuture<TlsClient.Response> first = CompletableFuture.supplyAsync(() -> call(alice));
        CompletableFuture<TlsClient.Response> second = CompletableFuture.supplyAsync(() -> call(alice));
        await().atMost(Duration.ofSeconds(10)).until(() -> rootOcsp.requests.get() == asked + 1);
        assertThat(app.requests()).as("held while the responder thinks").isEqualTo(before);
        assertThat(first.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(second.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(rootOcsp.requests.get()).isEqualTo(asked + 1);
        assertThat(app.requests()).isEqualTo(before + 2);
    }

    private TlsClient.Response call(Issued id) {
        try {
            return get(id, "leaf.example.test");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void noCertificateAsksNothing() throws Exception {
        int asked = rootOcsp.requests.get() + midOcsp.requests.get() + named.requests.get();
        assertThat(get(null, "opt.example.test").status()).isEqualTo(200);
        assertThat(app.last().header("ssl-client-verify")).isEqualTo("NONE");
        assertThat(get(null, "leaf.example.test").body()).isEqualTo("400 Bad Request: a client certificate is required\n");
        assertThat(rootOcsp.requests.get() + midOcsp.requests.get() + named.requests.get()).isEqualTo(asked);
    }

    /** A connection set up before a reload changed what its host asks has no verdict to go by: 421, connect again. */
    @Test
    void aReloadThatChangesTheChecksSendsOpenConnectionsToConnectAgain() throws Exception {
        Issued alice = root.issueWithOcsp(rootOcsp.uri(), "alice");
        try (TlsClient c = new TlsClient(client(alice), https(), "leaf.example.test")) {
            assertThat(c.get("/x", "leaf.example.test").status()).isEqualTo(200);
            proxy.reloadConfig(config("off"));
            assertThat(c.get("/x", "leaf.example.test").status()).isEqualTo(421);
        }
        rootOcsp.answer = Answer.REVOKED;
        assertThat(get(alice, "leaf.example.test").status()).as("nothing asked now").isEqualTo(200);
    }

    @Test
    void http2RequestsWaitAndAreJudgedToo() throws Exception {
        Issued alice = root.issueWithOcsp(rootOcsp.uri(), "alice");
        rootOcsp.answer = Answer.REVOKED;
        Issued carol = root.issueWithOcsp(rootOcsp.uri(), "carol");
        // Answers are kept per certificate: alice's is asked while the responder says good.
        rootOcsp.answer = Answer.GOOD;
        assertThat(curl(alice)).isEqualTo("2 200");
        rootOcsp.answer = Answer.REVOKED;
        assertThat(curl(carol)).isEqualTo("2 400");
    }

    private String curl(Issued id) throws Exception {
        Path[] files = id.write(dir, id.certificate().getSerialNumber().toString(16));
        String host = "leaf.example.test";
        java.util.List<String> cmd = java.util.List.of("curl", "-s", "--max-time", "10", "--http2", "-k",
                "--resolve", host + ":" + https().getPort() + ":127.0.0.1", "-o", "/dev/null",
                "-w", "%{http_version} %{http_code}", "--cert", files[0].toString(), "--key", files[1].toString(),
                "https://" + host + ":" + https().getPort() + "/x");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        return out.trim();
    }
}
