package dev.strait.proxy.tracing;

import dev.strait.model.HostPort;

/**
 * One try of a proxied request, as a CLIENT span child of the request's ({@code tracing.upstreamSpans}): from choosing
 * the endpoint to the end of its answer, or to the failure that ended the try (connect, timeout, reset). The upstream's
 * {@code traceparent} names it, so the app's spans hang under the try that reached them and retries show apart.
 *
 * @param trace       the try's span (a {@link RequestTrace#child} of the request's)
 * @param endNanos    when the try ended, nanoseconds since the epoch
 * @param durationNanos how long it took
 * @param scheme      {@code http} or {@code https} to the endpoint
 * @param target      the request target as sent upstream (after rewrites)
 * @param protocol    {@code 1.1} or {@code 2}
 * @param status      the upstream's status, or 0 when none came
 * @param failure     why the try failed without a status (a connect failure, a timeout, a reset), or null
 * @param resends     the tries before this one (OpenTelemetry's {@code http.request.resend_count})
 */
public record UpstreamSpan(RequestTrace trace, long endNanos, long durationNanos, String method, String scheme,
                           HostPort endpoint, String target, String protocol, int status, String failure, int resends,
                           String upstream, String route) implements ExportedSpan {

    @Override
    public String name() {
        return method + " " + upstream;
    }

    @Override
    public int kind() {
        return OtlpProtocol.KIND_CLIENT;
    }

    @Override
    public long startNanos() {
        return endNanos - durationNanos;
    }

    /** A client span is an error for a 4xx or 5xx too, and for a try without an answer (HTTP semantic conventions). */
    @Override
    public boolean error() {
        return status >= 400 || status == 0;
    }

    @Override
    public void attributes(SpanAttributes.Sink out) {
        SpanAttributes.upstream(this, out);
    }

    /** OpenTelemetry's {@code error.type}: the status, or a low-cardinality kind of failure. */
    String errorType() {
        if (status >= 400) {
            return Integer.toString(status);
        }
        if (status > 0) {
            return null;
        }
        String f = failure == null ? "" : failure;
        return f.contains("timeout") || f.contains("timed out") ? "timeout"
                : f.startsWith("connect") || f.contains("no healthy endpoint") ? "connection_failed" : "response_failed";
    }
}
