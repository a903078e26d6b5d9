package dev.strait.proxy.http1;

import static dev.strait.proxy.testing.TestServing.ascii;
import static dev.strait.proxy.testing.TestServing.outbound;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.ConfigParser;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.route.RouteTableBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The streaming side of {@link Exchange} that proxying builds on: the request body handed over part by
 * part, responses started later and framed by length or chunks, answers held in pipeline order.
 */
class StreamingExchangeTest {
    /** Handlers answer later: each exchange waits here until the test releases it. */
    private final List<Exchange> waiting = new ArrayList<>();
    private final List<String> bodies = new ArrayList<>();
    private EmbeddedChannel ch;

    @AfterEach
    void noLeftovers() {
        ch.finishAndReleaseAll();
    }

    private void start() throws Exception {
        var config = ConfigParser.parse("""
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                routes:
                  - name: later
                    hosts: [ "*" ]
                    rules:
                      - respond: { body: placeholder }
                """, "test");
        var table = RouteTableBuilder.build(config, (action, path) -> ex -> {
            StringBuilder body = new StringBuilder();
            ex.receiveBody(new BodyReceiver() {
                @Override
                public void onBodyPart(ByteBuf data) {
                    body.append(data.toString(java.nio.charset.StandardCharsets.US_ASCII));
                    data.release();
                }

                @Override
                public void onBodyEnd(HttpHeaders trailers) {
                    bodies.add(body.toString());
                }

                @Override
                public void onBodyAbort(Throwable cause) {
                    bodies.add("aborted");
                }
            });
            waiting.add(ex);
        });
        Serving serving = new Serving(new Snapshot(config, table, config.limits(), false));
        Http1RequestDecoder decoder = new Http1RequestDecoder(config.limits());
        ch = new EmbeddedChannel(decoder, new Http1ServerHandler(serving, new ProxyMetrics(), null, decoder, true));
    }

    @Test
    void chunkedResponseWithTrailersAfterTheBodyArrived() throws Exception {
        start();
        ch.writeInbound(ascii("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"));
        ch.writeInbound(ascii("2\r\nde\r\n0\r\n\r\n"));
        assertThat(bodies).containsExactly("abcde");
        Exchange ex = waiting.get(0);
        assertThat(ex.hasBody()).isTrue();
        HttpHeaders h = new DefaultHttpHeaders().set("x-upstream", "1").set("content-length", "999").set("connection", "close");
        ex.startResponse(HttpResponseStatus.OK, h, -1);
        ex.sendBodyPart(ascii("hello"));
        ex.endResponse(new DefaultHttpHeaders().set("grpc-status", "0"));
        String out = outbound(ch);
        assertThat(out).startsWith("HTTP/1.1 200 OK\r\nx-upstream: 1\r\nTransfer-Encoding: chunked\r\nDate: ")
                .doesNotContain("999").doesNotContain("onnection: close")
                .endsWith("\r\n\r\n5\r\nhello\r\n0\r\ngrpc-status: 0\r\n\r\n");
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void pipelinedRequestsWaitForTheAnswerBeforeThem() throws Exception {
        start();
        ch.writeInbound(ascii("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n"));
        assertThat(waiting).hasSize(1);
        assertThat(ch.config().isAutoRead()).as("reading pauses while a request waits").isFalse();
        waiting.get(0).startResponse(HttpResponseStatus.OK, new DefaultHttpHeaders(), 1);
        waiting.get(0).sendBodyPart(ascii("1"));
        waiting.get(0).endResponse(null);
        assertThat(waiting).hasSize(2);
        waiting.get(1).startResponse(HttpResponseStatus.OK, new DefaultHttpHeaders(), 1);
        waiting.get(1).sendBodyPart(ascii("2"));
        waiting.get(1).endResponse(null);
        String out = outbound(ch);
        assertThat(out.indexOf("\r\n\r\n1")).isLessThan(out.indexOf("\r\n\r\n2"));
        assertThat(out).contains("Content-Length: 1\r\n");
        assertThat(ch.config().isAutoRead()).isTrue();
    }

    @Test
    void http10ClientGetsACloseDelimitedBody() throws Exception {
        start();
        ch.writeInbound(ascii("GET /x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
        Exchange ex = waiting.get(0);
        ex.startResponse(HttpResponseStatus.OK, new DefaultHttpHeaders(), -1);
        ex.sendBodyPart(ascii("abc"));
        ex.endResponse(null);
        assertThat(outbound(ch)).contains("Connection: close\r\n").doesNotContain("chunked").endsWith("\r\n\r\nabc");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void abortAfterTheHeadClosesTheConnection() throws Exception {
        start();
        ch.writeInbound(ascii("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"));
        Exchange ex = waiting.get(0);
        ex.startResponse(HttpResponseStatus.OK, new DefaultHttpHeaders(), 10);
        ex.sendBodyPart(ascii("abc"));
        ex.abort();
        outbound(ch);
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void abortBeforeTheHeadAnswers502() throws Exception {
        start();
        ch.writeInbound(ascii("GET /x HTTP/1.1\r\nHost: a\r\n\r\n"));
        waiting.get(0).abort();
        assertThat(outbound(ch)).startsWith("HTTP/1.1 502 Bad Gateway");
    }

    @Test
    void clientGoneCancelsTheExchange() throws Exception {
        start();
        ch.writeInbound(ascii("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc"));
        boolean[] cancelled = {false};
        waiting.get(0).onCancel(() -> cancelled[0] = true);
        ch.close();
        assertThat(cancelled[0]).isTrue();
        assertThat(bodies).containsExactly("aborted");
    }

    @Test
    void headResponsesCarryNoBodyBytes() throws Exception {
        start();
        ch.writeInbound(ascii("HEAD /x HTTP/1.1\r\nHost: a\r\n\r\n"));
        Exchange ex = waiting.get(0);
        ex.startResponse(HttpResponseStatus.OK, new DefaultHttpHeaders(), 5);
        ex.sendBodyPart(ascii("hello"));
        ex.endResponse(null);
        assertThat(outbound(ch)).contains("Content-Length: 5\r\n").endsWith("\r\n\r\n");
        assertThat(ch.isOpen()).isTrue();
    }
}
