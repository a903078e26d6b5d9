package dev.strait.proxy.http1;

import dev.strait.model.Limits;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import java.util.List;

/**
 * Netty's request decoder (strict: the 4.2 smuggling fixes), set to our limits, which also tells
 * whether bytes of a next request head have arrived, so the connection timer can tell a slow head
 * (408) from an idle keep-alive connection (closed quietly).
 */
public final class Http1RequestDecoder extends HttpRequestDecoder {
    private boolean headStarted;

    public Http1RequestDecoder(Limits limits) {
        super(new HttpDecoderConfig()
                .setMaxInitialLineLength(limits.maxRequestLine())
                .setMaxHeaderSize(limits.maxHeaderBytes())
                .setMaxChunkSize(64 * 1024)
                .setValidateHeaders(true)
                .setAllowDuplicateContentLengths(false)
                .setAllowPartialChunks(true));
    }

    /** True when bytes arrived after the last complete request (and its body) was read. */
    boolean hasPartialHead() {
        return headStarted;
    }

    /** The handler calls this when a request has been read and answered. */
    void requestFinished() {
        headStarted = false;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof ByteBuf b && b.isReadable()) {
            headStarted = true;
        }
        super.channelRead(ctx, msg);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
        int before = out.size();
        super.decode(ctx, buffer, out);
        for (int i = before; i < out.size(); i++) {
            if (out.get(i) instanceof HttpRequest) {
                headStarted = buffer.isReadable();
            }
        }
    }
}
