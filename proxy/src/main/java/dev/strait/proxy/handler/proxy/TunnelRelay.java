package dev.strait.proxy.handler.proxy;

import dev.strait.proxy.server.FatalErrors;
import dev.strait.proxy.upstream.IoUringPeerClose;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One direction of a tunnel (WebSocket after 101): what this channel reads is written to the peer,
 * flushed once per read batch. While the peer cannot take more, this side is not read; when this
 * side can take more again, the peer is read again. Either side closing closes the other, after
 * what was already written is flushed. Both channels are on one event loop.
 *
 * <p>An idle timeout (no bytes in either direction) closes both: a WebSocket app that wants long
 * quiet connections sends pings, as it must through nginx too. A side not read because its peer is
 * not taking bytes is not idle (the bytes are moving, at the peer's pace); a peer that takes nothing
 * for {@link ProxyCall#UPSTREAM_SEND_TIMEOUT} (or the idle timeout, if longer) closes both. When one
 * side has closed, the other has as long to take what is left before it is closed too.
 */
public final class TunnelRelay extends ChannelInboundHandlerAdapter {
    /** Where this side's bytes go; the client's channel is learned when the client side's relay is added. */
    private Channel peer;
    private final long idleNanos;
    private TunnelRelay other;
    private ChannelHandlerContext ctx;
    private long lastActivity = System.nanoTime();
    /** When this side stopped being read because the peer could take no more; meaningful while not autoRead. */
    private long pausedSince;
    private ScheduledFuture<?> timer;
    /** Bytes this side read and passed to its peer. */
    private long relayed;

    private TunnelRelay(Channel peer, long idleNanos) {
        this.peer = peer;
        this.idleNanos = idleNanos;
    }

    /** A relay for each direction; add {@code [0]} to the client channel first, then {@code [1]} to the upstream's. */
    public static TunnelRelay[] pair(Channel upstream, long idleNanos) {
        TunnelRelay toUpstream = new TunnelRelay(upstream, idleNanos);
        TunnelRelay toClient = new TunnelRelay(null, idleNanos);
        toUpstream.other = toClient;
        toClient.other = toUpstream;
        return new TunnelRelay[] {toUpstream, toClient};
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (other.peer == null) {
            other.peer = ctx.channel();
        }
        if (other.ctx != null) {
            arm(idleNanos);
        }
    }

    private void arm(long delay) {
        timer = ctx.executor().schedule(this::checkIdle, delay, TimeUnit.NANOSECONDS);
    }

    private void checkIdle() {
        long now = System.nanoTime();
        long stall = Math.max(idleNanos, ProxyCall.UPSTREAM_SEND_TIMEOUT);
        if (paused() || other.paused()) {
            long since = paused() && other.paused() ? Math.min(pausedSince, other.pausedSince)
                    : paused() ? pausedSince : other.pausedSince;
            if (now - since >= stall) {
                ctx.close();
                peer.close();
                return;
            }
            lastActivity = now; // waiting for a slow reader, not for either side to send
        }
        long last = Math.max(lastActivity, other.lastActivity);
        long left = last + idleNanos - now;
        if (left > 0) {
            arm(left);
        } else {
            ctx.close();
            peer.close();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!peer.isActive()) {
            ReferenceCountUtil.release(msg);
            return;
        }
        lastActivity = System.nanoTime();
        if (msg instanceof io.netty.buffer.ByteBuf b) {
            relayed += b.readableBytes();
        }
        peer.write(msg, peer.voidPromise());
    }

    /** The bytes this side has read and passed on to its peer so far. */
    public long relayed() {
        return relayed;
    }

    private boolean paused() {
        return ctx != null && !ctx.channel().config().isAutoRead();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        peer.flush();
        if (!peer.isWritable()) {
            ctx.channel().config().setAutoRead(false);
            pausedSince = System.nanoTime();
        }
        // This side's close (FIN or reset) that came with unread data: on io_uring, read it now, so the
        // peer is closed at once, not at the idle timeout.
        IoUringPeerClose.afterRead(ctx.channel());
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            peer.config().setAutoRead(true);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
        }
        if (other.timer != null) {
            other.timer.cancel(false);
        }
        if (peer.isActive()) {
            ChannelFuture flushed = peer.writeAndFlush(Unpooled.EMPTY_BUFFER);
            flushed.addListener(ChannelFutureListener.CLOSE);
            if (!flushed.isDone()) {
                // The peer still has bytes to take. Its timers went with this side, so without this a peer
                // that never reads them would hold its connection for ever; a client is also cut at sendTimeout.
                ScheduledFuture<?> cut = peer.eventLoop().schedule(() -> {
                    peer.close();
                }, Math.max(idleNanos, ProxyCall.UPSTREAM_SEND_TIMEOUT), TimeUnit.NANOSECONDS);
                flushed.addListener(f -> cut.cancel(false));
            }
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
        ctx.close();
    }
}
