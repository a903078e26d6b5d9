package dev.strait.proxy.handler.redirect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.proxy.testing.CapturedAccessLog;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TlsClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@code redirect} action on a real proxy, over HTTP/1.1 and HTTP/2: the {@code Location} for each way
 * its parts combine with the request's (Gateway API's rules for ports), the status, no body, HEAD, the query
 * kept, the matched prefix replaced per match, and the access log and metrics that count it like any rule.
 */
class RedirectTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    /** One route on host {@code *} whose rules are the given ones, in flow style. */
    private static String routes(String... rules) {
        return "routes: [ { name: site, hosts: [ \"*\" ], rules: [ " + String.join(", ", rules) + " ] } ]\n";
    }

    private RawClient.Response get(String target, String host) throws Exception {
        try (RawClient c = new RawClient(h.address())) {
            return c.send("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").read();
        }
    }

    static Stream<Arguments> locations() {
        return Stream.of(
                // Nothing set: the request's own URL, port of its Host kept.
                arguments("{}", "/a/b?x=1&y", "example.com", 302, "http://example.com/a/b?x=1&y"),
                arguments("{}", "/a", "example.com:8080", 302, "http://example.com:8080/a"),
                // ssl-redirect: a new scheme without a port takes that scheme's default, so :8080 goes.
                arguments("{ scheme: https, statusCode: 308 }", "/p?q=1", "example.com:8080", 308,
                        "https://example.com/p?q=1"),
                arguments("{ scheme: https, port: 8443 }", "/p", "example.com", 302, "https://example.com:8443/p"),
                // A port that is the scheme's default is left out.
                arguments("{ scheme: https, port: 443 }", "/p", "example.com:80", 302, "https://example.com/p"),
                arguments("{ port: 80 }", "/p", "example.com:8080", 302, "http://example.com/p"),
                arguments("{ port: 9000 }", "/p", "example.com", 302, "http://example.com:9000/p"),
                // Another host keeps the scheme, the Host's port and the path.
                arguments("{ hostname: www.example.com, statusCode: 301 }", "/p?a=b", "example.com:8080", 301,
                        "http://www.example.com:8080/p?a=b"),
                arguments("{ scheme: https, hostname: www.example.com }", "/", "example.com:8080", 302,
                        "https://www.example.com/"),
                // permanent-redirect: the whole URL fixed; the query is still the request's.
                arguments("{ scheme: https, hostname: new.example, path: { replaceFullPath: /landing }, statusCode: 301 }",
                        "/old/x?utm=1", "example.com", 301, "https://new.example/landing?utm=1"),
                arguments("{ path: { replaceFullPath: /x }, statusCode: 303 }", "/y", "example.com", 303,
                        "http://example.com/x"),
                arguments("{ path: { replacePrefixMatch: /new }, statusCode: 307 }", "/a/b", "example.com", 307,
                        "http://example.com/new/a/b"),
                // The normalised path: dot segments and escapes of unreserved characters are resolved.
                arguments("{ scheme: https }", "/a/./b/../%63", "example.com", 302, "https://example.com/a/c"),
                arguments("{ scheme: https }", "/a", "[::1]:8080", 302, "https://[::1]/a"));
    }

    @ParameterizedTest
    @MethodSource
    void locations(String redirect, String target, String host, int status, String location) throws Exception {
        h.start(routes("{ redirect: " + redirect + " }"));
        RawClient.Response r = get(target, host);
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.headers()).containsEntry("location", location).containsEntry("content-length", "0");
        assertThat(r.body()).isEmpty();
    }

    @Test
    void theMatchedPrefixIsReplacedPerMatch() throws Exception {
        h.start(routes("""
                { matches: [ { path: { value: /docs/ } }, { path: { value: /manual } }, { path: { value: /a/b } } ],
                  redirect: { path: { replacePrefixMatch: /guide }, statusCode: 301 } }""",
                "{ matches: [ { path: { value: /strip } } ], redirect: { path: { replacePrefixMatch: / } } }",
                "{ respond: { body: rest } }"));
        assertThat(get("/docs/intro?v=2", "h").headers()).containsEntry("location", "http://h/guide/intro?v=2");
        assertThat(get("/docs", "h").headers()).containsEntry("location", "http://h/guide");
        assertThat(get("/docs/", "h").headers()).containsEntry("location", "http://h/guide/");
        assertThat(get("/manual/x/y", "h").headers()).containsEntry("location", "http://h/guide/x/y");
        assertThat(get("/a/b/c", "h").headers()).containsEntry("location", "http://h/guide/c");
        assertThat(get("/strip/me", "h").headers()).containsEntry("location", "http://h/me");
        assertThat(get("/strip", "h").headers()).containsEntry("location", "http://h/");
        assertThat(get("/docsx", "h").body()).isEqualTo("rest".getBytes());
    }

    @Test
    void headGetsTheSameHeadWithoutBody() throws Exception {
        h.start(routes("{ redirect: { scheme: https } }"));
        try (RawClient c = h.client()) {
            RawClient.Response r = c.send("HEAD /x?q HTTP/1.1\r\nHost: example.com\r\n\r\n").read(true);
            assertThat(r.status()).isEqualTo(302);
            assertThat(r.headers()).containsEntry("location", "https://example.com/x?q");
            // The connection stays usable: nothing was left unread after the head.
            RawClient.Response next = c.send("GET /y HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
            assertThat(next.headers()).containsEntry("location", "https://example.com/y");
        }
    }

    @Test
    void anHttp10RequestWithoutHostIsSentToTheAddressItReached() throws Exception {
        h.start(routes("{ redirect: { scheme: https } }"));
        try (RawClient c = h.client()) {
            RawClient.Response r = c.send("GET /x HTTP/1.0\r\n\r\n").read();
            assertThat(r.headers()).containsEntry("location", "https://127.0.0.1/x");
        }
    }

    @Test
    void onATlsListenerTheRequestsSchemeIsHttps() throws Exception {
        TestCertificates pki = new TestCertificates();
        TestCertificates.Issued cert = pki.issue(TestCertificates.KeyType.EC, "example.com", "example.com");
        h.startConfig("""
                accessLog: { enabled: false }
                listeners: [ { name: https, address: "127.0.0.1:0", tls: { certificates: [ { cert: %s, key: %s } ] } } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { value: /plain } } ]
                        redirect: { scheme: http }
                      - redirect: { hostname: www.example.com }
                """.formatted(q(cert.certPem()), q(cert.keyPem())));
        try (TlsClient c = new TlsClient(pki.clientContext(), h.server.address("https"), "example.com")) {
            TlsClient.Response kept = c.get("/a?b", "example.com:8443");
            assertThat(kept.status()).isEqualTo(302);
            assertThat(kept.headers()).containsEntry("location", "https://www.example.com:8443/a?b");
            TlsClient.Response plain = c.get("/plain/x", "example.com:8443");
            assertThat(plain.headers()).containsEntry("location", "http://example.com/plain/x");
            TlsClient.Response defaultPort = c.get("/c", "example.com:443");
            assertThat(defaultPort.headers()).containsEntry("location", "https://www.example.com/c");
        }
    }

    private static String q(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    @Test
    void http2ClientsGetTheSameLocation() throws Exception {
        h.start(routes("""
                { matches: [ { path: { value: /old } } ],
                  redirect: { scheme: https, path: { replacePrefixMatch: /new }, statusCode: 308 } }""",
                "{ redirect: { hostname: other.example } }"));
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        int port = h.address().getPort();
        // The first request upgrades the connection to h2c; the next are HTTP/2 streams.
        send(c, "http://127.0.0.1:" + port + "/warm", "GET");
        HttpResponse<String> r = send(c, "http://127.0.0.1:" + port + "/old/a?b=c", "GET");
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(r.statusCode()).isEqualTo(308);
        assertThat(r.headers().firstValue("location")).hasValue("https://127.0.0.1/new/a?b=c");
        assertThat(r.body()).isEmpty();
        HttpResponse<String> other = send(c, "http://127.0.0.1:" + port + "/x", "HEAD");
        assertThat(other.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(other.statusCode()).isEqualTo(302);
        assertThat(other.headers().firstValue("location")).hasValue("http://other.example:" + port + "/x");
    }

    @Test
    void theAccessLogAndMetricsRecordTheRedirect() throws Exception {
        CapturedAccessLog log = CapturedAccessLog.start(h, "workers: 1\n" + routes(
                "{ matches: [ { path: { value: /old } } ], redirect: { path: { replaceFullPath: /new }, statusCode: 301 } }"));
        assertThat(get("/old/x?y", "example.com").status()).isEqualTo(301);
        List<JsonNode> lines = log.await(1);
        JsonNode line = lines.get(0);
        assertThat(line.get("status").asInt()).isEqualTo(301);
        assertThat(line.get("route").asText()).isEqualTo("site");
        assertThat(line.get("uri").asText()).isEqualTo("/old/x?y");
        assertThat(line.get("bytes").asInt()).isZero();
        assertThat(line.get("upstream").isNull()).isTrue();
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"301\"} 1.0");
    }

    private static HttpResponse<String> send(HttpClient c, String uri, String method) throws Exception {
        return c.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
}
