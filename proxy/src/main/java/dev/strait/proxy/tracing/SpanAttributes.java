package dev.strait.proxy.tracing;

import dev.strait.model.HostPort;
import java.util.Map;
import dev.strait.proxy.accesslog.AccessLog;

/**
 * What a span and the proxy's resource say, once for every encoding: OpenTelemetry's HTTP server and client
 * attributes (semantic conventions 1.2x), then what only Strait knows under {@code strait.}. A null value is not
 * written.
 */
final class SpanAttributes {
    /** Where the attributes go, in order. */
    interface Sink {
        void string(String key, String value);

        void integer(String key, long value);
    }

    private SpanAttributes() {}

    /** The resource's attributes ({@link SpanResource}), in their order. */
    static void resource(Map<String, String> resource, Sink out) {
        resource.forEach((k, v) -> string(out, k, v));
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
        if (s.error()) {
            string(out, "error.type", Integer.toString(s.status()));
        }
        string(out, "strait.route", s.route());
        String id = s.requestId();
        string(out, "strait.request_id", id != null && AccessLog.saneRequestId(id) ? id : null);
        string(out, "strait.upstream.address", s.upstream() == null ? null : s.upstream().toString());
    }

    /** A try upstream: OpenTelemetry's HTTP client attributes, then Strait's. */
    static void upstream(UpstreamSpan s, Sink out) {
        string(out, "http.request.method", s.method());
        HostPort e = s.endpoint();
        if (e != null && e.isUnixSocket()) {
            // OpenTelemetry's conventions for a socket: its path is the address, there is no port, and the
            // URL's authority is what went as Host where the client sent none (ADR 0103).
            string(out, "server.address", e.host());
            string(out, "network.transport", "unix");
            string(out, "url.full", s.scheme() + "://localhost" + s.target());
        } else if (e != null) {
            string(out, "server.address", e.host());
            out.integer("server.port", e.port());
            string(out, "url.full", s.scheme() + "://" + e + s.target());
        }
        string(out, "network.protocol.version", s.protocol());
        if (s.status() > 0) {
            out.integer("http.response.status_code", s.status());
        }
        if (s.resends() > 0) {
            out.integer("http.request.resend_count", s.resends());
        }
        string(out, "error.type", s.errorType());
        string(out, "strait.route", s.route());
        string(out, "strait.upstream", s.upstream());
    }

    private static void string(Sink out, String key, String value) {
        if (value != null) {
            out.string(key, value);
        }
    }
}
