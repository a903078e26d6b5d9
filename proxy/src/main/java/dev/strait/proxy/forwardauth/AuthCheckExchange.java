package dev.strait.proxy.forwardauth;

import dev.strait.model.HostPort;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.HeldBody;
import dev.strait.proxy.http.SubRequestExchange;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;

/**
 * The check of one request, on behalf of the client's exchange: {@code GET} of the check's path with the
 * request's fields (less its body's and its connection's) and where it was going, in the names nginx's
 * {@code auth_request} setups, ingress-nginx and Traefik send ({@code X-Original-URI}, {@code X-Original-Method},
 * {@code X-Original-URL}, {@code X-Forwarded-Method}, {@code X-Forwarded-Uri}, {@code X-Auth-Request-Redirect};
 * the proxy adds {@code X-Forwarded-For}, {@code -Proto} and {@code -Host} as to any upstream).
 *
 * <p>A 2xx answer is read to its end (so its connection is pooled) and lets the request pass; any other is
 * relayed to the client as it comes, a 401 becomes the sign-in redirect where one is set, and the proxy's
 * own failure to reach the service (502, 503, 504) is the client's answer too: nothing passes unchecked.
 */
final class AuthCheckExchange extends SubRequestExchange {
    /** Fields of the request that belong to its body or its connection, not to the question asked. */
    private static final List<CharSequence> NOT_ASKED = List.of(HttpHeaderNames.CONTENT_LENGTH,
            HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.CONTENT_TYPE, HttpHeaderNames.CONTENT_ENCODING,
            HttpHeaderNames.EXPECT, HttpHeaderNames.CONNECTION, HttpHeaderNames.UPGRADE, HttpHeaderNames.KEEP_ALIVE,
            "proxy-connection", HttpHeaderNames.TE, HttpHeaderNames.TRAILER, "http2-settings");

    private enum State { WAITING, ALLOWING, SIGNING_IN, RELAYING, DONE }

    private final ForwardAuthHandler auth;
    private final HeldBody body;
    private final String key;
    private State state = State.WAITING;
    private HttpHeaders answer;
    /** What a guard of the check's own rule holds until the check is over (an in-flight place), or null. */
    private Runnable ended;

    /** @param key the request's credentials in the rule's kept yeses, or null when it keeps none */
    AuthCheckExchange(Exchange client, ForwardAuthHandler auth, HeldBody body, String key) {
        super(client, HttpMethod.GET, auth.path(), askedFields(client));
        this.auth = auth;
        this.body = body;
        this.key = key;
    }

    /** The request's fields less its body's and connection's, and where it was going. */
    private static HttpHeaders askedFields(Exchange client) {
        HttpRequest original = client.request();
        HttpHeaders headers = original.headers().copy();
        NOT_ASKED.forEach(headers::remove);
        String uri = original.uri();
        headers.set("X-Original-URI", uri);
        headers.set("X-Original-Method", original.method().name());
        headers.set("X-Original-URL", client.scheme() + "://" + client.host() + uri);
        headers.set("X-Forwarded-Method", original.method().name());
        headers.set("X-Forwarded-Uri", uri);
        headers.set("X-Auth-Request-Redirect", uri);
        return headers;
    }

    @Override
    public boolean isHead() {
        return false;
    }

    // The client's reading is held for its body, not for the check's (empty) one.
    @Override
    public void pauseReading() {
    }

    @Override
    public void resumeReading() {
    }

    @Override
    public boolean checking() {
        return true;
    }

    /** The client's exchange has one end task of its own; the check's ends with the check. */
    @Override
    public void onEnd(Runnable task) {
        ended = task;
    }

    /**
     * The client left while its check was under way: the check's own end comes now (the in-flight place a
     * guard of its rule holds), whatever the check's handler does about it.
     */
    void cancelled() {
        if (state != State.DONE) {
            state = State.DONE;
            over();
        }
    }

    /** The check's handler stops its call when the client leaves; the check ends then too. */
    @Override
    public void onCancel(Runnable task) {
        ex.onCancel(() -> {
            try {
                if (task != null) {
                    task.run();
                }
            } finally {
                cancelled();
            }
        });
    }

