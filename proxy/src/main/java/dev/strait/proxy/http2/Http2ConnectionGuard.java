package dev.strait.proxy.http2;

import dev.strait.proxy.config.Serving;
import dev.strait.proxy.metrics.ProxyMetrics;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Last in an HTTP/2 connection's pipeline (after the multiplexer): counts the connection, widens the
 * connection's flow-control window, closes it after {@code keepAliveTimeout} without streams, and on
 * drain (SIGTERM) closes it gracefully: Netty's codec sends GOAWAY and lets open streams finish.
 */
final class Http2ConnectionGuard extends ChannelInboundHandlerAdapter {
    private final Serving serving;
    private final ProxyMetrics metrics;
    private final int connectionWindow;
    private boolean counted;
    private ScheduledFuture<?> idleTimer;

    Http2ConnectionGuard(Serving serving, ProxyMetrics metrics, int connectionWindow) {
        this.serving = serving;
        this.metrics = metrics;
        this.connectionWindow = connectionWindow;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start(ctx);
        ctx.fireChannelActive();
    }

    private void start(ChannelHandlerContext ctx) {
        if (counted) {
            return;
        }
        counted = true;
        metrics.connectionOpened();
        // The connection window starts at 64 KiB whatever the settings say (RFC 9113 6.9.2): widen it.
        int delta = connectionWindow - Http2CodecUtil.DEFAULT_WINDOW_SIZE;
        if (delta > 0) {
            ctx.writeAndFlush(new DefaultHttp2WindowUpdateFrame(delta), ctx.voidPromise());
        }
        scheduleIdleCheck(ctx);
    }

    private void scheduleIdleCheck(ChannelHandlerContext ctx) {
        long nanos = serving.snapshot().limits().keepAliveTimeout().toNanos();
        idleTimer = ctx.executor().schedule(() -> {
            Http2FrameCodec codec = ctx.pipeline().get(Http2FrameCodec.class);
            if (!ctx.channel().isActive()) {
                return;
            }
            if (codec != null && codec.connection().numActiveStreams() == 0 && !active) {
                ctx.channel().close(); // graceful: GOAWAY first
                return;
            }
            active = false;
            scheduleIdleCheck(ctx);
        }, nanos, TimeUnit.NANOSECONDS);
    }

    /** Whether any frame arrived since the last idle check. */
    private boolean active;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        active = true;
        ReferenceCountUtil.release(msg); // connection-level frames the multiplexer passed on (PING, SETTINGS, ...)
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        active = true;
        ctx.fireChannelReadComplete();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof dev.strait.proxy.http1.Http1ServerHandler.DrainEvent) {
            ctx.channel().close(); // the codec turns close into GOAWAY and waits for open streams
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (counted) {
            metrics.connectionClosed();
        }
        if (idleTimer != null) {
            idleTimer.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (io.netty.handler.codec.http2.Http2CodecUtil.getEmbeddedHttp2Exception(cause) != null) {
            // The codec passes its protocol errors on before it answers them: it sends GOAWAY with the
            // violation's code (FLOW_CONTROL_ERROR, ENHANCE_YOUR_CALM, ...) and closes. Closing here first
            // would send a graceful GOAWAY (NO_ERROR) instead.
            return;
        }
        ctx.close();
    }
}
