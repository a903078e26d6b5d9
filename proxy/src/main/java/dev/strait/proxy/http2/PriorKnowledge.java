package dev.strait.proxy.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * First on a cleartext connection: tells an HTTP/2 client with prior knowledge (its first bytes are the
 * connection preface, RFC 9113 3.3) from an HTTP/1.1 one, as soon as the bytes differ (usually the first),
 * then sets up the pipeline for that protocol and steps aside; what it read goes on to the new handlers.
 */
public final class PriorKnowledge extends ByteToMessageDecoder {
    private static final ByteBuf PREFACE = Http2CodecUtil.connectionPrefaceBuf();
    private final BiConsumer<ChannelHandlerContext, Boolean> configure;
    private final long timeoutMillis;
    private java.util.concurrent.ScheduledFuture<?> timer;

    /**
     * {@code configure} gets {@code true} for HTTP/2, {@code false} for HTTP/1.x; a connection that sends
     * nothing telling for {@code timeoutMillis} (the header timeout) is closed.
     */
    public PriorKnowledge(BiConsumer<ChannelHandlerContext, Boolean> configure, long timeoutMillis) {
        this.configure = configure;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer = ctx.executor().schedule(() -> {
            if (!ctx.isRemoved()) {
                ctx.close();
            }
        }, timeoutMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof dev.strait.proxy.http1.Http1ServerHandler.DrainEvent) {
            ctx.close(); // draining: a connection that has not said anything yet has nothing in flight
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        timer.cancel(false);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int n = Math.min(in.readableBytes(), PREFACE.readableBytes());
        boolean h2 = ByteBufUtil.equals(in, in.readerIndex(), PREFACE, PREFACE.readerIndex(), n);
        if (h2 && n < PREFACE.readableBytes()) {
            return; // a prefix of the preface so far: wait for more
        }
        configure.accept(ctx, h2);
        ctx.pipeline().remove(this); // hands the bytes read so far to the handlers just added
    }
}
