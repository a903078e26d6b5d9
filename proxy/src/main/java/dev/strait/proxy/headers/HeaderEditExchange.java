package dev.strait.proxy.headers;

import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.FileParts;
import dev.strait.proxy.http.ForwardingExchange;
import dev.strait.proxy.http.HeadLines;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCounted;
import java.nio.channels.FileChannel;

/**
 * The exchange a rule with {@code responseHeaders} gives its action: every answer (fixed, files, proxied,
 * cached, and the action's errors) leaves with the fields changed. Pre-encoded heads lose the lines of the
 * fields removed or set, and get the set and added ones after them.
 */
final class HeaderEditExchange extends ForwardingExchange {
    private final HeaderEditor edits;

    HeaderEditExchange(Exchange ex, HeaderEditor edits) {
        super(ex);
        this.edits = edits;
    }

    private byte[] head(byte[] head) {
        return HeadLines.concat(edits.strip(head), edits.lines);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] body) {
        ex.sendPreEncoded(edits.strip(head), edits.lines, Unpooled.wrappedBuffer(body));
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf body) {
        ex.sendPreEncoded(edits.strip(head), edits.lines, body);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
        // The extra lines (a cache's Age and X-Cache, a rule's CORS fields) are changed like the head.
        ex.sendPreEncoded(head(head), extra == null ? null : edits.strip(extra), body);
    }

    @Override
    public void sendFile(byte[] head, FileChannel file, long offset, long length) {
        ex.sendFile(head(head), file, offset, length);
    }

    @Override
    public void sendFileParts(byte[] head, FileParts body) {
        ex.sendFileParts(head(head), body);
    }

    @Override
    public void sendMapped(byte[] head, ByteBuf body, ReferenceCounted mapping) {
        ex.sendMapped(head(head), body, mapping);
    }

    @Override
    public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
        edits.apply(headers);
        ex.send(status, headers, body);
    }

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        edits.apply(headers);
        ex.startResponse(status, headers, contentLength);
    }

    @Override
    public void sendError(HttpResponseStatus status) {
        sendError(status, new DefaultHttpHeaders());
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers) {
        edits.apply(headers);
        ex.sendError(status, headers);
    }
}
