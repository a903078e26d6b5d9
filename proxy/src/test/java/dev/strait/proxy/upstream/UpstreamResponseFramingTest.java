package dev.strait.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every framing rule of {@link UpstreamResponseDecoder} as a table of raw responses and what comes out,
 * each fed whole, split in two at every byte boundary and byte by byte (a decoder that works only when a
 * head arrives in one read is the usual bug); the well-formed ones also through Netty's
 * {@link HttpResponseDecoder}, which the decoder replaced, to show the same messages come out.
 *
 * <p>A transcript line per message: {@code H <version> <code> <reason> [fields]}, {@code L <body> [trailers]}
 * (the body is all content since the head), {@code R <bytes>} for bytes passed on after a 101, and
 * {@code H!} / {@code L!} for a failed head or body. {@code |} marks the connection's close.
 */
class UpstreamResponseFramingTest {
    private static final String BIG_STATUS = "HTTP/1.1 200 " + "x".repeat(8 * 1024) + "\r\n\r\n";
    private static final String BIG_HEAD = "HTTP/1.1 200 OK\r\n" + "X-Pad: y\r\n".repeat(6600) + "\r\n";

    static Stream<Arguments> wellFormed() {
        return Stream.of(
                ok("content length", "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 3\r\n\r\nabc",
                        "H HTTP/1.1 200 OK [Server=nginx, Content-Length=3]", "L abc []", "|"),
                ok("zero content length", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
                        "H HTTP/1.1 200 OK [Content-Length=0]", "L  []", "|"),
                ok("whitespace around values is not part of them", "HTTP/1.1 200 OK\r\nContent-Length:\t 3 \t\r\nX-A:b\r\n\r\nabc",
                        "H HTTP/1.1 200 OK [Content-Length=3, X-A=b]", "L abc []", "|"),
                ok("odd spellings and unknown names", "HTTP/1.1 200 OK\r\nCONTENT-length: 2\r\nX-Odd_Name!: v\r\n\r\nok",
                        "H HTTP/1.1 200 OK [CONTENT-length=2, X-Odd_Name!=v]", "L ok []", "|"),
                ok("chunked with extensions and trailers",
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;name=\"v\"\r\nabc\r\n02 ; x\r\nde\r\n0\r\nX-Sum: 5\r\nContent-Length: 9\r\n\r\n",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "L abcde [X-Sum=5]", "|"),
                ok("chunked without trailers, upper-case hex and leading zeros",
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n00A\r\n0123456789\r\n000\r\n\r\n",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=Chunked]", "L 0123456789 []", "|"),
                ok("close-delimited body ends with the connection", "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nabcdef",
                        "H HTTP/1.1 200 OK [Server=x]", "|", "L abcdef []"),
                ok("204 has no body", "HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n",
                        "H HTTP/1.1 204 No Content [Server=x]", "L  []", "|"),
                ok("304 has no body whatever its length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n",
                        "H HTTP/1.1 304 Not Modified [Content-Length=10]", "L  []", "|"),
                ok("1xx then the final answer", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                        "H HTTP/1.1 100 Continue []", "L  []", "H HTTP/1.1 103 Early Hints [Link=</a>]", "L  []",
                        "H HTTP/1.1 200 OK [Content-Length=2]", "L ok []", "|"),
                ok("101 then the new protocol's bytes pass as they are",
                        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\u0081\u0002hi",
                        "H HTTP/1.1 101 Switching Protocols [Upgrade=websocket, Connection=Upgrade, "
                                + "Sec-WebSocket-Accept=s3pPLMBiTxaQ9kYGzzhZRbK+xOo=]", "L  []",
                        "R \u0081\u0002hi", "|"),
                ok("HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx",
                        "H HTTP/1.0 200 OK [Content-Length=1]", "L x []", "|"),
                ok("no reason phrase", "HTTP/1.1 200\r\nContent-Length: 1\r\n\r\nx",
                        "H HTTP/1.1 200  [Content-Length=1]", "L x []", "|"),
                ok("the upstream's own reason phrase, with obs-text", "HTTP/1.1 404 Nicht gefunden \u00e4\r\nContent-Length: 0\r\n\r\n",
                        "H HTTP/1.1 404 Nicht gefunden \u00e4 [Content-Length=0]", "L  []", "|"),
                ok("two answers on a keep-alive connection",
                        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nb\r\n0\r\n\r\n",
                        "H HTTP/1.1 200 OK [Content-Length=1]", "L a []",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "L b []", "|"));
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                bad("both Transfer-Encoding and Content-Length",
                        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", "H!"),
                bad("both, Transfer-Encoding first",
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n", "H!"),
                bad("both, even for HEAD-like no-body answers", "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", "H!"),
                bad("two Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", "H!"),
                bad("two equal Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", "H!"),
                bad("a Content-Length list", "HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\n\r\nabc", "H!"),
                bad("a Content-Length with a sign", "HTTP/1.1 200 OK\r\nContent-Length: +3\r\n\r\nabc", "H!"),
                bad("a Content-Length with letters", "HTTP/1.1 200 OK\r\nContent-Length: 3a\r\n\r\nabc", "H!"),
                bad("an empty Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", "H!"),
                bad("a Content-Length that overflows", "HTTP/1.1 200 OK\r\nContent-Length: 9999999999999999999\r\n\r\n", "H!"),
                bad("an unknown transfer coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc", "H!"),
                bad("chunked not alone", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", "H!"),
                bad("two Transfer-Encodings", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "H!"),
                bad("Transfer-Encoding in HTTP/1.0", "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "H!"),
                bad("bare LF ending a field", "HTTP/1.1 200 OK\r\nServer: x\nContent-Length: 0\r\n\r\n", "H!"),
                bad("bare LF ending the status line", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", "H!"),
                bad("bare LF ending the head", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\n", "H!"),
                bad("bare CR in a value", "HTTP/1.1 200 OK\r\nServer: a\rb\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("bare CR as a line", "HTTP/1.1 200 OK\r\n\rContent-Length: 0\r\n\r\n", "H!"),
                bad("obs-fold", "HTTP/1.1 200 OK\r\nServer: a\r\n b\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("a space before the colon", "HTTP/1.1 200 OK\r\nContent-Length : 3\r\n\r\nabc", "H!"),
                bad("a tab before the colon", "HTTP/1.1 200 OK\r\nContent-Length\t: 3\r\n\r\nabc", "H!"),
                bad("an empty name", "HTTP/1.1 200 OK\r\n: x\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("a name that is not a token", "HTTP/1.1 200 OK\r\nX(y): x\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("a line without a colon", "HTTP/1.1 200 OK\r\nServer\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("a control character in a value", "HTTP/1.1 200 OK\r\nServer: a\u0001b\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("DEL in a value", "HTTP/1.1 200 OK\r\nServer: a\u007fb\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("NUL in a value", "HTTP/1.1 200 OK\r\nServer: a\u0000b\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("a control character in the reason", "HTTP/1.1 200 O\u0001K\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("HTTP/2 status line", "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("HTTP/2.0", "HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("lower-case protocol", "http/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("two-digit status", "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("four-digit status", "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("status out of range", "HTTP/1.1 600 Odd\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("status not digits", "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("two spaces before the status", "HTTP/1.1  200 OK\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("no space after the status", "HTTP/1.1 200OK\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("an empty line before the status line", "\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "H!"),
                bad("a status line that is no status line", "hello\r\n\r\n", "H!"),
                bad("a malformed chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "L!"),
                bad("a negative chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-3\r\nabc\r\n0\r\n\r\n",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "L!"),
                bad("a chunk size that overflows", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000003\r\nabc\r\n0\r\n\r\n",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "L!"),
                bad("bare LF after a chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "L!"),
                bad("chunk data longer than its size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "L!"),
                bad("a control character in a chunk extension", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;a\u0001\r\nabc\r\n0\r\n\r\n",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "L!"),
                bad("bare LF in trailers", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-A: b\n\r\n",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "L!"),
                bad("obs-fold in trailers", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-A: b\r\n c\r\n\r\n",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "L!"),
                bad("closed inside the head", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n", "|", "H!"),
                bad("closed inside the status line: nothing came", "HTTP/1.1 200 O", "|"),
                bad("closed inside a body with a length: the close says it", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nab",
                        "H HTTP/1.1 200 OK [Content-Length=3]", "|"),
                bad("closed inside a chunked body: the close says it", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab",
                        "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]", "|"));
    }

    private static Arguments ok(String name, String bytes, String... transcript) {
        return Arguments.of(name, bytes, List.of(transcript));
    }

    private static Arguments bad(String name, String bytes, String... transcript) {
        List<String> t = new ArrayList<>(List.of(transcript));
        if (!t.contains("|")) {
            t.add("|");
        }
        return Arguments.of(name, bytes, t);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource({"wellFormed", "refused"})
    void wholeSplitAndByteByByte(String name, String bytes, List<String> transcript) {
        byte[] b = bytes.getBytes(StandardCharsets.ISO_8859_1);
        assertThat(run(new UpstreamResponseDecoder(), b, b.length)).as("whole").isEqualTo(transcript);
        for (int k = 1; k < b.length; k++) {
            assertThat(run(new UpstreamResponseDecoder(), b, k)).as("split at %d", k).isEqualTo(transcript);
        }
        assertThat(run(new UpstreamResponseDecoder(), b, 1, 1)).as("byte by byte").isEqualTo(transcript);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wellFormed")
    void theSameMessagesAsNettysDecoder(String name, String bytes, List<String> transcript) {
        HttpResponseDecoder netty = new HttpResponseDecoder(new HttpDecoderConfig()
                .setMaxInitialLineLength(8 * 1024).setMaxHeaderSize(64 * 1024).setMaxChunkSize(64 * 1024)
                .setAllowDuplicateContentLengths(false).setAllowPartialChunks(true));
        byte[] b = bytes.getBytes(StandardCharsets.ISO_8859_1);
        assertThat(run(netty, b, b.length)).isEqualTo(transcript);
    }

    static Stream<Arguments> limits() {
        return Stream.of(
                Arguments.of("status line over 8 KiB", BIG_STATUS, "H!"),
                Arguments.of("status line of exactly 8 KiB", "HTTP/1.1 200 " + "x".repeat(8 * 1024 - 13) + "\r\nContent-Length: 0\r\n\r\n",
                        "H HTTP/1.1 200 " + "x".repeat(8 * 1024 - 13) + " [Content-Length=0]"),
                Arguments.of("head over 64 KiB", BIG_HEAD, "H!"),
                Arguments.of("trailers over 64 KiB", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
                        + "X-Pad: y\r\n".repeat(6600) + "\r\n", "H HTTP/1.1 200 OK [Transfer-Encoding=chunked]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("limits")
    void limitsWholeAndByteByByte(String name, String bytes, String first) {
        byte[] b = bytes.getBytes(StandardCharsets.ISO_8859_1);
        for (int step : new int[] {b.length, 1}) {
            List<String> t = run(new UpstreamResponseDecoder(), b, step, step);
            assertThat(t.get(0)).as("step %d", step).isEqualTo(first);
            if (name.startsWith("trailers")) {
                assertThat(t.get(1)).as("step %d", step).isEqualTo("L!");
            }
        }
    }

    @Test
    void bodiesComeAsSlicesOfAtMost64KiB() {
        int size = 200_000;
        ByteBuf in = Unpooled.buffer();
        in.writeCharSequence("HTTP/1.1 200 OK\r\nContent-Length: " + size + "\r\n\r\n", StandardCharsets.US_ASCII);
        in.writeZero(size);
        EmbeddedChannel ch = new EmbeddedChannel(new UpstreamResponseDecoder());
        ch.writeInbound(in);
        long total = 0;
        Object m;
        while ((m = ch.readInbound()) != null) {
            if (m instanceof HttpContent c) {
                assertThat(c.content().readableBytes()).isLessThanOrEqualTo(UpstreamResponseDecoder.MAX_PART);
                assertThat(c.content().unwrap()).as("a slice of the read, not a copy").isNotNull();
                total += c.content().readableBytes();
            }
            ReferenceCountUtil.release(m);
        }
        assertThat(total).isEqualTo(size);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    /** A slow upstream's head, one byte per read, must not be searched from its start again on every read. */
    @Test
    void aHeadArrivingByteByByteIsScannedOnce() {
        String head = "HTTP/1.1 200 OK\r\n" + "X-Field-With-A-Long-Name: and-a-value-of-some-length\r\n".repeat(80)
                + "Content-Length: 0\r\n\r\n";
        String trailers = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + "X-Trailer: v\r\n".repeat(300) + "\r\n";
        for (String response : List.of(head, trailers)) {
            byte[] b = response.getBytes(StandardCharsets.ISO_8859_1);
            UpstreamResponseDecoder decoder = new UpstreamResponseDecoder();
            List<String> t = run(decoder, b, 1, 1);
            assertThat(t.get(t.size() - 2)).startsWith("L ");
            // Each byte once (a rescan from the head's start per read would be ~b.length^2 / 2).
            assertThat(decoder.scannedBytes).isBetween(1L, (long) b.length);
        }
    }

    @Test
    void bytesAfterTheBodyAreFlaggedPerResponse() {
        UpstreamResponseDecoder decoder = new UpstreamResponseDecoder();
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        ch.writeInbound(ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n"));
        assertThat(decoder.takeBytesAfterBody()).isFalse();
        ch.writeInbound(ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\nX"));
        assertThat(decoder.takeBytesAfterBody()).isTrue();
        assertThat(ch.finishAndReleaseAll()).isTrue();
    }

    // ---- the harness

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    /** Feeds {@code b} in a first read of {@code first} bytes, then reads of at most {@code step}, then closes. */
    private static List<String> run(ChannelHandler decoder, byte[] b, int first, int step) {
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        Transcript t = new Transcript();
        int i = 0;
        int n = Math.min(first, b.length);
        while (i < b.length) {
            ch.writeInbound(Unpooled.wrappedBuffer(b, i, n));
            t.drain(ch);
            i += n;
            n = Math.min(step, b.length - i);
        }
        t.lines.add("|");
        ch.finish();
        t.drain(ch);
        assertThat(ch.finishAndReleaseAll()).isFalse();
        return t.lines;
    }

    private static List<String> run(ChannelHandler decoder, byte[] b, int split) {
        return run(decoder, b, split, b.length);
    }

    private static final class Transcript {
        final List<String> lines = new ArrayList<>();
        final StringBuilder body = new StringBuilder();
        final StringBuilder raw = new StringBuilder();

        void drain(EmbeddedChannel ch) {
            Object m;
            while ((m = ch.readInbound()) != null) {
                try {
                    add(m);
                } finally {
                    ReferenceCountUtil.release(m);
                }
            }
            if (!raw.isEmpty()) {
                int at = lines.size() - 1;
                if (at >= 0 && lines.get(at).startsWith("R ")) {
                    lines.set(at, lines.get(at) + raw);
                } else {
                    lines.add("R " + raw);
                }
                raw.setLength(0);
            }
        }

        private void add(Object m) {
            if (m instanceof HttpResponse r) {
                if (r.decoderResult().isFailure()) {
                    lines.add("H!");
                    return;
                }
                List<String> fields = new ArrayList<>();
                for (Map.Entry<String, String> e : r.headers()) {
                    fields.add(e.getKey() + "=" + e.getValue());
                }
                lines.add("H " + r.protocolVersion() + " " + r.status().code() + " " + r.status().reasonPhrase() + " " + fields);
                body.setLength(0);
            }
            if (m instanceof HttpContent c) {
                if (c.decoderResult().isFailure()) {
                    lines.add("L!");
                    body.setLength(0);
                    return;
                }
                body.append(c.content().toString(StandardCharsets.ISO_8859_1));
                if (c instanceof LastHttpContent last) {
                    List<String> fields = new ArrayList<>();
                    for (Map.Entry<String, String> e : last.trailingHeaders()) {
                        fields.add(e.getKey() + "=" + e.getValue());
                    }
                    lines.add("L " + body + " " + fields);
                    body.setLength(0);
                }
            } else if (m instanceof ByteBuf raw) {
                this.raw.append(raw.toString(StandardCharsets.ISO_8859_1));
            }
        }
    }
}