    private void over() {
        Runnable task = ended;
        ended = null;
        if (task != null) {
            task.run();
        }
    }

    /** The access log names the action's upstream, not the authorization service. */
    @Override
    public void upstream(HostPort endpoint) {
    }

    @Override
    public void sendInformational(HttpResponseStatus status, HttpHeaders headers) {
    }

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        if (state != State.WAITING) {
            return;
        }
        state = decide(status, headers);
        if (state == State.RELAYING) {
            ex.startResponse(status, headers, contentLength);
        }
    }

    @Override
    public void sendBodyPart(ByteBuf data) {
        if (state == State.RELAYING) {
            ex.sendBodyPart(data);
        } else {
            data.release();
        }
    }

    @Override
    public void endResponse(HttpHeaders trailers) {
        State was = state;
        state = State.DONE;
        over();
        switch (was) {
            case ALLOWING -> auth.allow(ex, answer, body, key);
            case SIGNING_IN -> signIn();
            case RELAYING -> {
                ex.endResponse(trailers);
                auth.refused(ex, body);
            }
            default -> { }
        }
    }

    @Override
    public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf content) {
        if (state != State.WAITING) {
            release(content);
            return;
        }
        state = decide(status, headers);
        if (state == State.RELAYING) {
            state = State.DONE;
            over();
            ex.send(status, headers, content);
            auth.refused(ex, body);
        } else {
            release(content);
            endResponse(null);
        }
    }

    /** The proxy's own answer: the service could not be asked (502, 503, 504), so the client gets that. */
    @Override
    public void sendError(HttpResponseStatus status) {
        sendError(status, new DefaultHttpHeaders());
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers) {
        if (state == State.WAITING) {
            state = State.DONE;
            over();
            ex.sendError(status, headers);
            auth.refused(ex, body);
        }
    }

    /** The check's answer broke off: a relayed one is cut for the client too, a held one is a failure. */
    @Override
    public void abort() {
        State was = state;
        state = State.DONE;
        over();
        if (was == State.RELAYING) {
            ex.abort();
        } else if (was != State.DONE) {
            ex.sendError(HttpResponseStatus.BAD_GATEWAY);
        }
        if (was != State.DONE) {
            auth.refused(ex, body);
        }
    }

    /** Not asked for (the check sends no Upgrade); refused rather than passed on as the client's. */
    @Override
    public void switchProtocols(HttpHeaders headers, ChannelHandler tunnel) {
        abort();
    }

    // The proxy answers through the calls above; a pre-encoded or file answer is no check's, so nothing passes.
    @Override
    public void sendPreEncoded(byte[] head, byte[] content) {
        abort();
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf content) {
        release(content);
        abort();
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf content) {
        release(content);
        abort();
    }

    @Override
    public boolean isWritable() {
        return state != State.RELAYING || ex.isWritable(); // an answer being read to its end never waits
    }

    @Override
    public void onWritable(Runnable task) {
        if (state == State.RELAYING) {
            ex.onWritable(task);
        } else {
            task.run();
        }
    }

    private static void release(ByteBuf content) {
        if (content != null) {
            content.release();
        }
    }

    private State decide(HttpResponseStatus status, HttpHeaders headers) {
        answer = headers;
        int code = status.code();
        if (code >= 200 && code < 300) {
            return State.ALLOWING;
        }
        return code == 401 && auth.signInFor(ex) != null ? State.SIGNING_IN : State.RELAYING;
    }

    /** 302 to the sign-in page, with any cookie the service set (clearing a stale session, say). */
    private void signIn() {
        HttpHeaders headers = new DefaultHttpHeaders();
        headers.set(HttpHeaderNames.LOCATION, auth.signInFor(ex));
        headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        for (String cookie : answer.getAll(HttpHeaderNames.SET_COOKIE)) {
            headers.add(HttpHeaderNames.SET_COOKIE, cookie);
        }
        ex.sendError(HttpResponseStatus.FOUND, headers);
        auth.refused(ex, body);
    }
}
