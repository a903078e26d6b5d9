package dev.strait.proxy.http2;

import static dev.strait.proxy.http2.RawH2.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestUpstream;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An answer that is complete before the request body is (a {@code respond} rule, a 408) ends the
 * client's half of the stream with RST_STREAM NO_ERROR: RFC 9113 8.1's "stop sending, and keep the
 * response". A CANCEL there makes clients such as h2load discard the answer.
 */
class Http2EarlyAnswerTest {
    private final ProxyHarness proxy = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    private RawH2.Frame resetAfterAnswer(byte[] request, String status) throws Exception {
        try (RawH2 c = new RawH2(proxy.address())) {
            c.send(frame(HEADERS, END_HEADERS, 1, request));
            c.send(frame(DATA, 0, 1, new byte[100]));
            List<RawH2.Frame> frames = c.readUntil(RST_STREAM);
            RawH2.Frame head = frames.stream().filter(f -> f.type() == HEADERS && f.stream() == 1).findFirst().orElseThrow();
            assertThat(c.headers(head).status().toString()).isEqualTo(status);
            assertThat(frames).anyMatch(f -> f.stream() == 1 && (f.flags() & END_STREAM) != 0);
            return frames.get(frames.size() - 1);
        }
    }

    @Test
    void anEarlyAnswerEndsTheRestOfTheBodyWithNoError() throws Exception {
        TestUpstream up = proxy.upstream(TestUpstream.reply(200, "never"));
        proxy.start("""
                limits: { bodyTimeout: 1s }
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: r
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /app } } ]
                        backends: [ { upstream: app } ]
                      - respond: { body: "ok" }
                """.formatted(up.endpoint()));
        RawH2.Frame reset = resetAfterAnswer(POST, "200");
        assertThat(reset.stream()).isEqualTo(1);
        assertThat(reset.errorCode()).isEqualTo(NO_ERROR);
    }

    @Test
    void a408EndsTheStreamWithNoErrorToo() throws Exception {
        TestUpstream up = proxy.upstream(TestUpstream.reply(200, "never"));
        proxy.start("""
                limits: { bodyTimeout: 1s }
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes: [ { name: r, hosts: [ "*" ], rules: [ { backends: [ { upstream: app } ] } ] } ]
                """.formatted(up.endpoint()));
        RawH2.Frame reset = resetAfterAnswer(POST, "408");
        assertThat(reset.errorCode()).isEqualTo(NO_ERROR);
    }
}
