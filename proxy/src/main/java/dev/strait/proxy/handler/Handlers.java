package dev.strait.proxy.handler;

import dev.strait.model.Config;
import dev.strait.model.Route;
import dev.strait.model.Upstream;
import dev.strait.proxy.fastcgi.FastCgiHandler;
import dev.strait.proxy.handler.files.FileHandler;
import dev.strait.proxy.handler.fixed.FixedResponseHandler;
import dev.strait.proxy.route.Handler;

/** Makes the handler for each kind of rule action. */
public final class Handlers {
    private Handlers() {}

    /**
     * The handler for a rule: a rule whose backends name fastcgi upstreams is served over FastCGI, with
     * the rule's {@code fastcgi} settings; other rules by their action alone.
     *
     * @param config the whole config, where the upstreams the rule names are
     * @throws IllegalArgumentException naming what cannot be served (the config is then refused)
     */
    public static Handler create(Config config, Route route, Route.Rule rule, String path) {
        if (rule.action() instanceof Route.Backends b && (rule.fastcgi() != null || namesFastCgi(config, b))) {
            return FastCgiHandler.create(config, route, rule, path);
        }
        return create(rule.action(), path);
    }

    private static boolean namesFastCgi(Config config, Route.Backends b) {
        for (Route.Backend be : b.backends()) {
            for (Upstream u : config.upstreams()) {
                if (u.name().equals(be.upstream()) && u.protocol() == Upstream.Protocol.FASTCGI) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
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
            throw new IllegalArgumentException(path + ".backends: proxying to upstreams is not available in this"
                    + " version yet (see docs/config.md)");
        }
        throw new IllegalArgumentException(path + ": unknown action");
    }
}
