package dev.strait.proxy.handler.fixed;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ResponseHead;
import dev.strait.proxy.route.Handler;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The {@code respond} action, the fast path: status line, headers and body are encoded when the table
 * is built; a request costs one buffer copy of them plus the shared Date line, written at once.
 */
public final class FixedResponseHandler implements Handler {
    private final byte[] head;
    private final byte[] body;

    private FixedResponseHandler(byte[] head, byte[] body) {
        this.head = head;
        this.body = body;
    }

    public static FixedResponseHandler of(Route.Respond respond) {
        byte[] body = respond.body().getBytes(StandardCharsets.UTF_8);
        ResponseHead h = ResponseHead.status(respond.status());
        boolean hasType = respond.headers().keySet().stream()
                .anyMatch(k -> k.toLowerCase(Locale.ROOT).equals("content-type"));
        if (!hasType && body.length > 0) {
            h.header("Content-Type", "text/plain; charset=utf-8");
        }
        h.headers(respond.headers());
        boolean bodyless = respond.status() == 204 || respond.status() == 304;
        if (!bodyless) {
            h.header("Content-Length", body.length);
        }
        return new FixedResponseHandler(h.encode(), bodyless ? new byte[0] : body);
    }

    @Override
    public void handle(Exchange exchange) {
        exchange.sendPreEncoded(head, body);
    }
}
