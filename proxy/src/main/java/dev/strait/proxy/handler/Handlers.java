package dev.strait.proxy.handler;

import dev.strait.model.Route;
import dev.strait.proxy.handler.files.FileHandler;
import dev.strait.proxy.handler.fixed.FixedResponseHandler;
import dev.strait.proxy.route.Handler;

/** Makes the handler for each kind of rule action. */
public final class Handlers {
    private Handlers() {}

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
