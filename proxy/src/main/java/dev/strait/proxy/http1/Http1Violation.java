package dev.strait.proxy.http1;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Why a request was refused while it was read, with the status to answer: 400 for malformed syntax,
 * 414 and 431 for limits, 501 for a transfer coding we do not know, 505 for another HTTP version.
 * Thrown often by hostile clients, so it carries no stack trace. The upstream response decoder uses
 * it too (with 502), as it shares the field and chunk grammar ({@link HeadParser#fieldLine},
 * {@link Http1Framing}).
 */
public final class Http1Violation extends Exception {
    private final transient HttpResponseStatus status;

    public Http1Violation(HttpResponseStatus status, String reason) {
        super(reason, null, false, false);
        this.status = status;
    }

    static Http1Violation bad(String reason) {
        return new Http1Violation(HttpResponseStatus.BAD_REQUEST, reason);
    }

    public HttpResponseStatus status() {
        return status;
    }
}
