package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.H2cPathRecorder;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code pathRewrite} as a real upstream sees it: the whole path or the matched prefix replaced (per match
 * when a rule has several), the query kept, from HTTP/1.1 and HTTP/2 clients, to http1 and h2c upstreams;
 * rules without it still send the target exactly as the client wrote it.
 */
class PathRewriteTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String protocol, String endpoint) {
        return """
                upstreams: [ { name: app, protocol: %s, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { value: /api/ } }, { path: { value: /legacy/api } } ]
                        backends: [ { upstream: app } ]
                        pathRewrite: { replacePrefixMatch: /v2 }
                      - matches: [ { path: { value: /strip } } ]
                        backends: [ { upstream: app } ]
                        pathRewrite: { replacePrefixMatch: / }
                      - matches: [ { path: { type: Exact, value: /health } }, { path: { type: RegularExpression, value: "/r/.*" } } ]
                        backends: [ { upstream: app } ]
                        pathRewrite: { replaceFullPath: /status }
                      - matches: [ { path: { value: /other } }, { path: { value: /apix } }, { path: { value: /kept } },
                                   { path: { value: /warm } } ]
                        backends: [ { upstream: app } ]
                """.formatted(protocol, endpoint);
    }

    /** What the upstream got as the target for each client target, one request per connection. */
    private String upstreamTarget(TestUpstream up, String target) throws Exception {
        try (RawClient c = new RawClient(h.address())) {
            RawClient.Response r = c.send("GET " + target + " HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
        }
        return up.last().uri();
    }

    @Test
    void http1UpstreamGetsTheRewrittenTarget() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config("http1", up.endpoint()));
        // The prefix that matched this request is the one replaced, whichever of the rule's matches it was.
        assertThat(upstreamTarget(up, "/api/users?page=2&x")).isEqualTo("/v2/users?page=2&x");
        assertThat(upstreamTarget(up, "/api")).isEqualTo("/v2");
        assertThat(upstreamTarget(up, "/api/")).isEqualTo("/v2/");
        assertThat(upstreamTarget(up, "/legacy/api/users")).isEqualTo("/v2/users");
        assertThat(upstreamTarget(up, "/legacy/api")).isEqualTo("/v2");
        assertThat(upstreamTarget(up, "/strip/a/b?q=1")).isEqualTo("/a/b?q=1");
        assertThat(upstreamTarget(up, "/strip")).isEqualTo("/");
        assertThat(upstreamTarget(up, "/health?probe")).isEqualTo("/status?probe");
        assertThat(upstreamTarget(up, "/r/anything")).isEqualTo("/status");
        // The rewritten path is the normalised one; an encoded slash after the prefix stays encoded.
        assertThat(upstreamTarget(up, "/api/./x/../%75sers")).isEqualTo("/v2/users");
        assertThat(upstreamTarget(up, "/api/group%2Fproject")).isEqualTo("/v2/group%2Fproject");
        // A prefix the rule only saw through an encoded slash is cut from the path it matched.
        assertThat(upstreamTarget(up, "/api%2Fusers")).isEqualTo("/v2/users");
        // An absolute-form target is rewritten too.
        assertThat(upstreamTarget(up, "http://example.com/api/abs?z")).isEqualTo("/v2/abs?z");
        // No rewrite: the target exactly as the client sent it.
        assertThat(upstreamTarget(up, "/other/./%7Ex?q")).isEqualTo("/other/./%7Ex?q");
        assertThat(upstreamTarget(up, "/apix")).isEqualTo("/apix");
    }

    @Test
    void http2ClientsAreRewrittenToo() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config("http1", up.endpoint()));
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        String base = "http://127.0.0.1:" + h.address().getPort();
        send(c, base + "/warm"); // upgrades the connection to h2c
        HttpResponse<String> r = send(c, base + "/legacy/api/items?id=7");
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(up.last().uri()).isEqualTo("/v2/items?id=7");
        send(c, base + "/strip/s");
        assertThat(up.last().uri()).isEqualTo("/s");
    }

    @Test
    void h2cUpstreamsGetTheRewrittenPath() throws Exception {
        H2cPathRecorder up = h.add(new H2cPathRecorder());
        h.start(config("h2c", up.endpoint()));
        try (RawClient c = h.client()) {
            c.send("GET /api/users?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            c.send("GET /health HTTP/1.1\r\nHost: example.com\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            c.send("GET /kept/%7Ex HTTP/1.1\r\nHost: example.com\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        String base = "http://127.0.0.1:" + h.address().getPort();
        send(client, base + "/warm");
        send(client, base + "/legacy/api/z?q");
        await().atMost(Duration.ofSeconds(5)).until(() -> up.paths().size() == 5);
        assertThat(up.paths()).containsExactly("/v2/users?x=1", "/status", "/kept/%7Ex", "/warm", "/v2/z?q");
    }

    private static HttpResponse<String> send(HttpClient c, String uri) throws Exception {
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r;
    }
}
