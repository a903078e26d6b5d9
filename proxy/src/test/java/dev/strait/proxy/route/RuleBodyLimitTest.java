package dev.strait.proxy.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code maxBodyBytes} on a real proxy: it replaces {@code limits.maxBodyBytes} for the requests the
 * rule answers, both lower and higher (nginx's {@code client_max_body_size} in a location), is checked before
 * {@code 100 Continue} asks for the body, and cuts a chunked body that grows past it.
 */
class RuleBodyLimitTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private TestUpstream start() throws Exception {
        TestUpstream app = h.upstream("app", TestUpstream.echo());
        h.start("""
                limits: { maxBodyBytes: 100 }
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /upload } } ]
                        backends: [ { upstream: app } ]
                        maxBodyBytes: 1000
                      - matches: [ { path: { type: Prefix, value: /small } } ]
                        backends: [ { upstream: app } ]
                        maxBodyBytes: 10
                      - backends: [ { upstream: app } ]
                """.formatted(app.endpoint()));
        return app;
    }

    private static String post(String path, int length, String extra) {
        return "POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Length: " + length + "\r\n" + extra + "\r\n";
    }

    @Test
    void aRuleRaisesOrLowersTheLimitForItsRequests() throws Exception {
        TestUpstream app = start();
        try (RawClient c = h.client()) {
            RawClient.Response up = c.send(post("/upload", 500, "") + "x".repeat(500)).read();
            assertThat(up.status()).as("over the limits' 100, under the rule's 1000").isEqualTo(200);
            assertThat(up.body()).hasSize(500);
        }
        try (RawClient c = h.client()) {
            assertThat(c.send(post("/upload", 1001, "")).read().status()).isEqualTo(413);
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawClient c = h.client()) {
            assertThat(c.send(post("/small", 11, "") + "x".repeat(11)).read().status()).isEqualTo(413);
        }
        try (RawClient c = h.client()) {
            assertThat(c.send(post("/other", 101, "") + "x".repeat(101)).read().status())
                    .as("other rules keep the limits' value").isEqualTo(413);
        }
        try (RawClient c = h.client()) {
            assertThat(c.send(post("/small", 10, "") + "x".repeat(10)).read().status()).isEqualTo(200);
        }
        assertThat(app.requests()).isEqualTo(2);
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"413\"} 3.0");
    }

    @Test
    void theRuleRefusesBeforeContinueAsksForTheBody() throws Exception {
        start();
        try (RawClient c = h.client()) {
            RawClient.Response refused = c.send(post("/small", 50, "Expect: 100-continue\r\n")).read();
            assertThat(refused.status()).as("no 100 Continue first").isEqualTo(413);
        }
        try (RawClient c = h.client()) {
            c.send(post("/upload", 500, "Expect: 100-continue\r\n"));
            assertThat(c.read().status()).as("a body the rule takes is asked for").isEqualTo(100);
            c.send("y".repeat(500));
            RawClient.Response up = c.read();
            assertThat(up.status()).isEqualTo(200);
            assertThat(up.body()).hasSize(500);
        }
    }

    @Test
    void aChunkedBodyPastTheRulesLimitIsCut() throws Exception {
        TestUpstream app = start();
        String chunk = "8\r\n12345678\r\n";
        try (RawClient c = h.client()) {
            c.send("POST /small HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk + chunk + "0\r\n\r\n");
            c.setTimeout(10_000);
            RawClient.Response r = c.read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawClient c = h.client()) {
            c.send("POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk.repeat(20) + "0\r\n\r\n");
            RawClient.Response ok = c.read();
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.body()).hasSize(160);
        }
        assertThat(app.seen()).allSatisfy(s -> assertThat(s.body().length).isNotEqualTo(16));
    }

    @Test
    void overHttp2() throws Exception {
        start();
        HttpClient c = h.h2cClient("/upload");
        HttpResponse<String> up = c.send(HttpRequest.newBuilder(h.uri("/upload")).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString("z".repeat(500))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(up.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(up.body()).hasSize(500);
        HttpResponse<String> refused = c.send(HttpRequest.newBuilder(h.uri("/small"))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString("z".repeat(50))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(refused.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(refused.statusCode()).isEqualTo(413);
    }
}
