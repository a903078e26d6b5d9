package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar role with real apps on loopback (and uvicorn on a unix socket too): a node {@code http}
 * server and a uvicorn ASGI app, both from Debian packages (nodejs, python3-uvicorn; installed by .ci/run).
 * Skipped, saying why, only when the program is missing. Each app tells which connection a request came
 * on, so reuse is visible.
 */
class SidecarAppsTest {
    private static final String NODE_APP = """
            const http = require('http');
            let next = 0;
            const server = http.createServer((req, res) => {
              let body = '';
              req.on('data', d => body += d);
              req.on('end', () => {
                const text = 'hello from node, connection ' + req.socket.id + ', xff ' + req.headers['x-forwarded-for']
                    + ', body ' + body.length + '\\n';
                res.writeHead(200, { 'content-type': 'text/plain' });
                res.end(text);
              });
            });
            server.on('connection', s => { s.id = ++next; });
            server.keepAliveTimeout = 60000;
            server.listen(0, '127.0.0.1', () => console.log('PORT ' + server.address().port));
            """;
    /** node's own HTTP/2 server, cleartext (prior knowledge), answering with trailers as a gRPC server would. */
    private static final String NODE_H2C_APP = """
            const http2 = require('http2');
            let next = 0;
            const server = http2.createServer();
            server.on('session', s => { s.id = ++next; });
            server.on('stream', (stream, headers) => {
              let body = '';
              stream.on('data', d => body += d);
              stream.on('end', () => {
                stream.respond({ ':status': 200, 'content-type': 'text/plain' }, { waitForTrailers: true });
                stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
                stream.end('hello from node h2c, connection ' + stream.session.id + ', xff '
                    + headers['x-forwarded-for'] + ', body ' + body.length + '\\n');
              });
            });
            server.listen(0, '127.0.0.1', () => console.log('PORT ' + server.address().port));
            """;
    private static final String ASGI_APP = """
            async def app(scope, receive, send):
                if scope['type'] != 'http':
                    return
                size = 0
                while True:
                    message = await receive()
                    size += len(message.get('body', b''))
                    if not message.get('more_body'):
                        break
                headers = dict(scope['headers'])
                client = scope.get('client')  # None on a unix socket
                text = 'hello from uvicorn, connection %d, xff %s, body %d\\n' % (
                    client[1] if client else 0, headers.get(b'x-forwarded-for', b'').decode(), size)
                body = text.encode()
                await send({'type': 'http.response.start', 'status': 200,
                            'headers': [(b'content-type', b'text/plain'), (b'content-length', str(len(body)).encode())]})
                await send({'type': 'http.response.body', 'body': body})
            """;

    private final ProxyHarness h = new ProxyHarness();
    private final List<Process> processes = new ArrayList<>();
    @TempDir
    Path dir;

