package dev.strait.proxy.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;

/**
 * Netty's response decoder, made strict for a proxy, with what {@code HttpClientCodec} would add
 * (knowing that a HEAD response has no body). We write request heads ourselves (one buffer, exactly
 * the headers we mean), so the codec's encoder half would only cost an {@code HttpRequest} per request.
 *
 * <p>Refused as framing errors (RFC 9112 6.3): both {@code Transfer-Encoding} and {@code Content-Length},
 * several {@code Content-Length}s; and it tells when bytes followed the end of a response in the same
 * read, which a well-behaved server never sends (the connection is then not reused).
 */
final class UpstreamResponseDecoder extends HttpResponseDecoder {
    /** The request being answered was HEAD: no body follows a final response head. */
    boolean noBody;
    private boolean bytesAfterBody;

    UpstreamResponseDecoder() {
        super(new HttpDecoderConfig()
                .setMaxInitialLineLength(8 * 1024)
                .setMaxHeaderSize(64 * 1024)
                .setMaxChunkSize(64 * 1024)
                .setValidateHeaders(true)
                .setAllowDuplicateContentLengths(false)
                .setAllowPartialChunks(true));
    }

    /** Whether bytes followed the last response's end in the same read; clears the flag. */
    boolean takeBytesAfterBody() {
        boolean b = bytesAfterBody;
        bytesAfterBody = false;
        return b;
    }

    @Override
    protected boolean isContentAlwaysEmpty(HttpMessage msg) {
        if (noBody && msg instanceof HttpResponse r && r.status().code() >= 200) {
            return true;
        }
        return super.isContentAlwaysEmpty(msg);
    }

    @Override
    protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
        throw new IllegalArgumentException("both Transfer-Encoding and Content-Length in a response");
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
        int before = out.size();
        super.decode(ctx, buffer, out);
        if (out.size() > before && out.get(out.size() - 1) instanceof LastHttpContent && buffer.isReadable()) {
            bytesAfterBody = true;
        }
    }
}
