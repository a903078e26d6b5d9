package dev.strait.proxy.handler;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import dev.strait.model.Upstream;
import dev.strait.proxy.errorpages.ErrorPagesHandler;
import dev.strait.proxy.fastcgi.FastCgiHandler;
import dev.strait.proxy.handler.files.FileHandler;
import dev.strait.proxy.handler.fixed.FixedResponseHandler;
import dev.strait.proxy.handler.proxy.ProxyHandler;
import dev.strait.proxy.handler.redirect.RedirectHandler;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.upstream.UpstreamSpec;
import java.util.List;
import java.util.Map;

/** Makes the handler for each kind of rule action. */
public final class Handlers {
    private Handlers() {}

    /**
     * The handler of a rule. {@code backends} are served by their upstreams' protocol: fastcgi over
     * FastCGI with the rule's {@code fastcgi} settings, http1, h2c and h2 by the reverse proxy.
     *
     * @param config    the whole config (the upstreams a rule names, request id settings)
     * @param upstreams the config's upstreams, compiled
     * @throws IllegalArgumentException naming what cannot be served (the config is then refused)
     */
    public static Handler create(Config config, Route route, int index, Route.Rule rule, String path,
                                 Map<String, UpstreamSpec> upstreams) {
        Handler action = action(config, route, index, rule, path, upstreams);
        Route.ErrorPages pages = rule.errorPages();
        if (pages == null) {
            return action;
        }
        // The page is proxied like a backend of its own: no retries, cache or rewrites of the rule's.
        Route.Backends from = new Route.Backends(List.of(new Route.Backend(pages.upstream(), 1)));
        Route.Rule pageRule = new Route.Rule(List.of(), from, null, null, null);
        return ErrorPagesHandler.wrap(action, pages, ProxyHandler.create(route.name(), index, pageRule, from, upstreams,
                config.requestId(), path + ".errorPages"));
    }

    private static Handler action(Config config, Route route, int index, Route.Rule rule, String path,
                                  Map<String, UpstreamSpec> upstreams) {
        if (rule.action() instanceof Route.Backends b) {
            if (rule.fastcgi() != null || namesProtocol(upstreams, b, Upstream.Protocol.FASTCGI)) {
                return FastCgiHandler.create(config, route, rule, path);
            }
            return ProxyHandler.create(route.name(), index, rule, b, upstreams, config.requestId(), path);
        }
        return create(rule.action(), path);
    }

    private static boolean namesProtocol(Map<String, UpstreamSpec> upstreams, Route.Backends b, Upstream.Protocol p) {
        for (Route.Backend be : b.backends()) {
            UpstreamSpec spec = upstreams.get(be.upstream());
            if (spec != null && spec.config().protocol() == p) {
                return true;
            }
        }
        return false;
    }

    /**
     * The handler of an action that needs nothing but itself ({@code respond}, {@code files}, {@code redirect}).
     *
     * @throws IllegalArgumentException naming what cannot be served (the config is then refused)
     */
    public static Handler create(Route.Action action, String path) {
        if (action instanceof Route.Respond r) {
            return FixedResponseHandler.of(r);
        }
        if (action instanceof Route.Files f) {
            return FileHandler.create(f, path + ".files");
        }
        if (action instanceof Route.Redirect r) {
            return RedirectHandler.of(r);
        }
        if (action instanceof Route.Backends) {
            throw new IllegalArgumentException(path + ".backends: proxying needs the rule and the config's upstreams"
                    + " (Handlers.create with a rule)");
        }
        throw new IllegalArgumentException(path + ": unknown action");
    }
}