    @AfterEach
    void stop() throws Exception {
        h.close();
        for (Process p : processes) {
            p.destroy();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    private static String which(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            File f = new File(d, program);
            if (f.canExecute()) {
                return f.getPath();
            }
        }
        return null;
    }

    private Process start(List<String> command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    private static String config(int port) {
        return config(port, "http1");
    }

    private static String config(int port, String protocol) {
        return config("127.0.0.1:" + port, protocol);
    }

    private static String config(String endpoint, String protocol) {
        return """
                workers: 1
                upstreams: [ { name: app, endpoints: [ "%s" ], protocol: %s } ]
                routes:
                  - name: sidecar
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                """.formatted(endpoint, protocol);
    }

    /** Requests through the proxy on one client connection; returns the connection ids the app reported. */
    private Set<String> exercise(String greeting) throws Exception {
        Set<String> connections = new HashSet<>();
        RawClient c = h.client();
        for (int i = 0; i < 5; i++) {
            RawClient.Response r = c.send("GET /hello HTTP/1.1\r\nHost: app.local\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).startsWith(greeting).contains("xff 127.0.0.1").endsWith("body 0\n");
            connections.add(r.text().replaceAll(".*connection (\\d+).*\\n", "$1"));
        }
        RawClient.Response post = c.send("POST /echo HTTP/1.1\r\nHost: app.local\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n").read();
        assertThat(post.text()).endsWith("body 11\n");
        return connections;
    }

    @Test
    void nodeHttpApp() throws Exception {
        String node = which("node") != null ? which("node") : which("nodejs");
        Assumptions.assumeTrue(node != null, "node is not installed (Debian package nodejs; .ci/run installs it)");
        Files.writeString(dir.resolve("app.js"), NODE_APP);
        Process p = start(List.of(node, "app.js"));
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("node printed its port").startsWith("PORT ");
        h.start(config(Integer.parseInt(line.substring(5).trim())));
        assertThat(exercise("hello from node")).as("every request on one kept-alive connection").hasSize(1);
    }

    @Test
    void nodeH2cApp() throws Exception {
        String node = which("node") != null ? which("node") : which("nodejs");
        Assumptions.assumeTrue(node != null, "node is not installed (Debian package nodejs; .ci/run installs it)");
        Files.writeString(dir.resolve("h2c.js"), NODE_H2C_APP);
        Process p = start(List.of(node, "h2c.js"));
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("node printed its port").startsWith("PORT ");
        h.start(config(Integer.parseInt(line.substring(5).trim()), "h2c"));
        assertThat(exercise("hello from node h2c")).as("every request on one HTTP/2 connection").hasSize(1);
        RawClient.Response r = h.client().send("GET /t HTTP/1.1\r\nHost: app.local\r\nTE: trailers\r\n\r\n").read();
        assertThat(r.trailers()).containsEntry("grpc-status", "0");
    }

    /** A python3 that has uvicorn; the test is skipped, saying why, without one. */
    private static String pythonWithUvicorn() throws Exception {
        for (String candidate : new String[] {"/usr/bin/python3", which("python3")}) {
            if (candidate != null && new File(candidate).canExecute() && new ProcessBuilder(candidate, "-c",
                    "import uvicorn").start().waitFor() == 0) {
                return candidate;
            }
        }
        Assumptions.assumeTrue(false, "no python3 with uvicorn (Debian package python3-uvicorn; .ci/run installs it)");
        return null;
    }

    /** uvicorn on a unix socket ({@code --uds}), as it is run behind nginx or beside a sidecar (ADR 0103). */
    @Test
    void uvicornAsgiAppOnAUnixSocket() throws Exception {
        String python = pythonWithUvicorn();
        Files.writeString(dir.resolve("app.py"), ASGI_APP);
        Path socket = dir.resolve("app.sock");
        start(List.of(python, "-m", "uvicorn", "app:app", "--uds", socket.toString(), "--lifespan", "off",
                "--no-access-log"));
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
            try (java.nio.channels.SocketChannel s = java.nio.channels.SocketChannel.open(
                    java.net.UnixDomainSocketAddress.of(socket))) {
                return true;
            }
        });
        h.start(config("unix:" + socket, "http1"));
        exercise("hello from uvicorn");
        // uvicorn names no client on a socket, so the proxy's side says the connection was kept.
        assertThat(h.metrics.scrape()).contains("strait_upstream_connections_open{upstream=\"app\"} 1.0");
    }

    @Test
    void uvicornAsgiApp() throws Exception {
        String python = pythonWithUvicorn();
        Files.writeString(dir.resolve("app.py"), ASGI_APP);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        start(List.of(python, "-m", "uvicorn", "app:app", "--host", "127.0.0.1", "--port", Integer.toString(port),
                "--lifespan", "off", "--no-access-log"));
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return true;
            }
        });
        h.start(config(port));
        assertThat(exercise("hello from uvicorn")).as("every request on one kept-alive connection").hasSize(1);
    }
}
