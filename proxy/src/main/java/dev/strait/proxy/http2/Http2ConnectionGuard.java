package dev.strait.proxy.http2;

import dev.strait.model.Limits;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.http.ConnectionTimer;
import dev.strait.proxy.http1.Http1ServerHandler;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.FatalErrors;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Last in an HTTP/2 connection's pipeline (after {@link Http2ServerHandler}): counts the connection and
 * holds it to {@link Limits} with one timer, moved
 * lazily as {@code Http1ServerHandler}'s is (it fires, acts or sleeps for the time left):
 *
 * <ul>
 *   <li>{@code keepAliveTimeout}: no open stream for this long, and the connection is closed. Frames
 *       that open no stream (PING, SETTINGS, WINDOW_UPDATE, a header block that never ends) do not
 *       keep it open, as with Envoy's {@code idle_timeout}.</li>
 *   <li>{@code maxRequestsPerConnection} streams, {@code maxConnectionAge}, {@code keepAliveTimeout} and
 *       drain (SIGTERM): the connection is closed gracefully in two steps
 *       ({@link Http2ServerHandler#shutdownGracefully}): GOAWAY (NO_ERROR, 2^31-1) and a PING; at its
 *       ack, or a second later, GOAWAY naming the last stream taken; open streams finish (within
 *       {@code drainTimeout}, Netty's graceful shutdown), then the close.</li>
 *   <li>{@code sendTimeout}: the client took nothing we wrote for this long (the connection stayed
 *       unwritable): cut off at once, since a GOAWAY would only queue behind the unread bytes.</li>
 * </ul>
 */
final class Http2ConnectionGuard extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(Http2ConnectionGuard.class);
    private final Serving serving;
    private final ProxyMetrics metrics;
    private ChannelHandlerContext ctx;
    private Http2ServerHandler server;
    private Http2Connection connection;
    private boolean counted;
    /** A graceful close (GOAWAY) has begun. */
    private boolean closing;
    private int streams;
    private long openedAt;
    /** Since when the connection has had no open stream. */
    private long idleSince;
    /** Since when the client has not taken what we write; 0 while it does. */
    private long unwritableSince;
    private final ConnectionTimer timer = new ConnectionTimer(this::onTimer);

    Http2ConnectionGuard(Serving serving, ProxyMetrics metrics) {
        this.serving = serving;
        this.metrics = metrics;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        // The codec is in the pipeline already (ProxyServer and Http2ServerUpgradeCodec add it first), and
        // the h2c Upgrade's stream 1 is made after this: it is counted too.
        server = ctx.pipeline().get(Http2ServerHandler.class);
        connection = server.connection();
        connection.addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamActive(Http2Stream stream) {
                streamOpened();
            }

            @Override
            public void onStreamClosed(Http2Stream stream) {
                if (connection.numActiveStreams() == 0) {
                    idleSince = System.nanoTime();
                }
            }
        });
        if (ctx.channel().isActive()) {
            start();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start();
        ctx.fireChannelActive();
    }

    private void start() {
        if (counted) {
            return;
        }
        counted = true;
        openedAt = idleSince = System.nanoTime();
        Limits limits = serving.snapshot().limits();
        long next = limits.keepAliveTimeout().toNanos();
        if (!limits.maxConnectionAge().isZero()) {
            next = Math.min(next, limits.maxConnectionAge().toNanos());
        }
        timer.fireIn(ctx.executor(), next);
    }

    /** Called (by the codec's connection) as each stream opens, before its HEADERS reach the stream. */
    private void streamOpened() {
        int max = serving.snapshot().limits().maxRequestsPerConnection();
        if (++streams >= max && max > 0) {
            // The graceful close starts: this stream is served, and so are those the client sends before it
            // reads the first GOAWAY; the final one names the last of them, later ones are not processed
            // (RFC 9113 6.8, the client may retry them on a new connection).
            closeGracefully("served " + max + " streams");
        }
    }

    private void closeGracefully(String why) {
        if (closing) {
            return;
        }
        closing = true;
        log.debug("{}: closing gracefully: {}", ctx.channel().remoteAddress(), why);
        server.shutdownGracefully(); // two GOAWAYs, then the codec waits for open streams (up to drainTimeout)
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg); // nothing comes past the codec; dropped if anything does
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            unwritableSince = 0;
        } else if (unwritableSince == 0) {
            unwritableSince = System.nanoTime();
            timer.fireBy(ctx.executor(), unwritableSince + serving.snapshot().limits().sendTimeout().toNanos());
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof Http1ServerHandler.DrainEvent) {
            closeGracefully("draining");
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    private void onTimer() {
        if (!ctx.channel().isActive()) {
            return;
        }
        Limits limits = serving.snapshot().limits();
        long now = System.nanoTime();
        long next = limits.keepAliveTimeout().toNanos();
        if (unwritableSince != 0) {
            long left = unwritableSince + limits.sendTimeout().toNanos() - now;
            if (left <= 0) {
                log.debug("{}: client did not read for {}, closing", ctx.channel().remoteAddress(), limits.sendTimeout());
                ctx.pipeline().firstContext().close(); // at once: past the codec's graceful close
                return;
            }
            next = Math.min(next, left);
        }
        if (!closing && !limits.maxConnectionAge().isZero()) {
            long left = openedAt + limits.maxConnectionAge().toNanos() - now;
            if (left <= 0) {
                closeGracefully("older than " + limits.maxConnectionAge());
            } else {
                next = Math.min(next, left);
            }
        }
        if (!closing && connection.numActiveStreams() == 0) {
            long left = idleSince + limits.keepAliveTimeout().toNanos() - now;
            if (left <= 0) {
                closeGracefully("no stream for " + limits.keepAliveTimeout());
            } else {
                next = Math.min(next, left);
            }
        }
        timer.fireIn(ctx.executor(), next);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        timer.cancel();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
        if (Http2CodecUtil.getEmbeddedHttp2Exception(cause) != null) {
            // The codec passes its protocol errors on before it answers them: it sends GOAWAY with the
            // violation's code (FLOW_CONTROL_ERROR, ENHANCE_YOUR_CALM, ...) and closes. Closing here first
            // would send a graceful GOAWAY (NO_ERROR) instead.
            return;
        }
        log.debug("{}: closing on {}", ctx.channel().remoteAddress(), cause.toString(), cause);
        ctx.close();
    }
}
