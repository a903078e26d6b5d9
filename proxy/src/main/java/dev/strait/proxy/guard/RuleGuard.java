package dev.strait.proxy.guard;

import dev.strait.model.Route;
import dev.strait.proxy.cors.CorsHandler;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.HeldBody;
import dev.strait.proxy.jwt.JwtGuard;
import dev.strait.proxy.route.Handler;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a rule asks of a request before its action answers (ADR 0060, 0061, 0064, 0108), in nginx's phase order:
 * the client's rate ({@code rateLimit}, 429) and requests in flight ({@code inFlightLimit}, 429), its address
 * ({@code clientAddresses}, 403) and credentials ({@code basicAuth} or {@code jwtAuth}, 401); with
 * {@code satisfy: any} the address or the password admits. The servers ask it before the handler, so every action, cache hits and both
 * HTTP versions are covered; a rule without any has none, and pays one null check.
 */
public final class RuleGuard {
    private static final Logger log = LoggerFactory.getLogger(RuleGuard.class);

    private final Route.ClientAddresses clients;
    private final BasicAuthGuard basic;
    private final JwtGuard jwt;
    private final RateLimiter rate;
    private final InFlightLimiter inFlight;
    /** The rule's CORS: its preflights pass every guard, and refusals carry its fields; or null. */
    private final CorsHandler.Fields cors;
    /** {@code satisfy: any}: the addresses or the credentials admit, either will do. */
    private final boolean either;
    /** The route's {@code Strict-Transport-Security} value, which refusals over https carry too; or null. */
    private final String hsts;

    private RuleGuard(Route.ClientAddresses clients, BasicAuthGuard basic, RateLimiter rate, InFlightLimiter inFlight,
                      CorsHandler.Fields cors, boolean either, String hsts, JwtGuard jwt) {
        this.hsts = hsts;
        this.jwt = jwt;
        this.either = either && clients != null && basic != null;
        this.clients = clients;
        this.basic = basic;
        this.rate = rate;
        this.inFlight = inFlight;
        this.cors = cors;
    }

    /** The rule's guard, or null when it answers everyone. */
    public static RuleGuard of(Route.Rule rule) {
        return of(rule, null);
    }

    /** The guard of a rule of a route with {@code hsts} (or null), whose refusals over https carry it as answers do. */
    public static RuleGuard of(Route.Rule rule, Route.Hsts hsts) {
        if (rule.clientAddresses() == null && rule.basicAuth() == null && rule.rateLimit() == null
                && rule.inFlightLimit() == null && rule.jwtAuth() == null) {
            return null;
        }
        return new RuleGuard(rule.clientAddresses(), rule.basicAuth() == null ? null : BasicAuthGuard.of(rule.basicAuth()),
                rule.rateLimit() == null ? null : new RateLimiter(rule.rateLimit()),
                rule.inFlightLimit() == null ? null : new InFlightLimiter(rule.inFlightLimit()),
                CorsHandler.fields(rule.cors()), rule.satisfy() == Route.Satisfy.ANY, hsts == null ? null : hsts.value(),
                rule.jwtAuth() == null ? null : JwtGuard.of(rule.jwtAuth()));
    }

    /** The in-flight limiter, for tests; or null. */
    InFlightLimiter inFlight() {
        return inFlight;
    }

    /**
     * Whether the request is refused or taken over; if so it has been answered, or will be: credentials
     * whose hash is slow are checked off the loop while the request and its body wait, and {@code handler}
     * then runs on the loop if they match. Otherwise the caller runs the handler.
     */
    public boolean refuses(Exchange ex, Handler handler) {
        if (cors != null && cors.preflights(ex.request())) {
            return false;
        }
        java.net.InetAddress client = ex.clientAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        if (rate != null) {
            long wait = rate.check(client, System.nanoTime());
            if (wait > 0) {
                // Whole seconds, rounded up: a client that waits that long is admitted.
                answer(ex, HttpResponseStatus.TOO_MANY_REQUESTS, HttpHeaderNames.RETRY_AFTER,
                        Long.toString(Math.max(1, (wait + 999_999_999L) / 1_000_000_000L)));
                return true;
            }
        }
        if (inFlight != null && inFlight.counted(client)) {
            if (!inFlight.acquire(client)) {
                // Another of this client's requests must end first; no time to wait for can be told.
                answer(ex, HttpResponseStatus.TOO_MANY_REQUESTS, HttpHeaderNames.RETRY_AFTER, "1");
                return true;
            }
            // Held until the exchange is over, whatever ends it; a later guard's refusal ends it too.
            ex.onEnd(() -> inFlight.release(client));
        }
        if (clients != null) {
            boolean allowed = clients.allows(client);
            if (either && allowed) {
                return false; // satisfy any: a client the addresses admit needs no credentials
            }
            if (!allowed && !either) {
                answer(ex, HttpResponseStatus.FORBIDDEN, null, null);
                return true;
            }
        }
        if (jwt != null) {
            return jwtRefuses(ex, handler, jwt.check(ex.request().headers()), false, null);
        }
        if (basic != null) {
            String authorization = ex.request().headers().get(HttpHeaderNames.AUTHORIZATION);
            BasicAuthGuard.Verdict verdict = basic.check(authorization);
            switch (verdict) {
                case ADMIT -> {
                    return false;
                }
                case SLOW -> hashOffLoop(ex, handler, authorization);
                default -> refused(ex, null, verdict);
            }
            return true;
        }
        return false;
    }

