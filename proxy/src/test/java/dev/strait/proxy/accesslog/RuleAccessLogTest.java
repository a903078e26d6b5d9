package dev.strait.proxy.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.proxy.testing.CapturedAccessLog;
import dev.strait.proxy.testing.ProxyHarness;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code accessLog: false} (ingress-nginx's {@code enable-access-log: "false"}): its requests are
 * answered and counted, but not written to the access log, on HTTP/1.1 and HTTP/2; other rules' are.
 */
class RuleAccessLogTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void aRuleCanKeepItsRequestsOutOfTheLog() throws Exception {
        CapturedAccessLog log = CapturedAccessLog.start(h, """
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Exact, value: /healthz } } ]
                        respond: { body: "ok" }
                        accessLog: false
                      - respond: { body: "page" }
                """);
        for (int i = 0; i < 3; i++) {
            assertThat(h.get("/healthz").text()).isEqualTo("ok");
        }
        var h2 = h.h2cClient("/page");
        HttpResponse<String> r = h2.send(HttpRequest.newBuilder(h.uri("/healthz")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.version()).isEqualTo(java.net.http.HttpClient.Version.HTTP_2);
        assertThat(r.body()).isEqualTo("ok");
        h2.send(HttpRequest.newBuilder(h.uri("/last")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        // Lines are written in the order requests end: were /healthz logged, it would come before /last.
        List<JsonNode> lines = log.await(2);
        assertThat(lines).extracting(l -> l.get("uri").asText()).containsExactly("/page", "/last");
        assertThat(h.metrics.scrape()).contains("strait_requests_total{route=\"site\",status=\"200\"} 6.0");
    }
}
