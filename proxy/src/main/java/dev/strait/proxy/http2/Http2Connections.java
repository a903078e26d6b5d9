package dev.strait.proxy.http2;

import dev.strait.model.Limits;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.metrics.ProxyMetrics;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.UniformStreamByteDistributor;

/**
 * The HTTP/2 server side's settings in one place, and the handlers {@code server/ProxyServer} puts in
 * a connection's pipeline once it speaks HTTP/2 (ALPN h2, h2c prior knowledge or h2c Upgrade):
 *
 * <pre>
 *   Http2FrameTimeout      a frame or header block begun must end within headerTimeout
 *   Http2FrameCodec        frames, HPACK, flow control, Netty's flood protections
 *   Http2MultiplexHandler  one child channel per stream, each with an {@link Http2Exchange}
 *                          (and its {@link StreamDeadlines}: bodyTimeout, sendTimeout)
 *   Http2ConnectionGuard   counts the connection; idle, request and age caps, sendTimeout, drain
 * </pre>
 */
public final class Http2Connections {
    /** RFC 9113 6.5.2 suggests at least 100; more lets one client hold more handler state. */
    public static final int MAX_CONCURRENT_STREAMS = 100;
    /** Per stream: what a client may send before we read it. A paused stream buffers at most this. */
    public static final int STREAM_WINDOW = 256 * 1024;
    /** Per connection: caps what all of a connection's streams together may have in flight to us. */
    public static final int CONNECTION_WINDOW = 1024 * 1024;

    private final Serving serving;
    private final ProxyMetrics metrics;
    private final AccessLog accessLog;

    public Http2Connections(Serving serving, ProxyMetrics metrics, AccessLog accessLog) {
        this.serving = serving;
        this.metrics = metrics;
        this.accessLog = accessLog;
    }

    /** Goes right before {@link #frameCodec()}: it reads the bytes the codec is given. */
    public ChannelHandler frameTimeout() {
        return new Http2FrameTimeout(serving.snapshot().limits().headerTimeout().toNanos());
    }

    public Http2FrameCodec frameCodec() {
        Limits limits = serving.snapshot().limits();
        return new CodecBuilder(connection())
                .initialSettings(Http2Settings.defaultSettings()
                        .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                        .maxHeaderListSize(limits.maxHeaderBytes())
                        .initialWindowSize(STREAM_WINDOW))
                .validateHeaders(true)
                // Netty's defaults, stated so they stay on: rapid reset (CVE-2023-44487), queued control
                // frames (ping/settings floods), empty DATA frames; CONTINUATION floods are bounded by
                // the header list size above.
                .decoderEnforceMaxRstFramesPerWindow(200, 30)
                .encoderEnforceMaxQueuedControlFrames(10_000)
                .decoderEnforceMaxConsecutiveEmptyDataFrames(2)
                .gracefulShutdownTimeoutMillis(limits.drainTimeout().toMillis())
                .build();
    }

    /**
     * The connection state the codec is built on, with a flow controller that hands the connection's
     * window to streams in turn ({@link UniformStreamByteDistributor}) instead of Netty's default
     * {@code WeightedFairQueueByteDistributor}. That one keeps a priority tree that every stream joins
     * and leaves (11% of tls-h2-static-small's server CPU, ADR 0026) for RFC 7540 priorities, which RFC
     * 9113 5.3 deprecates and which browsers no longer send.
     */
    static Http2Connection connection() {
        Http2Connection connection = new DefaultHttp2Connection(true, 100); // Netty's default reserved (pushed) streams
        connection.remote().flowController(
                new DefaultHttp2RemoteFlowController(connection, new UniformStreamByteDistributor(connection)));
        return connection;
    }

    /** Netty's builder takes a ready connection only from a subclass ({@code connection(...)} is protected); it is a server by default. */
    private static final class CodecBuilder extends Http2FrameCodecBuilder {
        CodecBuilder(Http2Connection connection) {
            connection(connection);
        }
    }

    public Http2MultiplexHandler multiplexer() {
        return new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel ch) {
                ch.pipeline().addLast("http2", new Http2Exchange(serving, metrics, accessLog));
            }
        });
    }

    public ChannelHandler guard() {
        return new Http2ConnectionGuard(serving, metrics, CONNECTION_WINDOW);
    }
}
