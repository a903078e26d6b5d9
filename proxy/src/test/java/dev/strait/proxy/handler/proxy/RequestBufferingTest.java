package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rule's {@code requestBuffering} with a real upstream that counts its connections: a slow upload is read
 * before the upstream is asked, so it holds none of the upstream's connections (a worker, for a gunicorn sync
 * app) while it trickles in; one longer than the limit streams from there; a rule without it streams as before.
 */
class RequestBufferingTest {
    private final ProxyHarness h = new ProxyHarness();
    private TestUpstream app;

    @TempDir
    Path files;

    @BeforeEach
    void start() throws Exception {
        app = h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200,
                req.method() + " " + req.uri() + " body=" + req.content().readableBytes())));
        h.start("""
                workers: 1
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { value: /streamed } } ]
                        backends: [ { upstream: app } ]
                      - matches: [ { path: { value: /files } } ]
                        backends: [ { upstream: app } ]
                        requestBuffering: { maxBytes: 16777216, memoryBytes: 1024 }
                      - backends: [ { upstream: app } ]
                        requestBuffering: { maxBytes: 4096 }
                requestBodyFiles: { directory: "%s", maxBytes: 1048576 }
                """.formatted(app.endpoint(), files));
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void aSlowUploadHoldsNoUpstreamConnectionUntilItIsIn() throws Exception {
        try (RawClient slow = h.client()) {
            slow.send("POST /form HTTP/1.1\r\nHost: test\r\nContent-Length: 3000\r\n\r\n" + "a".repeat(1500));
            // Another request meanwhile, on the same loop: it is served, and the upload has asked nothing yet.
            assertThat(h.get("/ping").text()).isEqualTo("GET /ping body=0");
            assertThat(app.connections()).as("only the served request's connection").isEqualTo(1);
            slow.send("b".repeat(1500));
            assertThat(slow.read().text()).isEqualTo("POST /form body=3000");
            assertThat(app.last().text()).isEqualTo("a".repeat(1500) + "b".repeat(1500));
        }
    }

    @Test
    void aBodyLongerThanTheLimitStreamsFromThereAndChunkedBodiesAreGatheredToo() throws Exception {
        try (RawClient big = h.client()) {
            big.send("POST /big HTTP/1.1\r\nHost: test\r\nContent-Length: 20000\r\n\r\n" + "x".repeat(5000));
            // Past 4096 bytes the call starts, with the body still coming: the upstream gets its connection.
            await().atMost(Duration.ofSeconds(10)).until(() -> app.connections() == 1);
            big.send("y".repeat(15000));
            assertThat(big.read().text()).isEqualTo("POST /big body=20000");

            big.send("POST /chunks HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n0\r\nx-sum: 5\r\n\r\n");
            assertThat(big.read().text()).isEqualTo("POST /chunks body=5");
            assertThat(app.last().header("x-sum")).isEqualTo("5");
        }
    }

    private static String letters(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('a' + i % 26));
        }
        return sb.toString();
    }

    private double filesHeld() {
        return h.metrics.registry().get("strait_request_body_files_bytes").gauge().value();
    }

    /**
     * Past {@code memoryBytes} a body goes to a file and the upstream is still asked only once it is in: a 600 KB
     * upload (1 KiB in memory, the rest in a file) holds no upstream connection while it comes, reaches the upstream
     * whole and in order, and leaves nothing in the directory; its file is kept for the next upload, which takes no
     * more disk.
     */
    @Test
    void aSlowUploadPastMemoryWaitsInAFile() throws Exception {
        String body = letters(600_000);
        try (RawClient slow = h.client()) {
            slow.send("POST /files/up HTTP/1.1\r\nHost: test\r\nContent-Length: 600000\r\n\r\n" + body.substring(0, 400_000));
            await().atMost(Duration.ofSeconds(10)).until(() -> filesHeld() > 300_000);
            assertThat(h.get("/ping").text()).isEqualTo("GET /ping body=0");
            assertThat(app.connections()).as("only the served request's connection").isEqualTo(1);
            slow.send(body.substring(400_000));
            assertThat(slow.read().text()).isEqualTo("POST /files/up body=600000");
            assertThat(app.last().text()).isEqualTo(body);
            try (java.util.stream.Stream<Path> left = java.nio.file.Files.list(files)) {
                assertThat(left).isEmpty();
            }
            double kept = filesHeld();
            assertThat(kept).isBetween(500_000.0, 600_000.0);
            String second = body.toUpperCase(java.util.Locale.ROOT);
            slow.send("POST /files/again HTTP/1.1\r\nHost: test\r\nContent-Length: 600000\r\n\r\n" + second);
            assertThat(slow.read().text()).isEqualTo("POST /files/again body=600000");
            assertThat(app.last().text()).as("the kept file overwritten, not appended to").isEqualTo(second);
            assertThat(filesHeld()).isLessThanOrEqualTo(600_000.0);
        }
    }

    @Test
    void aChunkedBodyAndItsTrailersComeBackFromTheFile() throws Exception {
        String a = letters(3000);
        String b = letters(5000);
        try (RawClient c = h.client()) {
            c.send("POST /files/chunks HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Integer.toHexString(a.length()) + "\r\n" + a + "\r\n" + Integer.toHexString(b.length()) + "\r\n" + b
                    + "\r\n0\r\nx-sum: 8000\r\n\r\n");
            assertThat(c.read().text()).isEqualTo("POST /files/chunks body=8000");
            assertThat(app.last().text()).isEqualTo(a + b);
            assertThat(app.last().header("x-sum")).isEqualTo("8000");
            // The connection goes on: the next request on it is read after the body's hand-over.
            c.send("GET /files/next HTTP/1.1\r\nHost: test\r\n\r\n");
            assertThat(c.read().text()).isEqualTo("GET /files/next body=0");
        }
    }

    @Test
    void anHttp2UploadComesBackFromItsFileToo() throws Exception {
        String body = letters(700_000);
        java.net.http.HttpClient c = h.h2cClient("/ping");
        java.net.http.HttpResponse<String> r = c.send(java.net.http.HttpRequest.newBuilder(h.uri("/files/h2"))
                .timeout(Duration.ofSeconds(10)).POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.version()).isEqualTo(java.net.http.HttpClient.Version.HTTP_2);
        assertThat(r.body()).isEqualTo("POST /files/h2 body=700000");
        assertThat(app.last().text()).isEqualTo(body);
        assertThat(filesHeld()).as("the file kept for the next body").isLessThanOrEqualTo(700_000.0);
    }

    /**
     * Past the files' budget (1 MiB here) a body streams: the upstream is asked with the body still coming, gets
     * what memory and the file held and then the rest, whole and in order.
     */
    @Test
    void pastTheFilesBudgetTheRestStreams() throws Exception {
        String body = letters(3_000_000);
        double refusedBefore = h.metrics.registry().get("strait_request_body_files_refused").functionCounter().count();
        try (RawClient big = h.client()) {
            big.send("POST /files/big HTTP/1.1\r\nHost: test\r\nContent-Length: 3000000\r\n\r\n" + body.substring(0, 1_500_000));
            await().atMost(Duration.ofSeconds(10)).until(() -> app.connections() == 1);
            big.send(body.substring(1_500_000));
            assertThat(big.read().text()).isEqualTo("POST /files/big body=3000000");
            assertThat(app.last().text()).isEqualTo(body);
        }
        assertThat(h.metrics.registry().get("strait_request_body_files_refused").functionCounter().count())
                .isEqualTo(refusedBefore + 1);
        assertThat(filesHeld()).as("within the budget, kept or not").isLessThanOrEqualTo(1048576.0);
    }

    @Test
    void aGrpcCallStreamsWhateverTheRuleSays() throws Exception {
        try (RawClient call = h.client()) {
            // A client stream: its first message must reach the server before the client sends the next.
            call.send("POST /x.Svc/Upload HTTP/1.1\r\nHost: test\r\nContent-Type: application/grpc\r\n"
                    + "Content-Length: 3000\r\n\r\n" + "a".repeat(1500));
            await().atMost(Duration.ofSeconds(10)).until(() -> app.connections() == 1);
            call.send("b".repeat(1500));
            assertThat(call.read().text()).isEqualTo("POST /x.Svc/Upload body=3000");
        }
    }

    @Test
    void aRuleWithoutItStreamsTheBodyAsItComes() throws Exception {
        try (RawClient slow = h.client()) {
            slow.send("POST /streamed HTTP/1.1\r\nHost: test\r\nContent-Length: 3000\r\n\r\n" + "a".repeat(1500));
            await().atMost(Duration.ofSeconds(10)).until(() -> app.connections() == 1);
            slow.send("b".repeat(1500));
            assertThat(slow.read().text()).isEqualTo("POST /streamed body=3000");
        }
    }
}
