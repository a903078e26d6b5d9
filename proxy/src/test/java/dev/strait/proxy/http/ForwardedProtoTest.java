package dev.strait.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestServing;
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
 * A load balancer that ends TLS and talks plain HTTP to the proxy (ADR 0057), on a real proxy whose peer
 * is always 127.0.0.1: trusted when {@code forwardedHeaders.trustedPeers} lists it, untrusted when it
 * lists only other addresses. The ssl-redirect recipe (the site on {@code https}, a redirect on
 * {@code http}) must serve a trusted {@code X-Forwarded-Proto: https} instead of redirecting it back to
 * itself for ever, and the upstream must get that value; an untrusted peer's is ignored.
 */
class ForwardedProtoTest {
    private static final String TRUSTED = "[ \"10.0.0.0/8\", \"127.0.0.1\" ]";
    private static final String UNTRUSTED = "[ \"10.0.0.0/8\", \"::1\" ]";

    private final ProxyHarness h = new ProxyHarness();
    private TestCertificates pki;
    private TestUpstream app;
    private String listeners;

    /** The site's answer: the X-Forwarded-Proto it was sent, cacheable, so the cache's key shows too. */
    private static TestUpstream.Behaviour sayForwardedProto() {
        return (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200,
                "site:" + req.headers().get("x-forwarded-proto"), "cache-control", "max-age=60"));
    }

    @BeforeEach
    void start() throws Exception {
        pki = new TestCertificates();
        TestCertificates.Issued cert = pki.issue(TestCertificates.KeyType.EC, "localhost", "localhost");
        app = h.upstream(sayForwardedProto());
        listeners = """
                accessLog: { enabled: false }
                listeners:
                  - { name: http, address: "127.0.0.1:0" }
                  - { name: https, address: "127.0.0.1:0", tls: { certificates: [ { cert: %s, key: %s } ] } }
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                """.formatted(q(cert.certPem()), q(cert.keyPem()), app.endpoint());
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String q(String s) {
        return "\"" + s.replace("\n", "\\n") + "\"";
    }

    /** docs/config.md's ssl-redirect recipe, as the operator makes it for an Ingress with tls[]. */
    private static String sslRedirect(String trustedPeers) {
        return """
                forwardedHeaders: { trustedPeers: %s }
                routes:
                  - name: site
                    hosts: [ localhost ]
                    listeners: [ https ]
                    rules:
                      - matches: [ { path: { value: /cached/ } } ]
                        backends: [ { upstream: app } ]
                        cache: { enabled: true }
                      - backends: [ { upstream: app } ]
                  - name: site-to-https
                    hosts: [ localhost ]
                    listeners: [ http ]
                    rules:
                      - redirect: { scheme: https, statusCode: 308 }
                """.formatted(trustedPeers);
    }

    private RawClient.Response plain(String target, String... headerLines) throws Exception {
        try (RawClient c = new RawClient(h.server.address("http"))) {
            StringBuilder sb = new StringBuilder("GET ").append(target).append(" HTTP/1.1\r\nHost: localhost\r\n");
            for (String l : headerLines) {
                sb.append(l).append("\r\n");
            }
            return c.send(sb.append("\r\n").toString()).read();
        }
    }

    private HttpResponse<String> send(HttpClient c, String url, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return c.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpClient client(HttpClient.Version version) throws Exception {
        return HttpClient.newBuilder().version(version).sslContext(pki.clientContext())
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @Test
    void aTrustedPeerSayingHttpsIsServedAsOverHttpsAndItsValueGoesUpstream() throws Exception {
        h.startConfig(listeners + sslRedirect(TRUSTED));
        for (String value : new String[] {"https", "HTTPS", " https "}) {
            RawClient.Response r = plain("/p?q=1", "X-Forwarded-Proto: " + value);
            assertThat(r.status()).as(value).isEqualTo(200);
            assertThat(r.text()).isEqualTo("site:https");
        }
        assertThat(app.last().headers().getAll("x-forwarded-proto")).containsExactly("https");
        // The client used http at the load balancer, or the request did not come through it: redirected.
        for (String[] headers : new String[][] {{"X-Forwarded-Proto: http"}, {}}) {
            RawClient.Response r = plain("/p?q=1", headers);
            assertThat(r.status()).isEqualTo(308);
            assertThat(r.header("location")).isEqualTo("https://localhost/p?q=1");
        }
    }

    @Test
    void anUntrustedPeersForwardedProtoIsIgnoredUntilAReloadTrustsIt() throws Exception {
        h.startConfig(listeners + sslRedirect(UNTRUSTED));
        RawClient.Response r = plain("/p", "X-Forwarded-Proto: https");
        assertThat(r.status()).isEqualTo(308);
        assertThat(r.header("location")).isEqualTo("https://localhost/p");
        // Over TLS its claim of http is replaced by the scheme of its own connection.
        HttpResponse<String> tls = send(client(HttpClient.Version.HTTP_1_1),
                "https://localhost:" + h.server.address("https").getPort() + "/p", "X-Forwarded-Proto", "http");
        assertThat(tls.body()).isEqualTo("site:https");

        h.serving.swap(TestServing.snapshot(listeners + sslRedirect(TRUSTED)));
        assertThat(plain("/p", "X-Forwarded-Proto: https").text()).isEqualTo("site:https");
    }

    /** Only one field line with one of the two values is believed: a list's first part is not the peer's own. */
    @Test
    void onlyOneValueOfHttpOrHttpsIsBelieved() throws Exception {
        h.startConfig(listeners + sslRedirect(TRUSTED));
        for (String[] headers : new String[][] {{"X-Forwarded-Proto: https, http"}, {"X-Forwarded-Proto: https",
                "X-Forwarded-Proto: https"}, {"X-Forwarded-Proto: wss"}, {"X-Forwarded-Proto: "}}) {
            assertThat(plain("/p", headers).status()).as(String.join(" | ", headers)).isEqualTo(308);
        }
        HttpResponse<String> tls = send(client(HttpClient.Version.HTTP_1_1),
                "https://localhost:" + h.server.address("https").getPort() + "/p", "X-Forwarded-Proto", "https, http");
        assertThat(tls.body()).as("replaced by the connection's").isEqualTo("site:https");
    }

    /**
     * HTTP/2: h2c by Upgrade on the plain listener (the upgraded request and a later stream), and h2 over TLS
     * from a trusted load balancer that re-encrypts a request its client made over http.
     */
    @Test
    void http2() throws Exception {
        h.startConfig(listeners + sslRedirect(TRUSTED));
        HttpClient c = client(HttpClient.Version.HTTP_2);
        String clear = "http://localhost:" + h.server.address("http").getPort();
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> r = send(c, clear + "/p" + i, "X-Forwarded-Proto", "https");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("site:https");
            if (i > 0) {
                assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
            }
        }
        assertThat(send(c, clear + "/p", "X-Forwarded-Proto", "http").statusCode()).isEqualTo(308);
        HttpResponse<String> h2 = send(c, "https://localhost:" + h.server.address("https").getPort() + "/p",
                "X-Forwarded-Proto", "http");
        assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(h2.body()).isEqualTo("site:http");
    }

    /** The cache's key has the scheme the client used, so an answer made for http is never one for https. */
    @Test
    void theCacheKeepsWhatEachSchemeWasAnsweredApart() throws Exception {
        h.startConfig(listeners + sslRedirect(TRUSTED));
        HttpClient c = client(HttpClient.Version.HTTP_1_1);
        String tls = "https://localhost:" + h.server.address("https").getPort() + "/cached/x";
        assertThat(send(c, tls, "X-Forwarded-Proto", "http").body()).isEqualTo("site:http");
        assertThat(send(c, tls).body()).isEqualTo("site:https");
        assertThat(plain("/cached/x", "X-Forwarded-Proto: https").text()).isEqualTo("site:https");
        assertThat(send(c, tls, "X-Forwarded-Proto", "http").body()).isEqualTo("site:http");
        assertThat(app.requests()).as("one fetch per scheme").isEqualTo(2);
    }

    /** A request made over TLS to the proxy passes a redirect to https over too: it would only loop. */
    @Test
    void overTlsTheNextRuleServesToo() throws Exception {
        h.startConfig(listeners + """
                routes:
                  - name: site
                    hosts: [ localhost ]
                    rules:
                      - redirect: { scheme: https, port: 443 }
                      - respond: { body: served }
                """);
        HttpResponse<String> tls = send(client(HttpClient.Version.HTTP_2),
                "https://localhost:" + h.server.address("https").getPort() + "/a");
        assertThat(tls.statusCode()).isEqualTo(200);
        assertThat(tls.body()).isEqualTo("served");
        RawClient.Response plain = plain("/a", "X-Forwarded-Proto: https");
        assertThat(plain.status()).as("no trusted peers: redirected").isEqualTo(302);
        assertThat(plain.header("location")).isEqualTo("https://localhost/a");
    }

    /**
     * Without routes bound to listeners (one table, no TLS listener: TLS ends at the balancer for every
     * request), the rule after the redirect serves a trusted https request. A redirect that changes more than
     * the scheme still answers; one without a scheme keeps the client's.
     */
    @Test
    void withOneTableTheNextRuleServes() throws Exception {
        h.start("""
                forwardedHeaders: { trustedPeers: [ 127.0.0.1/32 ] }
                routes:
                  - name: site
                    hosts: [ localhost ]
                    rules:
                      - redirect: { scheme: https, statusCode: 301 }
                      - respond: { body: served }
                      - matches: [ { path: { value: /www } } ]
                        redirect: { scheme: https, hostname: www.localhost }
                      - matches: [ { path: { value: /moved } } ]
                        redirect: { hostname: new.localhost }
                """);
        RawClient.Response r = plain("/a", "X-Forwarded-Proto: https");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("served");
        assertThat(plain("/a", "X-Forwarded-Proto: http").status()).isEqualTo(301);
        assertThat(plain("/www/x", "X-Forwarded-Proto: https").header("location")).isEqualTo("https://www.localhost/www/x");
        assertThat(plain("/moved", "X-Forwarded-Proto: https").header("location")).isEqualTo("https://new.localhost/moved");
        assertThat(plain("/moved").header("location")).isEqualTo("http://new.localhost/moved");
    }
}
