package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar's response cache (Caffeine shaded in) in front of an upstream that counts its
 * requests: the second GET is a hit, the admin purge empties it, and the metrics say so. This is also
 * what bench/run.sh checks before the cache-hit scenario.
 */
class CacheTest {
    @RegisterExtension
    final StraitProcesses strait = new StraitProcesses();

    @TempDir
    Path dir;
    private HttpServer upstream;
    private final AtomicInteger requests = new AtomicInteger();

    @AfterEach
    void stopUpstream() {
        if (upstream != null) {
            upstream.stop(0);
        }
    }

    @Test
    void aSecondGetIsAHitUntilPurged() throws Exception {
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.createContext("/", x -> {
            byte[] body = ("answer " + requests.incrementAndGet() + "\n").getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Cache-Control", "public, max-age=3600");
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        upstream.start();
        Path file = Files.writeString(dir.resolve("strait.yaml"), """
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                admin: { address: "127.0.0.1:0" }
                cache: { maxBytes: 1048576 }
                upstreams: [ { name: app, endpoints: [ "127.0.0.1:%d" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        cache: { xCacheHeader: true }
                """.formatted(upstream.getAddress().getPort()));
        ProxyProcess proxy = strait.start("--config", file.toString()).awaitServing();

        HttpResponse<String> miss = proxy.get("/page");
        assertThat(miss.body()).isEqualTo("answer 1\n");
        assertThat(miss.headers().firstValue("x-cache")).hasValue("MISS");
        HttpResponse<String> hit = proxy.get("/page");
        assertThat(hit.body()).isEqualTo("answer 1\n");
        assertThat(hit.headers().firstValue("x-cache")).hasValue("HIT");
        assertThat(hit.headers().firstValue("age")).isPresent();
        assertThat(requests.get()).isEqualTo(1);

        HttpResponse<String> purge = ProxyProcess.send(HttpRequest.newBuilder(proxy.adminUri(
                "/cache/purge?prefix=http://127.0.0.1/")).POST(HttpRequest.BodyPublishers.noBody()),
                HttpResponse.BodyHandlers.ofString());
        assertThat(purge.body()).isEqualTo("{\"purged\":1}\n");
        assertThat(proxy.get("/page").body()).isEqualTo("answer 2\n");
        assertThat(proxy.admin("/metrics").body()).contains("strait_cache_hits_total 1.0",
                "strait_cache_misses_total 2.0", "strait_cache_purged_total 1.0");
    }
}
