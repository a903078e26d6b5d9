package dev.strait.proxy.pacing;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.HandlerDecorator;

/**
 * A {@code backends} rule with a {@code responseRate}: its action answers through a {@link PacedExchange}, which
 * hands each answer's body to the client no faster than the rate once the first {@code afterBytes} are out
 * (nginx's {@code limit_rate}, {@code limit_rate_after}). Made with the table, innermost around the action, so
 * error pages and forward-auth refusals go at full speed.
 */
public final class PacedHandler extends HandlerDecorator {
    private final Route.ResponseRate rate;

    private PacedHandler(Handler inner, Route.ResponseRate rate) {
        super(inner);
        this.rate = rate;
    }

    /** {@code handler} paced at {@code rate}, or {@code handler} itself without one. */
    public static Handler wrap(Handler handler, Route.ResponseRate rate) {
        return rate == null ? handler : new PacedHandler(handler, rate);
    }

    @Override
    public void handle(Exchange ex) {
        inner.handle(new PacedExchange(ex, rate.bytesPerSecond(), rate.afterBytes()));
    }

    @Override
    protected Handler around(Handler bound) {
        return new PacedHandler(bound, rate);
    }
}
