package dev.strait.proxy.handler;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import dev.strait.model.Upstream;
import dev.strait.proxy.compression.CompressionHandler;
import dev.strait.proxy.errorpages.ErrorPagesHandler;
import dev.strait.proxy.fastcgi.FastCgiHandler;
import dev.strait.proxy.forwardauth.ForwardAuthHandler;
import dev.strait.proxy.handler.files.FileHandler;
import dev.strait.proxy.handler.fixed.FixedResponseHandler;
import dev.strait.proxy.handler.proxy.ProxyHandler;
import dev.strait.proxy.handler.redirect.RedirectHandler;
import dev.strait.proxy.mirror.MirrorHandler;
import dev.strait.proxy.pacing.PacedHandler;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.upstream.UpstreamSpec;
import java.util.ArrayList;
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
        // Innermost: only the action's own answers are compressed and paced, never a check's refusal or an error
        // page; the pace counts the compressed bytes, the ones that go out (as nginx's limit_rate).
        Handler handler = PacedHandler.wrap(CompressionHandler.wrap(action(config, route, index, rule, path, upstreams),
                rule.compression()), rule.responseRate());
        if (!rule.mirrors().isEmpty()) {
            // Inside the guards and the check: a request refused never reaches a mirror (nginx's mirror runs
            // after its access phase).
            List<Handler> proxies = new ArrayList<>();
            for (int i = 0; i < rule.mirrors().size(); i++) {
                proxies.add(mirror(config, route, index, rule, i, path + ".mirrors[" + i + "]", upstreams));
            }
            handler = MirrorHandler.wrap(handler, route.name(), rule.mirrors(), proxies, config.requestId());
        }
        Route.ForwardAuth auth = rule.forwardAuth();
        if (auth != null) {
            // Without an upstream the check is routed by the table, as a request of the same host.
            handler = ForwardAuthHandler.wrap(handler, auth, auth.upstream() == null ? check -> check.dispatch(check)
                    : fetcher(config, route, index, auth.upstream(), path + ".forwardAuth", upstreams));
        }
        // Outside the check, so that a refusal's 401 or 403 can get its page too (nginx's error_page 401).
        Route.ErrorPages pages = rule.errorPages();
        if (pages != null) {
            handler = ErrorPagesHandler.wrap(handler, pages,
                    fetcher(config, route, index, pages.upstream(), path + ".errorPages", upstreams));
        }
        return handler;
    }

    /**
     * What fetches an error page or asks the authorization service: {@code upstream} proxied like a backend of
     * its own, without the rule's retries, cache or rewrites.
     */
    private static Handler fetcher(Config config, Route route, int index, String upstream, String path,
                                   Map<String, UpstreamSpec> upstreams) {
        Route.Backends from = new Route.Backends(List.of(new Route.Backend(upstream, 1)));
        Route.Rule rule = new Route.Rule(List.of(), from, null, null, null);
        return ProxyHandler.create(route.name(), index, rule, from, upstreams, config.requestId(), path);
    }

    /**
     * What sends a rule's copies to its mirror number {@code i}: the mirror's upstream proxied with the rule's path
     * rewrite and timeouts, the mirror's own Host, and no retries or cache (a copy is sent once).
     */
    private static Handler mirror(Config config, Route route, int index, Route.Rule rule, int i, String path,
                                  Map<String, UpstreamSpec> upstreams) {
        Route.Mirror m = rule.mirrors().get(i);
        Route.Backends to = new Route.Backends(List.of(new Route.Backend(m.upstream(), 1)));
        Route.PathModifier rewrite = rule.action() instanceof Route.Backends && rule.fastcgi() == null
                ? rule.pathRewrite() : null;
        Route.Rule copy = new Route.Rule(List.of(), to, null, rule.timeouts(), null, m.hostRewrite(), null, rewrite,
                null, null, null, null, null);
        return ProxyHandler.create(route.name(), index, copy, to, upstreams, config.requestId(), path);
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
