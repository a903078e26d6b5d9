package dev.strait.proxy.forwardauth;

import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ForwardingExchange;

/** The client's exchange once its check said yes: its body comes from where it waited ({@link HeldBody}). */
final class AuthorizedExchange extends ForwardingExchange {
    private final HeldBody body;

    AuthorizedExchange(Exchange ex, HeldBody body) {
        super(ex);
        this.body = body;
    }

    @Override
    public void receiveBody(BodyReceiver receiver) {
        body.attach(receiver);
    }
}
