package dev.strait.proxy.errorpages;

import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.SubRequestExchange;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The fetch of an error page, on behalf of the client's exchange: {@code GET} (or {@code HEAD}) of the page's
 * path with the request's fields and ingress-nginx's {@code X-Code}, {@code X-Format} and
 * {@code X-Original-URI}, without a body. Its answer goes to the client with the status it replaces; if the
 * page cannot be had (the proxy's own 502, 503 or 504), the client gets the original status's plain answer.
 */
final class PageExchange extends SubRequestExchange {
    private final HttpResponseStatus status;

    PageExchange(Exchange client, int status, String target) {
        super(client, client.isHead() ? HttpMethod.HEAD : HttpMethod.GET, target, pageFields(client, status));
        this.status = HttpResponseStatus.valueOf(status);
    }

    /** The request's fields less its body's, with those ingress-nginx's error-page servers read. */
    private static HttpHeaders pageFields(Exchange client, int status) {
        HttpRequest original = client.request();
        HttpHeaders headers = original.headers().copy();
        headers.remove(HttpHeaderNames.CONTENT_LENGTH);
        headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
        headers.remove(HttpHeaderNames.EXPECT);
        headers.remove(HttpHeaderNames.CONTENT_TYPE);
        headers.set("X-Code", status);
        headers.set("X-Format", original.headers().get(HttpHeaderNames.ACCEPT, "text/html"));
        headers.set("X-Original-URI", original.uri());
        return headers;
    }

    @Override
    public void startResponse(HttpResponseStatus s, HttpHeaders headers, long contentLength) {
        ex.startResponse(status, headers, contentLength);
    }

    @Override
    public void send(HttpResponseStatus s, HttpHeaders headers, ByteBuf body) {
        ex.send(status, headers, body);
    }

    @Override
    public void sendError(HttpResponseStatus s) {
        ex.sendError(status);
    }

    @Override
    public void sendError(HttpResponseStatus s, HttpHeaders headers) {
        ex.sendError(status);
    }
}
