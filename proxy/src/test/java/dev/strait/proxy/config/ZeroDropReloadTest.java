package dev.strait.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import dev.strait.proxy.testing.SteadyLoad;
import dev.strait.proxy.testing.TestUpstream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 100 reloads of the config file under steady load, each changing the routes, the fixed answers and
 * which upstream serves: not one request may fail. Requests in flight finish on the table they
 * started with; pooled upstream connections stay with the endpoints that are still there.
 */
class ZeroDropReloadTest {
    private static final String ROOT = "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n";
    private static final String API = "GET /api/x HTTP/1.1\r\nHost: example.com\r\n\r\n";
    private static final String POST = "POST /api/y HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\nhello";

    @TempDir
    Path dir;

    private final TestUpstream a;
    private final TestUpstream b;
    private ProxyServer server;
    private ConfigReloader reloader;

    ZeroDropReloadTest() throws InterruptedException {
        a = TestUpstream.start("a", TestUpstream.echo());
        b = TestUpstream.start("b", TestUpstream.echo());
    }

    @AfterEach
    void stop() throws Exception {
        if (reloader != null) {
            reloader.close();
        }
        if (server != null) {
            server.close();
        }
        a.close();
        b.close();
    }

    private String config(int generation) {
        TestUpstream up = generation % 2 == 0 ? a : b;
        return """
                accessLog: { enabled: false }
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ example.com ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /api } } ]
                        backends: [ { upstream: app } ]
                      - respond: { body: "generation %d" }
                %s""".formatted(up.endpoint(), generation, generation % 3 == 0 ? """
                  - name: extra
                    hosts: [ extra.example.com ]
                    rules: [ { respond: { body: extra } } ]
                """ : "");
    }

    @Test
    void aHundredReloadsUnderLoadFailNoRequest() throws Exception {
        Path file = dir.resolve("strait.yaml");
        Files.writeString(file, config(0));
        Serving serving = new Serving(ConfigFiles.load(file));
        ProxyMetrics metrics = new ProxyMetrics();
        server = new ProxyServer(serving.snapshot().config(), serving, metrics, null).start();
        reloader = new ConfigReloader(file, serving, metrics);

        try (SteadyLoad load = new SteadyLoad(server.address("http"), 4, 50, 100_000, ROOT, API, POST)) {
            for (int g = 1; g <= 100; g++) {
                // Atomically, as a config management tool or a Kubernetes volume would: the watcher never
                // sees half a file. Reloading now rather than waiting for it; when the watcher fires
                // too, it finds the file unchanged.
                Path tmp = dir.resolve("strait.yaml.tmp");
                Files.writeString(tmp, config(g));
                Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                reloader.reload("test generation " + g);
                int before = load.succeeded();
                while (load.succeeded() < before + 5 && load.failures().isEmpty()) {
                    Thread.onSpinWait(); // let some requests cross each swap
                }
            }
            load.stop();
            assertThat(load.failures()).isEmpty();
            assertThat(load.succeeded()).isGreaterThan(500);
        }
        assertThat(serving.snapshot().config().routes()).hasSize(1); // generation 100: no extra route
        assertThat(metrics.registry().counter("strait_config_reloads_accepted").count()).isEqualTo(100.0);
        assertThat(metrics.registry().counter("strait_config_reloads_rejected").count()).isZero();
        assertThat(a.requests()).isPositive();
        assertThat(b.requests()).isPositive();
    }
}
