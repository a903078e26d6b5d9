package dev.strait.proxy.guard;

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
 * What a rule asks of a request before its action answers (ADR 0060, 0061, 0064), in nginx's phase order:
 * the client's rate ({@code rateLimit}, 429), its address ({@code clientAddresses}, 403) and credentials
 * ({@code basicAuth}, 401). The servers ask it before the handler, so every action, cache hits and both
 * HTTP versions are covered; a rule without any has none, and pays one null check.
 */
public final class RuleGuard {
    private static final byte[] UNAUTHORIZED = "401 Unauthorized\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BUSY = "429 Too Many Requests\n".getBytes(StandardCharsets.US_ASCII);

    private final Route.ClientAddresses clients;
    private final BasicAuthGuard basic;
    private final RateLimiter rate;
    /** The rule's CORS preflights, which pass every guard (see CorsHandler.preflights), or null. */
    private final java.util.function.Predicate<io.netty.handler.codec.http.HttpRequest> preflight;

    private RuleGuard(Route.ClientAddresses clients, BasicAuthGuard basic, RateLimiter rate,
                      java.util.function.Predicate<io.netty.handler.codec.http.HttpRequest> preflight) {
        this.clients = clients;
        this.basic = basic;
        this.rate = rate;
        this.preflight = preflight;
    }

    /** The rule's guard, or null when it answers everyone. */
    public static RuleGuard of(Route.Rule rule) {
        if (rule.clientAddresses() == null && rule.basicAuth() == null && rule.rateLimit() == null) {
            return null;
        }
        return new RuleGuard(rule.clientAddresses(), rule.basicAuth() == null ? null : BasicAuthGuard.of(rule.basicAuth()),
                rule.rateLimit() == null ? null : new RateLimiter(rule.rateLimit()),
                dev.strait.proxy.cors.CorsHandler.preflights(rule.cors()));
    }

    /** Whether the request is refused; if so it has been answered. */
    public boolean refuses(Exchange ex) {
        if (preflight != null && preflight.test(ex.request())) {
            return false;
        }
        java.net.InetAddress client = ex.clientAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        if (rate != null) {
            long wait = rate.check(client, System.nanoTime());
            if (wait > 0) {
                HttpHeaders h = new DefaultHttpHeaders();
                // Whole seconds, rounded up: a client that waits that long is admitted.
                h.set(HttpHeaderNames.RETRY_AFTER, Long.toString(Math.max(1, (wait + 999_999_999L) / 1_000_000_000L)));
                h.set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
                ex.send(HttpResponseStatus.TOO_MANY_REQUESTS, h, Unpooled.wrappedBuffer(BUSY));
                return true;
            }
        }
        if (clients != null && !clients.allows(client)) {
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
