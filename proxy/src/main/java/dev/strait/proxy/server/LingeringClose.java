package dev.strait.proxy.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection without losing what was written to a reset, as nginx's {@code lingering_close}
 * (RFC 9112 9.6; for HTTP/2 since nginx 1.19.1). A socket closed while the client's bytes are still unread
 * makes the kernel send RST at once and drop whatever it had not yet sent: the last answers, and the
 * GOAWAY that tells the client which streams were processed (RFC 9113 6.8) and why the connection ends.
 *
 * <p>Every close that passes through here (the codec's after its GOAWAY, a guard's, a timer's) is held:
 * what is written is flushed, the output shut down (FIN after it; under TLS, close_notify first), and what
 * the client still sends is read and dropped until it closes, has been quiet for {@link #QUIET_NANOS}, or
 * {@link #MAX_NANOS} have passed. Then the close goes on. Sits at the pipeline's head side of what it
 * guards, so that its reads never reach a codec that is done.
 */
public final class LingeringClose extends ChannelDuplexHandler {
    /** The longest a close lingers (nginx's lingering_time) ... */
    static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** ... and how long after the client last sent anything (nginx's lingering_timeout). */
    static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** The close being held, or null. */
    private ChannelPromise closing;
    private long started;
    private long lastReadAt;

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (closing != null) {
            // A second close (the codec's own after a guard's, say) ends with the first.
            ctx.channel().closeFuture().addListener(f -> promise.trySuccess());
            return;
        }
        // Nothing to save where the client does not read what it is sent (the socket's buffers full, the
        // output queued past its high-water mark): a reset loses nothing it would have read.
        if (!(ctx.channel() instanceof DuplexChannel channel) || !channel.isActive() || channel.isOutputShutdown()
                || !channel.isWritable()) {
            ctx.close(promise);
            return;
        }
        closing = promise;
        started = System.nanoTime();
        lastReadAt = started;
        check(ctx); // bounds a flush that never ends too (a client that stops reading now)
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
            if (!written.isSuccess() || !channel.isActive()) {
                ctx.close(promise);
                return;
            }
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            if (ssl == null) {
                shutdownOutput(ctx, channel);
            } else {
                ssl.closeOutbound().addListener(notified -> shutdownOutput(ctx, channel));
            }
        });
        ctx.channel().config().setAutoRead(true);
        ctx.read();
    }

    private void shutdownOutput(ChannelHandlerContext ctx, DuplexChannel channel) {
        if (!channel.isActive()) {
            return;
        }
        channel.shutdownOutput().addListener(shut -> {
            if (!shut.isSuccess()) {
                ctx.close(closing);
            }
        });
    }

    private void check(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            return;
        }
        long now = System.nanoTime();
        long deadline = Math.min(lastReadAt + QUIET_NANOS, started + MAX_NANOS);
        if (now - deadline >= 0) {
            ctx.close(closing);
        } else {
            ctx.executor().schedule(() -> check(ctx), deadline - now, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing != null) {
            lastReadAt = System.nanoTime();
            ReferenceCountUtil.release(msg);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (closing != null) {
            ctx.read(); // whatever paused reading for the codec no longer counts
        } else {
            ctx.fireChannelReadComplete();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (closing != null) {
            closing.trySuccess(); // the client closed (or reset) first: the close is done
        }
        ctx.fireChannelInactive();
    }
}
