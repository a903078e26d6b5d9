package dev.strait.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import dev.strait.proxy.config.ConfigFiles;
import dev.strait.proxy.config.ConfigReloader;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestCertificates.KeyType;
import dev.strait.proxy.testing.TestUpstream;
import dev.strait.proxy.testing.TlsClient;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS listeners on real sockets: SNI choice, PEM forms, bad input, reload under open connections, scheme. */
class TlsListenerTest {
    static TestCertificates pki;
    static Issued fallback;
    static Issued exact;
    static Issued wildcard;

    @TempDir
    Path dir;
    final ProxyHarness proxy = new ProxyHarness();

    @BeforeAll
    static void certificates() throws Exception {
        pki = new TestCertificates();
        fallback = pki.issue(KeyType.EC, "default.test", "default.test");
        exact = pki.issue(KeyType.RSA, "a.example.test", "a.example.test");
        wildcard = pki.issue(KeyType.EC, "wild.example.test", "*.example.test");
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    static String q(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    static String cert(Issued i) {
        return "{ cert: " + q(i.certPem()) + ", key: " + q(i.keyPem()) + " }";
    }

    static String config(String certificates, String routes) {
        return """
                accessLog: { enabled: false }
                listeners:
                  - name: https
                    address: "127.0.0.1:0"
                    tls: { certificates: [ %s ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Exact, value: /hello } } ]
                        respond: { status: 200, body: "hello, world!\\n" }
                %s
                """.formatted(certificates, routes);
    }

    InetSocketAddress https() {
        return proxy.server.address("https");
    }

    @Test
    void sniPicksExactThenWildcardThenDefault() throws Exception {
        proxy.startConfig(config(cert(fallback) + ", " + cert(exact) + ", " + cert(wildcard), ""));
        String[][] cases = {
                {"a.example.test", "a.example.test"},
                {"b.example.test", "wild.example.test"},
                {"A.Example.Test", "a.example.test"},
                {"x.b.example.test", "default.test"}, // a wildcard covers one label only
                {"other.test", "default.test"},
                {null, "default.test"},
        };
        for (String[] c : cases) {
            // A new client context each time: the JDK client caches sessions by address, not by SNI name,
            // and would offer a.example.test's session when it asks for b.example.test.
            try (TlsClient client = new TlsClient(pki.clientContext(), https(), c[0])) {
                assertThat(client.peerCn()).as("SNI %s", c[0]).isEqualTo(c[1]);
                String host = c[0] == null ? "default.test" : c[0].toLowerCase();
                TlsClient.Response r = client.get("/hello", host);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("hello, world!\n");
            }
        }
    }

    /**
     * A controller-wide default listed first (the operator's --default-ssl-certificate, a wildcard) yields the names it
     * shares to the hosts' own certificates; between two others, the first listed keeps a shared name.
     */
    @Test
    void theDefaultYieldsANameItSharesWithAnotherCertificate() throws Exception {
        Issued wideDefault = pki.issue(KeyType.EC, "controller.example.test", "*.example.test", "a.example.test");
        Issued ownWildcard = pki.issue(KeyType.EC, "own-wild.example.test", "*.example.test");
        Issued secondWildcard = pki.issue(KeyType.EC, "second-wild.example.test", "*.example.test");
        proxy.startConfig(config(cert(wideDefault) + ", " + cert(exact) + ", " + cert(ownWildcard) + ", "
                + cert(secondWildcard), ""));
        String[][] cases = {
                {"a.example.test", "a.example.test"},          // the default's exact name, another's too
                {"b.example.test", "own-wild.example.test"},   // the default's wildcard, another's too: the first other
                {"other.test", "controller.example.test"},     // nobody's: the default
                {null, "controller.example.test"},
        };
        for (String[] c : cases) {
            try (TlsClient client = new TlsClient(pki.clientContext(), https(), c[0])) {
                assertThat(client.peerCn()).as("SNI %s", c[0]).isEqualTo(c[1]);
            }
        }
    }

    @Test
    void tls12And13WithRsaAndEcdsa() throws Exception {
        proxy.startConfig(config(cert(fallback) + ", " + cert(exact), ""));
        for (String version : new String[] {"TLSv1.2", "TLSv1.3"}) {
            for (String sni : new String[] {"a.example.test", "default.test"}) {
                var ctx = javax.net.ssl.SSLContext.getInstance(version);
                ctx.init(null, trustManagers(), null);
                try (TlsClient client = new TlsClient(ctx, https(), sni)) {
                    assertThat(client.tlsVersion()).isEqualTo(version);
                    assertThat(client.get("/hello", sni).status()).isEqualTo(200);
                }
            }
        }
    }

    static javax.net.ssl.TrustManager[] trustManagers() throws Exception {
        var ks = java.security.KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setCertificateEntry("ca", pki.ca());
        var tmf = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        return tmf.getTrustManagers();
    }

    @Test
    void inlinePemInEveryKeyEncoding() throws Exception {
        Issued rsa1 = pki.issue(KeyType.RSA, true, "rsa.test", "rsa.test");
        Issued sec1 = pki.issue(KeyType.EC, true, "ec.test", "ec.test");
        assertThat(rsa1.keyPem()).contains("BEGIN RSA PRIVATE KEY");
        assertThat(sec1.keyPem()).contains("BEGIN EC PRIVATE KEY");
        proxy.startConfig(config(cert(fallback) + ", " + cert(rsa1) + ", " + cert(sec1), ""));
        for (String name : new String[] {"rsa.test", "ec.test", "default.test"}) {
            try (TlsClient client = new TlsClient(pki.clientContext(), https(), name)) {
                assertThat(client.peerCn()).isEqualTo(name);
                assertThat(client.get("/hello", name).status()).isEqualTo(200);
            }
        }
    }

    @Test
    void certificateFilesAndTheirErrorsByFieldPath() throws Exception {
        Path[] a = fallback.write(dir, "a");
        Path[] b = exact.write(dir, "b");
        Files.writeString(dir.resolve("junk.key"), "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
        String good = "{ cert: " + q(a[0].toString()) + ", key: " + q(a[1].toString()) + " }";
        // A good pair from files builds.
        assertThat(SnapshotBuilder.build(ConfigParser.parse(config(good, ""), "t"), "t").tls().listener("https"))
                .isNotNull();
        String[][] bad = {
                {"{ cert: " + q(b[0].toString()) + ", key: " + q(dir.resolve("junk.key").toString()) + " }",
                        "listeners[0].tls.certificates[1].key: not a valid RSA or EC private key"},
                {"{ cert: " + q(b[0].toString()) + ", key: " + q(a[1].toString()) + " }",
                        "listeners[0].tls.certificates[1].key: does not match the certificate"},
                {"{ cert: " + q(dir.resolve("missing.crt").toString()) + ", key: " + q(b[1].toString()) + " }",
                        "listeners[0].tls.certificates[1].cert: file " + dir.resolve("missing.crt") + " does not exist"},
                {"{ cert: \"-----BEGIN CERTIFICATE-----\\nnope\\n-----END CERTIFICATE-----\", key: " + q(b[1].toString()) + " }",
                        "listeners[0].tls.certificates[1].cert: "},
        };
        for (String[] c : bad) {
            assertThatThrownBy(() -> SnapshotBuilder.build(ConfigParser.parse(config(good + ", " + c[0], ""), "t"), "t"))
                    .isInstanceOf(InvalidConfigException.class).hasMessageContaining(c[1]);
        }
    }

    /**
     * An expired (or not yet valid) certificate is served, as by nginx and Envoy, but never in silence:
     * every build of the config (a start, a reload, {@code --check}) warns with its field path.
     */
    @Test
    void anExpiredCertificateIsNamedByItsFieldPath() throws Exception {
        java.time.Instant now = java.time.Instant.now();
        Issued expired = pki.issue(KeyType.EC, false, now.minus(Duration.ofDays(30)), now.minus(Duration.ofDays(1)),
                "old.test", "old.test");
        Issued early = pki.issue(KeyType.EC, false, now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(30)),
                "new.test", "new.test");
        var tls = SnapshotBuilder.build(ConfigParser.parse(config(cert(fallback) + ", " + cert(expired) + ", "
                + cert(early), ""), "t"), "t").tls();
        assertThat(tls.listener("https")).isNotNull();
        assertThat(tls.warnings()).hasSize(2);
        assertThat(tls.warnings().get(0)).startsWith("listeners[0].tls.certificates[1].cert: the certificate for "
                + "[old.test] expired at ");
        assertThat(tls.warnings().get(1)).startsWith("listeners[0].tls.certificates[2].cert: the certificate for "
                + "[new.test] not valid before ");
        assertThat(SnapshotBuilder.build(ConfigParser.parse(config(cert(fallback), ""), "t"), "t").tls().warnings())
                .isEmpty();
    }

    @Test
    void reloadedCertificateServesNewHandshakesWhileOpenConnectionsKeepTheirs() throws Exception {
        Path[] files = fallback.write(dir, "site");
        Path configFile = dir.resolve("strait.yaml");
        Files.writeString(configFile, config("{ cert: " + q(files[0].toString()) + ", key: " + q(files[1].toString()) + " }", ""));
        Serving serving = new Serving(ConfigFiles.load(configFile));
        ProxyMetrics metrics = new ProxyMetrics();
        ProxyServer server = proxy.add(new ProxyServer(serving.snapshot().config(), serving, metrics, null).start());
        ConfigReloader reloader = proxy.add(new ConfigReloader(configFile, serving, metrics));
        InetSocketAddress address = server.address("https");

        TlsClient old = proxy.add(new TlsClient(pki.clientContext(), address, "default.test"));
        var before = old.peer().getSerialNumber();
        assertThat(old.get("/hello", "default.test").status()).isEqualTo(200);

        // A bad key in the file: refused, the last good certificate keeps serving.
        Files.writeString(files[1], "garbage");
        assertThat(reloader.reload("test")).isFalse();
        try (TlsClient c = new TlsClient(pki.clientContext(), address, "default.test")) {
            assertThat(c.peer().getSerialNumber()).isEqualTo(before);
        }

        // The new pair: picked up by the file watch, without touching the config file.
        Issued renewed = pki.issue(KeyType.EC, "default.test", "default.test");
        long swaps = serving.swaps();
        Files.writeString(files[0], renewed.certPem());
        Files.writeString(files[1], renewed.keyPem());
        await().atMost(Duration.ofSeconds(10)).until(() -> serving.swaps() > swaps
                && serving.snapshot().tls().listener("https").defaultCertificate() != null
                && !newHandshakeSerial(address).equals(before));
        try (TlsClient c = new TlsClient(pki.clientContext(), address, "default.test")) {
            assertThat(c.peer().getSerialNumber()).isEqualTo(renewed.certificate().getSerialNumber());
            assertThat(c.get("/hello", "default.test").status()).isEqualTo(200);
        }
        // The connection opened before the reload still works, on its old certificate.
        assertThat(old.get("/hello", "default.test").status()).isEqualTo(200);
        assertThat(old.peer().getSerialNumber()).isEqualTo(before);
        reloader.close();
    }

    private static java.math.BigInteger newHandshakeSerial(InetSocketAddress address) throws Exception {
        try (TlsClient c = new TlsClient(pki.clientContext(), address, "default.test")) {
            return c.peer().getSerialNumber();
        }
    }

    /** Runs openssl s_client once, sending one request; returns its output. */
    private String sClient(String version, String sessionFlag, Path session) throws Exception {
        return sClient(version, "default.test", sessionFlag, session);
    }

    private String sClient(String version, String sni, String sessionFlag, Path session) throws Exception {
        Process p = new ProcessBuilder("openssl", "s_client", version, "-connect", "127.0.0.1:" + https().getPort(),
                "-servername", sni, sessionFlag, session.toString(), "-ign_eof")
                .redirectErrorStream(true).start();
        // Reading the answer to a request also reads the TLS 1.3 tickets that come after the handshake.
        p.getOutputStream().write(("GET /hello HTTP/1.1\r\nHost: " + sni + "\r\nConnection: close\r\n\r\n")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("hello, world!");
        return out;
    }

    /**
     * What a scanner checks first: no TLS 1.0 or 1.1, no suite without forward secrecy or with CBC, and
     * ALPN that falls back to HTTP/1.1 for a protocol it does not know. openssl offers what the JDK will not.
     */
    @Test
    void oldProtocolsAndWeakSuitesAreRefused() throws Exception {
        proxy.startConfig(config(cert(fallback) + ", " + cert(exact), ""));
        String[][] refused = {
                {"-tls1"}, {"-tls1_1"},
                {"-tls1_2", "-cipher", "AES128-SHA"}, {"-tls1_2", "-cipher", "AES128-GCM-SHA256"},
                {"-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"}, {"-tls1_2", "-cipher", "ECDHE-RSA-AES256-SHA384"},
        };
        for (String[] flags : refused) {
            assertThat(openssl(flags)).as(String.join(" ", flags)).contains("Cipher is (NONE)");
        }
        assertThat(openssl("-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"))
                .contains("Cipher is ECDHE-ECDSA-AES128-GCM-SHA256");
        assertThat(openssl("-alpn", "spdy/3,h2")).contains("ALPN protocol: h2");
        assertThat(openssl("-alpn", "spdy/3")).contains("No ALPN negotiated");
    }

    private String openssl(String... flags) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("openssl", "s_client", "-connect",
                "127.0.0.1:" + https().getPort(), "-servername", "default.test"));
        cmd.addAll(java.util.List.of(flags));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return out;
    }

    @Test
    void sessionsResumeWithTickets() throws Exception {
        proxy.startConfig(config(cert(fallback) + ", " + cert(exact), ""));
        for (String version : new String[] {"-tls1_2", "-tls1_3"}) {
            Path session = dir.resolve("session" + version);
            assertThat(sClient(version, "-sess_out", session)).contains("New,");
            assertThat(sClient(version, "-sess_in", session)).as(version).contains("Reused,");
            // A session is only good for the certificate it was made with: another SNI name gets a full handshake.
            String other = sClient(version, "a.example.test", "-sess_in", session);
            assertThat(other).as(version).contains("New,").contains("CN = a.example.test");
        }
    }

    @Test
    void misdirectedRequestWhenTheCertificateDoesNotCoverTheHost() throws Exception {
        proxy.startConfig(config(cert(fallback) + ", " + cert(exact) + ", " + cert(wildcard), ""));
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "a.example.test")) {
            assertThat(c.get("/hello", "a.example.test").status()).isEqualTo(200);
            assertThat(c.get("/hello", "a.example.test:443").status()).isEqualTo(200);
            assertThat(c.get("/hello", "default.test").status()).isEqualTo(421);
            assertThat(c.get("/hello", "b.example.test").status()).isEqualTo(421);
            assertThat(c.get("/hello", "a.example.test").status()).as("the connection stays usable").isEqualTo(200);
        }
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "b.example.test")) {
            assertThat(c.get("/hello", "c.example.test").status()).as("covered by the wildcard").isEqualTo(200);
        }
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), null)) {
            assertThat(c.get("/hello", "anything.test").status()).as("no SNI: nothing to redirect").isEqualTo(200);
        }
    }

    /** As nginx: a plain HTTP request on the TLS port is told why it failed, not met with a silent close. */
    @Test
    void plainHttpOnTheTlsPortGetsA400SayingSo() throws Exception {
        proxy.startConfig(config(cert(fallback), ""));
        try (dev.strait.proxy.testing.RawClient c = new dev.strait.proxy.testing.RawClient(https())) {
            dev.strait.proxy.testing.RawClient.Response r = c.send("GET /hello HTTP/1.1\r\nHost: default.test\r\n\r\n")
                    .read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.text()).contains("plain HTTP request was sent to an HTTPS port");
            assertThat(c.closedByServer()).isTrue();
        }
        try (TlsClient client = new TlsClient(pki.clientContext(), https(), "default.test")) {
            assertThat(client.get("/hello", "default.test").status()).as("TLS clients are served as before").isEqualTo(200);
        }
    }

    /**
     * The 400 must reach a client still sending a body: closed at once with bytes unread, the connection would
     * be reset and the client's stack could drop the 400 before it is read. The proxy shuts its side and reads
     * on until the client closes.
     */
    @Test
    void aPlainHttpUploadOnTheTlsPortStillGetsItsFourHundred() throws Exception {
        proxy.startConfig(config(cert(fallback), ""));
        for (int attempt = 0; attempt < 5; attempt++) {
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(https(), 2000);
                s.setSoTimeout(10_000);
                int size = 4 << 20;
                java.io.OutputStream out = s.getOutputStream();
                out.write(("POST /upload HTTP/1.1\r\nHost: default.test\r\nContent-Length: " + size + "\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                Thread writer = new Thread(() -> {
                    byte[] chunk = new byte[64 * 1024];
                    try {
                        for (int sent = 0; sent < size; sent += chunk.length) {
                            out.write(chunk);
                        }
                        s.shutdownOutput();
                    } catch (java.io.IOException e) {
                        // the proxy may be done reading: the point is what the reader gets
                    }
                });
                writer.start();
                byte[] got = s.getInputStream().readAllBytes();
                writer.join(10_000);
                assertThat(new String(got, java.nio.charset.StandardCharsets.US_ASCII)).as("attempt %d", attempt)
                        .startsWith("HTTP/1.1 400 Bad Request\r\n").contains("plain HTTP request was sent to an HTTPS port");
            }
        }
    }

    @Test
    void proxiedRequestsSayHttpsAndTheEngineIsExported() throws Exception {
        TestUpstream app = proxy.upstream(TestUpstream.echo());
        proxy.startConfig(config(cert(fallback), """
                      - matches: [ { path: { type: Prefix, value: /app/ } } ]
                        backends: [ { upstream: app } ]
                upstreams:
                  - name: app
                    endpoints: [ "%s" ]
                """.formatted(app.endpoint())));
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "default.test")) {
            assertThat(c.get("/app/x", "default.test").status()).isEqualTo(200);
        }
        assertThat(app.last().header("x-forwarded-proto")).isEqualTo("https");
        String engine = TlsEngine.current().label();
        assertThat(proxy.metrics.scrape()).contains("strait_tls_engine{engine=\"" + engine + "\"} 1.0");
        // The shipped native library loads on this platform (linux-x86_64).
        assertThat(engine).isEqualTo(System.getProperty("strait.tls.engine", "openssl"));
    }
}