    /**
     * Answers what the token came to; whether the request was refused or taken over. While keys are being fetched the
     * request and its body are held, and the token is checked again when they come ({@code resumed}: this is that
     * second check, the request taken over already, {@code body} what was held, or null for none).
     */
    private boolean jwtRefuses(Exchange ex, Handler handler, JwtGuard.Outcome outcome,
                               boolean resumed, HeldBody body) {
        if (outcome instanceof JwtGuard.Admit) {
            if (!resumed) {
                return false;
            }
            run(ex, handler, body);
        } else if (outcome instanceof JwtGuard.Challenge c) {
            drop(ex, body);
            answer(ex, HttpResponseStatus.UNAUTHORIZED, HttpHeaderNames.WWW_AUTHENTICATE, c.wwwAuthenticate());
        } else if (outcome instanceof JwtGuard.Refuse r) {
            drop(ex, body);
            log.debug("jwtAuth: {} {} refused: {}", ex.request().method(), ex.request().uri(), r.why());
            answer(ex, HttpResponseStatus.UNAUTHORIZED, HttpHeaderNames.WWW_AUTHENTICATE, r.wwwAuthenticate());
        } else if (outcome instanceof JwtGuard.Forbid f) {
            drop(ex, body);
            log.debug("jwtAuth: {} {} forbidden: {}", ex.request().method(), ex.request().uri(), f.why());
            answer(ex, HttpResponseStatus.FORBIDDEN, HttpHeaderNames.WWW_AUTHENTICATE, f.wwwAuthenticate());
        } else if (outcome instanceof JwtGuard.Wait w) {
            HeldBody held = resumed ? body : HeldBody.hold(ex);
            boolean[] gone = {false};
            ex.onCancel(() -> gone[0] = true);
            w.keys().whenComplete((keys, failure) -> ex.eventLoop().execute(() -> {
                if (gone[0]) {
                    if (held != null) {
                        held.discard();
                    }
                    return;
                }
                // The fetch is over: without keys nobody's token can be checked, and waiting again would wait for
                // the same fetch.
                JwtGuard.Outcome again = jwt.keysMissing()
                        ? new JwtGuard.Unavailable() : jwt.check(ex.request().headers());
                if (again instanceof JwtGuard.Wait) {
                    again = new JwtGuard.Unavailable();
                }
                jwtRefuses(ex, handler, again, true, held);
            }));
        } else {
            drop(ex, body); // Unavailable: the keys could not be fetched
            answer(ex, HttpResponseStatus.SERVICE_UNAVAILABLE, HttpHeaderNames.RETRY_AFTER, "5");
        }
        return true;
    }

    private static void drop(Exchange ex, HeldBody body) {
        if (body != null) {
            body.drop(ex); // read to its end and dropped, so the connection goes on
        }
    }

    /** The credentials' hash is worked out on a hashing thread; the request and its body wait for it. */
    private void hashOffLoop(Exchange ex, Handler handler, String authorization) {
        HeldBody body = HeldBody.hold(ex);
        boolean[] gone = {false};
        ex.onCancel(() -> gone[0] = true);
        boolean started = basic.hashOffLoop(authorization, ex.eventLoop(), verdict -> {
            if (gone[0]) {
                if (body != null) {
                    body.discard();
                }
            } else if (verdict == BasicAuthGuard.Verdict.ADMIT) {
                run(ex, handler, body);
            } else {
                refused(ex, body, verdict);
            }
        });
        if (!started) {
            refused(ex, body, BasicAuthGuard.Verdict.BUSY);
        }
    }

    private void refused(Exchange ex, HeldBody body, BasicAuthGuard.Verdict verdict) {
        if (body != null) {
            body.drop(ex); // read to its end and dropped, so the connection goes on
        }
        if (verdict == BasicAuthGuard.Verdict.CHALLENGE) {
            answer(ex, HttpResponseStatus.UNAUTHORIZED, HttpHeaderNames.WWW_AUTHENTICATE, basic.challenge());
        } else {
            answer(ex, HttpResponseStatus.TOO_MANY_REQUESTS, HttpHeaderNames.RETRY_AFTER, "1");
        }
    }

    /** The admitted request goes on to the action, as the server would have started it. */
    private static void run(Exchange ex, Handler handler, HeldBody body) {
        try {
            if (body == null) {
                Handler.start(handler, ex);
            } else {
                body.resume(ex, e -> Handler.start(handler, e));
            }
        } catch (RuntimeException e) {
            log.error("handler failed on {} {} after its credentials were checked", ex.request().method(),
                    ex.request().uri(), e);
            ex.abort();
        }
    }

    /**
     * A short plain-text refusal with one field of its own, and the rule's CORS fields for an allowed origin:
     * a browser app must see the 401 or 429 to act on it, not a CORS failure (ingress-nginx sets them on
     * every answer).
     */
    private void answer(Exchange ex, HttpResponseStatus status, CharSequence name, String value) {
        HttpHeaders h = new DefaultHttpHeaders();
        if (name != null) {
            h.set(name, value);
        }
        if (cors != null) {
            cors.addFields(ex.request(), h);
        }
        if (hsts != null && "https".equals(ex.scheme())) {
            h.set("Strict-Transport-Security", hsts);
        }
        ex.sendError(status, h);
    }
}
