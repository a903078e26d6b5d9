package dev.strait.proxy.config;

import dev.strait.model.Config;
import dev.strait.model.ConfigError;
import dev.strait.model.InvalidConfigException;
import dev.strait.model.Route;
import dev.strait.proxy.handler.Handlers;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.RouteTable;
import dev.strait.proxy.route.RouteTableBuilder;
import dev.strait.proxy.tls.ServerTls;
import dev.strait.proxy.tls.UpstreamTls;
import dev.strait.proxy.upstream.UpstreamSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns a parsed config into a servable {@link Snapshot}, checking what only the proxy can check (a
 * files root exists, an action is available). Every handler that cannot be made is reported.
 */
public final class SnapshotBuilder {
    private SnapshotBuilder() {}

    public static Snapshot build(Config config, String source) throws InvalidConfigException {
        List<ConfigError> errors = new ArrayList<>();
        // Upstreams compile to plain values (no sockets): pools and health live in the server's UpstreamContext.
        Map<String, UpstreamSpec> upstreams = UpstreamSpec.compile(config, UpstreamTls.build(config, errors));
        RouteTable table = RouteTableBuilder.build(config, new RouteTableBuilder.HandlerFactory() {
            @Override
            public Handler create(Route.Action action, String path) {
                throw new UnsupportedOperationException("the table is built with whole rules");
            }

            @Override
            public Handler create(Route route, int index, Route.Rule rule, String path) {
                try {
                    return Handlers.create(config, route, index, rule, path, upstreams);
                } catch (IllegalArgumentException e) {
                    String msg = e.getMessage();
                    int colon = msg.indexOf(": ");
                    errors.add(colon > 0 && msg.startsWith("routes[")
                            ? new ConfigError(msg.substring(0, colon), msg.substring(colon + 2))
                            : new ConfigError(path, msg));
                    return ex -> { };
                }
            }
        });
        // Certificates are read and checked here, so a bad one is a config error and the last good config stays.
        ServerTls tls = ServerTls.build(config, errors);
        if (!errors.isEmpty()) {
            throw new InvalidConfigException(source, errors);
        }
        return new Snapshot(config, table, config.limits(), config.accessLog().enabled(), upstreams, tls);
    }
}
