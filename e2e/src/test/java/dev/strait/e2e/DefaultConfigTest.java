package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code java -jar strait-proxy.jar} with no arguments serves the embedded default config on the
 * contract's fixed ports: HTTP on 0.0.0.0:8080, admin on 127.0.0.1:9901 (CONTRACT.md, "Build and run").
 * Skipped when either port is taken, since another process would answer in the proxy's place.
 */
class DefaultConfigTest {
    @RegisterExtension
    final StraitProcesses strait = new StraitProcesses();

    @BeforeEach
    void portsFree() {
        Assumptions.assumeTrue(StraitProcesses.portFree("0.0.0.0", 8080), "port 8080 is in use");
        Assumptions.assumeTrue(StraitProcesses.portFree("127.0.0.1", 9901), "port 9901 is in use");
    }

    @Test
    void servesTheEmbeddedDefaultOnItsFixedPorts() {
        ProxyProcess proxy = strait.start();
        URI hello = URI.create("http://127.0.0.1:8080/hello");

        // Time to first answer, as a user would see it: from exec to the first 200 on /hello.
        AtomicReference<HttpResponse<String>> first = new AtomicReference<>();
        await("first GET /hello").atMost(ProxyProcess.STARTUP).until(() -> {
            try {
                HttpResponse<String> r = ProxyProcess.send(HttpRequest.newBuilder(hello), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    first.set(r);
                }
            } catch (UncheckedIOException e) {
                // not listening yet
            }
            return first.get() != null || !proxy.process.isAlive();
        });
        assertThat(first.get()).as("GET /hello answered before the proxy exited; stderr:%n%s", proxy.stderr()).isNotNull();
        long millis = Duration.ofNanos(System.nanoTime() - proxy.startNanos).toMillis();
        System.out.printf("DefaultConfigTest: process start to first GET /hello 200: %d ms%n", millis);

        assertThat(first.get().body()).isEqualTo("hello, world!\n");
        assertThat(first.get().headers().firstValue("content-type")).hasValue("text/plain");
        proxy.awaitServing();
        assertThat(proxy.port("http")).isEqualTo(8080);
        assertThat(proxy.host("http")).as("bound to every interface").matches(".*(0\\.0\\.0\\.0|\\[0(:0){7}]|\\[::]).*");
        assertThat(proxy.adminPort()).isEqualTo(9901);
        assertThat(proxy.stderr()).as("admin on loopback only").containsPattern("admin on http://\\S*127\\.0\\.0\\.1:9901/");
        // The jar logs through its own binding (proxy/logging): UTC instants, and no slf4j fallback warning.
        assertThat(proxy.stderr()).as("log lines from the proxy's stderr binding")
                .containsPattern("(?m)^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO Main - admin on ")
                .doesNotContain("SLF4J");

        HttpResponse<String> welcome = ProxyProcess.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:8080/")),
                HttpResponse.BodyHandlers.ofString());
        assertThat(welcome.statusCode()).isEqualTo(200);
        assertThat(welcome.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(welcome.body()).contains("<html", "/hello", "--config", "9901");

        HttpResponse<String> missing = ProxyProcess.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:8080/no-such-page")), HttpResponse.BodyHandlers.ofString());
        assertThat(missing.statusCode()).isEqualTo(404);

        assertThat(admin("/healthz").statusCode()).isEqualTo(200);
        assertThat(admin("/readyz").statusCode()).isEqualTo(200);
        HttpResponse<String> metrics = admin("/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("strait_requests");
        HttpResponse<String> config = admin("/config");
        assertThat(config.statusCode()).isEqualTo(200);
        assertThat(config.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(config.body()).matches("(?s)\\{\"version\":\"[^\"]+\",\"config\":\\{.*\"listeners\".*8080.*}\\s*");

        // The access log: one JSON line per request on stdout.
        await("access log line for /hello").until(() -> proxy.stdout().contains("\"uri\":\"/hello\""));
        assertThat(proxy.stdout().lines().filter(l -> l.contains("\"uri\":\"/hello\"")).findFirst().orElseThrow())
                .startsWith("{").endsWith("}").contains("\"status\":200", "\"method\":\"GET\"");
    }

    private static HttpResponse<String> admin(String path) {
        return ProxyProcess.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:9901" + path)),
                HttpResponse.BodyHandlers.ofString());
    }
}
