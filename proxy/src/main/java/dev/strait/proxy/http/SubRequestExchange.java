package dev.strait.proxy.http;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

/**
 * A request without a body made on behalf of a client's (an error page's fetch, a forward-auth check): its
 * own method, target and fields; everything else, the client's connection and answers included, is the
 * client's exchange's unless a subclass says otherwise.
 */
public abstract class SubRequestExchange extends ForwardingExchange {
    private final HttpRequest request;
    private final String path;
    private final String query;

    /** @param target the path and query asked for, as configured (a path starting with {@code /}) */
    protected SubRequestExchange(Exchange client, HttpMethod method, String target, HttpHeaders headers) {
        super(client);
        this.request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, target, headers);
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

    /** This request has no body to ask for; the client's waits for its own action. */
    @Override
    public void continueBody() {
    }
}
