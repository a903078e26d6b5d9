package dev.strait.proxy.fastcgi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import dev.strait.proxy.testing.TestServing;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The proxy in front of a real php-fpm (two static children) on loopback: CGI params as PHP sees them,
 * bodies both ways, headers and status from PHP, stderr to the log, kept connections, and more
 * concurrent requests than php-fpm has children waiting in the pool's queue rather than failing.
 */
class PhpFpmTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CHILDREN = 2;

    @TempDir
    static Path dir;
    private static PhpFpm fpm;
    private static ProxyServer proxy;
    private static InetSocketAddress address;

    static String config(PhpFpm fpm, int maxConnections) {
        String www = fpm.www.toString();
        return """
                workers: 2
                accessLog: { enabled: false }
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                upstreams:
                  - { name: php, protocol: fastcgi, endpoints: [ "%2$s" ], maxConnections: %3$d }
                routes:
                  - name: php-site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Exact, value: /slow.php } } ]
                        backends: [ { upstream: php } ]
                        fastcgi: { root: "%1$s" }
                        timeouts: { request: 500ms }
                      - matches: [ { path: { type: Prefix, value: /limited } } ]
                        backends: [ { upstream: php } ]
                        fastcgi: { root: "%1$s", maxBufferedBody: 1024, params: { SCRIPT_FILENAME: "%1$s/echo.php" } }
                      - backends: [ { upstream: php } ]
                        fastcgi: { root: "%1$s/", params: { APP_ENV: test } }
                """.formatted(www, fpm.endpoint(), maxConnections);
    }

    static ProxyServer proxy(String yaml) throws Exception {
        Serving serving = TestServing.serving(yaml);
        return new ProxyServer(serving.snapshot().config(), serving, new ProxyMetrics(), null).start();
    }

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(PhpFpm.binary().isPresent(),
                "php-fpm is not installed (Debian package php8.2-fpm, which .ci/run installs)");
        fpm = PhpFpm.start(dir, CHILDREN);
        fpm.script("index.php", "<?php echo 'index';");
        fpm.script("hello.php", "<?php echo \"hello, world!\\n\";");
        fpm.script("echo.php", """
                <?php
                header('Content-Type: text/plain');
                echo 'len=', $_SERVER['CONTENT_LENGTH'], "\\n", file_get_contents('php://input');
                """);
        fpm.script("server.php", "<?php header('Content-Type: application/json'); echo json_encode($_SERVER);");
        fpm.script("status.php", """
                <?php
                http_response_code(201);
                header('X-Custom: yes');
                header('Set-Cookie: a=1');
                header('Set-Cookie: b=2', false);
                echo 'created';
                """);
        fpm.script("redirect.php", "<?php header('Location: /elsewhere');");
        fpm.script("big.php", """
                <?php
                header('Content-Type: application/octet-stream');
                for ($i = 0; $i < 256; $i++) { echo str_repeat(chr(97 + $i % 26), 8192); flush(); }
                """);
        fpm.script("stderr.php", "<?php error_log('strait-test-marker ' . $_GET['n']); echo 'logged';");
        fpm.script("pid.php", "<?php echo getmypid();");
        fpm.script("pid-slow.php", "<?php usleep(200000); echo getmypid();");
        fpm.script("slow.php", "<?php usleep(1500000); echo 'late';");
        proxy = proxy(config(fpm, CHILDREN));
        address = proxy.address("http");
    }

    @AfterAll
    static void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (fpm != null) {
            fpm.close();
        }
    }

    private static HttpConn.Response get(String path, String... headers) throws Exception {
        return HttpConn.once(address, HttpConn.get(path, headers));
    }

    private static HttpConn.Response post(String path, String body) throws Exception {
        return HttpConn.once(address, "POST " + path + " HTTP/1.1\r\nHost: php.test\r\nContent-Type: text/plain\r\n"
                + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body);
    }

    @Test
    void helloWorld() throws Exception {
        HttpConn.Response r = get("/hello.php");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("hello, world!\n");
        assertThat(r.header("content-type")).startsWith("text/html");
        // PHP sends no length, but php-fpm writes a small page and END_REQUEST in one write: the proxy
        // has the whole answer in one read and gives it a length instead of chunking it.
        assertThat(r.header("transfer-encoding")).isNull();
        assertThat(r.header("content-length")).isEqualTo("14");
        assertThat(r.header("date")).endsWith(" GMT");
    }

    @Test
    void directoryGetsTheIndexScript() throws Exception {
        assertThat(get("/").text()).isEqualTo("index");
    }

    @Test
    void postBodyAndContentLengthReachPhp() throws Exception {
        HttpConn.Response r = post("/echo.php", "name=strait&x=1");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("len=15\nname=strait&x=1");
    }

    @Test
    void largeBodyIsStreamedBothWays() throws Exception {
        byte[] body = new byte[1024 * 1024 + 7];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) ('a' + i % 26);
        }
        try (HttpConn c = new HttpConn(address)) {
            c.send("POST /echo.php HTTP/1.1\r\nHost: php.test\r\nContent-Length: " + body.length + "\r\n\r\n");
            c.send(body);
            HttpConn.Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            String expected = "len=" + body.length + "\n" + new String(body, StandardCharsets.ISO_8859_1);
            assertThat(r.text()).isEqualTo(expected);
        }
    }

    @Test
    void chunkedBodyIsBufferedToLearnItsLength() throws Exception {
        HttpConn.Response r = HttpConn.once(address, "POST /echo.php HTTP/1.1\r\nHost: php.test\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1\r\n \r\n6\r\nworld!\r\n0\r\n\r\n");
        assertThat(r.text()).isEqualTo("len=12\nhello world!");
    }

    /** A chunked body of 1200 bytes, over the /limited rule's 1024 in memory. */
    private static final String CHUNKED_1200 = "POST /limited/echo.php HTTP/1.1\r\nHost: php.test\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n258\r\n" + "x".repeat(600) + "\r\n258\r\n" + "y".repeat(600)
            + "\r\n0\r\n\r\n";

    @Test
    void chunkedBodyOverTheBufferGoesToAFileAndReachesPhpWithItsLength() throws Exception {
        HttpConn.Response r = HttpConn.once(address, CHUNKED_1200);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("len=1200\n" + "x".repeat(600) + "y".repeat(600));
        // Within memory the same route works too: its SCRIPT_FILENAME param points at echo.php.
        HttpConn.Response ok = HttpConn.once(address, "POST /limited/x HTTP/1.1\r\nHost: php.test\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
        assertThat(ok.text()).isEqualTo("len=3\nabc");
    }

    /**
     * A proxy of its own with {@code top} added to the usual config, in front of a php-fpm of its own with one child
     * that echoes (the class's php-fpm has its children held by the class's proxy's kept connections).
     */
    private static void withOwnProxy(Path dir, String top, ThrowingConsumer<InetSocketAddress> test) throws Exception {
        PhpFpm own = PhpFpm.start(dir, 1);
        own.script("echo.php", "<?php echo 'len=', $_SERVER['CONTENT_LENGTH'], \"\\n\", file_get_contents('php://input');");
        own.script("hello.php", "<?php echo \"hello, world!\\n\";");
        try (ProxyServer p = proxy(config(own, 1) + top)) {
            test.accept(p.address("http"));
        } finally {
            own.close();
        }
    }

    interface ThrowingConsumer<T> {
        void accept(T t) throws Exception;
    }

    private static byte[] letters(int n) {
        byte[] body = new byte[n];
        for (int i = 0; i < n; i++) {
            body[i] = (byte) ('a' + i % 26);
        }
        return body;
    }

    @Test
    void chunkedBodyOverTheBufferWithoutFilesGets411(@TempDir Path other) throws Exception {
        withOwnProxy(other, "requestBodyFiles: { maxBytes: 0 }\n",
                a -> assertThat(HttpConn.once(a, CHUNKED_1200).status()).isEqualTo(411));
    }

    @Test
    void aDirectoryThatRefusesFilesLeavesBodiesStreaming(@TempDir Path other) throws Exception {
        String missing = other.resolve("gone").toString();
        withOwnProxy(other, "requestBodyFiles: { directory: \"" + missing + "\" }\n", a -> {
            // A chunked body cannot stream to FastCGI (its length comes first): 411 as without files.
            assertThat(HttpConn.once(a, CHUNKED_1200).status()).isEqualTo(411);
            // One with a Content-Length streams, as it did before files.
            String body = "z".repeat(5000);
            HttpConn.Response r = HttpConn.once(a, "POST /limited/echo.php HTTP/1.1\r\nHost: php.test\r\n"
                    + "Content-Length: 5000\r\n\r\n" + body);
            assertThat(r.text()).isEqualTo("len=5000\n" + body);
        });
    }

    /**
     * The point of the files: an upload larger than memory holds no php-fpm child while it comes. With one child and
     * one connection to it, a page is served in the middle of a slow 2 MiB upload; the upload then reaches PHP whole.
     */
    @Test
    void aSlowUploadLargerThanMemoryHoldsNoChild(@TempDir Path other) throws Exception {
        byte[] body = letters(2 * 1024 * 1024);
        withOwnProxy(other, "", a -> {
            try (HttpConn upload = new HttpConn(a)) {
                upload.send("POST /echo.php HTTP/1.1\r\nHost: php.test\r\nContent-Length: " + body.length + "\r\n\r\n");
                upload.send(java.util.Arrays.copyOf(body, 1536 * 1024));
                HttpConn.Response page = HttpConn.once(a, HttpConn.get("/hello.php"));
                assertThat(page.status()).isEqualTo(200);
                assertThat(page.text()).isEqualTo("hello, world!\n");
                upload.send(java.util.Arrays.copyOfRange(body, 1536 * 1024, body.length));
                HttpConn.Response r = upload.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("len=" + body.length + "\n" + new String(body, StandardCharsets.ISO_8859_1));
            }
        });
    }

    /** Past the files' budget a body streams: memory, then what the file took, then the rest as it comes. */
    @Test
    void uploadsPastTheFilesBudgetStream(@TempDir Path other) throws Exception {
        byte[] body = letters(3 * 1024 * 1024 + 5);
        withOwnProxy(other, "requestBodyFiles: { maxBytes: 1048576 }\n", a -> {
            try (HttpConn c = new HttpConn(a)) {
                c.send("POST /echo.php HTTP/1.1\r\nHost: php.test\r\nContent-Length: " + body.length + "\r\n\r\n");
                c.send(body);
                HttpConn.Response r = c.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("len=" + body.length + "\n" + new String(body, StandardCharsets.ISO_8859_1));
            }
        });
    }

    @Test
    void phpSeesTheCgiParams() throws Exception {
        HttpConn.Response r = get("/server.php/extra/path?x=1&y=%20", "X-Foo: bar", "X_Foo: forged",
                "Proxy: http://evil.example:8080", "Cookie: a=1");
        assertThat(r.status()).isEqualTo(200);
        JsonNode s = JSON.readTree(r.body());
        String www = fpm.www.toString();
        assertThat(s.path("SCRIPT_FILENAME").asText()).isEqualTo(www + "/server.php");
        assertThat(s.path("SCRIPT_NAME").asText()).isEqualTo("/server.php");
        assertThat(s.path("PATH_INFO").asText()).isEqualTo("/extra/path");
        assertThat(s.path("DOCUMENT_ROOT").asText()).isEqualTo(www);
        assertThat(s.path("DOCUMENT_URI").asText()).isEqualTo("/server.php/extra/path");
        assertThat(s.path("QUERY_STRING").asText()).isEqualTo("x=1&y=%20");
        assertThat(s.path("REQUEST_URI").asText()).isEqualTo("/server.php/extra/path?x=1&y=%20");
        assertThat(s.path("REQUEST_METHOD").asText()).isEqualTo("GET");
        assertThat(s.path("REMOTE_ADDR").asText()).isEqualTo("127.0.0.1");
        assertThat(s.path("REMOTE_PORT").asText()).matches("[0-9]+");
        assertThat(s.path("SERVER_ADDR").asText()).isEqualTo("127.0.0.1");
        assertThat(s.path("SERVER_PORT").asText()).isEqualTo(Integer.toString(address.getPort()));
        assertThat(s.path("SERVER_NAME").asText()).isEqualTo("php.test");
        assertThat(s.path("SERVER_PROTOCOL").asText()).isEqualTo("HTTP/1.1");
        assertThat(s.path("GATEWAY_INTERFACE").asText()).isEqualTo("CGI/1.1");
        assertThat(s.path("REQUEST_SCHEME").asText()).isEqualTo("http");
        assertThat(s.has("HTTPS")).isFalse();
        assertThat(s.path("HTTP_HOST").asText()).isEqualTo("php.test");
        assertThat(s.path("HTTP_X_FOO").asText()).as("the X_Foo header is dropped, not merged").isEqualTo("bar");
        assertThat(s.path("HTTP_COOKIE").asText()).isEqualTo("a=1");
        assertThat(s.has("HTTP_PROXY")).as("httpoxy").isFalse();
        assertThat(s.path("APP_ENV").asText()).as("the rule's params").isEqualTo("test");
        assertThat(s.path("CONTENT_LENGTH").asText()).isEmpty();
    }

    @Test
    void statusAndHeadersFromPhp() throws Exception {
        HttpConn.Response r = get("/status.php");
        assertThat(r.status()).isEqualTo(201);
        assertThat(r.header("x-custom")).isEqualTo("yes");
        assertThat(r.header("set-cookie")).isEqualTo("a=1\nb=2");
        assertThat(r.text()).isEqualTo("created");
    }

    @Test
    void locationIsARedirect() throws Exception {
        HttpConn.Response r = get("/redirect.php");
        assertThat(r.status()).isEqualTo(302);
        assertThat(r.header("location")).isEqualTo("/elsewhere");
    }

    @Test
    void missingScriptIsPhpFpms404() throws Exception {
        HttpConn.Response r = get("/nope.php");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.text()).contains("File not found");
    }

    @Test
    void encodedSlashNeverReachesPhp() throws Exception {
        // Climbing once %2F is a separator: the router refuses it; not climbing: the FastCGI handler does.
        assertThat(get("/a%2F..%2F..%2Fetc%2Fpasswd").status()).isEqualTo(400);
        assertThat(get("/a%2F..%2Fhello.php").status()).isEqualTo(404);
    }

    @Test
    void largeOutputIsStreamed() throws Exception {
        HttpConn.Response r = get("/big.php");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).hasSize(256 * 8192);
        for (int i = 0; i < 256; i++) {
            assertThat(r.body()[i * 8192]).isEqualTo((byte) (97 + i % 26));
            assertThat(r.body()[i * 8192 + 8191]).isEqualTo((byte) (97 + i % 26));
        }
    }

    @Test
    void headAndGetShareAKeptClientConnection() throws Exception {
        try (HttpConn c = new HttpConn(address)) {
            HttpConn.Response head = c.send("HEAD /hello.php HTTP/1.1\r\nHost: php.test\r\n\r\n").read(true);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.body()).isEmpty();
            assertThat(c.send(HttpConn.get("/hello.php")).read().text()).isEqualTo("hello, world!\n");
        }
    }

    @Test
    void stderrGoesToTheLogNamingRouteAndUpstream() throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            HttpConn.Response r = get("/stderr.php?n=42");
            assertThat(r.text()).isEqualTo("logged");
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        original.print(log);
        assertThat(log).contains("route php-site upstream php (127.0.0.1:" + fpm.port + ")")
                .contains("strait-test-marker 42");
    }

    /**
     * php-fpm on a unix socket (Debian's default {@code listen}), on each transport: a GET, a body both ways
     * larger than a socket buffer, and one kept connection serving every request of a client connection.
     */
    @ParameterizedTest
    @ValueSource(strings = {"auto", "epoll", "nio"})
    void aUnixSocketEndpointServesOnEachTransport(String transport, @TempDir Path other) throws Exception {
        PhpFpm own = PhpFpm.startOnUnixSocket(other, 1);
        own.script("hello.php", "<?php echo \"hello, world!\\n\";");
        own.script("echo.php", "<?php echo 'len=', $_SERVER['CONTENT_LENGTH'], \"\\n\", file_get_contents('php://input');");
        try (ProxyServer p = proxy(config(own, 1) + "transport: " + transport + "\n")) {
            assertThat(config(own, 1)).contains("\"unix:" + own.socket + "\"");
            byte[] body = letters(300_000);
            try (HttpConn c = new HttpConn(p.address("http"))) {
                assertThat(c.send(HttpConn.get("/hello.php")).read().text()).isEqualTo("hello, world!\n");
                c.send(("POST /echo.php HTTP/1.1\r\nHost: php.test\r\nContent-Length: " + body.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1)).send(body);
                HttpConn.Response r = c.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("len=" + body.length + "\n" + new String(body, StandardCharsets.ISO_8859_1));
                assertThat(c.send(HttpConn.get("/hello.php")).read().text()).isEqualTo("hello, world!\n");
            }
            assertThat(FastCgiPools.openConnections(new DomainSocketAddress(own.socket.toString())))
                    .as("one kept connection to the socket").isEqualTo(1);
        } finally {
            own.close();
        }
    }

    @Test
    void keptConnectionIsReused() throws Exception {
        // One client connection stays on one event loop, whose idle FastCGI connection (and so the same
        // php-fpm child) serves each of its requests.
        Set<String> pids = new HashSet<>();
        try (HttpConn c = new HttpConn(address)) {
            for (int i = 0; i < 5; i++) {
                pids.add(c.send(HttpConn.get("/pid.php")).read().text());
            }
        }
        assertThat(pids).hasSize(1);
        assertThat(FastCgiPools.openConnections(new InetSocketAddress("127.0.0.1", fpm.port))).isLessThanOrEqualTo(CHILDREN);
    }

    @Test
    void moreConcurrentRequestsThanChildrenWaitInsteadOfFailing() throws Exception {
        int clients = 6;
        InetSocketAddress endpoint = new InetSocketAddress("127.0.0.1", fpm.port);
        AtomicInteger mostOpen = new AtomicInteger();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread sampler = new Thread(() -> {
            while (running.get()) {
                mostOpen.accumulateAndGet(FastCgiPools.openConnections(endpoint), Math::max);
                Thread.onSpinWait();
            }
        });
        sampler.start();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long start = System.nanoTime();
        try {
            List<Future<HttpConn.Response>> answers = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                answers.add(pool.submit(() -> get("/pid-slow.php")));
            }
            Set<String> pids = new HashSet<>();
            for (Future<HttpConn.Response> f : answers) {
                HttpConn.Response r = f.get();
                assertThat(r.status()).isEqualTo(200);
                pids.add(r.text());
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(pids).hasSizeLessThanOrEqualTo(CHILDREN);
            // Two at a time, 200 ms each: three rounds.
            assertThat(millis).isGreaterThanOrEqualTo(3 * 200 - 50);
        } finally {
            running.set(false);
            sampler.join();
            pool.shutdownNow();
        }
        assertThat(mostOpen.get()).as("connections open at once").isLessThanOrEqualTo(CHILDREN);
    }

    @Test
    void slowScriptGets504() throws Exception {
        long start = System.nanoTime();
        HttpConn.Response r = get("/slow.php");
        assertThat(r.status()).isEqualTo(504);
        assertThat((System.nanoTime() - start) / 1_000_000).isBetween(400L, 3000L);
    }

    @Test
    void phpFpmKilledGives502(@TempDir Path other) throws Exception {
        PhpFpm own = PhpFpm.start(other, 1);
        own.script("hello.php", "<?php echo 'up';");
        try (ProxyServer p = proxy(config(own, 1))) {
            InetSocketAddress a = p.address("http");
            assertThat(HttpConn.once(a, HttpConn.get("/hello.php")).text()).isEqualTo("up");
            own.kill();
            // The kept connection is gone and nothing listens any more: refused.
            assertThat(HttpConn.once(a, HttpConn.get("/hello.php")).status()).isEqualTo(502);
            assertThat(HttpConn.once(a, HttpConn.get("/hello.php")).status()).isEqualTo(502);
        } finally {
            own.close();
        }
    }
}
