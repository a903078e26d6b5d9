package dev.strait.bench;

import dev.strait.proxy.upstream.UpstreamResponseDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Decoding one upstream response (head and body) into Netty's {@link HttpResponse}, content and last
 * content, as on a kept upstream connection: the decoder sits in an {@link EmbeddedChannel} (no sockets,
 * no threads) that lives for the whole trial, and each operation feeds it one response in one read.
 *
 * <p>{@code strait} is the proxy's {@link UpstreamResponseDecoder}; {@code netty} is Netty's
 * {@link HttpResponseDecoder} with the settings the proxy used before (8 KiB status line, 64 KiB head and
 * chunks, header validation on, no duplicate Content-Length); {@code channelOnly} passes the bytes through
 * the same channel without a decoder: the harness's own cost, to subtract.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2) // pinned to one CPU, C2 needs ~5 s (JIT threads share the core)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class ResponseDecodeBenchmark {
    /** What nginx answers from a small upstream: 6 fields, a 13-byte body. */
    static final String SMALL = "HTTP/1.1 200 OK\r\n"
            + "Server: nginx/1.24.0\r\n"
            + "Date: Tue, 01 Dec 2026 02:00:00 GMT\r\n"
            + "Content-Type: text/plain\r\n"
            + "Content-Length: 13\r\n"
            + "Connection: keep-alive\r\n"
            + "ETag: \"65f1c2a0-d\"\r\n"
            + "\r\n"
            + "Hello, world!";

    /** The same answer from an application server that streams: chunked, two chunks. */
    static final String CHUNKED = "HTTP/1.1 200 OK\r\n"
            + "Server: uvicorn\r\n"
            + "Date: Tue, 01 Dec 2026 02:00:00 GMT\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\n"
            + "Transfer-Encoding: chunked\r\n"
            + "Connection: keep-alive\r\n"
            + "Cache-Control: no-cache\r\n"
            + "\r\n"
            + "7\r\nHello, \r\n"
            + "6\r\nworld!\r\n"
            + "0\r\n\r\n";

    @Param({"small", "chunked"})
    public String response;

    @Param({"strait", "netty", "channelOnly"})
    public String decoder;

    private EmbeddedChannel channel;
    private ByteBuf bytes;

    @Setup(Level.Trial)
    public void setUp() {
        byte[] b = (response.equals("small") ? SMALL : CHUNKED).getBytes(StandardCharsets.US_ASCII);
        bytes = Unpooled.directBuffer(b.length).writeBytes(b);
        ChannelHandler[] handlers = switch (decoder) {
            case "strait" -> new ChannelHandler[] {new UpstreamResponseDecoder()};
            case "netty" -> new ChannelHandler[] {new HttpResponseDecoder(new HttpDecoderConfig()
                    .setMaxInitialLineLength(8 * 1024)
                    .setMaxHeaderSize(64 * 1024)
                    .setMaxChunkSize(64 * 1024)
                    .setValidateHeaders(true)
                    .setAllowDuplicateContentLengths(false)
                    .setAllowPartialChunks(true))};
            case "channelOnly" -> new ChannelHandler[0];
            default -> throw new IllegalArgumentException(decoder);
        };
        channel = new EmbeddedChannel(handlers);
        // Check once that the decoder understood the answer (a benchmark of an error path is no use).
        if (!decoder.equals("channelOnly")) {
            channel.writeInbound(bytes.retainedDuplicate());
            Object first = channel.readInbound();
            Object m;
            Object last = null;
            while ((m = channel.readInbound()) != null) {
                ReferenceCountUtil.release(last);
                last = m;
            }
            try {
                if (!(first instanceof HttpResponse r) || !r.decoderResult().isSuccess()
                        || !(last instanceof LastHttpContent l) || !l.decoderResult().isSuccess()) {
                    throw new IllegalStateException("not decoded as one response: " + first + " / " + last);
                }
            } finally {
                ReferenceCountUtil.release(first);
                ReferenceCountUtil.release(last);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.finishAndReleaseAll();
        bytes.release();
    }

    @Benchmark
    public void decode(Blackhole bh) {
        channel.writeInbound(bytes.retainedDuplicate());
        Object m;
        while ((m = channel.readInbound()) != null) {
            bh.consume(m);
            ReferenceCountUtil.release(m);
        }
    }
}
