package dev.strait.proxy.upstream;

import dev.strait.proxy.server.FatalErrors;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpObject;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection to an upstream endpoint, owned by one event loop's {@link EndpointPool}:
 *
 * <pre>
 *   socket -> UpstreamResponseDecoder -> UpstreamConnection -> the request using it (UpstreamListener)
 * </pre>
 *
 * It carries one request at a time (no pipelining toward upstreams: a slow answer would hold up the
 * next). One timer per connection, moved lazily, serves both the request's deadlines and the idle
 * timeout in the pool, so a request schedules nothing of its own.
 */
public final class UpstreamConnection extends ChannelInboundHandlerAdapter {
    /** The TLS settings this connection was made with ({@code null}: cleartext). */
    dev.strait.proxy.tls.UpstreamTls tls;
    private static final Logger log = LoggerFactory.getLogger(UpstreamConnection.class);

    final EndpointPool pool;
    final Channel channel;
    final UpstreamResponseDecoder decoder = new UpstreamResponseDecoder();
    private UpstreamListener listener;
    /** Handed over to a tunnel after a 101: bytes pass through to the handler after this one. */
    private boolean tunnel;
    boolean idle;
    long idleSince;
    int requests;
    private Throwable failure;
    private ScheduledFuture<?> timer;
    private long timerAt;
    private final Runnable onTimer = this::onTimer;

    UpstreamConnection(EndpointPool pool, Channel channel) {
        this.pool = pool;
        this.channel = channel;
    }

    public EndpointPool endpoint() {
        return pool;
    }

    public Channel channel() {
        return channel;
    }

    public boolean isWritable() {
        return channel.isWritable();
    }

    /** Called before writing a request head; {@code head} tells the decoder that no body will follow. */
    public void startRequest(boolean head) {
        requests++;
        decoder.noBody = head;
    }

    public void write(ByteBuf buf) {
        channel.write(buf, channel.voidPromise());
    }

    public void flush() {
        channel.flush();
    }

    public void setReading(boolean read) {
        if (channel.config().isAutoRead() != read) {
            channel.config().setAutoRead(read);
        }
    }

    /** Whether bytes followed the end of the last response in the same read (never reuse then). */
    public boolean bytesAfterBody() {
        return decoder.takeBytesAfterBody();
    }

    /** The request is done with the connection: back to the pool when {@code reusable}, else closed. */
    public void release(boolean reusable) {
        listener = null;
        setReading(true);
        pool.release(this, reusable && channel.isActive());
    }

    /** Closes without telling the listener (the caller is the listener). */
    public void close() {
        listener = null;
        channel.close();
    }

    /**
     * After a 101 answer: the connection leaves HTTP (and its pool for good) and becomes one end of a
     * tunnel; {@code relay} gets its bytes, including any that came right after the 101 head.
     */
    public void tunnel(io.netty.channel.ChannelHandler relay) {
        listener = null;
        tunnel = true;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        channel.pipeline().addLast("tunnel", relay);
        channel.pipeline().remove(decoder);
        setReading(true);
    }

    boolean listenerIs(UpstreamListener l) {
        return listener == l;
    }

    void attach(UpstreamListener l) {
        listener = l;
        idle = false;
    }

    /** Makes sure the timer fires no later than {@code at} ({@code System.nanoTime()}). */
    public void armTimer(long at) {
        if (timer != null) {
            if (timerAt - at <= 0) {
                return; // fires earlier anyway, and re-arms for what is left
            }
            timer.cancel(false);
        }
        timerAt = at;
        long delay = Math.max(at - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(1));
        timer = channel.eventLoop().schedule(onTimer, delay, TimeUnit.NANOSECONDS);
    }

    private void onTimer() {
        timer = null;
        if (!channel.isActive()) {
            return;
        }
        long now = System.nanoTime();
        UpstreamListener l = listener;
        if (l != null) {
            long next = l.onTimer(now);
            if (next != 0 && listener == l && channel.isActive()) {
                armTimer(next);
            }
        } else if (idle) {
            long deadline = idleSince + pool.idleTimeoutNanos;
            if (now - deadline >= 0) {
                channel.close();
            } else {
                armTimer(deadline);
            }
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        pool.opened();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (tunnel) {
            if (msg instanceof HttpObject) {
                ReferenceCountUtil.release(msg); // the decoder's end of the 101 answer
            } else {
                ctx.fireChannelRead(msg);
            }
            return;
        }
        UpstreamListener l = listener;
        if (l != null && msg instanceof HttpObject o) {
            l.onMessage(o);
            return;
        }
        ReferenceCountUtil.release(msg);
        if (channel.isActive()) {
            // Bytes nobody asked for (after a response, or on an idle connection): nothing after them can be trusted.
            log.debug("upstream {}: unexpected bytes on an idle connection; closing it", pool);
            channel.close();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (tunnel) {
            ctx.fireChannelReadComplete(); // the relay looks after the end of the connection
            return;
        }
        UpstreamListener l = listener;
        if (l != null) {
            l.onReadComplete();
        }
        // A reset (or FIN) that came with unread data: on io_uring, read it now, not at a timeout.
        IoUringPeerClose.afterRead(channel);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (tunnel) {
            ctx.fireChannelWritabilityChanged();
            return;
        }
        UpstreamListener l = listener;
        if (l != null) {
            l.onWritabilityChanged(channel.isWritable());
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        pool.closed(this);
        UpstreamListener l = listener;
        listener = null;
        if (l != null) {
            l.onClosed(failure != null ? failure : new ClosedChannelException());
        }
        if (tunnel) {
            ctx.fireChannelInactive();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
        log.debug("upstream {}: {}", pool, cause.toString());
        failure = cause;
        ctx.close();
    }
}
