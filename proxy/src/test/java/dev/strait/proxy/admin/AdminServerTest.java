package dev.strait.proxy.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.HostPort;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestServing;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdminServerTest {
    private final HttpClient http = HttpClient.newHttpClient();
    private Serving serving;
    private ProxyMetrics metrics;
    private ProxyServer server;
    private AdminServer admin;

    @BeforeEach
    void start() throws Exception {
        serving = TestServing.serving("""
                accessLog: { enabled: false }
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - respond: { body: "hi" }
                """);
        metrics = new ProxyMetrics();
        metrics.configVersion(serving.snapshot().version());
        server = new ProxyServer(serving.snapshot().config(), serving, metrics, null).start();
        admin = new AdminServer(serving, metrics, server::ready).start(new HostPort("127.0.0.1", 0));
    }

    @AfterEach
    void stop() {
        admin.close();
        server.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://" + admin.address().getHostString() + ":"
                + admin.address().getPort() + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthAndReadiness() throws Exception {
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
        assertThat(get("/readyz").statusCode()).isEqualTo(200);
        serving.startDraining();
        HttpResponse<String> r = get("/readyz");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).isEqualTo("draining\n");
    }

    @Test
    void metricsCountRequestsByRouteAndStatus() throws Exception {
        try (RawClient c = new RawClient(server.address("http"))) {
            c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            c.send("GET /../x HTTP/1.1\r\nHost: a\r\n\r\n").read();
        }
        String text = get("/metrics").body();
        assertThat(text).contains("strait_requests_total{route=\"site\",status=\"200\"} 2.0")
                .contains("strait_requests_total{route=\"\",status=\"400\"} 1.0")
                .contains("strait_request_duration_seconds_bucket{route=\"site\"")
                .contains("strait_connections_open")
                .contains("strait_config_serving{version=\"" + serving.snapshot().version() + "\"} 1.0");
    }

    @Test
    void configShowsTheServingSnapshotWithItsVersion() throws Exception {
        HttpResponse<String> r = get("/config");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(r.body()).contains("\"version\":\"" + serving.snapshot().version() + "\"")
                .contains("\"name\" : \"site\"");
    }

    /** Idle connections cannot take the admin port: past the cap a new one is closed, and a scrape works again once some go. */
    @Test
    void connectionsPastTheCapAreClosed() throws Exception {
        java.util.List<java.net.Socket> idle = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < AdminServer.MAX_CONNECTIONS; i++) {
                idle.add(new java.net.Socket(admin.address().getAddress(), admin.address().getPort()));
            }
            try (java.net.Socket over = new java.net.Socket(admin.address().getAddress(), admin.address().getPort())) {
                over.setSoTimeout(5000);
                assertThat(over.getInputStream().read()).as("closed at once").isEqualTo(-1);
            }
        } finally {
            for (java.net.Socket s : idle) {
                s.close();
            }
        }
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(get("/healthz").statusCode()).isEqualTo(200));
    }

    @Test
    void unknownPathsSayWhatExists() throws Exception {
        HttpResponse<String> r = get("/nope");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.body()).contains("/metrics");
    }
}
