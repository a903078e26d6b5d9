package dev.strait.proxy.testing;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An h2c (prior knowledge) upstream on 127.0.0.1 port 0 that records each stream's {@code :path} and answers
 * 200 without a body: what path rewrites send to HTTP/2 upstreams.
 */
public final class H2cPathRecorder implements AutoCloseable {
    private final List<String> paths = new CopyOnWriteArrayList<>();
    private final H2cServer server;

    /** @param fields what each answer carries besides its status: name, value, name, value... */
    public H2cPathRecorder(String... fields) throws InterruptedException {
        server = new H2cServer(() -> new ChannelInboundHandlerAdapter() {
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

    /** {@code 127.0.0.1:port}, for an upstream's endpoints. */
    public String endpoint() {
        return server.endpoint();
    }

    /** The {@code :path} of every stream so far, in the order they came. */
    public List<String> paths() {
        return paths;
    }

    @Override
    public void close() throws InterruptedException {
        server.close();
    }
}
