package dev.strait.proxy.handler;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import dev.strait.model.Upstream;
import dev.strait.proxy.handler.files.FileHandler;
import dev.strait.proxy.handler.fixed.FixedResponseHandler;
import dev.strait.proxy.handler.proxy.ProxyHandler;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.upstream.UpstreamSpec;
import java.util.Map;

/** Makes the handler for each kind of rule action. */
public final class Handlers {
    private Handlers() {}

    /**
     * The handler of a rule, proxying included: {@code backends} go to the rule's upstreams over HTTP/1.1
     * (upstreams with protocol fastcgi, h2c or h2 are refused with their field path until those land).
     *
     * @param upstreams the config's upstreams, compiled
     * @throws IllegalArgumentException naming what cannot be served (the config is then refused)
     */
    public static Handler create(Route route, int index, Route.Rule rule, String path,
                                 Map<String, UpstreamSpec> upstreams, Config.RequestId requestId) {
        if (rule.action() instanceof Route.Backends b) {
            // The upstream's protocol picks the handler; only http1 is served by this version.
            for (int k = 0; k < b.backends().size(); k++) {
                UpstreamSpec spec = upstreams.get(b.backends().get(k).upstream());
                if (spec != null && spec.config().protocol() != Upstream.Protocol.HTTP1) {
                    Upstream.Protocol p = spec.config().protocol();
                    throw new IllegalArgumentException(path + ".backends[" + k + "].upstream: upstream \""
                            + spec.name() + "\" uses protocol " + ConfigParser.configName(p)
                            + ", which this version cannot proxy to yet (only http1; "
                            + (p == Upstream.Protocol.FASTCGI ? "FastCGI" : "HTTP/2") + " upstreams come later)");
                }
            }
            return ProxyHandler.create(route.name(), index, rule, b, upstreams, requestId, path);
        }
        return create(rule.action(), path);
    }

    /**
     * The handler of an action that needs nothing but itself ({@code respond}, {@code files}).
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
        if (action instanceof Route.Backends) {
            throw new IllegalArgumentException(path + ".backends: proxying needs the rule and the config's upstreams"
                    + " (Handlers.create with a rule)");
        }
        throw new IllegalArgumentException(path + ": unknown action");
    }
}
