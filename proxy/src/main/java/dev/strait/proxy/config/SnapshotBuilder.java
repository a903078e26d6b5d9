package dev.strait.proxy.config;

import dev.strait.model.Config;
import dev.strait.model.ConfigError;
import dev.strait.model.ConfigWriter;
import dev.strait.model.InvalidConfigException;
import dev.strait.model.Route;
import dev.strait.proxy.handler.Handlers;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.RouteTableBuilder;
import dev.strait.proxy.tls.ServerTls;
import dev.strait.proxy.tls.UpstreamTls;
import dev.strait.proxy.upstream.UpstreamSpec;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a parsed config into a servable {@link Snapshot}, checking what only the proxy can check (a
 * files root exists, an action is available). Every handler that cannot be made is reported.
 */
public final class SnapshotBuilder {
    private SnapshotBuilder() {}

    public static Snapshot build(Config config, String source) throws InvalidConfigException {
        return build(config, source, null);
    }

    /**
     * What one stream of configs (the control channel's) keeps from one build for the next: the content
     * version's JSON of each Route and Upstream and the fixed-response and redirect handlers, by the identity of the
     * model value (immutable; {@code ConfigParser.Memo} gives unchanged items the same value again), and
     * the virtual hosts whose rules did not change (ADR 0025). A build with it gives a snapshot that
     * serves as one built without. Use from one thread.
     */
    public static final class Reuse {
        private final ConfigWriter.Memo versions;
        private final RouteTableBuilder.Memo table;
        private IdentityHashMap<Route.Action, Handler> previous;
        private IdentityHashMap<Route.Action, Handler> current = new IdentityHashMap<>();

        public Reuse() {
            this(new ConfigWriter.Memo(), new RouteTableBuilder.Memo(), new IdentityHashMap<>());
        }

        private Reuse(ConfigWriter.Memo versions, RouteTableBuilder.Memo table,
                      IdentityHashMap<Route.Action, Handler> previous) {
            this.versions = versions;
            this.table = table;
            this.previous = previous; // never modified in place: a commit replaces it
        }

        private Handler fixed(Route.Action r, String path) {
            Handler h = kept(r);
            if (h == null) {
                h = Handlers.create(r, path);
                current.put(r, h);
            }
            return h;
        }

        /** The handler made for this very action by this build or the last, or null. */
        private Handler kept(Route.Action r) {
            Handler h = current.get(r);
            if (h == null) {
                h = previous.get(r);
                if (h != null) {
                    current.put(r, h);
                }
            }
            return h;
        }

        /** Hosts whose compiled rules were reused, so far. */
        public long hostsReused() {
            return table.reused();
        }

        /**
         * Reuse that starts from what this one kept and then goes its own way, for throwaway builds (the
         * control client's warm-up, ADR 0030); building with it changes nothing in this one.
         */
        public Reuse copy() {
            return new Reuse(versions.copy(), table.copy(), previous);
        }

        private void commit(boolean ok) {
            table.commit(ok);
            if (ok) {
                previous = current;
            }
            current = new IdentityHashMap<>();
        }
    }

    /** @param reuse what an earlier build of the same stream made, or null */
    public static Snapshot build(Config config, String source, Reuse reuse) throws InvalidConfigException {
        List<ConfigError> errors = new ArrayList<>();
        // Upstreams compile to plain values (no sockets): pools and health live in the server's UpstreamContext.
        Map<String, UpstreamSpec> upstreams = UpstreamSpec.compile(config, UpstreamTls.build(config, errors));
        RouteTableBuilder.Tables tables = RouteTableBuilder.tables(config, new RouteTableBuilder.HandlerFactory() {
            @Override
            public Handler create(Route.Action action, String path) {
                throw new UnsupportedOperationException("the table is built with whole rules");
            }

            @Override
            public Handler create(int routeIndex, Route route, int index, Route.Rule rule) {
                Handler kept = reuse != null && dependsOnActionOnly(rule) ? reuse.kept(rule.action()) : null;
                return kept != null ? kept : create(route, index, rule, RouteTableBuilder.path(routeIndex, index));
            }

            @Override
            public Handler create(Route route, int index, Route.Rule rule, String path) {
                try {
                    if (reuse != null && dependsOnActionOnly(rule)) {
                        return reuse.fixed(rule.action(), path);
                    }
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
        }, reuse == null ? ConfigWriter.version(config) : ConfigWriter.version(config, reuse.versions),
                reuse == null ? null : reuse.table);
        // Certificates are read and checked here, so a bad one is a config error and the last good config stays.
        ServerTls tls = ServerTls.build(config, errors);
        if (reuse != null) {
            reuse.commit(errors.isEmpty());
        }
        if (!errors.isEmpty()) {
            throw new InvalidConfigException(source, errors);
        }
        return new Snapshot(config, tables.all(), config.limits(), config.accessLog().enabled(), upstreams, tls,
                tables.byListener());
    }

    /** Fixed answers and redirects are made from their action alone, so an unchanged action keeps its handler. */
    private static boolean dependsOnActionOnly(Route.Rule rule) {
        return (rule.action() instanceof Route.Respond || rule.action() instanceof Route.Redirect)
                && rule.errorPages() == null && rule.forwardAuth() == null;
    }
}
