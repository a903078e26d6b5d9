package dev.strait.proxy.route;

import dev.strait.proxy.http.Exchange;

/** A rule's action, built once with the table; answers each request it is given on the event loop. */
@FunctionalInterface
public interface Handler {
    void handle(Exchange exchange);
}
