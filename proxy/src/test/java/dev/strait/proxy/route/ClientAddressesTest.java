package dev.strait.proxy.route;

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
 * A rule's {@code clientAddresses} (ADR 0060) on a real proxy, whose client is always 127.0.0.1 unless a
 * trusted peer names another in {@code X-Forwarded-For}: a refused client gets 403 whatever the action
 * (no upstream is asked, no file read), never the next rule's answer, over HTTP/1.1 and HTTP/2.
 */
class ClientAddressesTest {
    private final ProxyHarness h = new ProxyHarness();
    @TempDir
    Path root;

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private String config(String trustedPeers, String appEndpoint, String officeAllow) throws Exception {
        Files.createDirectories(root.resolve("files"));
        Files.writeString(root.resolve("files/doc.txt"), "secret file");
        return """
                forwardedHeaders: { trustedPeers: %s }
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /office } } ]
                        respond: { body: "office" }
                        clientAddresses: { allow: %s }
                      - matches: [ { path: { type: Prefix, value: /local } } ]
                        respond: { body: "local" }
                        clientAddresses: { allow: [ 10.0.0.0/8, 127.0.0.0/8 ] }
                      - matches: [ { path: { type: Prefix, value: /blocked } } ]
                        respond: { body: "blocked" }
                        clientAddresses: { allow: [ 127.0.0.0/8 ], deny: [ 127.0.0.1 ] }
                      - matches: [ { path: { type: Prefix, value: /files } } ]
                        files: { root: "%s" }
                        clientAddresses: { allow: [ 10.0.0.0/8 ] }
                      - matches: [ { path: { type: Prefix, value: /app } } ]
                        backends: [ { upstream: app } ]
                        clientAddresses: { allow: [ 10.0.0.0/8 ] }
                      - respond: { body: "fallback" }
                """.formatted(trustedPeers, appEndpoint, officeAllow, root);
    }

    @Test
    void aClientOutsideTheListGets403FromEveryActionAndNeverTheNextRule() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.name());
        h.start(config("[]", app.endpoint(), "[ 10.0.0.0/8 ]"));
        for (String path : new String[] {"/office", "/blocked", "/files/doc.txt", "/app/x"}) {
            RawClient.Response r = h.get(path);
            assertThat(r.status()).as(path).isEqualTo(403);
            assertThat(r.text()).as(path).doesNotContain("fallback").doesNotContain("secret");
        }
        assertThat(app.requests()).as("no upstream asked").isZero();
        assertThat(h.get("/local").text()).isEqualTo("local");
        assertThat(h.get("/elsewhere").text()).isEqualTo("fallback");
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"403\"} 4.0");

        h.reload(config("[]", app.endpoint(), "[ 127.0.0.1 ]"));
        assertThat(h.get("/office").text()).as("the list applies on reload").isEqualTo("office");
    }

    /** Behind a trusted balancer the client it names is checked; anyone else's X-Forwarded-For is not read. */
    @Test
    void theClientATrustedPeerNamesIsTheOneChecked() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.name());
        h.start(config("[ 127.0.0.1 ]", app.endpoint(), "[ 10.0.0.0/8 ]"));
        assertThat(h.get("/office", "X-Forwarded-For: 10.1.2.3").text()).isEqualTo("office");
        assertThat(h.get("/app/x", "X-Forwarded-For: 10.1.2.3").text()).isEqualTo("app");
        assertThat(h.get("/office", "X-Forwarded-For: 10.1.2.3, 203.0.113.7").status())
                .as("the client wrote 10.1.2.3 itself").isEqualTo(403);
        assertThat(h.get("/office").status()).as("no list: the balancer itself").isEqualTo(403);

        h.reload(config("[ 192.0.2.1 ]", app.endpoint(), "[ 10.0.0.0/8 ]"));
        assertThat(h.get("/office", "X-Forwarded-For: 10.1.2.3").status()).as("an untrusted peer's list").isEqualTo(403);
    }

    @Test
    void overHttp2() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.name());
        h.start(config("[]", app.endpoint(), "[ 10.0.0.0/8 ]"));
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        String base = "http://127.0.0.1:" + h.address().getPort();
        // The first request upgrades the connection (h2c); the ones after it are streams.
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> office = c.send(HttpRequest.newBuilder(URI.create(base + "/office"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(office.statusCode()).isEqualTo(403);
        }
        HttpResponse<String> local = c.send(HttpRequest.newBuilder(URI.create(base + "/local"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(local.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(local.body()).isEqualTo("local");
        HttpResponse<String> app403 = c.send(HttpRequest.newBuilder(URI.create(base + "/app/y"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(app403.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(app403.statusCode()).isEqualTo(403);
        assertThat(app.requests()).isZero();
    }
}
