package dev.strait.proxy.errorpages;

import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ForwardingExchange;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * The fetch of an error page, on behalf of the client's exchange: {@code GET} (or {@code HEAD}) of the page's
 * path with the request's fields and ingress-nginx's {@code X-Code}, {@code X-Format} and
 * {@code X-Original-URI}, without a body. Its answer goes to the client with the status it replaces; if the
 * page cannot be had (the proxy's own 502, 503 or 504), the client gets the original status's plain answer.
 */
final class PageExchange extends ForwardingExchange {
    private final HttpResponseStatus status;
    private final HttpRequest request;
    private final String path;
    private final String query;

    PageExchange(Exchange client, int status, String target) {
        super(client);
        this.status = HttpResponseStatus.valueOf(status);
        HttpRequest original = client.request();
        HttpHeaders headers = original.headers().copy();
        headers.remove(HttpHeaderNames.CONTENT_LENGTH);
        headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
        headers.remove(HttpHeaderNames.EXPECT);
        headers.remove(HttpHeaderNames.CONTENT_TYPE);
        headers.set("X-Code", status);
        headers.set("X-Format", original.headers().get(HttpHeaderNames.ACCEPT, "text/html"));
        headers.set("X-Original-URI", original.uri());
        this.request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, client.isHead() ? HttpMethod.HEAD : HttpMethod.GET,
                target, headers);
        int q = target.indexOf('?');
        this.path = q < 0 ? target : target.substring(0, q);
        this.query = q < 0 ? null : target.substring(q + 1);
    }

    @Override
    public HttpRequest request() {
        return request;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String query() {
        return query;
    }

    @Override
    public boolean hasBody() {
        return false;
    }

    @Override
    public void receiveBody(BodyReceiver receiver) {
        receiver.onBodyEnd(EmptyHttpHeaders.INSTANCE);
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
