package dev.strait.proxy.passthrough;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestCertificates.KeyType;
import dev.strait.proxy.testing.TestServing;
import dev.strait.proxy.testing.TestUpstream;
import dev.strait.proxy.testing.TlsClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** TLS passthrough on real sockets: the backend's own certificate, SNI choice, HTTP for such hosts, failed endpoints. */
class TlsPassthroughTest {
    static TestCertificates pki;
    static Issued proxyCert;
    static Issued backendCert;

    final ProxyHarness proxy = new ProxyHarness();

    @BeforeAll
    static void certificates() throws Exception {
        pki = new TestCertificates();
        proxyCert = pki.issue(KeyType.EC, "proxy.test", "proxy.test", "*.example.test");
        backendCert = pki.issue(KeyType.RSA, "backend.example.test", "backend.example.test", "*.pass.example.test");
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    /** An https and an http listener; the backend's hosts passed through to {@code endpoints}, the rest answered. */
    static String config(String endpoints, String extra) {
        return """
                workers: 1
                accessLog: { enabled: true }
                listeners:
                  - name: https
                    address: "127.0.0.1:0"
                    tls: { certificates: [ %s ] }
                  - name: http
                    address: "127.0.0.1:0"
                %s
                upstreams: [ { name: backend, endpoints: [ %s ] } ]
                routes:
                  - name: backend
                    hosts: [ backend.example.test, "*.pass.example.test" ]
                    tlsPassthrough: { upstream: backend }
                  - name: site
                    hosts: [ "*" ]
                    rules: [ { respond: { status: 200, body: "from the proxy" } } ]
                """.formatted(proxyCert.configEntry(), extra, endpoints);
    }

    ByteArrayOutputStream logged;

    void start(String yaml) throws Exception {
        logged = new ByteArrayOutputStream();
        proxy.serving = TestServing.serving(yaml);
        proxy.metrics = new ProxyMetrics();
        AccessLog log = proxy.add(new AccessLog(logged));
        proxy.server = proxy.add(new ProxyServer(proxy.serving.snapshot().config(), proxy.serving, proxy.metrics, log)
                .start());
    }

    InetSocketAddress https() {
        return proxy.server.address("https");
    }

    String log() {
        synchronized (logged) {
            return logged.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void aPassedThroughHostIsAnsweredByItsBackendOverItsOwnTls() throws Exception {
        TlsBackend backend = proxy.add(new TlsBackend(0));
        start(config("\"" + backend.endpoint() + "\"", ""));
        for (String name : new String[] {"backend.example.test", "a.pass.example.test", "x.y.pass.example.test"}) {
            try (TlsClient c = new TlsClient(pki.clientContext(), https(), name)) {
                assertThat(c.peerCn()).as("%s: the backend's certificate, not the proxy's", name)
                        .isEqualTo("backend.example.test");
                TlsClient.Response r = c.get("/x", name);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).as("the ClientHello reached the backend as sent").isEqualTo("backend saw " + name);
            }
        }
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "other.example.test")) {
            assertThat(c.peerCn()).as("other names end TLS here").isEqualTo("proxy.test");
            assertThat(c.get("/", "other.example.test").body()).isEqualTo("from the proxy");
        }
        assertThat(backend.connections.get()).isEqualTo(3);
        await().atMost(Duration.ofSeconds(5)).until(() -> log().lines()
                .filter(l -> l.contains("\"tls-passthrough\"") && l.contains("\"status\":200")).count() == 3);
        assertThat(log()).contains("\"route\":\"backend\"").contains("\"host\":\"a.pass.example.test\"");
        assertThat(proxy.metrics.scrape()).contains("strait_requests_total{route=\"backend\",status=\"200\"} 3.0");
    }

