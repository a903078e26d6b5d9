package dev.strait.proxy.fastcgi;

import dev.strait.proxy.server.FatalErrors;
import dev.strait.proxy.upstream.IoUringPeerClose;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One kept connection to a FastCGI application, owned by a {@link FastCgiPool} on one event loop. Last
 * in its pipeline:
 *
 * <pre>
 *   socket -> FastCgiRecordDecoder -> FastCgiConnection -> the current Listener (a FastCgiCall)
 * </pre>
 *
 * It carries one request at a time and hands what arrives to that request's listener. Records that
 * arrive while no request is on it mean the application and we disagree about the state of the
 * connection: it is closed.
 */
final class FastCgiConnection extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(FastCgiConnection.class);

    /** What the request using a connection is told. Called on the connection's event loop. */
    interface Listener {
        /** A decoded record ({@link FastCgiRecords.StreamRecord} or {@link FastCgiRecords.EndRequest}); the listener owns it. */
        void onRecord(Object record);

        /** What one read of the connection brought has been handed over. */
        void onReadComplete();

        /** The connection closed while the request was on it. */
        void onConnectionLost(Throwable cause);

        /** The connection's outbound buffer crossed a water mark. */
        void onWritabilityChanged(boolean writable);
    }

    final FastCgiPool pool;
    Channel channel;
    /** The request on this connection, or {@code null} while it is idle or connecting. */
    Listener listener;
    /** When it went idle ({@link System#nanoTime()}), for the idle timeout. */
    long idleSince;
    private Throwable cause;

    FastCgiConnection(FastCgiPool pool) {
        this.pool = pool;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Listener l = listener;
        if (l == null) {
            ReferenceCountUtil.release(msg);
            log.debug("{}: data on an idle FastCGI connection, closing it", pool.label());
            ctx.close();
            return;
        }
        l.onRecord(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Listener l = listener;
        if (l != null) {
            l.onReadComplete();
        }
        // php-fpm's reset (or FIN) that came with unread data: on io_uring, read it now, not at a timeout.
        IoUringPeerClose.afterRead(ctx.channel());
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Listener l = listener;
        if (l != null) {
            l.onWritabilityChanged(ctx.channel().isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Listener l = listener;
        listener = null;
        if (l != null) {
            l.onConnectionLost(cause);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
        if (this.cause == null) {
            this.cause = cause;
        }
        log.debug("{}: FastCGI connection error: {}", pool.label(), cause.toString());
        ctx.close();
    }
}
