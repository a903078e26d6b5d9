package dev.strait.proxy.cors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.net.URI;
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
 * A rule's {@code cors} (ADR 0065) on a real proxy: allowed origins get the fields on fixed answers, files
 * and proxied answers (replacing the upstream's), over HTTP/1.1 and HTTP/2; their preflights are answered
 * 204 without the action; other origins and same-origin requests are served untouched.
 */
class CorsTest {
    private final ProxyHarness h = new ProxyHarness();
    @TempDir
    Path root;

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private void start(TestUpstream app) throws Exception {
        Files.createDirectories(root.resolve("files"));
        Files.writeString(root.resolve("files/f.txt"), "file");
        String cors = "cors: { allowOrigins: [ \"https://app.example.com\", \"https://*.example.org\" ],"
                + " exposeHeaders: [ X-Total ], maxAge: 10m }";
        h.start("""
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /api } } ]
                        backends: [ { upstream: app } ]
                        %s
                      - matches: [ { path: { type: Prefix, value: /files } } ]
                        files: { root: "%s" }
                        %s
                      - respond: { body: "fixed" }
                        %s
                """.formatted(app.endpoint(), cors, root, cors, cors));
    }

    @Test
    void anAllowedOriginGetsTheFieldsOnEveryKindOfAnswer() throws Exception {
        TestUpstream app = h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, "api",
                "access-control-allow-origin", "*")));
        start(app);
        for (String path : new String[] {"/x", "/api/x", "/files/f.txt"}) {
            RawClient.Response r = h.get(path, "Origin: https://app.example.com");
            assertThat(r.status()).as(path).isEqualTo(200);
            assertThat(r.header("access-control-allow-origin")).as(path).isEqualTo("https://app.example.com");
            assertThat(r.header("access-control-allow-credentials")).as(path).isEqualTo("true");
            assertThat(r.header("access-control-expose-headers")).as(path).isEqualTo("X-Total");
            assertThat(r.header("vary")).as(path).contains("Origin");
        }
        assertThat(h.get("/x", "Origin: https://shop.example.org").header("access-control-allow-origin"))
                .isEqualTo("https://shop.example.org");
        for (String other : new String[] {"https://evil.example.net", "https://example.org", "http://app.example.com",
                "https://shop.example.org:8443"}) {
            RawClient.Response r = h.get("/x", "Origin: " + other);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("access-control-allow-origin")).as(other).isNull();
        }
        assertThat(h.get("/x").header("access-control-allow-origin")).as("no Origin: not cross-origin").isNull();
        RawClient.Response missing = h.get("/files/missing.txt", "Origin: https://app.example.com");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.header("access-control-allow-origin")).as("errors too").isEqualTo("https://app.example.com");
        assertThat(h.get("/api/y").header("access-control-allow-origin")).as("the upstream's own, untouched")
                .isEqualTo("*");
    }

    /** A cached answer's head is the upstream's: the rule's fields replace its own there too. */
    @Test
    void aCachedAnswerCarriesTheRulesFieldsNotTheUpstreams() throws Exception {
        TestUpstream app = h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, "api",
                "Access-Control-Allow-Origin", "*", "access-control-allow-credentials", "false",
                "Cache-Control", "public, max-age=600")));
        h.start("""
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        cache: { enabled: true, xCacheHeader: true }
                        cors: { allowOrigins: [ "https://app.example.com" ] }
                """.formatted(app.endpoint()));
        RawClient.Response fill = h.get("/c");
        assertThat(fill.header("access-control-allow-origin")).as("no Origin: the upstream's, untouched").isEqualTo("*");
        RawClient.Response hit = h.get("/c", "Origin: https://app.example.com");
        assertThat(hit.header("x-cache")).isEqualTo("HIT");
        assertThat(hit.header("access-control-allow-origin")).isEqualTo("https://app.example.com");
        assertThat(hit.header("access-control-allow-credentials")).isEqualTo("true");
        assertThat(hit.text()).isEqualTo("api");
        assertThat(app.requests()).isEqualTo(1);
    }

    @Test
    void corsLinesAreCutFromAPreEncodedHead() {
        byte[] head = ("HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\ncontent-length: 3\r\n"
                + "ACCESS-CONTROL-MAX-AGE: 5\r\nx-access-control: kept\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(new String(CorsExchange.withoutCorsLines(head), java.nio.charset.StandardCharsets.ISO_8859_1))
                .isEqualTo("HTTP/1.1 200 OK\r\ncontent-length: 3\r\nx-access-control: kept\r\n");
        byte[] plain = "HTTP/1.1 200 OK\r\ncontent-length: 3\r\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(CorsExchange.withoutCorsLines(plain)).isSameAs(plain);
    }

    @Test
    void aPreflightIsAnsweredHereAndNeverReachesTheApp() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.name());
        start(app);
        try (RawClient c = h.client()) {
            RawClient.Response r = c.send("OPTIONS /api/x HTTP/1.1\r\nHost: a\r\nOrigin: https://app.example.com\r\n"
                    + "Access-Control-Request-Method: PUT\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(204);
            assertThat(r.header("access-control-allow-origin")).isEqualTo("https://app.example.com");
            assertThat(r.header("access-control-allow-methods")).isEqualTo("GET, PUT, POST, DELETE, PATCH, OPTIONS");
            assertThat(r.header("access-control-allow-headers")).contains("Authorization");
            assertThat(r.header("access-control-max-age")).isEqualTo("600");
            // The connection goes on.
            assertThat(c.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read().text()).isEqualTo("fixed");
        }
        assertThat(app.requests()).isZero();
        // An OPTIONS that is no preflight, or from an origin not allowed, is the app's.
        try (RawClient c = h.client()) {
            assertThat(c.send("OPTIONS /api/x HTTP/1.1\r\nHost: a\r\nOrigin: https://app.example.com\r\n\r\n").read()
                    .text()).isEqualTo("app");
            assertThat(c.send("OPTIONS /api/x HTTP/1.1\r\nHost: a\r\nOrigin: https://evil.example.net\r\n"
                    + "Access-Control-Request-Method: PUT\r\n\r\n").read().text()).isEqualTo("app");
        }
    }

    /** As nginx answers preflights before its access phase: browsers send no credentials with them. */
    @Test
    void aPreflightPassesTheRulesGuards() throws Exception {
        h.start("""
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - respond: { body: "secret" }
                        cors: { allowOrigins: [ "https://app.example.com" ] }
                        basicAuth: { htpasswd: "alice:{PLAIN}x" }
                        clientAddresses: { allow: [ 10.0.0.0/8 ] }
                """);
        try (RawClient c = h.client()) {
            RawClient.Response pre = c.send("OPTIONS /x HTTP/1.1\r\nHost: a\r\nOrigin: https://app.example.com\r\n"
                    + "Access-Control-Request-Method: GET\r\n\r\n").read();
            assertThat(pre.status()).isEqualTo(204);
            assertThat(pre.header("access-control-allow-origin")).isEqualTo("https://app.example.com");
            RawClient.Response refused = c.send("GET /x HTTP/1.1\r\nHost: a\r\nOrigin: https://app.example.com\r\n\r\n").read();
            assertThat(refused.status()).as("the request itself is guarded").isEqualTo(403);
            assertThat(refused.header("access-control-allow-origin")).as("a browser app sees the 403 as such")
                    .isEqualTo("https://app.example.com");
            assertThat(c.send("OPTIONS /x HTTP/1.1\r\nHost: a\r\nOrigin: https://evil.example.net\r\n"
                    + "Access-Control-Request-Method: GET\r\n\r\n").read().status()).as("not an allowed origin").isEqualTo(403);
        }
    }

    @Test
    void overHttp2() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.name());
        start(app);
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        String base = "http://127.0.0.1:" + h.address().getPort();
        c.send(HttpRequest.newBuilder(URI.create(base + "/x")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()); // the h2c upgrade
        for (String path : new String[] {"/x", "/api/x"}) {
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10))
                    .header("Origin", "https://app.example.com").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(r.headers().firstValue("access-control-allow-origin")).as(path).hasValue("https://app.example.com");
        }
    }
}
