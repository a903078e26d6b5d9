package dev.strait.proxy.errorpages;

import dev.strait.model.Route;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.HandlerDecorator;

/**
 * A rule's action with its {@code errorPages} (ADR 0071): the action answers through an
 * {@link InterceptingExchange}, which holds back an answer with one of the statuses and has {@code pages}
 * fetch the page instead, sent with the original status. Made with the table around the rule's handler.
 */
public final class ErrorPagesHandler extends HandlerDecorator {
    private final boolean[] intercepted = new boolean[600];
    private final String path;
    private final Handler pages;

    private ErrorPagesHandler(Handler inner, Route.ErrorPages config, Handler pages) {
        super(inner);
        for (int s : config.statuses()) {
            intercepted[s] = true;
        }
        this.path = config.path();
        this.pages = pages;
    }

    private ErrorPagesHandler(Handler inner, ErrorPagesHandler same) {
        super(inner);
        System.arraycopy(same.intercepted, 0, intercepted, 0, intercepted.length);
        this.path = same.path;
        this.pages = same.pages;
    }

    /** {@code handler} with error pages fetched by {@code pages} (the page upstream's proxy handler). */
    public static Handler wrap(Handler handler, Route.ErrorPages config, Handler pages) {
        return new ErrorPagesHandler(handler, config, pages);
    }

    boolean intercepts(int status) {
        return status >= 0 && status < intercepted.length && intercepted[status];
    }

    /** The page's path and query for {@code status}. */
    String pathFor(int status) {
        return path.replace("{status}", Integer.toString(status));
    }

    /** Fetches the page for an answer with {@code status} held back from {@code client}. */
    void fetch(Exchange client, int status) {
        PageExchange page = new PageExchange(client, status, pathFor(status));
        // Not from inside the action's own call stack: it may still be tidying up its upstream connection.
        // A client that left meanwhile has been counted (499) and would never cancel the fetch: none is made.
        client.eventLoop().execute(() -> {
            if (!client.clientGone()) {
                pages.handle(page);
            }
        });
    }

    @Override
    public void handle(Exchange ex) {
        inner.handle(new InterceptingExchange(ex, this));
    }

    @Override
    protected Handler around(Handler bound) {
        return new ErrorPagesHandler(bound, this);
    }
}
