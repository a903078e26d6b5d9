package dev.strait.proxy.forwardauth;

import dev.strait.proxy.http.AnswerFieldsExchange;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.HeadLines;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The client's exchange once its check said yes and set cookies (oauth2-proxy refreshing a session): they go
 * out with the action's answer when it is a success or a redirect, as ingress-nginx's
 * {@code add_header Set-Cookie} does, or with any answer ({@code alwaysSetCookie}, its {@code add_header ... always}). The body that waited is {@link dev.strait.proxy.http.HeldBody#resume}'s to hand over.
 */
final class AuthorizedExchange extends AnswerFieldsExchange {
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

    @Override
    protected byte[] head(byte[] head) {
        return takesCookies(HeadLines.status(head)) ? HeadLines.concat(head, cookieLines) : head;
    }

    @Override
    protected void preEncoded(byte[] head, byte[] extra, ByteBuf content) {
        if (extra == null) {
            ex.sendPreEncoded(head, takesCookies(HeadLines.status(head)) ? cookieLines : new byte[0], content);
        } else {
            ex.sendPreEncoded(head(head), extra, content);
        }
    }

    @Override
    protected HttpHeaders fields(HttpResponseStatus status, HttpHeaders headers) {
        if (takesCookies(status.code())) {
            for (String c : cookies) {
                headers.add(HttpHeaderNames.SET_COOKIE, c);
            }
        }
        return headers;
    }
}
