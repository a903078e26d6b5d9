package dev.strait.proxy.http1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Limits;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The request decoder reads the same messages however the socket splits the bytes: each input, fed
 * whole, split in two at every byte boundary (at a stride for long ones) and byte by byte, gives the
 * same transcript of heads, bodies, trailers and refusals. The inputs are SmugglingCorpusTest's
 * cases and the fuzz test's corpus. A limit that held only while a section's end was still to come
 * (trailers over 32 KiB taken when they came whole) is the kind of bug this finds: which read brings
 * the end depends on the transport's buffer sizes, not on the client.
 */
class Http1RequestFramingTest {
    private static final Limits LIMITS = new Limits(8192, 32 * 1024, 100, 1 << 20,
            Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1));
    /** Inputs longer than this are split at a stride rather than at every byte (the decoder scans each read). */
    private static final int EVERY_SPLIT_UP_TO = 2048;

    static Stream<Arguments> inputs() throws IOException, URISyntaxException {
        List<Arguments> all = new ArrayList<>();
        SmugglingCorpusTest.refused().forEach(a -> all.add(Arguments.of(
                "smuggling: " + a.get()[0], ((String) a.get()[2]).getBytes(StandardCharsets.ISO_8859_1))));
        Path corpus = Path.of(Http1RequestFramingTest.class
                .getResource("Http1RequestDecoderFuzzTestInputs/decodesOrRefuses").toURI());
        try (Stream<Path> files = Files.list(corpus)) {
            for (Path f : files.sorted().toList()) {
                all.add(Arguments.of("fuzz corpus: " + f.getFileName(), Files.readAllBytes(f)));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("inputs")
    void wholeSplitAndByteByByte(String name, byte[] b) {
        List<String> whole = run(b, b.length, b.length);
        assertThat(whole).as("the whole input gives a transcript").isNotEmpty();
        int stride = b.length <= EVERY_SPLIT_UP_TO ? 1 : b.length / 97;
        for (int k = 1; k < b.length; k += stride) {
            assertThat(run(b, k, b.length)).as("split at %d", k).isEqualTo(whole);
        }
        assertThat(run(b, 1, 1)).as("byte by byte").isEqualTo(whole);
    }

    /** Feeds {@code first} bytes, then the rest {@code step} at a time; returns what came out. */
    private static List<String> run(byte[] b, int first, int step) {
        EmbeddedChannel ch = new EmbeddedChannel(new Http1RequestDecoder(LIMITS));
        Transcript t = new Transcript();
        try {
            ch.writeInbound(Unpooled.wrappedBuffer(b, 0, first));
            t.drain(ch);
            for (int at = first; at < b.length && !t.refused; at += step) {
                ch.writeInbound(Unpooled.wrappedBuffer(b, at, Math.min(step, b.length - at)));
                t.drain(ch);
            }
        } finally {
            ch.finishAndReleaseAll();
        }
        return t.lines;
    }

    private static final class Transcript {
        final List<String> lines = new ArrayList<>();
        final StringBuilder body = new StringBuilder();
        boolean refused;

        void drain(EmbeddedChannel ch) {
            for (Object m; (m = ch.readInbound()) != null; ) {
                try {
                    add(m);
                } finally {
                    ReferenceCountUtil.release(m);
                }
            }
        }

        private void add(Object m) {
            if (m instanceof HttpRequest r) {
                if (r.decoderResult().isFailure()) {
                    refuse("head", r.decoderResult().cause());
                    return;
                }
                List<String> fields = new ArrayList<>();
                for (Map.Entry<String, String> e : r.headers()) {
                    fields.add(e.getKey() + "=" + e.getValue());
                }
                lines.add("request " + r.method() + " " + r.uri() + " " + r.protocolVersion() + " " + fields);
                body.setLength(0);
            }
            if (m instanceof HttpContent c) {
                if (c.decoderResult().isFailure()) {
                    refuse("body", c.decoderResult().cause());
                    return;
                }
                body.append(c.content().toString(StandardCharsets.ISO_8859_1));
                if (c instanceof LastHttpContent last) {
                    List<String> trailers = new ArrayList<>();
                    for (Map.Entry<String, String> e : last.trailingHeaders()) {
                        trailers.add(e.getKey() + "=" + e.getValue());
                    }
                    lines.add("body " + body.length() + " bytes " + Integer.toHexString(body.toString().hashCode())
                            + " trailers " + trailers);
                    body.setLength(0);
                }
            }
        }

        private void refuse(String where, Throwable cause) {
            int status = cause instanceof Http1Violation v ? v.status().code() : -1;
            lines.add("refused in the " + where + ": " + status);
            refused = true;
        }
    }
}
