package dev.strait.proxy.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Answers from the cache over HTTP/2 (h2c) carry Age and X-Cache as over HTTP/1.1 (audit 2, cache
 * finding 2): RFC 9111 4 asks for Age on every answer from a stored response.
 */
class CacheOverHttp2Test {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void hitsAndNotModifiedCarryAgeAndXCache() throws Exception {
        AtomicInteger n = new AtomicInteger();
        TestUpstream up = h.upstream((ctx, req, u) -> ctx.writeAndFlush(TestUpstream.response(200,
                "answer " + n.incrementAndGet(), "cache-control", "max-age=600", "etag", "\"e\"")));
        h.start("""
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        cache: { xCacheHeader: true }
                """.formatted(up.endpoint()));
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        URI uri = URI.create("http://127.0.0.1:" + h.address().getPort() + "/a");
        // The first request upgrades the connection to h2c; the next ones are HTTP/2 streams.
        assertThat(c.send(request(uri).build(), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("answer 1");

        HttpResponse<String> hit = c.send(request(uri).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(hit.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(hit.body()).isEqualTo("answer 1");
        assertThat(hit.headers().firstValue("x-cache")).hasValue("HIT");
        assertThat(hit.headers().firstValue("age")).isPresent();
        assertThat(hit.headers().firstValue("date")).isPresent();

        HttpResponse<String> notModified = c.send(request(uri).header("If-None-Match", "\"e\"").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(notModified.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(notModified.statusCode()).isEqualTo(304);
        assertThat(notModified.headers().firstValue("x-cache")).hasValue("HIT");
        assertThat(notModified.headers().firstValue("age")).isPresent();
        assertThat(up.requests()).isEqualTo(1);
    }

    private static HttpRequest.Builder request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
    }
}
