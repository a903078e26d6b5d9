package dev.strait.proxy.headers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A route's {@code hsts} on a real proxy with a plain and a TLS listener: every kind of answer over https carries
 * {@code Strict-Transport-Security} (HTTP/1.1 and HTTP/2), none over plain HTTP unless a trusted load balancer says
 * the client used https, and an answer's own field wins.
 */
class HstsTest {
    private static final String STS = "max-age=31536000; includeSubDomains";
    private final ProxyHarness h = new ProxyHarness();
    private TestCertificates pki;

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String q(String s) {
        return "\"" + s.replace("\n", "\\n") + "\"";
    }

    @BeforeEach
    void start() throws Exception {
        pki = new TestCertificates();
        TestCertificates.Issued cert = pki.issue(TestCertificates.KeyType.EC, "localhost", "localhost");
        TestUpstream app = h.upstream((ctx, req, up) -> ctx.writeAndFlush(req.uri().endsWith("/own")
                ? TestUpstream.response(200, "app", "strict-transport-security", "max-age=60")
                : TestUpstream.response(200, "app")));
        h.startConfig("""
                accessLog: { enabled: false }
                forwardedHeaders: { trustedPeers: [ "127.0.0.1" ] }
                listeners:
                  - { name: http, address: "127.0.0.1:0" }
                  - { name: https, address: "127.0.0.1:0", tls: { certificates: [ { cert: %s, key: %s } ] } }
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ localhost ]
                    hsts: { includeSubDomains: true }
                    rules:
                      - matches: [ { path: { type: Exact, value: /fixed } } ]
                        respond: { status: 200, body: "fixed" }
                      - matches: [ { path: { type: Exact, value: /guarded } } ]
                        respond: { status: 200, body: "guarded" }
                        clientAddresses: { allow: [ "10.0.0.0/8" ] }
                      - matches: [ { path: { type: Exact, value: /opted-out } } ]
                        respond: { status: 200, body: "out" }
                        responseHeaders: { set: { Strict-Transport-Security: "max-age=0" } }
                      - matches: [ { path: { type: Prefix, value: /proxied } }, { path: { type: Exact, value: /own } } ]
                        backends: [ { upstream: app } ]
                  - name: other
                    hosts: [ other.localhost ]
                    rules:
                      - respond: { status: 200, body: "other" }
                """.formatted(q(cert.certPem()), q(cert.keyPem()), app.endpoint()));
    }

    private HttpResponse<String> https(HttpClient.Version v, String path, String host) throws Exception {
        HttpClient c = HttpClient.newBuilder().version(v).sslContext(pki.clientContext())
                .connectTimeout(Duration.ofSeconds(5)).build();
        URI uri = URI.create("https://localhost:" + h.server.address("https").getPort() + path);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
        return c.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private RawClient.Response plain(String path, String host, String... lines) throws Exception {
        try (RawClient c = new RawClient(h.server.address("http"))) {
            StringBuilder sb = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\nHost: ").append(host).append("\r\n");
            for (String l : lines) {
                sb.append(l).append("\r\n");
            }
            return c.send(sb.append("\r\n").toString()).read();
        }
    }

    @Test
    void everyAnswerOverHttpsCarriesItOnBothProtocols() throws Exception {
        for (HttpClient.Version v : HttpClient.Version.values()) {
            for (String path : new String[] {"/fixed", "/proxied", "/nowhere/../fixed"}) {
                HttpResponse<String> r = https(v, path, "localhost");
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().allValues("strict-transport-security")).as(v + " " + path).containsExactly(STS);
            }
        }
    }

    @Test
    void plainHttpNeverCarriesItUnlessATrustedBalancerEndedTls() throws Exception {
        RawClient.Response r = plain("/fixed", "localhost");
        assertThat(r.text()).isEqualTo("fixed");
        assertThat(r.header("strict-transport-security")).isNull();
        assertThat(plain("/proxied", "localhost").header("strict-transport-security")).isNull();
        assertThat(plain("/fixed", "localhost", "X-Forwarded-Proto: https").header("strict-transport-security"))
                .isEqualTo(STS);
    }

    @Test
    void anAnswersOwnFieldWinsAndOtherRoutesHaveNone() throws Exception {
        assertThat(https(HttpClient.Version.HTTP_1_1, "/opted-out", "localhost").headers()
                .allValues("strict-transport-security")).containsExactly("max-age=0");
        assertThat(https(HttpClient.Version.HTTP_2, "/own", "localhost").headers()
                .allValues("strict-transport-security")).containsExactly("max-age=60");
        assertThat(plain("/", "other.localhost", "X-Forwarded-Proto: https").header("strict-transport-security")).isNull();
    }

    /**
     * A path none of the host's rules answers is still the host's: its 404 over https carries the route's HSTS, as
     * nginx's {@code add_header ... always} in the server block does; a host no route names gets none.
     */
    @Test
    void theHostsNotFoundOverHttpsCarriesItToo() throws Exception {
        for (HttpClient.Version v : HttpClient.Version.values()) {
            HttpResponse<String> missing = https(v, "/missing", "localhost");
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(missing.headers().allValues("strict-transport-security")).as(v.toString()).containsExactly(STS);
        }
        RawClient.Response plain = plain("/missing", "localhost");
        assertThat(plain.status()).isEqualTo(404);
        assertThat(plain.header("strict-transport-security")).isNull();
        assertThat(plain("/missing", "localhost", "X-Forwarded-Proto: https").header("strict-transport-security"))
                .isEqualTo(STS);
        RawClient.Response unknown = plain("/", "unknown.example", "X-Forwarded-Proto: https");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.header("strict-transport-security")).isNull();
    }

    /** A guard's refusal is an answer of the route too: browsers learn HSTS from a 403 as from a 200. */
    @Test
    void aGuardsRefusalOverHttpsCarriesItToo() throws Exception {
        HttpResponse<String> refused = https(HttpClient.Version.HTTP_1_1, "/guarded", "localhost");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.headers().allValues("strict-transport-security")).containsExactly(STS);
        RawClient.Response plain = plain("/guarded", "localhost");
        assertThat(plain.status()).isEqualTo(403);
        assertThat(plain.header("strict-transport-security")).isNull();
    }
}
