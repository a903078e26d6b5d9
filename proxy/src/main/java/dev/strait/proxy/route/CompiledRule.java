package dev.strait.proxy.route;

/**
 * A rule ready to serve: its handler and the names metrics and the access log report.
 *
 * @param route   the route's name
 * @param index   the rule's position in the route
 * @param handler what answers
 */
public record CompiledRule(String route, int index, Handler handler) {}
