package dev.strait.proxy.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An upstream HTTP/1.1 server in the test's JVM, on 127.0.0.1 port 0, whose answers a test scripts:
 * it counts connections and requests and records each request (head and body), so tests can prove
 * keep-alive reuse, header rules and balancing. Faults (bad framing, resets, stalls) are answers too.
 */
public final class TestUpstream implements AutoCloseable {
    /** What the upstream does with one request (aggregated, up to 64 MiB). */
    @FunctionalInterface
    public interface Behaviour {
        void handle(ChannelHandlerContext ctx, FullHttpRequest request, TestUpstream upstream);
    }

    /** A request as the upstream saw it. */
    public record Seen(String method, String uri, HttpHeaders headers, byte[] body, int connection) {
        public String header(String name) {
            return headers.get(name);
        }

        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final EventLoopGroup group;
    private final Channel server;
    private volatile Behaviour behaviour;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger open = new AtomicInteger();
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final List<Channel> children = new CopyOnWriteArrayList<>();
    public final String name;
    private final java.nio.file.Path socket;

    private TestUpstream(String name, Behaviour behaviour, boolean aggregate, ChannelInboundHandlerAdapter raw)
            throws InterruptedException {
        this(name, behaviour, aggregate, raw, null);
    }

    private TestUpstream(String name, Behaviour behaviour, boolean aggregate, ChannelInboundHandlerAdapter raw,
                         java.util.function.Consumer<io.netty.channel.ChannelPipeline> pipeline)
            throws InterruptedException {
        this(name, behaviour, aggregate, raw, pipeline, null);
    }

    private TestUpstream(String name, Behaviour behaviour, boolean aggregate, ChannelInboundHandlerAdapter raw,
                         java.util.function.Consumer<io.netty.channel.ChannelPipeline> pipeline,
                         io.netty.handler.ssl.SslContext tls)
            throws InterruptedException {
        this(name, behaviour, aggregate, raw, pipeline, tls, null);
    }

