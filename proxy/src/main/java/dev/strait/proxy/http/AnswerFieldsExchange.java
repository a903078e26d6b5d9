package dev.strait.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCounted;
import java.nio.channels.FileChannel;

/**
 * An exchange that changes the fields of every answer its action gives, whatever form the answer takes: a
 * pre-encoded head (and the lines a cache or a rule puts after it), a file's head, or a field map (a proxied answer,
 * an error). The base of header edits, HSTS and a check's cookies; each says what it does to a head and to a map.
 */
public abstract class AnswerFieldsExchange extends ForwardingExchange {
    protected AnswerFieldsExchange(Exchange ex) {
        super(ex);
    }

    /** A pre-encoded head (status line and field lines) as it goes out. */
    protected abstract byte[] head(byte[] head);

    /** A field map as it goes out (it may be changed in place and returned). */
    protected abstract HttpHeaders fields(HttpResponseStatus status, HttpHeaders headers);

    /**
     * A pre-encoded answer, {@code extra} the lines after its head or null; by default the head is changed and the
     * lines kept.
     */
    protected void preEncoded(byte[] head, byte[] extra, ByteBuf body) {
        if (extra == null) {
            ex.sendPreEncoded(head(head), body);
        } else {
            ex.sendPreEncoded(head(head), extra, body);
        }
    }

    @Override
    public final void sendPreEncoded(byte[] head, byte[] body) {
        preEncoded(head, null, body == null ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
    }

    @Override
    public final void sendPreEncoded(byte[] head, ByteBuf body) {
        preEncoded(head, null, body == null ? Unpooled.EMPTY_BUFFER : body);
    }

    @Override
    public final void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
        preEncoded(head, extra, body);
    }

    @Override
    public final void sendFile(byte[] head, FileChannel file, long offset, long length) {
        ex.sendFile(head(head), file, offset, length);
    }

    @Override
    public final void sendFileParts(byte[] head, FileParts body) {
        ex.sendFileParts(head(head), body);
    }

    @Override
    public final void sendMapped(byte[] head, ByteBuf body, ReferenceCounted mapping) {
        ex.sendMapped(head(head), body, mapping);
    }

    @Override
    public final void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
        ex.send(status, fields(status, headers), body);
    }

    @Override
    public final void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        ex.startResponse(status, fields(status, headers), contentLength);
    }

    @Override
    public final void sendError(HttpResponseStatus status) {
        sendError(status, new DefaultHttpHeaders());
    }

    @Override
    public final void sendError(HttpResponseStatus status, HttpHeaders headers) {
        ex.sendError(status, fields(status, headers));
    }
}
