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
import java.util.List;
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

    /**
     * {@code GET path} with this Host over the https listener, in a TLS handshake that names {@code serverName} (null:
     * none, as a client without SNI); the certificate the listener answered with, and the whole response. Any
     * certificate is taken: which one it is, is what the caller checks.
     */
    public Tls https(String serverName, String host, String path) throws Exception {
        javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
            @Override
            public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType) {}

            @Override
            public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                return new java.security.cert.X509Certificate[0];
            }
        }}, null);
        InetSocketAddress at = server.address("https");
        try (Socket plain = new Socket()) {
            plain.connect(at, 2000);
            plain.setSoTimeout(5000);
            // Over a connected socket: the JDK sends no SNI for an address, so without a name there is none.
            try (javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) ctx.getSocketFactory().createSocket(plain,
                    serverName == null ? at.getAddress().getHostAddress() : serverName, at.getPort(), true)) {
                javax.net.ssl.SSLParameters p = s.getSSLParameters();
                p.setServerNames(serverName == null ? List.of() : List.of(new javax.net.ssl.SNIHostName(serverName)));
                p.setApplicationProtocols(new String[] {"http/1.1"});
                s.setSSLParameters(p);
                s.startHandshake();
                java.security.cert.X509Certificate cert =
                        (java.security.cert.X509Certificate) s.getSession().getPeerCertificates()[0];
                OutputStream out = s.getOutputStream();
                out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                s.getInputStream().transferTo(b);
                return new Tls(cert, b.toString(StandardCharsets.UTF_8));
            }
        }
    }

    /** What an https request saw: the listener's certificate and the whole response. */
    public record Tls(java.security.cert.X509Certificate certificate, String response) {}

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
