package dev.strait.proxy.errorpages;

import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ForwardingExchange;
import dev.strait.proxy.http.HeadLines;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The exchange a rule with error pages gives its action: an answer whose status the rule intercepts is held
 * back (its body read and dropped, as nginx's {@code proxy_intercept_errors} does) and, once it has ended,
 * the page is fetched for the client; every other answer passes untouched.
 */
final class InterceptingExchange extends ForwardingExchange {
    private final ErrorPagesHandler pages;
    /** The status held back, or 0 while answers pass. */
    private int held;

    InterceptingExchange(Exchange ex, ErrorPagesHandler pages) {
        super(ex);
        this.pages = pages;
    }

    /** Whether a pre-encoded answer is held back (its body released, its page asked for). */
    private boolean heldBack(byte[] head, ByteBuf body) {
        int status = HeadLines.status(head);
        if (!pages.intercepts(status)) {
            return false;
        }
        if (body != null) {
            body.release();
        }
        pages.fetch(ex, status);
        return true;
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] body) {
        if (!heldBack(head, null)) {
            ex.sendPreEncoded(head, body);
        }
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf body) {
        if (!heldBack(head, body)) {
            ex.sendPreEncoded(head, body);
        }
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
        if (!heldBack(head, body)) {
            ex.sendPreEncoded(head, extra, body);
        }
    }

    @Override
    public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
        if (pages.intercepts(status.code())) {
            if (body != null) {
                body.release();
            }
            pages.fetch(ex, status.code());
        } else {
            ex.send(status, headers, body);
        }
    }

    @Override
    public void sendError(HttpResponseStatus status) {
        if (pages.intercepts(status.code())) {
            pages.fetch(ex, status.code());
        } else {
            ex.sendError(status);
        }
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers) {
        if (pages.intercepts(status.code())) {
            pages.fetch(ex, status.code());
        } else {
            ex.sendError(status, headers);
        }
    }

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        if (pages.intercepts(status.code())) {
            held = status.code();
        } else {
            ex.startResponse(status, headers, contentLength);
        }
    }

    @Override
    public void sendBodyPart(ByteBuf data) {
        if (held != 0) {
            data.release();
        } else {
            ex.sendBodyPart(data);
        }
    }

    @Override
    public void endResponse(HttpHeaders trailers) {
        if (held != 0) {
            pages.fetch(ex, held);
        } else {
            ex.endResponse(trailers);
        }
    }

    @Override
    public boolean isWritable() {
        return held != 0 || ex.isWritable(); // a body being dropped never waits for the client
    }

    @Override
    public void onWritable(Runnable task) {
        if (held != 0) {
            task.run();
        } else {
            ex.onWritable(task);
        }
    }

    @Override
    public void sendInformational(HttpResponseStatus status, HttpHeaders headers) {
        if (held == 0) {
            ex.sendInformational(status, headers);
        }
    }
}