    /**
     * A client that sends, shuts its sending side (a FIN) and waits for the answer gets it: the FIN is passed on to
     * the backend once what came before it is there, and the backend's bytes still come back, as through nginx's
     * stream proxy. The backend here reads to the end before it answers with what it counted.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"io_uring", "epoll", "nio"})
    void aHalfCloseIsPassedOnAndTheAnswerStillComesBack(String transport) throws Exception {
        try (ServerSocket backend = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread counter = new Thread(() -> {
                try (Socket s = backend.accept()) {
                    s.setSoTimeout(10_000);
                    long n = s.getInputStream().transferTo(OutputStream.nullOutputStream()); // to the FIN
                    Thread.sleep(200); // answers a while after the client's FIN
                    s.getOutputStream().write(("counted " + n).getBytes(StandardCharsets.US_ASCII));
                } catch (Exception e) {
                    // the test fails on the client's side
                }
            }, "counting-backend");
            counter.start();
            start(config("\"127.0.0.1:" + backend.getLocalPort() + "\"", "transport: " + transport));
            byte[] hello = clientHello("backend.example.test");
            byte[] more = new byte[100_000];
            try (Socket c = new Socket(https().getAddress(), https().getPort())) {
                c.setSoTimeout(10_000);
                c.getOutputStream().write(hello);
                c.getOutputStream().write(more);
                c.shutdownOutput();
                assertThat(new String(c.getInputStream().readAllBytes(), StandardCharsets.US_ASCII))
                        .isEqualTo("counted " + (hello.length + more.length));
            }
            counter.join(10_000);
        }
    }

    /** The first TLS record a client sends: its ClientHello, naming {@code serverName}. */
    private static byte[] clientHello(String serverName) throws Exception {
        javax.net.ssl.SSLEngine engine = SSLContext.getDefault().createSSLEngine(serverName, 443);
        engine.setUseClientMode(true);
        javax.net.ssl.SSLParameters p = engine.getSSLParameters();
        p.setServerNames(java.util.List.of(new SNIHostName(serverName)));
        engine.setSSLParameters(p);
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(java.nio.ByteBuffer.allocate(0), out);
        out.flip();
        byte[] record = new byte[out.remaining()];
        out.get(record);
        return record;
    }

