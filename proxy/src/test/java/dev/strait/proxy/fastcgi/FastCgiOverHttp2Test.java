package dev.strait.proxy.fastcgi;

import static dev.strait.proxy.fastcgi.FakeFastCgi.end;
import static dev.strait.proxy.fastcgi.FakeFastCgi.stdout;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.config.Serving;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import dev.strait.proxy.testing.TestServing;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** FastCGI behind HTTP/2 (h2c): the same handler through the HTTP/2 Exchange, body length unknown upfront. */
class FastCgiOverHttp2Test {
    private FakeFastCgi app;
    private ProxyServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (app != null) {
            app.close();
        }
    }

    @Test
    void postOverH2c() throws Exception {
        app = new FakeFastCgi((r, out, s) -> {
            stdout(out, "Status: 201 Created\r\nContent-Type: text/plain\r\n\r\n");
            stdout(out, r.params().get("SERVER_PROTOCOL") + " " + r.params().get("REQUEST_SCHEME") + " " + r.stdinText());
            end(out, FastCgiRecords.REQUEST_COMPLETE);
        });
        Serving serving = TestServing.serving("""
                accessLog: { enabled: false }
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                upstreams:
                  - { name: app, protocol: fastcgi, endpoints: [ "127.0.0.1:%d" ] }
                routes:
                  - name: fcgi
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        fastcgi: { root: /srv/app }
                """.formatted(app.port()));
        server = new ProxyServer(serving.snapshot().config(), serving, new ProxyMetrics(), null).start();
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        URI uri = URI.create("http://127.0.0.1:" + server.address("http").getPort() + "/x.php");
        c.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
        // The second request goes over HTTP/2 (the first upgraded the connection); a streamed body has no length.
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream("hello".getBytes())))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.body()).isEqualTo("HTTP/2.0 http hello");
    }
}
