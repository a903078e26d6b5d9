package dev.strait.proxy.testing;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * An h2c (prior knowledge) upstream on 127.0.0.1 port 0 that records each stream's {@code :path} and answers
 * 200 without a body: what path rewrites send to HTTP/2 upstreams.
 */
public final class H2cPathRecorder implements AutoCloseable {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final List<String> paths = new CopyOnWriteArrayList<>();
    private final Channel server;

    /** @param fields what each answer carries besides its status: name, value, name, value... */
    public H2cPathRecorder(String... fields) throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
                                new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                                    @Override
                                    protected void initChannel(Http2StreamChannel s) {
                                        s.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                            @Override
                                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                                try {
                                                    if (msg instanceof Http2HeadersFrame f) {
                                                        paths.add(f.headers().path().toString());
                                                        DefaultHttp2Headers answer = new DefaultHttp2Headers();
                                                        answer.status("200");
                                                        for (int i = 0; i + 1 < fields.length; i += 2) {
                                                            answer.add(fields[i], fields[i + 1]);
                                                        }
                                                        ctx.writeAndFlush(new DefaultHttp2HeadersFrame(answer, true));
                                                    }
                                                } finally {
                                                    ReferenceCountUtil.release(msg);
                                                }
                                            }
                                        });
                                    }
                                }));
                    }
                }).bind("127.0.0.1", 0).sync().channel();
    }

    /** {@code 127.0.0.1:port}, for an upstream's endpoints. */
    public String endpoint() {
        return "127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The {@code :path} of every stream so far, in the order they came. */
    public List<String> paths() {
        return paths;
    }

    @Override
    public void close() throws InterruptedException {
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
}