    /** {@code socket}: listen on this unix socket instead of a loopback port. */
    private TestUpstream(String name, Behaviour behaviour, boolean aggregate, ChannelInboundHandlerAdapter raw,
                         java.util.function.Consumer<io.netty.channel.ChannelPipeline> pipeline,
                         io.netty.handler.ssl.SslContext tls, java.nio.file.Path socket)
            throws InterruptedException {
        this.name = name;
        this.behaviour = behaviour;
        this.socket = socket;
        this.group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        ServerBootstrap b = new ServerBootstrap().group(group)
                .channel(socket != null ? io.netty.channel.socket.nio.NioServerDomainSocketChannel.class
                        : NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (socket == null) {
                            ch.config().setOption(ChannelOption.TCP_NODELAY, true);
                        }
                        int id = connections.incrementAndGet();
                        open.incrementAndGet();
                        children.add(ch);
                        ch.closeFuture().addListener(f -> open.decrementAndGet());
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        if (raw != null) {
                            ch.pipeline().addLast(raw);
                            return;
                        }
                        if (pipeline != null) {
                            pipeline.accept(ch.pipeline());
                            return;
                        }
                        ch.pipeline().addLast(new HttpServerCodec());
                        java.util.ArrayDeque<HttpHeaders> heads = new java.util.ArrayDeque<>();
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                // The head as sent, before the aggregator rewrites its framing headers.
                                if (msg instanceof io.netty.handler.codec.http.HttpRequest r) {
                                    heads.add(r.headers().copy());
                                }
                                ctx.fireChannelRead(msg);
                            }
                        });
                        if (aggregate) {
                            ch.pipeline().addLast(new HttpObjectAggregator(64 << 20));
                        }
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                FullHttpRequest req = (FullHttpRequest) msg;
                                try {
                                    byte[] body = new byte[req.content().readableBytes()];
                                    req.content().getBytes(req.content().readerIndex(), body);
                                    HttpHeaders sent = heads.poll();
                                    HttpHeaders all = sent != null ? sent : req.headers().copy();
                                    all.add(req.trailingHeaders());
                                    seen.add(new Seen(req.method().name(), req.uri(), all, body, id));
                                    TestUpstream.this.behaviour.handle(ctx, req, TestUpstream.this);
                                } finally {
                                    req.release();
                                }
                            }
                        });
                    }
                });
        server = b.bind(socket != null ? java.net.UnixDomainSocketAddress.of(socket)
                : new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** An HTTP/1.1 upstream listening on the unix socket {@code socket} (a path in the test's temporary directory). */
    public static TestUpstream startOnUnixSocket(java.nio.file.Path socket, Behaviour behaviour)
            throws InterruptedException {
        return new TestUpstream("unix", behaviour, true, null, null, null, socket);
    }

    public static TestUpstream start(Behaviour behaviour) throws InterruptedException {
        return new TestUpstream("upstream", behaviour, true, null);
    }

    /** An HTTP/1.1 upstream behind TLS with this server context. */
    public static TestUpstream startTls(io.netty.handler.ssl.SslContext tls, Behaviour behaviour)
            throws InterruptedException {
        return startTls(tls, behaviour, null);
    }

    /** The same on the unix socket {@code socket} (when not null) instead of a loopback port. */
    public static TestUpstream startTls(io.netty.handler.ssl.SslContext tls, Behaviour behaviour,
                                        java.nio.file.Path socket) throws InterruptedException {
        return new TestUpstream("tls", behaviour, true, null, null, tls, socket);
    }

    public static TestUpstream start(String name, Behaviour behaviour) throws InterruptedException {
        return new TestUpstream(name, behaviour, true, null);
    }

    /** A server whose whole pipeline is {@code handler} (bytes in, bytes out): for streaming and faults. */
    public static TestUpstream raw(ChannelInboundHandlerAdapter handler) throws InterruptedException {
        if (!handler.isSharable()) {
            throw new IllegalArgumentException("a raw handler must be @Sharable");
        }
        return new TestUpstream("raw", null, false, handler);
    }

    /** A server whose pipeline the test builds (say, Netty's WebSocket server handlers). */
    public static TestUpstream withPipeline(java.util.function.Consumer<io.netty.channel.ChannelPipeline> pipeline)
            throws InterruptedException {
        return withPipeline(pipeline, null);
    }

    /** The same on the unix socket {@code socket} (when not null) instead of a loopback port. */
    public static TestUpstream withPipeline(java.util.function.Consumer<io.netty.channel.ChannelPipeline> pipeline,
                                            java.nio.file.Path socket) throws InterruptedException {
        return new TestUpstream("custom", null, false, null, pipeline, null, socket);
    }

    public void behave(Behaviour b) {
        this.behaviour = b;
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** {@code 127.0.0.1:port} or {@code unix:/path}, as written in a config's endpoints. */
    public String endpoint() {
        return socket != null ? "unix:" + socket : "127.0.0.1:" + port();
    }

    /** Connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    /** Connections open now. */
    public int openConnections() {
        return open.get();
    }

    public List<Seen> seen() {
        return seen;
    }

    public Seen last() {
        return seen.get(seen.size() - 1);
    }

    public int requests() {
        return seen.size();
    }

    /** Closes every accepted connection (the listening socket stays). */
    public void dropConnections() {
        for (Channel c : children) {
            c.close();
        }
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        for (Channel c : children) {
            c.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }

    // ---- behaviours ----

    /** A keep-alive answer with a Content-Length body and the given header pairs. */
    public static Behaviour reply(int status, String body, String... headers) {
        return (ctx, req, up) -> ctx.writeAndFlush(response(status, body, headers));
    }

    /** Answers with the upstream's name, so tests can see which upstream served. */
    public static Behaviour name() {
        return (ctx, req, up) -> ctx.writeAndFlush(response(200, up.name));
    }

    /** Echoes the request body; headers of the request are answered as {@code x-echo-<name>}. */
    public static Behaviour echo() {
        return (ctx, req, up) -> {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    req.content().retainedDuplicate());
            HttpUtil.setContentLength(r, req.content().readableBytes());
            ctx.writeAndFlush(r);
        };
    }

    /** Writes these exact bytes (a head and body of our own making), then closes when {@code close}. */
    public static Behaviour raw(String bytes, boolean close) {
        return (ctx, req, up) -> {
            ByteBuf b = Unpooled.copiedBuffer(bytes, StandardCharsets.ISO_8859_1);
            // Straight to the socket, past the codec's encoder.
            ChannelHandlerContext first = ctx.pipeline().firstContext();
            if (close) {
                first.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
            } else {
                first.writeAndFlush(b);
            }
        };
    }

    /** Never answers. */
    public static Behaviour stall() {
        return (ctx, req, up) -> { };
    }

    /** Closes the connection without answering. */
    public static Behaviour hangUp() {
        return (ctx, req, up) -> ctx.close();
    }

    public static FullHttpResponse response(int status, String body, String... headers) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
                Unpooled.wrappedBuffer(bytes));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        for (int i = 0; i + 1 < headers.length; i += 2) {
            r.headers().add(headers[i], headers[i + 1]);
        }
        return r;
    }
}
