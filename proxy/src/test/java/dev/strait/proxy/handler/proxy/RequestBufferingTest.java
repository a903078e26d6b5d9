package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code requestBuffering} with a real upstream that counts its connections: a slow upload is read
 * before the upstream is asked, so it holds none of the upstream's connections (a worker, for a gunicorn sync
 * app) while it trickles in; one longer than the limit streams from there; a rule without it streams as before.
 */
class RequestBufferingTest {
    private final ProxyHarness h = new ProxyHarness();
    private TestUpstream app;

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
                      - backends: [ { upstream: app } ]
                        requestBuffering: { maxBytes: 4096 }
                """.formatted(app.endpoint()));
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
