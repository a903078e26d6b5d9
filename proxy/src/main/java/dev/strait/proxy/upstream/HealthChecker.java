package dev.strait.proxy.upstream;

import dev.strait.model.HostPort;
import dev.strait.model.Upstream;
import dev.strait.proxy.server.FatalErrors;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Active HTTP health checks of one upstream: every {@code interval}, {@code GET path} on a fresh
 * connection to each endpoint ({@code Connection: close}); a 2xx or 3xx status line within
 * {@code timeout} passes. Thresholds turn results into a verdict that all loops read. Runs on one
 * event loop; checks are not on any request's path.
 */
final class HealthChecker {
    private final UpstreamShared upstream;
    private final EventLoop loop;
    private final Bootstrap bootstrap;
    /** For unix-socket endpoints, made when the first is checked. */
    private Bootstrap unixBootstrap;
    private ScheduledFuture<?> next;
    private volatile boolean stopped;

    HealthChecker(UpstreamShared upstream, EventLoop loop, Class<? extends SocketChannel> channelClass) {
        this.upstream = upstream;
        this.loop = loop;
        this.bootstrap = new Bootstrap().group(loop).channel(channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) { }
                });
    }

    void start() {
        loop.execute(this::round);
    }

    void stop() {
        stopped = true;
        loop.execute(() -> {
            if (next != null) {
                next.cancel(false);
            }
        });
    }

    private void round() {
        UpstreamSpec spec = upstream.spec;
        if (stopped || spec == null || spec.config.healthCheck() == null) {
            return;
        }
        Upstream.HealthCheck hc = spec.config.healthCheck();
        for (int i = 0; i < spec.endpoints.length; i++) {
            probe(spec, i, hc);
        }
        next = loop.schedule(this::round, hc.interval().toNanos(), TimeUnit.NANOSECONDS);
    }

    private void probe(UpstreamSpec spec, int i, Upstream.HealthCheck hc) {
        HostPort hp = spec.endpoints[i];
        EndpointHealth health = upstream.health(hp);
        Probe probe = new Probe(health, hc, hp);
        Channel ch = bootstrap(spec.unixSocket(i)).register().channel();
        if (spec.tls != null) {
            ch.pipeline().addLast("tls", spec.tls.newHandler(ch.alloc(), hp.host(), hp.port()));
        }
        ch.pipeline().addLast(probe);
        ch.config().setOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, hc.timeout().toMillis()));
        ScheduledFuture<?> timeout = loop.schedule(() -> probe.finish(ch, false, "no answer within "
                + hc.timeout().toMillis() + " ms"), hc.timeout().toNanos(), TimeUnit.NANOSECONDS);
        ch.closeFuture().addListener(f -> timeout.cancel(false));
        spec.connect(ch, i, upstream.context.names(), Math.max(1, hc.timeout().toMillis())).addListener(f -> {
            if (!f.isSuccess()) {
                probe.finish(ch, false, "connect: " + f.cause());
            }
        });
    }

    private Bootstrap bootstrap(boolean unixSocket) {
        if (!unixSocket) {
            return bootstrap;
        }
        if (unixBootstrap == null) {
            unixBootstrap = LoopContext.unixSocketBootstrap(loop);
        }
        return unixBootstrap;
    }

    /** Sends the check request and reads just the status line. */
    private final class Probe extends ChannelInboundHandlerAdapter {
        private final EndpointHealth health;
        private final Upstream.HealthCheck hc;
        private final HostPort address;
        private final StringBuilder line = new StringBuilder();
        private boolean done;

        Probe(EndpointHealth health, Upstream.HealthCheck hc, HostPort address) {
            this.health = health;
            this.hc = hc;
            this.address = address;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            String host = address.isUnixSocket() ? "localhost" : address.toString(); // nginx's Host for a socket
            String req = "GET " + hc.path() + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: strait-health-check\r\n"
                    + "Connection: close\r\n\r\n";
            ctx.writeAndFlush(Unpooled.wrappedBuffer(req.getBytes(StandardCharsets.ISO_8859_1)));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                while (b.isReadable() && !done) {
                    char c = (char) b.readByte();
                    if (c == '\n' || line.length() > 200) {
                        String l = line.toString().trim();
                        int status = -1;
                        if (l.length() >= 12 && l.startsWith("HTTP/1.")) {
                            try {
                                status = Integer.parseInt(l.substring(9, 12));
                            } catch (NumberFormatException e) {
                                status = -1;
                            }
                        }
                        finish(ctx.channel(), status >= 200 && status < 400,
                                status < 0 ? "not an HTTP answer" : "status " + status);
                        return;
                    }
                    line.append(c);
                }
            } finally {
                b.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            finish(ctx.channel(), false, "closed before answering");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
            finish(ctx.channel(), false, cause.toString());
        }

        void finish(Channel ch, boolean passed, String detail) {
            if (done) {
                return;
            }
            done = true;
            ch.close();
            if (!stopped && health.checked(passed, hc, detail)) {
                upstream.healthChanged();
            }
        }
    }
}
