package dev.strait.proxy.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code basicAuth} (ADR 0061) on a real proxy: 401 with the challenge until the credentials of a
 * listed user come, over HTTP/1.1 and HTTP/2; no upstream is asked before; the next rule never answers
 * instead; the users change on reload.
 */
class BasicAuthTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String appEndpoint, String users) {
        return """
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /admin } } ]
                        backends: [ { upstream: app } ]
                        basicAuth:
                          realm: "Staff only"
                          htpasswd: |
                %s
                      - respond: { body: "public" }
                """.formatted(appEndpoint, users.indent(14).stripTrailing());
    }

    private static String basic(String userPass) {
        return "Basic " + Base64.getEncoder().encodeToString(userPass.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aListedUserIsServedAndEveryoneElseChallenged() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.name());
        h.start(config(app.endpoint(), "alice:$apr1$sAlT1234$zyQo.9jXkwfQG39OatMyL0"));
        RawClient.Response none = h.get("/admin/x");
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.header("www-authenticate")).isEqualTo("Basic realm=\"Staff only\", charset=\"UTF-8\"");
        assertThat(none.text()).doesNotContain("public");
        assertThat(h.get("/admin/x", "Authorization: " + basic("alice:wrong")).status()).isEqualTo(401);
        assertThat(app.requests()).as("no upstream asked").isZero();

        RawClient.Response ok = h.get("/admin/x", "Authorization: " + basic("alice:pa ss:wörd"));
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.text()).isEqualTo("app");
        assertThat(app.last().header("authorization")).as("passed on, as nginx does").isEqualTo(basic("alice:pa ss:wörd"));
        assertThat(h.get("/other").text()).isEqualTo("public");

        h.reload(config(app.endpoint(), "bob:{SHA}kniYfDOveJALlwGbJH1veyGzBwU="));
        assertThat(h.get("/admin/x", "Authorization: " + basic("alice:pa ss:wörd")).status()).as("alice is gone")
                .isEqualTo(401);
        assertThat(h.get("/admin/x", "Authorization: " + basic("bob:pa ss:wörd")).status()).isEqualTo(200);
    }

    /**
     * bcrypt cost 12 (~370 ms a check here) is worked out off the event loop: with one loop, a request for a
     * public page sent while the check runs is answered first; the checked request and its body wait, and
     * reach the upstream whole.
     */
    @Test
    void aSlowHashDoesNotHoldUpTheLoop() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.echo());
        h.start("workers: 1\n" + config(app.endpoint(), "carol:" + BasicAuthGuardTest.bcrypt("s3cret", 12)
                + "\ndave:" + BasicAuthGuardTest.bcrypt("s3cret", 11)));
        RawClient checked = h.client();
        checked.send("POST /admin/x HTTP/1.1\r\nHost: a\r\nAuthorization: " + basic("carol:s3cret")
                + "\r\nContent-Length: 200000\r\n\r\n" + "c".repeat(200_000));
        assertThat(h.get("/other").text()).isEqualTo("public");
        assertThat(checked.input().available()).as("the check is still under way").isZero();
        RawClient.Response r = checked.read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("c".repeat(200_000));

        // A wrong password is worked out the same way; the body is dropped and the connection goes on.
        checked.send("POST /admin/x HTTP/1.1\r\nHost: a\r\nAuthorization: " + basic("dave:wrong")
                + "\r\nContent-Length: 100000\r\n\r\n" + "d".repeat(100_000));
        assertThat(checked.read().status()).isEqualTo(401);
        checked.send("GET /admin/y HTTP/1.1\r\nHost: a\r\nAuthorization: " + basic("carol:s3cret") + "\r\n\r\n");
        assertThat(checked.read().status()).as("proven before: no hash").isEqualTo(200);
        assertThat(app.requests()).isEqualTo(2);

        // Over HTTP/2 too.
        HttpClient h2 = h.h2cClient("/other");
        HttpResponse<String> ok = h2.send(HttpRequest.newBuilder(h.uri("/admin/z")).header("Authorization",
                basic("dave:s3cret")).POST(HttpRequest.BodyPublishers.ofString("z".repeat(70_000)))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).hasSize(70_000);
    }

    /**
     * A client that holds its upload back for {@code 100 Continue} is asked for it only once its credentials
     * passed, also when their hash is worked out off the loop; a refused one hears no 100, and the connection
     * ends with the 401, since the body might still follow it (RFC 9110 10.1.1).
     */
    @Test
    void aHeldBackUploadIsAskedForOnlyOnceTheCredentialsPass() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.echo());
        h.start(config(app.endpoint(), "alice:{PLAIN}secret\ndave:" + BasicAuthGuardTest.bcrypt("s3cret", 10)));
        String upload = "POST /admin/x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n";
        for (String wrong : new String[] {"alice:wrong", "dave:wrong"}) {
            try (RawClient refused = h.client()) {
                RawClient.Response r = refused.send(upload + "Authorization: " + basic(wrong) + "\r\n\r\n").read();
                assertThat(r.status()).as(wrong).isEqualTo(401);
                assertThat(r.header("connection")).isEqualTo("close");
                assertThat(refused.closedByServer()).isTrue();
            }
        }
        for (String user : new String[] {"alice:secret", "dave:s3cret"}) {
            try (RawClient c = h.client()) {
                c.send(upload + "Authorization: " + basic(user) + "\r\n\r\n");
                assertThat(c.read().status()).as(user).isEqualTo(100);
                assertThat(c.send("hello").read().text()).isEqualTo("hello");
            }
        }
        assertThat(app.requests()).isEqualTo(2);
    }

    /** satisfy: any: the office's addresses need no password; anyone else is asked for one, not refused. */
    @Test
    void satisfyAnyAdmitsAnAllowedAddressOrAUser() throws Exception {
        String rules = """
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /office } } ]
                        respond: { body: "office" }
                        clientAddresses: { allow: [ 127.0.0.0/8 ] }
                        basicAuth: { htpasswd: "alice:{PLAIN}secret" }
                        satisfy: any
                      - matches: [ { path: { type: Prefix, value: /remote } } ]
                        respond: { body: "remote" }
                        clientAddresses: { allow: [ 10.0.0.0/8 ] }
                        basicAuth: { htpasswd: "alice:{PLAIN}secret" }
                        satisfy: any
                      - matches: [ { path: { type: Prefix, value: /both } } ]
                        respond: { body: "both" }
                        clientAddresses: { allow: [ 10.0.0.0/8 ] }
                        basicAuth: { htpasswd: "alice:{PLAIN}secret" }
                """;
        h.start(rules);
        assertThat(h.get("/office").text()).as("an allowed address, no credentials").isEqualTo("office");
        RawClient.Response asked = h.get("/remote");
        assertThat(asked.status()).as("another address is asked, not refused").isEqualTo(401);
        assertThat(asked.header("www-authenticate")).startsWith("Basic realm=");
        assertThat(h.get("/remote", "Authorization: " + basic("alice:secret")).text()).isEqualTo("remote");
        assertThat(h.get("/both", "Authorization: " + basic("alice:secret")).status()).as("all: the address still counts")
                .isEqualTo(403);
    }

    @Test
    void overHttp2() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.name());
        h.start(config(app.endpoint(), "alice:$apr1$sAlT1234$zyQo.9jXkwfQG39OatMyL0"));
        HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        String url = "http://127.0.0.1:" + h.address().getPort() + "/admin/y";
        c.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()); // upgrades the connection to h2c
        HttpResponse<String> challenged = c.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(challenged.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(challenged.statusCode()).isEqualTo(401);
        assertThat(challenged.headers().firstValue("www-authenticate")).hasValue("Basic realm=\"Staff only\", charset=\"UTF-8\"");
        HttpResponse<String> ok = c.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Authorization", basic("alice:pa ss:wörd")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ok.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(ok.body()).isEqualTo("app");
    }
}
