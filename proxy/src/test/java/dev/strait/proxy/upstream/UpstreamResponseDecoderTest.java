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

    private UpstreamResponse head(String bytes) {
        return (UpstreamResponse) decode(bytes).get(0);
    }

    @Test
    void framingIsKnownFromTheHead() {
        UpstreamResponse fixed = head("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nhello, world");
        assertThat(fixed.contentLength()).isEqualTo(12);
        assertThat(fixed.chunked()).isFalse();
        UpstreamResponse chunked = head("HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n0\r\n\r\n");
        assertThat(chunked.contentLength()).isEqualTo(-1);
        assertThat(chunked.chunked()).isTrue();
        UpstreamResponse toClose = head("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
        assertThat(toClose.contentLength()).isEqualTo(-1);
        assertThat(toClose.chunked()).isFalse();
    }

    @Test
    void keepAliveFollowsVersionAndConnectionTokensAsHttpUtilReadsThem() {
        String[][] cases = {
            // version, Connection field(s), keep-alive expected
            {"1.1", "", "true"},
            {"1.1", "Connection: keep-alive\r\n", "true"},
            {"1.1", "Connection: close\r\n", "false"},
            {"1.1", "connection: Keep-Alive, CLOSE\r\n", "false"},
            {"1.1", "Connection: keep-alive\r\nConnection:  close \r\n", "false"},
            {"1.1", "Connection: closed\r\n", "true"},
            {"1.0", "", "false"},
            {"1.0", "Connection: keep-alive\r\n", "true"},
            {"1.0", "Connection: x-trace,\tKeep-Alive\r\n", "true"},
            {"1.0", "Connection: keep-alive, close\r\n", "false"},
        };
        for (String[] c : cases) {
            UpstreamResponse r = head("HTTP/" + c[0] + " 204 No Content\r\n" + c[1] + "\r\n");
            assertThat(r.keepAlive()).as("HTTP/%s %s", c[0], c[1]).isEqualTo(Boolean.parseBoolean(c[2]));
            assertThat(r.keepAlive()).as("as Netty's HttpUtil").isEqualTo(io.netty.handler.codec.http.HttpUtil.isKeepAlive(r));
        }
    }

    @Test
    void connectionSpecificFieldsAreNoted() {
        assertThat(head("HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n").connectionFields()).isZero();
        assertThat(head("HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n")
                .connectionFields()).isEqualTo(UpstreamResponse.CONNECTION | UpstreamResponse.KEEP_ALIVE);
        assertThat(head("HTTP/1.1 204 No Content\r\nproxy-connection: x\r\nTE: trailers\r\nUpgrade: h2c\r\n\r\n")
                .connectionFields())
                .isEqualTo(UpstreamResponse.PROXY_CONNECTION | UpstreamResponse.TE | UpstreamResponse.UPGRADE);
        assertThat(head("HTTP/1.1 204 No Content\r\nConnection: close, X-Secret\r\n\r\n").connectionFields())
                .isEqualTo(UpstreamResponse.CONNECTION | UpstreamResponse.CONNECTION_TOKENS);
    }
}
