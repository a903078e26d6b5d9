package dev.strait.proxy.http1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Limits;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Chunked request trailers that arrive slowly: decoded the same, and each byte searched once; and
 * trailers over the header-block limit refused with 431 however the reads split them.
 */
class Http1RequestTrailersTest {
    private static final Limits LIMITS = new Limits(8192, 32 * 1024, 100, 1 << 20,
            Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1));

    @Test
    void trailersSentAByteAtATimeAreSearchedOnceAndKept() {
        StringBuilder trailers = new StringBuilder();
        for (int i = 0; trailers.length() < 20_000; i++) {
            trailers.append("X-Trailer-").append(i % 90).append(": ").append("v".repeat(200)).append("\r\n");
        }
        String head = "POST /upload HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n";
        byte[] tail = (trailers + "\r\n").getBytes(StandardCharsets.ISO_8859_1);

        Http1RequestDecoder decoder = new Http1RequestDecoder(LIMITS);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        ch.writeInbound(Unpooled.copiedBuffer(head, StandardCharsets.ISO_8859_1));
        for (byte b : tail) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }

        HttpRequest request = ch.readInbound();
        assertThat(request.decoderResult().isSuccess()).isTrue();
        HttpContent body = ch.readInbound();
        assertThat(body.content().toString(StandardCharsets.ISO_8859_1)).isEqualTo("hello");
        body.release();
        Object last = ch.readInbound();
        while (!(last instanceof LastHttpContent)) {
            ReferenceCountUtil.release(last);
            last = ch.readInbound();
        }
        LastHttpContent end = (LastHttpContent) last;
        assertThat(end.decoderResult().isSuccess()).isTrue();
        assertThat(end.trailingHeaders().get("X-Trailer-89")).isEqualTo("v".repeat(200));
        end.release();
        // Searching from the trailers' start on every read would look at ~tail.length^2 / 2 bytes (~2e8).
        assertThat(decoder.trailerBytesScanned).isBetween((long) tail.length - 2, (long) tail.length);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aBareLfFoundAfterAResumedSearchIsStillRefused() {
        Http1RequestDecoder decoder = new Http1RequestDecoder(LIMITS);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        ch.writeInbound(Unpooled.copiedBuffer(
                "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\n", StandardCharsets.ISO_8859_1));
        ch.writeInbound(Unpooled.copiedBuffer("B: 2\n\r\n", StandardCharsets.ISO_8859_1));
        HttpRequest request = ch.readInbound();
        assertThat(request.decoderResult().isSuccess()).isTrue();
        Object m = ch.readInbound();
        assertThat(m).isInstanceOf(LastHttpContent.class);
        LastHttpContent last = (LastHttpContent) m;
        assertThat(last.decoderResult().isFailure()).isTrue();
        assertThat(last.decoderResult().cause()).hasMessageContaining("bare LF in trailers");
        ch.finishAndReleaseAll();
    }

    /**
     * The limit held only while the trailers' end was still to come: 40 000 bytes of trailers that
     * reached the decoder together with their blank line (one large read, or two reads the last of
     * which brings the end) were taken.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 16 * 1024, 32 * 1024, 40_000})
    void trailersOverTheLimitAreRefusedHoweverTheyArrive(int firstRead) {
        byte[] tail = ("X-T: " + "a".repeat(40_000) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        EmbeddedChannel ch = new EmbeddedChannel(new Http1RequestDecoder(LIMITS));
        ch.writeInbound(Unpooled.copiedBuffer(
                "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n", StandardCharsets.ISO_8859_1));
        ch.writeInbound(Unpooled.wrappedBuffer(tail, 0, firstRead));
        ch.writeInbound(Unpooled.wrappedBuffer(tail, firstRead, tail.length - firstRead));

        HttpRequest request = ch.readInbound();
        assertThat(request.decoderResult().isSuccess()).isTrue();
        HttpContent body = ch.readInbound();
        assertThat(body.decoderResult().isSuccess()).isTrue();
        body.release();
        LastHttpContent last = ch.readInbound();
        assertThat(last.decoderResult().isFailure()).isTrue();
        assertThat(last.decoderResult().cause()).isInstanceOfSatisfying(Http1Violation.class,
                v -> assertThat(v.status().code()).isEqualTo(431));
        ch.finishAndReleaseAll();
    }
}
