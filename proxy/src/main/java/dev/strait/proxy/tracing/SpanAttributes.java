package dev.strait.proxy.tracing;

import dev.strait.proxy.accesslog.AccessLog;

/**
 * What a span and the proxy's resource say, once for every encoding: OpenTelemetry's HTTP server attributes
 * (semantic conventions 1.2x), then what only Strait knows under {@code strait.}. A null value is not written.
 */
final class SpanAttributes {
    /** Where the attributes go, in order. */
    interface Sink {
        void string(String key, String value);

        void integer(String key, long value);
    }

    private SpanAttributes() {}

    /**
     * @param serviceName the resource's {@code service.name}
     * @param hostName    the resource's {@code host.name} (the pod's name in Kubernetes), or null
     */
    static void resource(String serviceName, String hostName, Sink out) {
        string(out, "service.name", serviceName);
        string(out, "host.name", hostName);
    }

    static void span(Span s, Sink out) {
        string(out, "http.request.method", s.method());
        String target = s.target();
        if (target != null) {
            int q = target.indexOf('?');
            string(out, "url.path", q < 0 ? target : target.substring(0, q));
            string(out, "url.query", q < 0 ? null : target.substring(q + 1));
        }
        string(out, "url.scheme", s.scheme());
        string(out, "server.address", s.host() == null || s.host().isEmpty() ? null : s.host());
        string(out, "network.protocol.version", s.protocol());
        if (s.status() > 0) {
            out.integer("http.response.status_code", s.status());
        }
        out.integer("http.response.body.size", s.bytes());
        string(out, "client.address", s.client());
        string(out, "user_agent.original", s.userAgent());
        if (isError(s)) {
            string(out, "error.type", Integer.toString(s.status()));
        }
        string(out, "strait.route", s.route());
        String id = s.requestId();
        string(out, "strait.request_id", id != null && AccessLog.saneRequestId(id) ? id : null);
        string(out, "strait.upstream.address", s.upstream() == null ? null : s.upstream().toString());
    }

    /** A server span is an error for 5xx only; a 4xx is the client's (HTTP semantic conventions). */
    static boolean isError(Span s) {
        return s.status() >= 500;
    }

    private static void string(Sink out, String key, String value) {
        if (value != null) {
            out.string(key, value);
        }
    }
}
