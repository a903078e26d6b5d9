package dev.strait.proxy.upstream;

import dev.strait.proxy.server.FatalErrors;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One multiplexed HTTP/2 cleartext (h2c, prior knowledge) connection from one event loop to one
 * endpoint. Requests become streams on it; when the peer's concurrent-stream limit is reached they
 * wait for a stream to end. A GOAWAY or a closed connection retires the session: streams already open
 * finish (or fail), new ones go to a fresh session. Only its loop touches it.
 */
public final class H2Session extends ChannelInboundHandlerAdapter {
    /** The receive window per stream and for the connection: enough for a fast upstream on a LAN. */
    private static final int WINDOW = 1 << 20;

    /** Who asked for a stream. Exactly one of the two is called, on the loop. */
    public interface Opener {
        /** The stream is open; {@code handler} (given at open) is in its pipeline. */
        void onStream(Http2StreamChannel stream);

        /** No stream: the connection failed or closed before one could be opened. */
        void onStreamFailed(Throwable cause);
    }

    private record Waiting(ChannelHandler handler, Opener opener) {}

    private final EndpointPool pool;
    private final Channel channel;
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    private boolean connected;
    private boolean retired;
    /** The endpoint's name moved away from this connection: no new streams ({@link #leave}). */
    private boolean left;
    private int active;
    private long maxStreams = 100; // until the peer's SETTINGS say otherwise
    private long idleSince;

    private H2Session(EndpointPool pool, Channel channel) {
        this.pool = pool;
        this.channel = channel;
    }

    /** Starts connecting; streams asked for meanwhile wait for the connection. */
    static H2Session connect(EndpointPool pool, long deadline) {
        ChannelFuture reg = pool.loop.bootstrap(pool.unixSocket()).register();
        Channel ch = reg.channel();
        H2Session s = new H2Session(pool, ch);
        if (reg.isDone() && !reg.isSuccess()) {
            s.retire(reg.cause());
            return s;
        }
        var tls = pool.tls();
        if (tls != null) {
            // h2: TLS with ALPN offering only h2; streams wait until the handshake has agreed on it.
            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), pool.address.host(), pool.address.port()));
        }
        ch.pipeline()
                .addLast("h2", Http2FrameCodecBuilder.forClient()
                        .initialSettings(Http2Settings.defaultSettings().initialWindowSize(WINDOW))
                        .validateHeaders(true)
                        .build())
                .addLast("h2-multiplex", new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()))
                .addLast("h2-session", s);
        long timeout = pool.connectTimeoutMillis();
        if (deadline != 0) {
            timeout = Math.max(1, Math.min(timeout, (deadline - System.nanoTime()) / 1_000_000));
        }
        ch.config().setOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout));
        pool.opened();
        ch.closeFuture().addListener(f -> {
            pool.h2ChannelClosed(s);
            s.retire(new java.nio.channels.ClosedChannelException());
        });
        pool.connect(ch, timeout).addListener(f -> {
            if (f.isSuccess() && tls != null) {
                io.netty.handler.ssl.SslHandler ssl = ch.pipeline().get(io.netty.handler.ssl.SslHandler.class);
                ssl.handshakeFuture().addListener(h -> {
                    if (!h.isSuccess()) {
                        s.retire(h.cause());
                        ch.close();
                    } else if (!"h2".equals(ssl.applicationProtocol())) {
                        s.retire(new javax.net.ssl.SSLHandshakeException("the endpoint did not agree to h2 by ALPN ("
                                + ssl.applicationProtocol() + ")"));
                        ch.close();
                    } else {
                        s.connected = true;
                        s.drain();
                    }
                });
            } else if (f.isSuccess()) {
                s.connected = true;
                s.drain();
            } else {
                s.retire(f.cause());
                ch.close();
            }
        });
        return s;
    }

    /** Whether new streams may still be asked of this session. */
    boolean usable() {
        return !retired && !left;
    }

    /** Whether this session still goes where the endpoint's name leads ({@link EndpointPool#stillCurrent}). */
    boolean stillCurrent() {
        return !connected || pool.stillCurrent(channel);
    }

    /**
     * The endpoint's name moved: new streams go to a new session; those open or waiting here are served, then
     * the connection closes.
     */
    void leave() {
        left = true;
        closeIfLeftAndDone();
    }

    private void closeIfLeftAndDone() {
        if (left && active == 0 && waiting.isEmpty()) {
            channel.close();
        }
    }

    /** Opens a stream with {@code handler} in its pipeline, now or when one is free. */
    void open(ChannelHandler handler, Opener opener) {
        if (retired) {
            opener.onStreamFailed(new java.nio.channels.ClosedChannelException());
            return;
        }
        waiting.add(new Waiting(handler, opener));
        drain();
    }

    private void drain() {
        while (connected && !retired && active < maxStreams && !waiting.isEmpty()) {
            Waiting w = waiting.poll();
            active++;
            new Http2StreamChannelBootstrap(channel).handler(w.handler).open().addListener(f -> {
                if (f.isSuccess()) {
                    Http2StreamChannel stream = (Http2StreamChannel) f.getNow();
                    stream.closeFuture().addListener(c -> streamClosed());
                    w.opener.onStream(stream);
                } else {
                    streamClosed();
                    w.opener.onStreamFailed(f.cause());
                }
            });
        }
    }

    private void streamClosed() {
        active--;
        if (left) {
            drain();
            closeIfLeftAndDone();
            return;
        }
        if (active == 0) {
            idleSince = System.nanoTime();
            long idle = pool.idleTimeoutNanos;
            channel.eventLoop().schedule(() -> {
                if (active == 0 && System.nanoTime() - idleSince >= idle - 1_000_000) {
                    channel.close(); // no stream for the pool's idle timeout
                }
            }, idle, TimeUnit.NANOSECONDS);
        }
        drain();
    }

    private void retire(Throwable cause) {
        retired = true;
        Waiting w;
        while ((w = waiting.poll()) != null) {
            w.opener.onStreamFailed(cause);
        }
    }

    /** Stops new streams here (the endpoint left the config); open ones finish. */
    void retireQuietly() {
        retire(new java.nio.channels.ClosedChannelException());
        if (active == 0) {
            channel.close();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof Http2SettingsFrame s && s.settings().maxConcurrentStreams() != null) {
                maxStreams = s.settings().maxConcurrentStreams();
                drain();
            } else if (msg instanceof Http2GoAwayFrame) {
                // The peer takes no new streams here; those open below its last id go on.
                retire(new java.nio.channels.ClosedChannelException());
                pool.h2Retired(this);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
        ctx.close();
    }
}
