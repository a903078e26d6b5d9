package dev.strait.proxy.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * An h2c (prior knowledge) server on 127.0.0.1 port 0 (or a unix socket) whose streams each get a handler of {@code streams}
 * (reading Netty's HTTP/2 frames), for tests that need an HTTP/2 upstream of their own making.
 */
public final class H2cServer implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;

    private final java.nio.file.Path socket;

    public H2cServer(Supplier<ChannelHandler> streams) throws InterruptedException {
        this(streams, null);
    }

    /** The same on the unix socket {@code socket} (when not null) instead of a loopback port. */
    public H2cServer(Supplier<ChannelHandler> streams, java.nio.file.Path socket) throws InterruptedException {
        this.socket = socket;
        server = new ServerBootstrap().group(group)
                .channel(socket != null ? io.netty.channel.socket.nio.NioServerDomainSocketChannel.class
                        : NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
                                new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                                    @Override
                                    protected void initChannel(Http2StreamChannel s) {
                                        s.pipeline().addLast(streams.get());
                                    }
                                }));
                    }
                }).bind(socket != null ? java.net.UnixDomainSocketAddress.of(socket) : new InetSocketAddress("127.0.0.1", 0))
                .sync().channel();
    }

    /** {@code 127.0.0.1:port} or {@code unix:/path}, for an upstream's endpoints. */
    public String endpoint() {
        return socket != null ? "unix:" + socket : "127.0.0.1:" + port();
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() throws InterruptedException {
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
