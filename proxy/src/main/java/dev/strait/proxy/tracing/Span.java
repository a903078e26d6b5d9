package dev.strait.proxy.tracing;

import dev.strait.model.HostPort;

/**
 * One served request as the span the proxy reports: taken on the event loop when the request ends (its
 * fields are references the exchange already holds), encoded off it.
 *
 * @param trace      the request's trace and span ids
 * @param endNanos   when the answer ended, nanoseconds since the epoch
 * @param durationNanos how long the request took, from its head to the answer's end
 * @param method     the request's method; null when the head was not read
 * @param target     the request target as the client sent it (path and query); null when not read
 * @param protocol   {@code 1.0}, {@code 1.1} or {@code 2}
 * @param route      the route that served it, or null (no route: a 404, or refused before routing)
 * @param client     the client's address (a trusted load balancer's client, ADR 0059), no port
 * @param upstream   the endpoint that answered, or null
 */
public record Span(RequestTrace trace, long endNanos, long durationNanos, String method, String scheme, String host,
                   String target, String protocol, int status, long bytes, String route, String client,
                   String userAgent, String requestId, HostPort upstream) implements ExportedSpan {

    @Override
    public int kind() {
        return OtlpProtocol.KIND_SERVER;
    }

    @Override
    public void attributes(SpanAttributes.Sink out) {
        SpanAttributes.span(this, out);
    }

    /** A server span is an error for 5xx only; a 4xx is the client's (HTTP semantic conventions). */
    @Override
    public boolean error() {
        return status >= 500;
    }

    /** The span's start, nanoseconds since the epoch. */
    @Override
    public long startNanos() {
        return endNanos - durationNanos;
    }

    /** {@code GET site}: the method and the route's name (a low-cardinality name, as OpenTelemetry asks). */
    @Override
    public String name() {
        String m = method == null ? "HTTP" : method;
        return route == null ? m : m + " " + route;
    }
}
