package dev.strait.proxy.http2;

import dev.strait.model.Limits;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.LingeringClose;
import io.netty.channel.ChannelHandler;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.DefaultHttp2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.UniformStreamByteDistributor;

/**
 * The HTTP/2 server side's settings in one place, and the handlers {@code server/ProxyServer} puts in
 * a connection's pipeline once it speaks HTTP/2 (ALPN h2, h2c prior knowledge or h2c Upgrade):
 *
 * <pre>
 *   LingeringClose         a close sends what was written and reads the client out first (no RST)
 *   Http2FrameTimeout      a frame or header block begun must end within headerTimeout
 *   Http2ServerHandler     frames, HPACK, flow control, Netty's flood protections (Netty's
 *                          Http2ConnectionHandler), and the streams: an {@link Http2Exchange} each
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

    /**
     * Goes first, before {@link #frameTimeout()}: a close (after a GOAWAY, say) lingers so that a client still
     * sending does not have it reset away.
     */
    public ChannelHandler lingeringClose() {
        return new LingeringClose();
    }

    /** Goes right before {@link #handler()}: it reads the bytes the codec is given. */
    public ChannelHandler frameTimeout() {
        return new Http2FrameTimeout(serving.snapshot().limits().headerTimeout().toNanos());
    }

    /** The connection's HTTP/2 codec, which also serves its streams (ADR 0026). */
    public Http2ConnectionHandler handler() {
        return new Builder().build(serving.snapshot().limits());
    }

    /**
     * The connection state the codec is built on, with a flow controller that hands the connection's
     * window to streams in turn ({@link UniformStreamByteDistributor}) instead of Netty's default
     * {@code WeightedFairQueueByteDistributor}. That one keeps a priority tree that every stream joins
     * and leaves (9% of tls-h2-static-small's server samples, ADR 0026) for RFC 7540 priorities, which
     * RFC 9113 5.3 deprecates and which browsers no longer send. Inbound, {@link InboundFlowControl}:
     * DATA past a stream's window resets that stream only.
     */
    static Http2Connection newConnection() {
        Http2Connection connection = new DefaultHttp2Connection(true, 100); // Netty's default reserved (pushed) streams
        connection.remote().flowController(
                new DefaultHttp2RemoteFlowController(connection, new UniformStreamByteDistributor(connection)));
        connection.local().flowController(new InboundFlowControl(connection));
        return connection;
    }

    /**
     * The header list size the codec decodes in full (SETTINGS_MAX_HEADER_LIST_SIZE): twice
     * {@code maxHeaderBytes}. Requests over {@code maxHeaderBytes} get 431 on their stream from
     * {@link Http2Exchange}, with the connection and its other streams going on; the codec answers 431 too
     * past this size (the fields are not kept), and ends the connection only for a header block over 1.25
     * times this size, which it would have to hold to decode (HPACK state must be kept in step, RFC 9113
     * 4.3, so a block is decoded whole or the connection closed).
     */
    static long decodedHeaderListSize(int maxHeaderBytes) {
        return 2L * maxHeaderBytes;
    }

    /** Netty's builder, with our settings; its setters are protected, for subclasses like this one. */
    private final class Builder extends AbstractHttp2ConnectionHandlerBuilder<Http2ServerHandler, Builder> {
        Http2ServerHandler build(Limits limits) {
            connection(newConnection()); // a server, as the connection says
            initialSettings(Http2Settings.defaultSettings()
                    .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                    .maxHeaderListSize(decodedHeaderListSize(limits.maxHeaderBytes()))
                    .initialWindowSize(STREAM_WINDOW));
            validateHeaders(true);
            // Netty's defaults, stated so they stay on: rapid reset (CVE-2023-44487), queued control
            // frames (ping/settings floods), empty DATA frames; CONTINUATION floods are bounded by the
            // header list size above.
            decoderEnforceMaxRstFramesPerWindow(200, 30);
            encoderEnforceMaxQueuedControlFrames(10_000);
            decoderEnforceMaxConsecutiveEmptyDataFrames(2);
            gracefulShutdownTimeoutMillis(limits.drainTimeout().toMillis());
            return build();
        }

        @Override
        protected Http2ServerHandler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
                Http2Settings initialSettings) {
            Http2ServerHandler handler = new Http2ServerHandler(decoder, encoder, initialSettings, serving, metrics,
                    accessLog, CONNECTION_WINDOW);
            frameListener(handler);
            return handler;
        }
    }

    public ChannelHandler guard() {
        return new Http2ConnectionGuard(serving, metrics);
    }
}
