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
}
