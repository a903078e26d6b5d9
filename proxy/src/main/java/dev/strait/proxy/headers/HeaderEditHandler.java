package dev.strait.proxy.headers;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.HandlerDecorator;

/**
 * A rule's action with its {@code requestHeaders} and {@code responseHeaders}: the request's fields are changed
 * before the action sees them (so the upstream, FastCGI's {@code HTTP_*} and the cache key see the change), and
 * the action answers through a {@link HeaderEditExchange}. Made with the table around the rule's handler (and
 * its CORS).
 */
public final class HeaderEditHandler extends HandlerDecorator {
    private final HeaderEditor request;
    private final HeaderEditor response;

    private HeaderEditHandler(Handler inner, HeaderEditor request, HeaderEditor response) {
        super(inner);
        this.request = request;
        this.response = response;
    }

    /** {@code handler} with the rule's header edits, or {@code handler} itself for a rule without. */
    public static Handler wrap(Handler handler, Route.HeaderEdits request, Route.HeaderEdits response) {
        return request == null && response == null ? handler
                : new HeaderEditHandler(handler, HeaderEditor.of(request), HeaderEditor.of(response));
    }

    @Override
    public void handle(Exchange ex) {
        if (request != null) {
            request.apply(ex.request().headers());
        }
        inner.handle(response == null ? ex : new HeaderEditExchange(ex, response));
    }

    @Override
    protected Handler around(Handler bound) {
        return new HeaderEditHandler(bound, request, response);
    }
}
