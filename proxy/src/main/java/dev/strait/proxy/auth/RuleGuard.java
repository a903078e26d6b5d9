package dev.strait.proxy.auth;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * What a rule asks of a request before its action answers (ADR 0060, 0061): the client's address
 * ({@code clientAddresses}, 403) and credentials ({@code basicAuth}, 401). The servers ask it before the
 * handler, so every action, cache hits and both HTTP versions are covered; a rule without either has none,
 * and pays one null check.
 */
public final class RuleGuard {
    private static final byte[] UNAUTHORIZED = "401 Unauthorized\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BUSY = "429 Too Many Requests\n".getBytes(StandardCharsets.US_ASCII);

    private final Route.ClientAddresses clients;
    private final BasicAuthGuard basic;

    private RuleGuard(Route.ClientAddresses clients, BasicAuthGuard basic) {
        this.clients = clients;
        this.basic = basic;
    }

    /** The rule's guard, or null when it answers everyone. */
    public static RuleGuard of(Route.Rule rule) {
        if (rule.clientAddresses() == null && rule.basicAuth() == null) {
            return null;
        }
        return new RuleGuard(rule.clientAddresses(), rule.basicAuth() == null ? null : BasicAuthGuard.of(rule.basicAuth()));
    }

    /** Whether the request is refused; if so it has been answered. */
    public boolean refuses(Exchange ex) {
        if (clients != null && !clients.allows(ex.clientAddress() instanceof InetSocketAddress a ? a.getAddress() : null)) {
            ex.sendError(HttpResponseStatus.FORBIDDEN);
            return true;
        }
        if (basic != null) {
            switch (basic.check(ex.request().headers().get(HttpHeaderNames.AUTHORIZATION))) {
                case ADMIT -> {
                    return false;
                }
                case CHALLENGE -> {
                    HttpHeaders h = new DefaultHttpHeaders();
                    h.set(HttpHeaderNames.WWW_AUTHENTICATE, basic.challenge());
                    h.set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
                    ex.send(HttpResponseStatus.UNAUTHORIZED, h, Unpooled.wrappedBuffer(UNAUTHORIZED));
                    return true;
                }
                case BUSY -> {
                    HttpHeaders h = new DefaultHttpHeaders();
                    h.set(HttpHeaderNames.RETRY_AFTER, "1");
                    h.set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
                    ex.send(HttpResponseStatus.TOO_MANY_REQUESTS, h, Unpooled.wrappedBuffer(BUSY));
                    return true;
                }
            }
        }
        return false;
    }
}
