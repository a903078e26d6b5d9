package dev.strait.proxy.pacing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code responseRate} on a real proxy: the first {@code afterBytes} of an answer go at once, the rest no
 * faster than {@code bytesPerSecond}, whole and in order, on HTTP/1.1 and HTTP/2, streamed or fixed-length. The
 * times checked are lower bounds, which pacing makes certain whatever the machine's load.
 */
class ResponseRateTest {
    /** 300,000 bytes: 100,000 at once, then 200,000 at 400,000 a second, so no sooner than 0.5 s in all. */
    private static final int SIZE = 300_000;
    private static final String BODY = "0123456789abcdef".repeat(SIZE / 16 + 1).substring(0, SIZE);
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String endpoint) {
        return """
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /paced/ } } ]
                        backends: [ { upstream: app } ]
                        responseRate: { bytesPerSecond: 400000, afterBytes: 100000 }
                      - matches: [ { path: { type: Prefix, value: /cached/ } } ]
                        backends: [ { upstream: app } ]
                        cache: { xCacheHeader: true }
                        responseRate: { bytesPerSecond: 400000, afterBytes: 100000 }
                      - backends: [ { upstream: app } ]
                """.formatted(endpoint);
    }

    /** The body the upstream sends for every request: fixed-length, or chunked in 16 KiB chunks at /chunked. */
    private TestUpstream app() throws InterruptedException {
        return h.upstream((ctx, req, up) -> {
            if (req.uri().contains("chunked")) {
                StringBuilder raw = new StringBuilder("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
                for (int at = 0; at < SIZE; at += 16384) {
                    String part = BODY.substring(at, Math.min(SIZE, at + 16384));
                    raw.append(Integer.toHexString(part.length())).append("\r\n").append(part).append("\r\n");
                }
                TestUpstream.raw(raw.append("0\r\n\r\n").toString(), false).handle(ctx, req, up);
            } else if (req.uri().startsWith("/cached/")) {
                ctx.writeAndFlush(TestUpstream.response(200, BODY, "cache-control", "max-age=60"));
            } else {
                ctx.writeAndFlush(TestUpstream.response(200, BODY));
            }
        });
    }

    @Test
    void aPacedAnswerComesWholeAndNoFasterThanTheRate() throws Exception {
        h.start(config(app().endpoint()));
        for (String path : new String[] {"/paced/fixed", "/paced/chunked"}) {
            long t0 = System.nanoTime();
            RawClient.Response r = h.get(path);
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(r.status()).isEqualTo(200);
            assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo(BODY);
            assertThat(millis).as(path + ": 200,000 bytes past the first 100,000 at 400,000/s").isGreaterThanOrEqualTo(480);
        }
    }

    @Test
    void aPacedAnswerEndsBeforeTheNextOnTheSameConnection() throws Exception {
        h.start(config(app().endpoint()));
        try (RawClient c = h.client()) {
            // Pipelined: the second answer must wait for the paced body's last byte, not slip in between.
            c.send("GET /paced/chunked HTTP/1.1\r\nHost: test\r\n\r\nGET /free HTTP/1.1\r\nHost: test\r\n\r\n");
            RawClient.Response first = c.read();
            RawClient.Response second = c.read();
            assertThat(new String(first.body(), StandardCharsets.US_ASCII)).isEqualTo(BODY);
            assertThat(new String(second.body(), StandardCharsets.US_ASCII)).isEqualTo(BODY);
        }
    }

    @Test
    void http2AnswersArePacedToo() throws Exception {
        h.start(config(app().endpoint()));
        HttpClient c = h.h2cClient("/free");
        long t0 = System.nanoTime();
        HttpResponse<String> r = c.send(HttpRequest.newBuilder(h.uri("/paced/h2")).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(r.body()).isEqualTo(BODY);
        assertThat(millis).isGreaterThanOrEqualTo(480);
    }

    @Test
    void aClientThatLeavesMidwayFreesWhatWaited() throws Exception {
        h.start(config(app().endpoint()));
        for (int i = 0; i < 3; i++) {
            try (RawClient c = h.client()) {
                c.send("GET /paced/chunked HTTP/1.1\r\nHost: test\r\n\r\n");
                RawClient.skipHead(c.input());
                assertThat(c.input().readNBytes(120_000)).hasSize(120_000);
            } // closed with 180,000 bytes still to come: some wait in the pacer, some upstream
        }
        // Buffers left behind would be reported by the tests' leak detection; the proxy still serves.
        RawClient.Response r = h.get("/paced/fixed");
        assertThat(r.body()).hasSize(SIZE);
    }

    /** As nginx's limit_rate, a cached answer is paced like the upstream's. */
    @Test
    void aCacheHitIsPacedToo() throws Exception {
        h.start(config(app().endpoint()));
        assertThat(h.get("/cached/a").header("x-cache")).isEqualTo("MISS");
        long t0 = System.nanoTime();
        RawClient.Response hit = h.get("/cached/a");
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(hit.header("x-cache")).isEqualTo("HIT");
        assertThat(hit.header("age")).isNotNull();
        assertThat(new String(hit.body(), StandardCharsets.US_ASCII)).isEqualTo(BODY);
        assertThat(millis).as("200,000 bytes past the first 100,000 at 400,000/s").isGreaterThanOrEqualTo(480);
    }
}
