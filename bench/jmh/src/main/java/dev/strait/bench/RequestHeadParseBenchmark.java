package dev.strait.bench;

import dev.strait.model.Limits;
import dev.strait.proxy.http1.Http1RequestDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
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
 * Parsing one request head (a GET without body) into Netty's {@link HttpRequest} and the empty
 * last content, as on a keep-alive connection: the decoder sits in an {@link EmbeddedChannel}
 * (no sockets, no threads) that lives for the whole trial, and each operation feeds it one head.
 *
 * <p>{@code strait} is the proxy's {@link Http1RequestDecoder} (strict, our limits); {@code netty}
 * is Netty's {@link HttpRequestDecoder} with its defaults, for comparison; {@code channelOnly} passes
 * the bytes through the same channel without a decoder: the harness's own cost, to subtract.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2) // pinned to one CPU, C2 needs ~5 s (JIT threads share the core)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
public class RequestHeadParseBenchmark {
    /** What wrk and curl send. */
    static final String SMALL = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n";

    /** What a browser sends behind a CDN: 14 fields, about 1 KiB. */
    static final String BROWSER = "GET /static/app/js/main.5f1c2a.js?v=1234 HTTP/1.1\r\n"
            + "Host: www.example.com\r\n"
            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36\r\n"
            + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n"
            + "Accept-Language: en-US,en;q=0.9,de;q=0.8\r\n"
            + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
            + "Referer: https://www.example.com/products/list?page=2&sort=price\r\n"
            + "Cookie: session=3f1d9c0b7a4e4f6b9d2c1a0e8f7b6c5d; theme=dark; consent=analytics%3Dfalse%26ads%3Dfalse; _ga=GA1.2.1234567890.1700000000\r\n"
            + "Sec-Fetch-Dest: script\r\n"
            + "Sec-Fetch-Mode: no-cors\r\n"
            + "Sec-Fetch-Site: same-origin\r\n"
            + "X-Forwarded-For: 203.0.113.7, 198.51.100.23\r\n"
            + "X-Forwarded-Proto: https\r\n"
            + "X-Request-Id: 9b2f4c1e-7d3a-4e5b-8c6d-0f1e2d3c4b5a\r\n"
            + "Connection: keep-alive\r\n"
            + "\r\n";

    @Param({"small", "browser"})
    public String head;

    @Param({"strait", "netty", "channelOnly"})
    public String decoder;

    private EmbeddedChannel channel;
    private ByteBuf bytes;

    @Setup(Level.Trial)
    public void setUp() {
        byte[] b = (head.equals("small") ? SMALL : BROWSER).getBytes(StandardCharsets.US_ASCII);
        bytes = Unpooled.directBuffer(b.length).writeBytes(b);
        ChannelHandler[] handlers = switch (decoder) {
            case "strait" -> new ChannelHandler[] {new Http1RequestDecoder(Limits.DEFAULTS)};
            case "netty" -> new ChannelHandler[] {new HttpRequestDecoder()};
            case "channelOnly" -> new ChannelHandler[0];
            default -> throw new IllegalArgumentException(decoder);
        };
        channel = new EmbeddedChannel(handlers);
        // Check once that the decoder understood the head (a benchmark of an error path is no use).
        if (!decoder.equals("channelOnly")) {
            channel.writeInbound(bytes.retainedDuplicate());
            Object first = channel.readInbound();
            Object last = channel.readInbound();
            try {
                if (!(first instanceof HttpRequest req) || !req.decoderResult().isSuccess() || !(last instanceof LastHttpContent)) {
                    throw new IllegalStateException("not parsed as one request: " + first + " / " + last);
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
    public void parse(Blackhole bh) {
        channel.writeInbound(bytes.retainedDuplicate());
        Object m;
        while ((m = channel.readInbound()) != null) {
            bh.consume(m);
            ReferenceCountUtil.release(m);
        }
    }
}
