package dev.strait.proxy.http2;

import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.http.AcceptedOn;
import dev.strait.proxy.metrics.ProxyMetrics;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpScheme;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.HttpConversionUtil;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection: Netty's connection handler (frames, HPACK, both flow controls, the flood
 * protections, GOAWAY and graceful close) with this as its frame listener. Each stream's request is
 * answered by an {@link Http2Exchange} kept on Netty's own stream object, so a stream costs that
 * exchange and no child channel, pipeline or per-stream handler (ADR 0026):
 *
 * <pre>
 *   LingeringClose -> Http2FrameTimeout -> Http2ServerHandler (streams: Http2Exchange each)
 *   -> Http2ConnectionGuard
 * </pre>
 *
 * <p>Writes go through the connection's encoder; DATA waits in Netty's remote flow controller until the
 * stream's and the connection's windows allow it, and is written out by {@link #flush(ChannelHandlerContext)}
 * (which the handler calls after each read). Request bodies are given back to the client's window as the
 * exchange takes them, so an exchange that pauses reading holds at most one stream window.
 */
final class Http2ServerHandler extends Http2ConnectionHandler implements Http2FrameListener {
    private static final Logger log = LoggerFactory.getLogger(Http2ServerHandler.class);
    /**
     * How many reset streams are remembered: more than can be open at once, so a client's frames in flight
     * for every stream reset in one round trip are recognised. Older ones get Netty's STREAM_CLOSED reset
     * (RFC 9113 5.1 lets the period of ignoring frames be limited).
     */
    private static final int RESETS_KEPT = 2 * Http2Connections.MAX_CONCURRENT_STREAMS;
    /** The payload of the PING that follows a graceful close's first GOAWAY; its ack means the client has read it. */
    static final long SHUTDOWN_PING = 0x5354524149543235L;
    /**
     * How long the final GOAWAY waits for that ack at most (and never past drainTimeout): nghttp2 asks for a
     * round trip at least; a second covers all but the slowest paths, and a client that never acks.
     */
    static final long SHUTDOWN_ACK_WAIT = TimeUnit.SECONDS.toNanos(1);

    private final Serving serving;
    private final ProxyMetrics metrics;
    private final AccessLog accessLog;
    private final int connectionWindow;
    private final Http2Connection.PropertyKey exchangeKey;
    private final InboundFlowControl inboundFlow;
    /** The streams we reset last, whose late frames are dropped (a ring; 0 = free). */
    private final int[] resets = new int[RESETS_KEPT];
    private int resetsNext;
    private ChannelHandlerContext ctx;
    private String listener;
    /** Inside channelRead: writes are flushed once, when the read completes. */
    private boolean inRead;
    /** A graceful close sent its first GOAWAY (2^31-1) and waits for the PING ack; {@code null} otherwise. */
    private ScheduledFuture<?> shutdownNotice;
    /** When that first GOAWAY was sent: the graceful close, both steps, takes at most drainTimeout from here. */
    private long shutdownStartedAt;

    Http2ServerHandler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings,
            Serving serving, ProxyMetrics metrics, AccessLog accessLog, int connectionWindow) {
        super(decoder, encoder, settings);
        this.serving = serving;
        this.metrics = metrics;
        this.accessLog = accessLog;
        this.connectionWindow = connectionWindow;
        Http2Connection connection = connection();
        inboundFlow = (InboundFlowControl) connection.local().flowController();
        exchangeKey = connection.newKey();
        connection.addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamClosed(Http2Stream stream) {
                Http2Exchange e = stream.removeProperty(exchangeKey);
                if (e != null) {
                    e.closed();
                }
            }
        });
        encoder.flowController().listener(stream -> {
            Http2Exchange e = stream.getProperty(exchangeKey);
            if (e != null) {
                e.writabilityChanged();
            }
        });
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        this.listener = AcceptedOn.listener(ctx.channel());
        // Sends our SETTINGS (the server preface): ProxyServer and the h2c Upgrade add this handler to an
        // active connection (after ALPN, the prior-knowledge preface or the 101).
        super.handlerAdded(ctx);
        // The connection window starts at 64 KiB whatever the settings say (RFC 9113 6.9.2): widen it.
        int delta = connectionWindow - Http2CodecUtil.DEFAULT_WINDOW_SIZE;
        if (delta > 0) {
            connection().local().flowController().incrementWindowSize(connection().connectionStream(), delta);
            flush(ctx);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        inRead = true;
        super.channelRead(ctx, msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        inRead = false;
        super.channelReadComplete(ctx); // flushes what the read's streams wrote
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        super.channelWritabilityChanged(ctx); // writes what the windows allow, tells the flow controller
        if (ctx.channel().isWritable() && connection().numActiveStreams() > 0) {
            // The socket drained: every stream hears it, as a child channel did from Http2MultiplexHandler,
            // whatever the flow controller noticed.
            connection().forEachActiveStream(stream -> {
                Http2Exchange e = stream.getProperty(exchangeKey);
                if (e != null) {
                    e.writabilityChanged();
                }
                return true;
            });
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof HttpServerUpgradeHandler.UpgradeEvent upgrade) {
            // h2c Upgrade: the HTTP/1.1 request is stream 1, which onHttpServerUpgrade opened half-closed
            // (RFC 7540 3.2); it has no body (H2cUpgrade.accepts).
            try {
                FullHttpRequest request = upgrade.upgradeRequest();
                request.headers().set(HttpConversionUtil.ExtensionHeaderNames.SCHEME.text(), HttpScheme.HTTP.name());
                onHeadersRead(ctx, Http2CodecUtil.HTTP_UPGRADE_STREAM_ID, HttpConversionUtil.toHttp2Headers(request, true),
                        0, true);
            } finally {
                upgrade.release();
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    // ---- graceful close (RFC 9113 6.8) ----

    /**
     * Ends the connection gracefully in two steps, as RFC 9113 6.8 advises and nghttp2 and Envoy do: a GOAWAY
     * naming 2^31-1 and a PING, so that streams the client opened before it read the GOAWAY are still
     * served; then, on the PING's ack (the client has read the GOAWAY, so everything it sent before is
     * here) or after {@link #SHUTDOWN_ACK_WAIT}, the final GOAWAY naming the last stream taken, and the close
     * once open streams end, within drainTimeout of the first step. A GOAWAY for an error is one step:
     * Netty sends it with the violation's code and closes.
     */
    void shutdownGracefully() {
        if (shutdownNotice != null || !ctx.channel().isActive()) {
            return;
        }
        if (connection().goAwaySent()) {
            ctx.channel().close(); // a GOAWAY went already (an error's): close as it said
            return;
        }
        shutdownStartedAt = System.nanoTime();
        goAway(ctx, Integer.MAX_VALUE, Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER, ctx.newPromise());
        encoder().writePing(ctx, false, SHUTDOWN_PING, ctx.newPromise());
        flushSoon();
        long wait = Math.min(SHUTDOWN_ACK_WAIT, serving.snapshot().limits().drainTimeout().toNanos());
        shutdownNotice = ctx.executor().schedule(() -> {
            ctx.channel().close(); // no ack in time: the final GOAWAY (see close) all the same
        }, wait, TimeUnit.NANOSECONDS);
    }

    @Override
    public void onPingAckRead(ChannelHandlerContext ctx, long data) {
        if (data == SHUTDOWN_PING && shutdownNotice != null) {
            ctx.channel().close(); // the client read the first GOAWAY: whatever it sent before is here
        }
    }

    /**
     * Every close through the codec. While a graceful close waits for its PING ack, the final GOAWAY goes
     * first, naming the last stream taken, and open streams have what is left of drainTimeout; Netty then
     * sends no GOAWAY of its own (one was sent) and closes once they end.
     */
    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        ScheduledFuture<?> notice = shutdownNotice;
        if (notice != null && ctx.channel().isActive()
                && connection().remote().lastStreamKnownByPeer() == Integer.MAX_VALUE) {
            notice.cancel(false);
            long left = serving.snapshot().limits().drainTimeout().toNanos() - (System.nanoTime() - shutdownStartedAt);
            gracefulShutdownTimeoutMillis(Math.max(0, TimeUnit.NANOSECONDS.toMillis(left)));
            goAway(ctx, connection().remote().lastStreamCreated(), Http2Error.NO_ERROR.code(), Unpooled.EMPTY_BUFFER,
                    ctx.newPromise());
        }
        super.close(ctx, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (shutdownNotice != null) {
            shutdownNotice.cancel(false);
        }
        super.channelInactive(ctx);
    }

    // ---- what exchanges use ----

    ChannelHandlerContext ctx() {
        return ctx;
    }

    Serving serving() {
        return serving;
    }

    /** The listener that accepted the connection, whose table routes its streams (null: not known). */
    String listener() {
        return listener;
    }

    ProxyMetrics metrics() {
        return metrics;
    }

    AccessLog accessLog() {
        return accessLog;
    }

    ChannelFuture writeHeaders(Http2Stream stream, Http2Headers headers, boolean endStream) {
        return encoder().writeHeaders(ctx, stream.id(), headers, 0, endStream, ctx.newPromise());
    }

    ChannelFuture writeData(Http2Stream stream, ByteBuf data, boolean endStream) {
        return encoder().writeData(ctx, stream.id(), data, 0, endStream, ctx.newPromise());
    }

    /** Sends RST_STREAM (once; Netty skips a stream already reset or closed) and closes the stream. */
    void reset(Http2Stream stream, Http2Error error) {
        resetStream(ctx, stream.id(), error.code(), ctx.newPromise());
        flushSoon();
    }

    /**
     * Every RST_STREAM we send comes here (ours through {@link #reset}, Netty's for stream errors through its
     * encoder). The stream is closed at once rather than when the frame's write completes, as Netty would:
     * DATA still queued for it in the flow controller is dropped instead of being flushed after the reset.
     */
    @Override
    public ChannelFuture resetStream(ChannelHandlerContext ctx, int streamId, long errorCode, ChannelPromise promise) {
        Http2Stream stream = connection().stream(streamId);
        if (stream == null || stream.isResetSent()) {
            return super.resetStream(ctx, streamId, errorCode, promise);
        }
        Http2Exchange e = stream.getProperty(exchangeKey);
        if (e != null) {
            e.resetting(errorCode);
        }
        ChannelFuture sent = super.resetStream(ctx, streamId, errorCode, promise);
        if (stream.isResetSent()) {
            remember(streamId);
            stream.close(); // a second close, when the write completes, changes nothing
        }
        return sent;
    }

    /** Resets a stream that has ended both ways (an answer given without reading the request). */
    void resetEnded(int streamId, Http2Error error) {
        remember(streamId);
        resetStream(ctx, streamId, error.code(), ctx.newPromise());
        flushSoon();
    }

    private void remember(int streamId) {
        resets[resetsNext] = streamId;
        resetsNext = (resetsNext + 1) % resets.length;
    }

    private boolean wasReset(int streamId) {
        for (int id : resets) {
            if (id == streamId) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected void onStreamError(ChannelHandlerContext ctx, boolean outbound, Throwable cause,
            Http2Exception.StreamException e) {
        int id = e.streamId();
        if (!outbound && e.error() == Http2Error.STREAM_CLOSED && connection().stream(id) == null && wasReset(id)) {
            // A frame the client sent before our RST_STREAM reached it: dropped (RFC 9113 5.1). Netty has
            // counted its DATA in the connection's window and given it back; another reset would be wrong.
            return;
        }
        if (!outbound && e instanceof Http2Exception.HeaderListSizeException tooLarge && tooLarge.duringDecode()
                && answerRefusedHead(id, HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)) {
            return;
        }
        if (!outbound && e.error() == Http2Error.PROTOCOL_ERROR && !(e instanceof Http2Exception.HeaderListSizeException)
                && connection().stream(id) == null && connection().remote().isValidStreamId(id)
                && id > connection().remote().lastStreamCreated()
                && answerRefusedHead(id, HttpResponseStatus.BAD_REQUEST)) {
            // A new stream's HEADERS that the codec found malformed while decoding (RFC 9113 8.2.1, 8.3): the
            // block was decoded whole, so HPACK is in step; 400 and a log line, as HTTP/1.1 answers such a head.
            return;
        }
        super.onStreamError(ctx, outbound, cause, e);
    }

    /**
     * A request's header block that decoded (so HPACK stays in step) but was not kept, too large (431) or
     * malformed (400): answered on its stream, as HTTP/1.1 answers such a head, and logged like other
     * answers. Netty's own answer was a bare 431 or a PROTOCOL_ERROR reset that nobody logged.
     */
    private boolean answerRefusedHead(int streamId, HttpResponseStatus status) {
        if (connection().stream(streamId) != null) {
            return false; // trailers: the stream's own exchange is answering; Netty resets it
        }
        Http2Stream stream;
        try {
            stream = connection().remote().createStream(streamId, true);
        } catch (Http2Exception refused) {
            return false; // over the stream limit, or a stream id out of order: Netty resets it
        }
        Http2Exchange e = new Http2Exchange(this, stream);
        stream.setProperty(exchangeKey, e);
        e.refusedHead(status);
        return true;
    }

    /**
     * Every GOAWAY we send. On a connection error the last stream id is the last stream taken (Netty names
     * 2^31-1 for errors found while reading frames, which tells the client that no request is safe to
     * retry, RFC 9113 6.8), and an INTERNAL_ERROR carries no debug data: its text would be an exception's
     * message from our own code. The client's own violations keep Netty's description of them.
     */
    @Override
    public ChannelFuture goAway(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData,
            ChannelPromise promise) {
        if (errorCode != Http2Error.NO_ERROR.code()) {
            lastStreamId = Math.min(lastStreamId, connection().remote().lastStreamCreated());
            if (errorCode == Http2Error.INTERNAL_ERROR.code()) {
                debugData.release();
                debugData = Unpooled.EMPTY_BUFFER;
            }
        }
        return super.goAway(ctx, lastStreamId, errorCode, debugData, promise);
    }

    /** Gives {@code bytes} of a stream's request body back to the client's windows. */
    void consumed(Http2Stream stream, int bytes) {
        if (bytes <= 0 || stream.state() == Http2Stream.State.CLOSED) {
            return;
        }
        try {
            if (connection().local().flowController().consumeBytes(stream, bytes)) {
                flushSoon(); // a WINDOW_UPDATE was written
            }
        } catch (Http2Exception e) {
            onError(ctx, true, e);
        }
    }

    /** The stream's window, the connection's window and the socket all take more. */
    boolean isWritable(Http2Stream stream) {
        return encoder().flowController().isWritable(stream);
    }

    /** Flushes now, or when the read in progress completes. */
    void flushSoon() {
        if (!inRead) {
            flush(ctx);
        }
    }

    // ---- frames ----

    @Override
    public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
        Http2Stream stream = connection().stream(streamId);
        if (inboundFlow.overran(streamId)) {
            // More DATA than the stream's window allowed (RFC 9113 6.9.1): a stream error. The reset closes
            // the stream, which gives its unread bytes, this frame's too, back to the connection's window.
            log.debug("{}: stream {} sent DATA past its window", ctx.channel().remoteAddress(), streamId);
            reset(stream, Http2Error.FLOW_CONTROL_ERROR);
            return data.readableBytes() + padding;
        }
        Http2Exchange e = stream == null ? null : stream.getProperty(exchangeKey);
        if (e == null) {
            return data.readableBytes() + padding;
        }
        try {
            return padding + e.onData(data, endOfStream);
        } catch (RuntimeException t) {
            e.failed(t);
            return data.readableBytes() + padding;
        }
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
            boolean endOfStream) {
        Http2Stream stream = connection().stream(streamId);
        if (stream == null) {
            return;
        }
        Http2Exchange e = stream.getProperty(exchangeKey);
        try {
            if (e == null) {
                e = new Http2Exchange(this, stream);
                stream.setProperty(exchangeKey, e);
                e.onHeaders(headers, endOfStream);
            } else {
                e.onTrailers(headers);
            }
        } catch (RuntimeException t) {
            if (e == null) {
                throw t;
            }
            e.failed(t);
        }
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
            short weight, boolean exclusive, int padding, boolean endOfStream) {
        onHeadersRead(ctx, streamId, headers, padding, endOfStream);
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
        Http2Stream stream = connection().stream(streamId);
        Http2Exchange e = stream == null ? null : stream.getProperty(exchangeKey);
        if (e != null) {
            e.cancelled(); // the decoder closes the stream right after
        }
    }

    // Connection-level frames are answered by Netty's decoder (SETTINGS and PING acks, window updates,
    // GOAWAY); priorities are ignored (RFC 9113 5.3); clients cannot push.

    @Override
    public void onPriorityRead(ChannelHandlerContext ctx, int streamId, int streamDependency, short weight,
            boolean exclusive) {}

    @Override
    public void onSettingsAckRead(ChannelHandlerContext ctx) {}

    @Override
    public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {}

    @Override
    public void onPingRead(ChannelHandlerContext ctx, long data) {}

    @Override
    public void onPushPromiseRead(ChannelHandlerContext ctx, int streamId, int promisedStreamId, Http2Headers headers,
            int padding) {}

    @Override
    public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
        log.debug("{}: GOAWAY from the client ({})", ctx.channel().remoteAddress(), errorCode);
    }

    @Override
    public void onWindowUpdateRead(ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {}

    @Override
    public void onUnknownFrame(ChannelHandlerContext ctx, byte frameType, int streamId, Http2Flags flags,
            ByteBuf payload) {}
}
