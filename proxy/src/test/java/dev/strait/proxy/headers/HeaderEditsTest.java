package dev.strait.proxy.headers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rule's {@code requestHeaders} and {@code responseHeaders} on a real proxy: what the upstream sees, and the
 * fields of every kind of answer (proxied, cached, fixed, files, errors), over HTTP/1.1 and HTTP/2.
 */
class HeaderEditsTest {
    private final ProxyHarness h = new ProxyHarness();
    @TempDir
    Path root;

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static final String EDITS = """
            requestHeaders: { set: { X-Env: prod }, add: { x-tag: b }, remove: [ X-Secret ] }
                    responseHeaders: { set: { Cache-Control: no-store, X-Served-By: strait }, add: { x-frame-options: DENY },
                                       remove: [ x-powered-by ] }""";

    private TestUpstream start() throws Exception {
        Files.createDirectories(root.resolve("files"));
        Files.writeString(root.resolve("files/f.txt"), "file");
        TestUpstream app = h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, "api",
                "x-powered-by", "php", "cache-control", "public, max-age=600", "x-frame-options", "SAMEORIGIN")));
        h.start("""
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /api } } ]
                        backends: [ { upstream: app } ]
                        %s
                      - matches: [ { path: { type: Prefix, value: /cached } } ]
                        backends: [ { upstream: app } ]
                        cache: { enabled: true, xCacheHeader: true }
                        %s
                      - matches: [ { path: { type: Prefix, value: /files } } ]
                        files: { root: "%s" }
                        %s
                      - matches: [ { path: { type: Prefix, value: /plain } } ]
                        backends: [ { upstream: app } ]
                      - respond: { body: "fixed", headers: { cache-control: max-age=5, x-powered-by: config } }
                        %s
                """.formatted(app.endpoint(), EDITS, EDITS, root, EDITS, EDITS));
        return app;
    }

    @Test
    void theUpstreamSeesTheRequestChanged() throws Exception {
        TestUpstream app = start();
        RawClient.Response r = h.get("/api/x", "X-Env: dev", "X-Tag: a", "X-Secret: s3cret", "X-Other: kept");
        assertThat(r.status()).isEqualTo(200);
        assertThat(app.last().headers().getAll("x-env")).containsExactly("prod");
        assertThat(app.last().headers().getAll("x-tag")).containsExactly("a", "b");
        assertThat(app.last().headers().contains("x-secret")).isFalse();
        assertThat(app.last().header("x-other")).isEqualTo("kept");
        h.get("/plain/x", "X-Secret: s3cret");
        assertThat(app.last().header("x-secret")).as("other rules untouched").isEqualTo("s3cret");
    }

    @Test
    void everyKindOfAnswerLeavesWithTheFieldsChanged() throws Exception {
        start();
        h.get("/cached/c"); // fills the cache
        for (String path : new String[] {"/api/x", "/cached/c", "/files/f.txt", "/x", "/files/missing.txt"}) {
            RawClient.Response r = h.get(path);
            assertThat(r.header("cache-control")).as(path).isEqualTo("no-store");
            assertThat(r.header("x-served-by")).as(path).isEqualTo("strait");
            assertThat(r.header("x-powered-by")).as(path).isNull();
            assertThat(r.header("content-length")).as(path).isNotNull();
        }
        assertThat(h.get("/cached/c").header("x-cache")).isEqualTo("HIT");
        assertThat(h.get("/api/x").header("x-frame-options")).as("added beside the upstream's")
                .isEqualTo("SAMEORIGIN, DENY");
        assertThat(h.get("/x").header("x-frame-options")).isEqualTo("DENY");
        assertThat(h.get("/files/missing.txt").status()).isEqualTo(404);
        assertThat(h.get("/x").text()).isEqualTo("fixed");
        RawClient.Response plain = h.get("/plain/x");
        assertThat(plain.header("x-powered-by")).as("other rules untouched").isEqualTo("php");
        assertThat(plain.header("x-served-by")).isNull();
    }

    @Test
    void overHttp2() throws Exception {
        start();
        HttpClient c = h.h2cClient("/x");
        for (String path : new String[] {"/x", "/api/x"}) {
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(h.uri(path)).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(r.headers().allValues("cache-control")).as(path).containsExactly("no-store");
            assertThat(r.headers().firstValue("x-powered-by")).as(path).isEmpty();
            assertThat(r.headers().firstValue("x-served-by")).as(path).hasValue("strait");
        }
    }

    @Test
    void aCacheHitsOwnFieldsAreEditedToo() throws Exception {
        TestUpstream app = h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, "api",
                "cache-control", "public, max-age=600")));
        h.start("""
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        cache: { enabled: true, xCacheHeader: true }
                        responseHeaders: { remove: [ Age ] }
                """.formatted(app.endpoint()));
        assertThat(h.get("/c").header("x-cache")).isEqualTo("MISS");
        RawClient.Response hit = h.get("/c");
        assertThat(hit.header("x-cache")).isEqualTo("HIT");
        // The hit's Age is the first of the lines the cache adds: removed like any other.
        assertThat(hit.header("age")).isNull();
    }
}
