package dev.strait.proxy.testing;

import dev.strait.proxy.config.Serving;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The real proxy on 127.0.0.1 port 0 built from YAML, plus whatever the test started (upstreams,
 * clients), closed together: tests add what they start and call {@link #close()} in {@code @AfterEach}.
 */
public final class ProxyHarness implements AutoCloseable {
    private final List<AutoCloseable> started = new ArrayList<>();
    public ProxyServer server;
    public Serving serving;
    public ProxyMetrics metrics;

    /** Starts the proxy; the YAML needs no listeners section (one named http on port 0 is added). */
    public ProxyServer start(String yaml) throws Exception {
        String full = "listeners: [ { name: http, address: \"127.0.0.1:0\" } ]\naccessLog: { enabled: false }\n" + yaml;
        serving = TestServing.serving(full);
        metrics = new ProxyMetrics();
        server = new ProxyServer(serving.snapshot().config(), serving, metrics, null).start();
        started.add(server);
        return server;
    }

    /** Starts the proxy from a whole config (listeners included). */
    public ProxyServer startConfig(String yaml) throws Exception {
        serving = TestServing.serving(yaml);
        metrics = new ProxyMetrics();
        server = new ProxyServer(serving.snapshot().config(), serving, metrics, null).start();
        started.add(server);
        return server;
    }

    public InetSocketAddress address() {
        return server.address("http");
    }

    public <T extends AutoCloseable> T add(T c) {
        started.add(0, c);
        return c;
    }

    public TestUpstream upstream(TestUpstream.Behaviour b) throws InterruptedException {
        return add(TestUpstream.start(b));
    }

    public TestUpstream upstream(String name, TestUpstream.Behaviour b) throws InterruptedException {
        return add(TestUpstream.start(name, b));
    }

    public RawClient client() throws IOException {
        return add(new RawClient(address()));
    }

    /** One request on a new connection. */
    public RawClient.Response get(String path, String... headerLines) throws IOException {
        try (RawClient c = new RawClient(address())) {
            StringBuilder sb = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\nHost: test\r\n");
            for (String h : headerLines) {
                sb.append(h).append("\r\n");
            }
            return c.send(sb.append("\r\n").toString()).read();
        }
    }

    /**
     * A JDK HTTP client whose connection to the proxy speaks HTTP/2 already: it asked for {@code upgradePath}
     * with {@code Upgrade: h2c} (the JDK client upgrades cleartext connections so), and the requests after
     * that one go over HTTP/2.
     */
    public java.net.http.HttpClient h2cClient(String upgradePath) throws IOException, InterruptedException {
        java.net.http.HttpClient c = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_2)
                .build();
        c.send(java.net.http.HttpRequest.newBuilder(uri(upgradePath)).timeout(java.time.Duration.ofSeconds(10)).build(),
                java.net.http.HttpResponse.BodyHandlers.discarding());
        return c;
    }

    /** {@code http://127.0.0.1:PORT} and {@code path}. */
    public java.net.URI uri(String path) {
        return java.net.URI.create("http://127.0.0.1:" + address().getPort() + path);
    }

    /** Reloads with a new config, as a file change would. */
    public void reload(String yaml) {
        String full = "listeners: [ { name: http, address: \"127.0.0.1:0\" } ]\naccessLog: { enabled: false }\n" + yaml;
        serving.swap(TestServing.snapshot(full));
    }

    /** Reloads with a whole new config (listeners included), as {@link #startConfig} takes one. */
    public void reloadConfig(String yaml) {
        serving.swap(TestServing.snapshot(yaml));
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : started) {
            try {
                c.close();
            } catch (Exception e) {
                // keep closing the rest
            }
        }
        started.clear();
    }
}
