package dev.strait.proxy.forwardauth;

import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.FileParts;
import dev.strait.proxy.http.ForwardingExchange;
import dev.strait.proxy.http.HeadLines;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCounted;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The client's exchange once its check said yes and set cookies (oauth2-proxy refreshing a session): they go
 * out with the action's answer when it is a success or a redirect, as ingress-nginx's
 * {@code add_header Set-Cookie} does, or with any answer ({@code alwaysSetCookie}, its {@code add_header ... always}). The body that waited is {@link dev.strait.proxy.http.HeldBody#resume}'s to hand over.
 */
final class AuthorizedExchange extends ForwardingExchange {
    private final List<String> cookies;
    private final byte[] cookieLines;
    private final boolean always;

    /**
     * @param cookies the check's {@code Set-Cookie} values
     * @param always  with every answer, errors too ({@code alwaysSetCookie})
     */
    AuthorizedExchange(Exchange ex, List<String> cookies, boolean always) {
        super(ex);
        this.cookies = cookies;
        this.always = always;
        StringBuilder lines = new StringBuilder();
        for (String c : cookies) {
            lines.append("Set-Cookie: ").append(c).append("\r\n");
        }
        this.cookieLines = lines.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private boolean takesCookies(int status) {
        return always || status < 400;
    }

    private byte[] head(byte[] head) {
        return takesCookies(HeadLines.status(head)) ? HeadLines.concat(head, cookieLines) : head;
    }

    private HttpHeaders withCookies(HttpResponseStatus status, HttpHeaders headers) {
        if (takesCookies(status.code())) {
            for (String c : cookies) {
                headers.add(HttpHeaderNames.SET_COOKIE, c);
            }
        }
        return headers;
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] content) {
        ex.sendPreEncoded(head, cookieLinesFor(head), content == null ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(content));
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf content) {
        ex.sendPreEncoded(head, cookieLinesFor(head), content == null ? Unpooled.EMPTY_BUFFER : content);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf content) {
        ex.sendPreEncoded(head(head), extra, content);
    }

    private byte[] cookieLinesFor(byte[] head) {
        return takesCookies(HeadLines.status(head)) ? cookieLines : new byte[0];
    }

    @Override
    public void sendFile(byte[] head, FileChannel file, long offset, long length) {
        ex.sendFile(head(head), file, offset, length);
    }

    @Override
    public void sendFileParts(byte[] head, FileParts parts) {
        ex.sendFileParts(head(head), parts);
    }

    @Override
    public void sendMapped(byte[] head, ByteBuf content, ReferenceCounted mapping) {
        ex.sendMapped(head(head), content, mapping);
    }

    @Override
    public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf content) {
        ex.send(status, withCookies(status, headers), content);
    }

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        ex.startResponse(status, withCookies(status, headers), contentLength);
    }

    @Override
    public void sendError(HttpResponseStatus status) {
        ex.sendError(status, new DefaultHttpHeaders());
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers) {
        ex.sendError(status, withCookies(status, headers));
    }
}
