package dev.strait.operator.publish;

import dev.strait.model.HostPort;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.control.Backoff;
import dev.strait.proxy.control.ControlClient;
import dev.strait.proxy.control.Identity;
import dev.strait.proxy.control.StateDir;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import io.netty.handler.ssl.SslContext;

/**
 * A real proxy as Main wires it with {@code --control}: the control client, the serving holder and the
 * HTTP server on a port of its own, answering real requests.
 */
public final class TestProxy implements AutoCloseable {
    static final Backoff FAST = new Backoff(Duration.ofMillis(20), Duration.ofMillis(200));

    public final ControlClient client;
    public final Serving serving;
    public final ProxyMetrics metrics;
    final ProxyServer server;
    final Snapshot kept;

    private TestProxy(ControlClient client, Serving serving, ProxyMetrics metrics, ProxyServer server, Snapshot kept) {
        this.client = client;
        this.serving = serving;
        this.metrics = metrics;
        this.server = server;
        this.kept = kept;
    }

    /** Starts as Main does: the kept snapshot when there is one, else the operator's first. */
    public static TestProxy start(InetSocketAddress operator, Identity identity, Path stateDir) throws Exception {
        return start(operator, identity, stateDir, null, null);
    }

    public static TestProxy start(InetSocketAddress operator, Identity identity, Path stateDir,
                                  Supplier<SslContext> ssl, Supplier<String> token) throws Exception {
        ControlClient client = new ControlClient(new HostPort(operator.getHostString(), operator.getPort()), identity,
                stateDir == null ? null : new StateDir(stateDir), FAST, ssl, token);
        Snapshot kept = client.start();
        Snapshot first = kept != null ? kept : client.firstSnapshot().get(10, TimeUnit.SECONDS);
        Serving serving = new Serving(first);
        ProxyMetrics metrics = new ProxyMetrics();
        ProxyServer server = new ProxyServer(first.config(), serving, metrics,
                new AccessLog(OutputStream.nullOutputStream())).start();
        client.attach(serving, metrics);
        return new TestProxy(client, serving, metrics, server, kept);
    }

    public String version() {
        return serving.snapshot().version();
    }

    /** {@code GET path} with this Host; the status line and body. */
    public String get(String host, String path) throws IOException {
        String resp = exchange(host, path);
        String status = resp.substring(0, resp.indexOf("\r\n"));
        return status.substring(9) + " " + resp.substring(resp.indexOf("\r\n\r\n") + 4);
    }

    /** {@code GET path} with this Host and {@code headerLines}; the whole response, head and body. */
    public String exchange(String host, String path, String... headerLines) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(server.address("http"), 2000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            StringBuilder extra = new StringBuilder();
            for (String line : headerLines) {
                extra.append(line).append("\r\n");
            }
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            in.transferTo(b);
            return b.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
