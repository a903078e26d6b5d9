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
 * {@code pathRewrite: { replaceRegexMatch }} (ADR 0058) as a real upstream sees it: every match of the pattern
 * in the path replaced with its groups, the query kept, a path the pattern does not match sent as the client
 * wrote it, a result without a leading slash given one, one climbing above {@code /} refused with 400; from
 * HTTP/1.1 and HTTP/2 clients, to http1 and h2c upstreams.
 */
class RegexRewriteTest {
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
                      - matches: [ { path: { type: RegularExpression, value: "/api/v[0-9]+/.*" } } ]
                        backends: [ { upstream: app } ]
                        pathRewrite: { replaceRegexMatch: { pattern: "^/api/v[0-9]+/(.*)", substitution: "/$1" } }
                      - matches: [ { path: { type: RegularExpression, value: "/[^/]+/static/.*" } } ]
                        backends: [ { upstream: app } ]
                        pathRewrite: { replaceRegexMatch: { pattern: "^/(.*)/static/(.*)", substitution: "/static/$2" } }
                      - matches: [ { path: { value: /old } } ]
                        backends: [ { upstream: app } ]
                        pathRewrite: { replaceRegexMatch: { pattern: "/old/", substitution: "/new/" } }
                      - matches: [ { path: { value: /strip } } ]
                        backends: [ { upstream: app } ]
                        pathRewrite: { replaceRegexMatch: { pattern: "^/strip/?(.*)", substitution: "$1" } }
                      - matches: [ { path: { value: /up } } ]
                        backends: [ { upstream: app } ]
                        pathRewrite: { replaceRegexMatch: { pattern: "^/up/x(.*)", substitution: "/$1/y" } }
                      - matches: [ { path: { value: /warm } } ]
                        backends: [ { upstream: app } ]
                """.formatted(protocol, endpoint);
    }

    /** What the upstream got as the target for each client target, one request per connection. */
    private String upstreamTarget(TestUpstream up, String target) throws Exception {
        try (RawClient c = new RawClient(h.address())) {
            RawClient.Response r = c.send("GET " + target + " HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
            assertThat(r.status()).as(target).isEqualTo(200);
        }
        return up.last().uri();
    }

    @Test
    void http1UpstreamGetsThePathWithItsMatchesReplaced() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config("http1", up.endpoint()));
        // Groups, and the query kept (the pattern sees the path only).
        assertThat(upstreamTarget(up, "/api/v2/users?page=2&x")).isEqualTo("/users?page=2&x");
        assertThat(upstreamTarget(up, "/app/static/css/site.css")).isEqualTo("/static/css/site.css");
        // Every match, as Envoy's regex_rewrite and Traefik's ReplacePathRegex.
        assertThat(upstreamTarget(up, "/old/a/old/b?q")).isEqualTo("/new/a/new/b?q");
        // No match: the target exactly as the client sent it, as a rule without pathRewrite.
        assertThat(upstreamTarget(up, "/old?x=1")).isEqualTo("/old?x=1");
        assertThat(upstreamTarget(up, "/%6Fld")).isEqualTo("/%6Fld");
        // A result without a leading slash gets one (nginx's rewrite does the same); empty is "/".
        assertThat(upstreamTarget(up, "/strip/a/b?q=1")).isEqualTo("/a/b?q=1");
        assertThat(upstreamTarget(up, "/strip")).isEqualTo("/");
        // The normalised path is rewritten, and the result normalised again; %2F stays encoded.
        assertThat(upstreamTarget(up, "/api/v1/./a/../%75sers")).isEqualTo("/users");
        assertThat(upstreamTarget(up, "/api/v1/group%2Fproject")).isEqualTo("/group%2Fproject");
        assertThat(upstreamTarget(up, "/up/xz")).isEqualTo("/z/y");
        // A path the pattern only matches with encoded slashes as separators (as the rule matched it).
        assertThat(upstreamTarget(up, "/api%2Fv3/users")).isEqualTo("/users");
        // An absolute-form target is rewritten too.
        assertThat(upstreamTarget(up, "http://example.com/api/v9/abs?z")).isEqualTo("/abs?z");
    }

    @Test
    void aResultAboveTheRootIsRefusedWith400() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config("http1", up.endpoint()));
        // "x.." is a name, but the capture ".." put before "/y" would climb above "/".
        try (RawClient c = h.client()) {
            assertThat(c.send("GET /up/x.. HTTP/1.1\r\nHost: example.com\r\n\r\n").read().status()).isEqualTo(400);
        }
        assertThat(up.requests()).isZero();
    }

    @Test
    void http2ClientsAreRewrittenToo() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(200, "ok"));
        h.start(config("http1", up.endpoint()));
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        String base = "http://127.0.0.1:" + h.address().getPort();
        send(c, base + "/warm"); // upgrades the connection to h2c
        HttpResponse<String> r = send(c, base + "/api/v3/items?id=7");
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(up.last().uri()).isEqualTo("/items?id=7");
        send(c, base + "/x/static/y");
        assertThat(up.last().uri()).isEqualTo("/static/y");
    }

    @Test
    void h2cUpstreamsGetTheRewrittenPath() throws Exception {
        H2cPathRecorder up = h.add(new H2cPathRecorder());
        h.start(config("h2c", up.endpoint()));
        try (RawClient c = h.client()) {
            c.send("GET /api/v2/users?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            c.send("GET /old HTTP/1.1\r\nHost: example.com\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        String base = "http://127.0.0.1:" + h.address().getPort();
        send(client, base + "/warm");
        send(client, base + "/strip/z?q");
        await().atMost(Duration.ofSeconds(5)).until(() -> up.paths().size() == 4);
        assertThat(up.paths()).containsExactly("/users?x=1", "/old", "/warm", "/z?q");
    }

    private static HttpResponse<String> send(HttpClient c, String uri) throws Exception {
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r;
    }
}
