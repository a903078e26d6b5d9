package dev.strait.proxy.route;

import dev.strait.proxy.guard.RuleGuard;

/**
 * A rule ready to serve: its handler and the names metrics and the access log report.
 *
 * @param route   the route's name
 * @param index   the rule's position in the route
 * @param handler what answers
 * @param guard   what the rule asks of a request first (client addresses, credentials), or {@code null}: the
 *                servers ask it before the handler runs (ADR 0060, 0061)
 * @param maxBodyBytes the request body bytes the rule takes before 413, or -1 for the limits' value; the
 *                servers apply it once the rule is found, before a {@code 100 Continue} asks for the body
 * @param accessLog whether the rule's requests are written to the access log (when it is on)
 * @param tracing   whether the rule's requests are traced (when the config has {@code tracing})
 * @param hsts      the route's {@code Strict-Transport-Security} value, or null: the host's 404 carries it too
 */
public record CompiledRule(String route, int index, Handler handler, RuleGuard guard, long maxBodyBytes,
                           boolean accessLog, boolean tracing, String hsts) {

    public CompiledRule(String route, int index, Handler handler, RuleGuard guard, long maxBodyBytes,
                        boolean accessLog, boolean tracing) {
        this(route, index, handler, guard, maxBodyBytes, accessLog, tracing, null);
    }

    /** A rule whose requests are traced while tracing is on. */
    public CompiledRule(String route, int index, Handler handler, RuleGuard guard, long maxBodyBytes,
                        boolean accessLog) {
        this(route, index, handler, guard, maxBodyBytes, accessLog, true);
    }

    /** A rule whose requests the access log keeps. */
    public CompiledRule(String route, int index, Handler handler, RuleGuard guard, long maxBodyBytes) {
        this(route, index, handler, guard, maxBodyBytes, true);
    }

    /** A rule that answers every request, with the limits' body size. */
    public CompiledRule(String route, int index, Handler handler) {
        this(route, index, handler, null, -1);
    }
}
