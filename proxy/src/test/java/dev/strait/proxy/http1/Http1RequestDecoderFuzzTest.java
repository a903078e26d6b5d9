package dev.strait.proxy.http1;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.strait.model.Limits;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.Map;

/**
 * Request bytes, arriving in two reads split anywhere, as the proxy decodes them: every outcome is a
 * request (or body part) or a refusal carrying its status, never another exception, and what is
 * accepted is what a strict reader would accept: one Host, never both Content-Length and
 * Transfer-Encoding, no CR, LF or NUL left in a name or value, never more body than declared, and
 * no head or trailer section over the limits.
 *
 * <p>{@code mvn test} replays the inputs in {@code Http1RequestDecoderFuzzTestInputs/} (among them
 * SmugglingCorpusTest's cases); {@code JAZZER_FUZZ=1} searches for new ones (docs/hardening.md).
 */
class Http1RequestDecoderFuzzTest {
    private static final Limits LIMITS = new Limits(1024, 4096, 20, 1 << 20,
            java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(1));

    @FuzzTest(maxDuration = "2m")
    void decodesOrRefuses(byte[] input) {
        EmbeddedChannel ch = new EmbeddedChannel(new Http1RequestDecoder(LIMITS));
        try {
            int split = input.length == 0 ? 0 : (input[0] & 0xff) % (input.length + 1);
            ch.writeInbound(Unpooled.wrappedBuffer(input, 0, split));
            ch.writeInbound(Unpooled.wrappedBuffer(input, split, input.length - split));
            long declared = -1;
            long seen = 0;
            boolean refused = false;
            for (Object m; (m = ch.readInbound()) != null; ) {
                try {
                    assertThat(refused).as("nothing after a refusal").isFalse();
                    if (m instanceof HttpRequest r) {
                        if (r.decoderResult().isFailure()) {
                            assertThat(r.decoderResult().cause()).isInstanceOf(Http1Violation.class);
                            refused = true;
                            continue;
                        }
                        check(r);
                        declared = r.headers().contains(HttpHeaderNames.CONTENT_LENGTH)
                                ? Long.parseLong(r.headers().get(HttpHeaderNames.CONTENT_LENGTH)) : -1;
                        seen = 0;
                    } else if (m instanceof HttpContent c) {
                        if (c.decoderResult().isFailure()) {
                            assertThat(c.decoderResult().cause()).isInstanceOf(Http1Violation.class);
                            refused = true;
                            continue;
                        }
                        seen += c.content().readableBytes();
                        if (declared >= 0) {
                            assertThat(seen).as("body bytes against Content-Length").isLessThanOrEqualTo(declared);
                        }
                        if (c instanceof LastHttpContent last) {
                            if (declared >= 0) {
                                assertThat(seen).isEqualTo(declared);
                            }
                            withinLimits(last.trailingHeaders());
                            for (Map.Entry<String, String> t : last.trailingHeaders()) {
                                assertThat(t.getKey()).isNotEqualToIgnoringCase("content-length")
                                        .isNotEqualToIgnoringCase("transfer-encoding").isNotEqualToIgnoringCase("host");
                                clean(t.getKey(), t.getValue());
                            }
                        }
                    } else {
                        throw new AssertionError("unexpected message " + m);
                    }
                } finally {
                    ReferenceCountUtil.release(m);
                }
            }
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    private static void check(HttpRequest r) {
        assertThat(r.headers().getAll(HttpHeaderNames.HOST).size()).isLessThanOrEqualTo(1);
        assertThat(r.headers().contains(HttpHeaderNames.CONTENT_LENGTH)
                && r.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)).isFalse();
        assertThat(r.headers().getAll(HttpHeaderNames.CONTENT_LENGTH).size()).isLessThanOrEqualTo(1);
        assertThat(r.uri()).doesNotContain(" ", "\r", "\n", "\0", "#");
        assertThat(r.method().name()).matches("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
        for (Map.Entry<String, String> h : r.headers()) {
            clean(h.getKey(), h.getValue());
        }
        withinLimits(r.headers());
    }

    /** A section's fields, each as "name: value CRLF" (values lose their spaces, so never more), fit the limits. */
    private static void withinLimits(HttpHeaders fields) {
        int bytes = 0;
        for (Map.Entry<String, String> f : fields) {
            bytes += f.getKey().length() + f.getValue().length() + 4;
        }
        assertThat(bytes).as("section bytes").isLessThanOrEqualTo(LIMITS.maxHeaderBytes());
        assertThat(fields.size()).as("fields").isLessThanOrEqualTo(LIMITS.maxHeaderCount());
    }

    private static void clean(String name, String value) {
        assertThat(name).matches("[!#$%&'*+\\-.^`|~0-9A-Za-z]+");
        assertThat(value).doesNotContain("\r", "\n", "\0").doesNotStartWith(" ").doesNotEndWith(" ");
    }
}
