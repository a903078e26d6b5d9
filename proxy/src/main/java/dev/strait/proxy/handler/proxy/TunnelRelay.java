package dev.strait.proxy.handler.proxy;

import dev.strait.proxy.server.FatalErrors;
import dev.strait.proxy.upstream.IoUringPeerClose;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
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
 *
 * <p>In a TCP tunnel (TLS passthrough) half-closes pass through, as through Envoy's TCP proxy and nginx's
 * {@code proxy_half_close}: a side that ends its sending with a FIN while it still reads (a client that sends its
 * request, shuts its output and waits for the answer) has its FIN passed on to the peer once what it sent is
 * flushed, and the other direction keeps flowing until that side ends too (or the idle timeout); then both
 * close. A WebSocket tunnel ends when either side ends, as nginx ends an upgraded connection: WebSocket closes
 * with its own frames, and a half-open one would only hold its in-flight place.
 */
public final class TunnelRelay extends ChannelInboundHandlerAdapter {
    /** Where this side's bytes go; the client's channel is learned when the client side's relay is added. */
    private Channel peer;
    private final long idleNanos;
    private TunnelRelay other;
    /** Whether half-closes pass (a TCP tunnel, see above). */
    private final boolean halfClose;
    private ChannelHandlerContext ctx;
    private long lastActivity = System.nanoTime();
    /** When this side stopped being read because the peer could take no more; meaningful while not autoRead. */
    private long pausedSince;
    private ScheduledFuture<?> timer;
    /** Bytes this side read and passed to its peer. */
    private long relayed;
    /** This side's peer sent its FIN (half-closes pass, see above): its input is done, its output may go on. */
    private boolean inputDone;

    private TunnelRelay(Channel peer, long idleNanos, boolean halfClose) {
        this.peer = peer;
        this.idleNanos = idleNanos;
        this.halfClose = halfClose;
    }

    /** A relay for each direction; add {@code [0]} to the client channel first, then {@code [1]} to the upstream's. */
    public static TunnelRelay[] pair(Channel upstream, long idleNanos) {
        return pair(upstream, idleNanos, false);
    }

    /** As {@link #pair(Channel, long)}; with {@code halfClose}, a TCP tunnel's: half-closes pass (see the class comment). */
    public static TunnelRelay[] pair(Channel upstream, long idleNanos, boolean halfClose) {
        TunnelRelay toUpstream = new TunnelRelay(upstream, idleNanos, halfClose);
        TunnelRelay toClient = new TunnelRelay(null, idleNanos, halfClose);
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
            // Both sides known: in a TCP tunnel half-closes pass, where both are plain TCP (see the class comment).
            if (halfClose && halfClosable(ctx.channel()) && halfClosable(peer)) {
                ctx.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
                peer.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
            }
        }
    }

    /**
     * Reads {@code ch} again, unless its input has ended (a half-close): there is nothing left to read, and Netty's
     * epoll channel (4.2.18) fails to re-arm such a socket ({@code epoll_ctl} finds it no longer registered).
     */
    public static void resumeReading(Channel ch) {
        if (!(ch instanceof DuplexChannel d && d.isInputShutdown())) {
            ch.config().setAutoRead(true);
        }
    }

    private static boolean halfClosable(Channel ch) {
        return ch instanceof DuplexChannel && ch.pipeline().get(SslHandler.class) == null;
    }

    /**
     * This side's FIN (only where half-closes pass): once what it sent is flushed, the peer gets a FIN too; when the
     * peer has already ended its side, both are done and close.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ChannelInputShutdownEvent.INSTANCE) {
            inputEnded();
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * This side's sending ended with a FIN: passed on as the class comment says. Called for the event, or by whoever
     * saw the FIN before this relay was in place (a passed-through client's, while its endpoint was connecting).
     */
    public void inputEnded() {
        if (inputDone) {
            return;
        }
        inputDone = true;
        if (!peer.isActive()) {
            ctx.close();
        } else if (other.inputDone) {
            peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
                peer.close();
                ctx.close();
            });
        } else {
            peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
                if (f.isSuccess() && peer instanceof DuplexChannel d) {
                    d.shutdownOutput();
                } else {
                    peer.close();
                }
            });
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
        if (!inputDone) {
            IoUringPeerClose.afterRead(ctx.channel());
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            resumeReading(peer);
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
