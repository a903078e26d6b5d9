package dev.strait.proxy.forwardauth;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.HeldBody;
import dev.strait.proxy.http.PercentEncoding;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.HandlerDecorator;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rule's action behind its {@code forwardAuth} (ADR 0072): each request is first checked with
 * {@code GET path} on the authorization upstream ({@link AuthCheckExchange}); a 2xx lets it through to the
 * action with the fields the answer grants, any other answer is the client's. The request's body waits,
 * unread past what had arrived ({@link HeldBody}), so a refused upload is never sent anywhere; a client that
 * sent {@code Expect: 100-continue} is asked for its body only after the yes, so it never sends a refused one.
 */
public final class ForwardAuthHandler extends HandlerDecorator {
    private static final Logger log = LoggerFactory.getLogger(ForwardAuthHandler.class);
    private static final Runnable NOTHING = () -> { };

    private final Handler check;
    private final String path;
    private final List<String> granted;
    private final String signIn;
    private final boolean alwaysSetCookie;
    /** Kept yeses, or null: every request is asked. Shared with the handlers rebound per path (one rule's). */
    private final VerdictCache verdicts;

    private ForwardAuthHandler(Handler inner, Handler check, String path, List<String> granted, String signIn,
                               boolean alwaysSetCookie, VerdictCache verdicts) {
        super(inner);
        this.check = check;
        this.path = path;
        this.granted = granted;
        this.signIn = signIn;
        this.alwaysSetCookie = alwaysSetCookie;
        this.verdicts = verdicts;
    }

    /** {@code handler} behind the check made by {@code check} (the authorization upstream's proxy handler). */
    public static Handler wrap(Handler handler, Route.ForwardAuth config, Handler check) {
        return new ForwardAuthHandler(handler, check, config.path(), config.responseHeaders(), config.signIn(),
                config.alwaysSetCookie(), config.cache() == null ? null : new VerdictCache(config.cache()));
    }

    /** The check comes first: a client holding its body back is asked for it only once the check said yes. */
    @Override
    public boolean decidesBeforeBody() {
        return true;
    }

    @Override
    public void handle(Exchange ex) {
        if (ex.checking()) {
            // A check routed to a rule that asks for a check itself: answering it from the action could let
            // anyone in (the protected app's 200), and asking again would never end. Fail closed, and say why.
            log.error("forwardAuth: the check for {} {} was routed to a rule with a forwardAuth of its own;"
                    + " route the check's path to the authorization service", ex.host(), ex.path());
            ex.sendError(HttpResponseStatus.INTERNAL_SERVER_ERROR);
            return;
        }
        String key = null;
        if (verdicts != null) {
            key = verdicts.keyOf(ex);
            HttpHeaders kept = verdicts.granted(ex, key);
            if (kept != null) {
                grant(ex, kept); // a yes for these credentials a moment ago: no need to ask again
                ex.continueBody();
                inner.handle(ex);
                return;
            }
        }
        // What arrives before the answer is held, and no more is read.
        AuthCheckExchange checking = new AuthCheckExchange(ex, this, HeldBody.hold(ex), key);
        ex.onCancel(checking::cancelled); // until the check's handler sets its own, which ends the check too
        check.handle(checking);
    }

    /**
     * The check said yes: the request, with the granted fields, goes on to the action. The yes is kept for the
     * request's credentials ({@code key}, null: not kept) unless it set cookies, which are one client's.
     */
    void allow(Exchange ex, HttpHeaders answer, HeldBody body, String key) {
        grant(ex, answer);
        ex.onCancel(NOTHING); // the check's call is over; the action sets its own
        List<String> cookies = answer.getAll(HttpHeaderNames.SET_COOKIE);
        if (key != null && cookies.isEmpty()) {
            HttpHeaders kept = new io.netty.handler.codec.http.DefaultHttpHeaders();
            for (String name : granted) {
                kept.add(name, answer.getAll(name));
            }
            verdicts.keep(ex, key, kept);
        }
        java.util.function.Consumer<Exchange> action =
                e -> inner.handle(cookies.isEmpty() ? e : new AuthorizedExchange(e, cookies, alwaysSetCookie));
        // Not from inside the check's call stack: its upstream connection is still being put back.
        ex.eventLoop().execute(() -> {
            ex.continueBody(); // a client holding its upload back for 100 Continue sends it now
            if (body == null) {
                action.accept(ex);
            } else {
                body.resume(ex, action);
            }
        });
    }

    /** The granted fields of the answer onto the request, never the client's own claim to be someone. */
    private void grant(Exchange ex, HttpHeaders answer) {
        HttpHeaders request = ex.request().headers();
        for (String name : granted) {
            request.remove(name);
            for (String value : answer.getAll(name)) {
                request.add(name, value);
            }
        }
    }

    /** The check said no (or could not be made): {@code ex} has been answered; the body is dropped. */
    void refused(Exchange ex, HeldBody body) {
        ex.onCancel(NOTHING);
        if (body != null) {
            body.drop(ex); // the rest is read and dropped, so the connection can go on
        }
    }

    /** Where a 401 sends the client, or {@code null} to pass the 401 on. */
    String signInFor(Exchange ex) {
        if (signIn == null) {
            return null;
        }
        String url = PercentEncoding.component(ex.scheme() + "://" + ex.host() + ex.request().uri());
        if (signIn.contains("{url}") || signIn.contains("{uri}")) {
            return signIn.replace("{url}", url).replace("{uri}", PercentEncoding.component(ex.request().uri()));
        }
        return signIn + (signIn.indexOf('?') < 0 ? "?" : "&") + "rd=" + url;
    }

    /** The check's path and query on the authorization upstream. */
    String path() {
        return path;
    }


    @Override
    protected Handler around(Handler bound) {
        return new ForwardAuthHandler(bound, check, path, granted, signIn, alwaysSetCookie, verdicts);
    }
}
