package dev.strait.proxy.route;

import dev.strait.proxy.http.Exchange;

/** A rule's action, built once with the table; answers each request it is given on the event loop. */
@FunctionalInterface
public interface Handler {
    void handle(Exchange exchange);

    /**
     * Whether this handler only sends the client to https: a redirect that changes nothing but the scheme
     * to {@code https}. A request made over https passes such a rule over (ADR 0057), since the answer
     * would send it back to where it is.
     */
    default boolean upgradesToHttps() {
        return false;
    }

    /**
     * Whether this handler may refuse a request before it wants the body (a forward-auth check): a client that
     * holds its body back for {@code 100 Continue} is then asked for it by the handler, once it lets the
     * request through ({@link Exchange#continueBody}), so that a refused upload is never sent at all.
     */
    default boolean decidesBeforeBody() {
        return false;
    }

    /**
     * Runs {@code handler} on {@code ex} as the servers start an action: a client waiting for {@code 100
     * Continue} is asked for its body first, unless the handler decides before it wants the body.
     */
    static void start(Handler handler, Exchange ex) {
        if (!handler.decidesBeforeBody()) {
            ex.continueBody();
        }
        handler.handle(ex);
    }
}
