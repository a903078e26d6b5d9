package dev.strait.proxy.admin;

import dev.strait.model.ConfigWriter;
import dev.strait.model.HostPort;
import dev.strait.proxy.cache.ResponseCache;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.FatalErrors;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The admin listener, on its own single thread so that a scrape or a config dump never takes time
 * from the data plane's loops: {@code /healthz}, {@code /readyz}, {@code /metrics}, {@code /config}, and
 * {@code POST /cache/purge?key=K} or {@code ?prefix=P} for the response cache.
 */
public final class AdminServer implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("strait-admin", true), NioIoHandler.newFactory());
    private final Serving serving;
    private final ProxyMetrics metrics;
    private final BooleanSupplier ready;
    private volatile ResponseCache cache;
    private Channel channel;
    /** Admin connections open at once, at most {@link #MAX_CONNECTIONS}. */
    private final AtomicInteger open = new AtomicInteger();
    static final int MAX_CONNECTIONS = 64;
    /** An admin connection that sends nothing this long is closed (between scrapes too: reconnects are cheap). */
    static final int READ_TIMEOUT_SECONDS = 30;

    public AdminServer(Serving serving, ProxyMetrics metrics, BooleanSupplier ready) {
        this.serving = serving;
        this.metrics = metrics;
        this.ready = ready;
    }

    /** The response cache that {@code /cache/purge} purges. */
    public AdminServer cache(ResponseCache cache) {
        this.cache = cache;
        return this;
    }

    public AdminServer start(HostPort address) throws InterruptedException {
        channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        // A scraper needs a few connections: more, or one that sends nothing for a while (a
                        // half-sent request held open), is closed, so the admin port cannot be exhausted.
                        if (open.incrementAndGet() > MAX_CONNECTIONS) {
                            open.decrementAndGet();
                            ch.close();
                            return;
                        }
                        ch.closeFuture().addListener(f -> open.decrementAndGet());
                        ch.pipeline().addLast(new ReadTimeoutHandler(READ_TIMEOUT_SECONDS, TimeUnit.SECONDS),
                                new HttpServerCodec(), new HttpObjectAggregator(64 * 1024), new Endpoints());
                    }
                })
                .bind(address.host(), address.port()).sync().channel();
        return this;
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.close().awaitUninterruptibly();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }

    private final class Endpoints extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
            ctx.close(); // the read timeout, a reset: nothing to report beyond the closed connection
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            String path = req.uri();
            int q = path.indexOf('?');
            if (q >= 0) {
                path = path.substring(0, q);
            }
            if (path.equals("/cache/purge")) {
                purge(ctx, req);
                return;
            }
            if (req.method() != HttpMethod.GET && req.method() != HttpMethod.HEAD) {
                reply(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain", "GET or HEAD\n");
                return;
            }
            Snapshot s = serving.snapshot();
            switch (path) {
                case "/healthz" -> reply(ctx, req, HttpResponseStatus.OK, "text/plain", "ok\n");
                case "/readyz" -> {
                    boolean ok = ready.getAsBoolean() && s != null;
                    reply(ctx, req, ok ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, "text/plain",
                            ok ? "ready\n" : serving.draining() ? "draining\n" : "not ready\n");
                }
                case "/metrics" -> reply(ctx, req, HttpResponseStatus.OK, "text/plain; version=0.0.4; charset=utf-8",
                        metrics.scrape());
                case "/config" -> reply(ctx, req, HttpResponseStatus.OK, "application/json",
                        "{\"version\":\"" + s.version() + "\",\"config\":" + ConfigWriter.toRedactedJson(s.config()) + "}\n");
                default -> reply(ctx, req, HttpResponseStatus.NOT_FOUND, "text/plain",
                        "not found; try /healthz, /readyz, /metrics or /config\n");
            }
        }

        /** Purge is a POST (a GET must not change anything: crawlers and prefetchers send GETs). */
        private void purge(ChannelHandlerContext ctx, FullHttpRequest req) {
            if (req.method() != HttpMethod.POST) {
                reply(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain", "POST\n");
                return;
            }
            ResponseCache c = cache;
            var params = new QueryStringDecoder(req.uri()).parameters();
            var key = params.get("key");
            var prefix = params.get("prefix");
            if (c == null || (key == null) == (prefix == null)) {
                reply(ctx, req, HttpResponseStatus.BAD_REQUEST, "text/plain", c == null ? "no cache\n"
                        : "give one of ?key=http://host/path or ?prefix=http://host/dir/\n");
                return;
            }
            int n = key != null ? c.purge(key.get(0)) : c.purgePrefix(prefix.get(0));
            reply(ctx, req, HttpResponseStatus.OK, "application/json", "{\"purged\":" + n + "}\n");
        }

        private void reply(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, String type,
                           String body) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    req.method() == HttpMethod.HEAD ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, type).setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            HttpUtil.setKeepAlive(res, keepAlive);
            var f = ctx.writeAndFlush(res);
            if (!keepAlive) {
                f.addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