    /** A backend on a unix socket (ADR 0103): its TLS goes through as it is, as a TCP backend's does. */
    @Test
    void aBackendOnAUnixSocketIsPassedThroughToo(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        TestUpstream backend = proxy.add(TestUpstream.startTls(io.netty.handler.ssl.SslContextBuilder
                .forServer(backendCert.key(), backendCert.certificate()).build(),
                TestUpstream.reply(200, "backend on a socket"), dir.resolve("backend.sock")));
        start(config("\"" + backend.endpoint() + "\"", ""));
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "backend.example.test")) {
            assertThat(c.peerCn()).as("the backend's certificate, not the proxy's").isEqualTo("backend.example.test");
            TlsClient.Response r = c.get("/x", "backend.example.test");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("backend on a socket");
        }
        assertThat(backend.connections()).isEqualTo(1);
    }

    @Test
    void aPassedThroughConnectionOutlivesTheHandshakeTimeout() throws Exception {
        TlsBackend backend = proxy.add(new TlsBackend(1500));
        start(config("\"" + backend.endpoint() + "\"", "limits: { headerTimeout: 1s }"));
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "backend.example.test")) {
            assertThat(c.get("/slow", "backend.example.test").body()).isEqualTo("backend saw backend.example.test");
        }
    }

    @Test
    void plainHttpForAPassedThroughHostGoesToHttpsAndEndedTlsIsMisdirected() throws Exception {
        TlsBackend backend = proxy.add(new TlsBackend(0));
        start(config("\"" + backend.endpoint() + "\"", "") + """
                  - name: acme-solver
                    hosts: [ backend.example.test ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /.well-known/acme-challenge/ } } ]
                        respond: { status: 200, body: "token" }
                """);
        try (RawClient c = new RawClient(proxy.server.address("http"))) {
            RawClient.Response r = c.send("GET /app?a=1 HTTP/1.1\r\nHost: backend.example.test\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(308);
            assertThat(r.header("location")).isEqualTo("https://backend.example.test/app?a=1");
            assertThat(c.send("GET /.well-known/acme-challenge/t1 HTTP/1.1\r\nHost: backend.example.test\r\n\r\n")
                    .read().text()).as("another route's rule for the host answers plain HTTP").isEqualTo("token");
            assertThat(c.send("GET / HTTP/1.1\r\nHost: www.example.test\r\n\r\n").read().text()).isEqualTo("from the proxy");
        }
        // TLS ended here (the SNI named another host) for a request to a passed-through host: 421, as RFC 9110 says.
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "www.example.test")) {
            TlsClient.Response r = c.get("/", "backend.example.test");
            assertThat(r.status()).isEqualTo(421);
        }
        assertThat(backend.connections.get()).isZero();
    }

    @Test
    void aRefusingEndpointIsSkippedAndWithNoneLeftTheClientIsClosed() throws Exception {
        TlsBackend backend = proxy.add(new TlsBackend(0));
        int dead = deadPort();
        start(config("\"127.0.0.1:" + dead + "\", \"" + backend.endpoint() + "\"", ""));
        for (int i = 0; i < 4; i++) {
            try (TlsClient c = new TlsClient(pki.clientContext(), https(), "backend.example.test")) {
                assertThat(c.get("/", "backend.example.test").status()).as("try %d", i).isEqualTo(200);
            }
        }
        proxy.reloadConfig(config("\"127.0.0.1:" + dead + "\"", ""));
        assertThatThrownBy(() -> new TlsClient(pki.clientContext(), https(), "backend.example.test").close())
                .as("no endpoint took it: closed, never answered with the proxy's certificate")
                .isInstanceOf(IOException.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> log().contains("\"status\":502"));
        assertThat(proxy.metrics.scrape()).contains("strait_requests_total{route=\"backend\",status=\"502\"} 1.0");
    }

    @Test
    void aReloadStartsAndStopsPassingThroughForNewConnections() throws Exception {
        TlsBackend backend = proxy.add(new TlsBackend(0));
        String passing = config("\"" + backend.endpoint() + "\"", "");
        start(passing.replace("tlsPassthrough: { upstream: backend }", "rules: [ { respond: { body: \"ended here\" } } ]"));
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "backend.example.test")) {
            assertThat(c.peerCn()).isEqualTo("proxy.test");
            assertThat(c.get("/", "backend.example.test").body()).isEqualTo("ended here");
        }
        proxy.reloadConfig(passing);
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "backend.example.test")) {
            assertThat(c.peerCn()).isEqualTo("backend.example.test");
        }
    }

    /** An ingress whose only TLS use is passthrough (an Argo CD on its own) holds no certificate at all. */
    @Test
    void aListenerWithoutCertificatesOnlyPassesThrough() throws Exception {
        TlsBackend backend = proxy.add(new TlsBackend(0));
        start(config("\"" + backend.endpoint() + "\"", "")
                .replace("tls: { certificates: [ " + proxyCert.configEntry() + " ] }", "tls: { certificates: [] }"));
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "backend.example.test")) {
            assertThat(c.get("/", "backend.example.test").body()).isEqualTo("backend saw backend.example.test");
        }
        for (String other : new String[] {"other.example.test", null}) {
            assertThatThrownBy(() -> new TlsClient(pki.clientContext(), https(), other).close())
                    .as("%s: no certificate to answer with", other).isInstanceOf(IOException.class);
        }
        try (TlsClient c = new TlsClient(pki.clientContext(), https(), "a.pass.example.test")) {
            assertThat(c.peerCn()).as("the listener still serves after refusing").isEqualTo("backend.example.test");
        }
    }

    /** A long-lived passed-through connection weighs on its endpoint: least-request sends the next ones elsewhere. */
    @Test
    void leastRequestCountsTheOpenConnections() throws Exception {
        TlsBackend first = proxy.add(new TlsBackend(0));
        TlsBackend second = proxy.add(new TlsBackend(0));
        start(config("\"" + first.endpoint() + "\", \"" + second.endpoint() + "\"", "")
                .replace("{ name: backend, endpoints:", "{ name: backend, loadBalancer: least-request, endpoints:"));
        try (TlsClient held = new TlsClient(pki.clientContext(), https(), "backend.example.test")) {
            await().atMost(Duration.ofSeconds(5)).until(() -> first.open.get() + second.open.get() == 1);
            TlsBackend busy = first.open.get() == 1 ? first : second;
            TlsBackend idle = busy == first ? second : first;
            for (int i = 0; i < 20; i++) {
                try (TlsClient c = new TlsClient(pki.clientContext(), https(), "backend.example.test")) {
                    assertThat(c.get("/", "backend.example.test").status()).isEqualTo(200);
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> proxy.metrics.openConnections() == 1
                        && idle.open.get() == 0);
            }
            assertThat(idle.connections.get()).as("of 20 short connections while one is held on the other")
                    .isGreaterThanOrEqualTo(18);
        }
    }

    /** Connections that end every way (answered, quiet, cut mid-hello, reset) leave nothing open on either side. */
    @Test
    void connectionsThatEndEveryWayLeaveNothingOpen() throws Exception {
        TlsBackend backend = proxy.add(new TlsBackend(0));
        start(config("\"" + backend.endpoint() + "\"", ""));
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int i = 0; i < 80; i++) {
                int kind = i % 4;
                done.add(clients.submit(() -> {
                    endOneWay(kind);
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(20, java.util.concurrent.TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(proxy.metrics.openConnections()).as("the proxy's client connections").isZero();
            assertThat(backend.open.get()).as("the backend's connections").isZero();
        });
        assertThat(backend.connections.get()).as("every handshake that got through reached the backend").isEqualTo(60);
    }

    /** 0: a request answered; 1: a handshake, then a close; 2: half a ClientHello, then a close; 3: a reset. */
    private void endOneWay(int kind) throws Exception {
        switch (kind) {
            case 0 -> {
                try (TlsClient c = new TlsClient(pki.clientContext(), https(), "backend.example.test")) {
                    assertThat(c.get("/", "backend.example.test").status()).isEqualTo(200);
                }
            }
            case 1 -> new TlsClient(pki.clientContext(), https(), "backend.example.test").close();
            case 2 -> {
                try (Socket s = new Socket(https().getAddress(), https().getPort())) {
                    s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc});
                }
            }
            default -> {
                Socket raw = new Socket(https().getAddress(), https().getPort());
                SSLSocket tls = (SSLSocket) pki.clientContext().getSocketFactory().createSocket(raw,
                        "backend.example.test", https().getPort(), true);
                javax.net.ssl.SSLParameters p = tls.getSSLParameters();
                p.setServerNames(java.util.List.of(new SNIHostName("backend.example.test")));
                tls.setSSLParameters(p);
                tls.startHandshake();
                raw.setSoLinger(true, 0); // closed with a reset
                raw.close();
            }
        }
    }

    /** A listener behind a balancer's PROXY header passes the client it named on to a backend that asks for one. */
    @Test
    void theBackendIsToldTheClientInAProxyProtocolHeader() throws Exception {
        TlsBackend backend = proxy.add(new TlsBackend(0, true));
        String behindBalancer = config("\"" + backend.endpoint() + "\"", "")
                .replace("  - name: https\n    address: \"127.0.0.1:0\"",
                        "  - name: https\n    address: \"127.0.0.1:0\"\n    proxyProtocol: true");
        start(behindBalancer.replace("tlsPassthrough: { upstream: backend }",
                "tlsPassthrough: { upstream: backend, proxyProtocol: 2 }"));
        assertThat(throughBalancer("203.0.113.7")).endsWith("backend saw backend.example.test");
        assertThat(backend.headers).containsExactly("v2 203.0.113.7");
        await().atMost(Duration.ofSeconds(5)).until(() -> log().contains("\"remote\":\"203.0.113.7\""));

        proxy.reloadConfig(behindBalancer.replace("tlsPassthrough: { upstream: backend }",
                "tlsPassthrough: { upstream: backend, proxyProtocol: 1 }"));
        assertThat(throughBalancer("198.51.100.9")).endsWith("backend saw backend.example.test");
        assertThat(backend.headers).containsExactly("v2 203.0.113.7", "v1 198.51.100.9");
    }

    /** One request as a TCP balancer forwards it: its PROXY header naming {@code client}, then the client's TLS. */
    private String throughBalancer(String client) throws Exception {
        try (Socket raw = new Socket(https().getAddress(), https().getPort())) {
            raw.getOutputStream().write(("PROXY TCP4 " + client + " 10.0.0.1 51234 443\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            SSLSocket tls = (SSLSocket) pki.clientContext().getSocketFactory().createSocket(raw, "backend.example.test",
                    https().getPort(), false);
            javax.net.ssl.SSLParameters p = tls.getSSLParameters();
            p.setServerNames(java.util.List.of(new SNIHostName("backend.example.test")));
            tls.setSSLParameters(p);
            tls.setSoTimeout(5000);
            tls.getOutputStream().write("GET / HTTP/1.1\r\nHost: backend.example.test\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            return new String(tls.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static int deadPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort(); // closed again: connecting is refused
        }
    }

    /**
     * A TLS server with the backend's certificate that answers each request with the SNI name it was sent; with
     * {@code proxyHeader}, each connection first brings a PROXY protocol header, whose client it records.
     */
    static final class TlsBackend implements AutoCloseable {
        final ServerSocket server;
        final AtomicInteger connections = new AtomicInteger();
        /** Connections accepted and not yet closed. */
        final AtomicInteger open = new AtomicInteger();
        /** The client each connection's PROXY header named ({@code v1 203.0.113.7}, {@code v2 203.0.113.7}). */
        final java.util.List<String> headers = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final SSLContext ctx;
        private final Thread acceptor;

        TlsBackend(long answerDelayMillis) throws Exception {
            this(answerDelayMillis, false);
        }

        TlsBackend(long answerDelayMillis, boolean proxyHeader) throws Exception {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("backend", backendCert.key(), new char[0], new Certificate[] {backendCert.certificate()});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, new char[0]);
            ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        connections.incrementAndGet();
                        open.incrementAndGet();
                        new Thread(() -> serve(s, answerDelayMillis, proxyHeader), "tls-backend-conn").start();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "tls-backend");
            acceptor.start();
        }

        String endpoint() {
            return "127.0.0.1:" + server.getLocalPort();
        }

        private void serve(Socket raw, long delay, boolean proxyHeader) {
            try (raw; AutoCloseable counted = open::decrementAndGet) {
                raw.setSoTimeout(10_000);
                if (proxyHeader) {
                    headers.add(readProxyHeader(raw.getInputStream()));
                }
                SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(raw, null, raw.getPort(), false);
                s.setUseClientMode(false);
                InputStream in = s.getInputStream();
                int matched = 0;
                while (matched < 4) {
                    int c = in.read();
                    if (c < 0) {
                        return;
                    }
                    matched = (c == "\r\n\r\n".charAt(matched)) ? matched + 1 : (c == '\r' ? 1 : 0);
                }
                if (delay > 0) {
                    Thread.sleep(delay);
                }
                String sni = ((ExtendedSSLSession) s.getSession()).getRequestedServerNames().stream()
                        .filter(n -> n instanceof SNIHostName).map(n -> ((SNIHostName) n).getAsciiName())
                        .findFirst().orElse("no name");
                byte[] body = ("backend saw " + sni).getBytes(StandardCharsets.UTF_8);
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.write(body);
                out.flush();
            } catch (Exception e) {
                // the client went away: nothing to answer
            }
        }

        /** {@code v1 ADDRESS} from a text header, {@code v2 ADDRESS} from a binary one over TCP4. */
        private static String readProxyHeader(InputStream in) throws IOException {
            int first = in.read();
            if (first == 'P') {
                StringBuilder line = new StringBuilder("P");
                for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
                    line.append((char) c);
                }
                return "v1 " + line.toString().trim().split(" ")[2];
            }
            byte[] fixed = in.readNBytes(15);
            byte[] rest = in.readNBytes(((fixed[13] & 0xff) << 8) | (fixed[14] & 0xff));
            return fixed[12] == 0x11 ? "v2 " + InetAddress.getByAddress(java.util.Arrays.copyOf(rest, 4)).getHostAddress()
                    : "v2 family " + fixed[12];
        }

        @Override
        public void close() throws Exception {
            server.close();
            acceptor.join(5000);
        }
    }
}
