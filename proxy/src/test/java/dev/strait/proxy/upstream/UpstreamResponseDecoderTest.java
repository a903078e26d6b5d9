package dev.strait.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.TestServing;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The strict response decoder on an EmbeddedChannel: framing errors, HEAD, bytes after the body. */
class UpstreamResponseDecoderTest {
    private final UpstreamResponseDecoder decoder = new UpstreamResponseDecoder();
    private final EmbeddedChannel ch = new EmbeddedChannel(decoder);
    private final List<Object> out = new ArrayList<>();

    @AfterEach
    void release() {
        out.forEach(ReferenceCountUtil::release);
        ch.finishAndReleaseAll();
    }

    private List<Object> decode(String bytes) {
        ch.writeInbound(TestServing.ascii(bytes));
        Object o;
        List<Object> now = new ArrayList<>();
        while ((o = ch.readInbound()) != null) {
            now.add(o);
        }
        out.addAll(now);
        return now;
    }

    @Test
    void bothContentLengthAndTransferEncodingIsAnError() {
        List<Object> msgs = decode("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
        assertThat(((HttpResponse) msgs.get(0)).decoderResult().isFailure()).isTrue();
    }

    @Test
    void differentContentLengthsAreAnError() {
        List<Object> msgs = decode("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd");
        assertThat(((HttpResponse) msgs.get(0)).decoderResult().isFailure()).isTrue();
    }

    @Test
    void bytesAfterTheBodyAreNoticed() {
        decode("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc");
        assertThat(decoder.takeBytesAfterBody()).isFalse();
        decode("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcjunk");
        assertThat(decoder.takeBytesAfterBody()).isTrue();
        assertThat(decoder.takeBytesAfterBody()).as("taking clears it").isFalse();
    }

    @Test
    void headAnswersHaveNoBodyWhateverTheirLength() {
        decoder.noBody = true;
        List<Object> msgs = decode("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
        assertThat(msgs).hasSize(2);
        assertThat(msgs.get(1)).isInstanceOf(LastHttpContent.class);
        assertThat(((HttpContent) msgs.get(1)).content().readableBytes()).isZero();
    }

    @Test
    void informationalAnswersHaveNoBodyAndTheFinalOneFollows() {
        List<Object> msgs = decode("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        assertThat(((HttpResponse) msgs.get(0)).status().code()).isEqualTo(100);
        assertThat(msgs.get(1)).isInstanceOf(LastHttpContent.class);
        assertThat(((HttpResponse) msgs.get(2)).status().code()).isEqualTo(200);
    }
}
