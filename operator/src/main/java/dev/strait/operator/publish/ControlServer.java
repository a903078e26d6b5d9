package dev.strait.operator.publish;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Listens for proxies; see the package documentation for the pipeline. */
public final class ControlServer implements AutoCloseable {
    /** A quiet connection gets a ping this often, so a proxy can tell a dead operator from an idle one. */
    public static final int PING_SECONDS = 10;
    /** A proxy that sent nothing (not even a ping) for this long is gone. */
    public static final int SILENCE_SECONDS = 30;

    private final Fleet fleet;
    private final Supplier<SslContext> ssl;
    private final Authenticator authenticator;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    /** Every proxy connection, so that closing the server disconnects them all at once. */
    private final ChannelGroup connections = new DefaultChannelGroup("control", GlobalEventExecutor.INSTANCE);
    private Channel server;
    private WriteBufferWaterMark waterMark = WriteBufferWaterMark.DEFAULT;

    /** @param ssl TLS for the channel, asked for at each new connection (so certificates can rotate); null for plain TCP */
    public ControlServer(Fleet fleet, Supplier<SslContext> ssl, Authenticator authenticator) {
        this.fleet = fleet;
        this.ssl = ssl;
        this.authenticator = authenticator;
    }

    /** When a connection counts as slow (not writable); tests make every write count. */
    ControlServer waterMark(WriteBufferWaterMark mark) {
        this.waterMark = mark;
        return this;
    }

    public ControlServer start(InetSocketAddress address) throws InterruptedException {
        server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.add(ch);
                        if (ssl != null) {
                            ch.pipeline().addLast("tls", ssl.get().newHandler(ch.alloc()));
                        }
                        ch.pipeline()
                                .addLast("frames", new LengthFieldBasedFrameDecoder(Messages.MAX_FRAME, 0, 4, 0, 4))
                                .addLast("length", new LengthFieldPrepender(4))
                                .addLast("idle", new IdleStateHandler(SILENCE_SECONDS, PING_SECONDS, 0, TimeUnit.SECONDS))
                                .addLast("session", new ProxySession(fleet, authenticator));
                    }
                })
                .bind(address).sync().channel();
        return this;
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    @Override
    public void close() {
        if (server != null) {
            server.close().awaitUninterruptibly();
        }
        connections.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
