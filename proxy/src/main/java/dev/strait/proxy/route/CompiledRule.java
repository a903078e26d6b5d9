package dev.strait.proxy.route;

import dev.strait.model.Route;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * A rule ready to serve: its handler and the names metrics and the access log report.
 *
 * @param route   the route's name
 * @param index   the rule's position in the route
 * @param handler what answers
 * @param clients which clients it answers (ADR 0060), or {@code null} for all: the servers check it before
 *                the handler runs, so every kind of action (and a cache hit) is covered, and a rule without
 *                it pays one null check
 */
public record CompiledRule(String route, int index, Handler handler, Route.ClientAddresses clients) {

    /** A rule that answers every client. */
    public CompiledRule(String route, int index, Handler handler) {
        this(route, index, handler, null);
    }

    /** Whether a request from {@code client} gets 403 instead of the handler's answer. */
    public boolean refuses(SocketAddress client) {
        return clients != null && !clients.allows(client instanceof InetSocketAddress a ? a.getAddress() : null);
    }
}
