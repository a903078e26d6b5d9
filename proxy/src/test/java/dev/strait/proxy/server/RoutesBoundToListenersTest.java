package dev.strait.proxy.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestServing;
import dev.strait.proxy.testing.TlsClient;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Routes bound to listeners, on a real proxy with a plain ({@code http}) and a TLS ({@code https})
 * listener: the ssl-redirect recipe of docs/config.md (the host's real rules on https, one redirect rule on
 * http), a route without {@code listeners} on both, every protocol using its listener's table (HTTP/1.1,
 * h2 by ALPN, h2c by Upgrade and by prior knowledge), and a reload that moves a route between listeners.
 */
class RoutesBoundToListenersTest {
    private static final String ROUTES = """
            routes:
              - name: site
                hosts: [ localhost ]
                listeners: [ https ]
                rules:
                  - matches: [ { path: { type: Exact, value: /healthz } } ]
                    respond: { body: ok }
                  - matches: [ { path: { value: /api/ } } ]
                    respond: { body: api }
                  - respond: { body: home }
              - name: site-redirect
                hosts: [ localhost ]
                listeners: [ http ]
                rules:
                  - redirect: { scheme: https, statusCode: 308 }
              - name: other
                hosts: [ "*" ]
                rules:
                  - respond: { body: other }
            """;

    private final ProxyHarness h = new ProxyHarness();
    private TestCertificates pki;
    private String listeners;

    @BeforeEach
    void start() throws Exception {
        pki = new TestCertificates();
        TestCertificates.Issued cert = pki.issue(TestCertificates.KeyType.EC, "localhost", "localhost");
        listeners = """
                accessLog: { enabled: false }
                listeners:
                  - { name: http, address: "127.0.0.1:0" }
                  - { name: https, address: "127.0.0.1:0", tls: { certificates: [ { cert: %s, key: %s } ] } }
                """.formatted(q(cert.certPem()), q(cert.keyPem()));
        h.startConfig(listeners + ROUTES);
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private InetSocketAddress http() {
        return h.server.address("http");
    }

    private RawClient.Response plain(String target, String host) throws Exception {
        try (RawClient c = new RawClient(http())) {
            return c.send("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").read();
        }
    }

    private TlsClient.Response tls(String target, String host) throws Exception {
        String sni = host.contains(":") ? host.substring(0, host.indexOf(':')) : host;
        try (TlsClient c = new TlsClient(pki.clientContext(), h.server.address("https"), sni, "http/1.1")) {
            return c.get(target, host);
        }
    }

    @Test
    void thePlainListenerRedirectsEveryPathOfTheHostEvenWhereHttpsHasLongerPrefixes() throws Exception {
        int port = http().getPort();
        for (String target : new String[] {"/", "/healthz", "/api/", "/api/users/1?x=y", "/a/b"}) {
            RawClient.Response r = plain(target, "localhost:" + port);
            assertThat(r.status()).as(target).isEqualTo(308);
            assertThat(r.headers()).as(target).containsEntry("location", "https://localhost" + target);
        }
    }

    @Test
    void theTlsListenerServesTheRealRulesAndNeverTheRedirect() throws Exception {
        String host = "localhost:" + h.server.address("https").getPort();
        assertThat(tls("/api/users", host).body()).isEqualTo("api");
        assertThat(tls("/healthz", host).body()).isEqualTo("ok");
        TlsClient.Response home = tls("/anything", host);
        assertThat(home.status()).isEqualTo(200);
        assertThat(home.body()).isEqualTo("home");
    }

    @Test
    void aRouteWithoutListenersIsServedOnBoth() throws Exception {
        assertThat(plain("/x", "other.test").body()).isEqualTo("other".getBytes(StandardCharsets.UTF_8));
        assertThat(tls("/x", "other.test").body()).isEqualTo("other");
    }

    @Test
    void http2UsesTheTableOfItsListener() throws Exception {
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(pki.clientContext()).build();
        // h2 by ALPN on the TLS listener: the real rules.
        HttpResponse<String> h2 = send(c, "https://localhost:" + h.server.address("https").getPort() + "/api/x");
        assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(h2.body()).isEqualTo("api");
        // h2c by Upgrade on the plain one: the first request upgrades, the second is a stream; both redirected.
        String clear = "http://localhost:" + http().getPort();
        assertThat(send(c, clear + "/api/x").statusCode()).isEqualTo(308);
        HttpResponse<String> h2c = send(c, clear + "/api/y?z");
        assertThat(h2c.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(h2c.statusCode()).isEqualTo(308);
        assertThat(h2c.headers().firstValue("location")).hasValue("https://localhost/api/y?z");
        // h2c with prior knowledge.
        assertThat(curl("--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_version} %{http_code} %{redirect_url}",
                clear + "/api/z")).isEqualTo("2 308 https://localhost/api/z");
    }

    @Test
    void aReloadMovesARouteBetweenListeners() throws Exception {
        // ssl-redirect off: the site on both listeners, the redirect route gone.
        h.serving.swap(TestServing.snapshot(listeners + ROUTES.replace("    listeners: [ https ]\n", "")
                .replace("    listeners: [ http ]\n", "    listeners: [ https ]\n")));
        assertThat(plain("/api/x", "localhost").body()).isEqualTo("api".getBytes(StandardCharsets.UTF_8));
        // The redirect route now binds to https, after the site's rules, which answer everything there.
        assertThat(tls("/api/x", "localhost").body()).isEqualTo("api");
        // And back.
        h.serving.swap(TestServing.snapshot(listeners + ROUTES));
        assertThat(plain("/api/x", "localhost").status()).isEqualTo(308);
        assertThat(tls("/api/x", "localhost").body()).isEqualTo("api");
    }

    private static HttpResponse<String> send(HttpClient c, String uri) throws Exception {
        return c.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String curl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "10"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("curl %s", String.join(" ", args)).isZero();
        return out;
    }

    private static String q(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }
}
