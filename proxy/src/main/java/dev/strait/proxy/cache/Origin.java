package dev.strait.proxy.cache;

import dev.strait.proxy.http.Exchange;

/** Where the cache sends what it cannot answer: the rule's reverse proxy, with whatever exchange it is given. */
@FunctionalInterface
public interface Origin {
    void forward(Exchange exchange);
}
