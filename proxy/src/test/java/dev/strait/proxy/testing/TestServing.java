package dev.strait.proxy.testing;

import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.http1.Http1RequestDecoder;
import dev.strait.proxy.http1.Http1ServerHandler;
import dev.strait.proxy.metrics.ProxyMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;

/** Builds serving state and HTTP/1.1 pipelines from YAML for tests. */
public final class TestServing {
    private TestServing() {}

    public static Snapshot snapshot(String yaml) {
        try {
            return SnapshotBuilder.build(ConfigParser.parse(yaml, "test"), "test");
        } catch (InvalidConfigException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    public static Serving serving(String yaml) {
        return new Serving(snapshot(yaml));
    }

    /** The real HTTP/1.1 pipeline on an EmbeddedChannel (no sockets, no threads). */
    public static EmbeddedChannel channel(Serving serving) {
        Http1RequestDecoder decoder = new Http1RequestDecoder(serving.snapshot().limits());
        return new EmbeddedChannel(decoder, new Http1ServerHandler(serving, new ProxyMetrics(), null, decoder, true));
    }

    public static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    /** Everything written to the client so far, as text; releases what it reads. */
    public static String outbound(EmbeddedChannel ch) {
        StringBuilder sb = new StringBuilder();
        Object o;
        while ((o = ch.readOutbound()) != null) {
            if (o instanceof ByteBuf b) {
                sb.append(b.toString(StandardCharsets.ISO_8859_1));
                b.release();
            } else {
                throw new AssertionError("unexpected outbound " + o);
            }
        }
        return sb.toString();
    }
}
