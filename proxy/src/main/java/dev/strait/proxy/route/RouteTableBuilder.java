package dev.strait.proxy.route;

import dev.strait.model.Config;
import dev.strait.model.ConfigWriter;
import dev.strait.model.Route;
import dev.strait.proxy.cors.CorsHandler;
import dev.strait.proxy.headers.HeaderEditHandler;
import dev.strait.proxy.headers.HstsHandler;
import dev.strait.proxy.guard.RuleGuard;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Compiles a {@link Config}'s routes into a {@link RouteTable}. All the work (regex compilation,
 * response pre-encoding, sorting) happens here, once per config, so that lookups only read.
 * Routes that claim the same host are merged into one virtual host, in config order.
 */
public final class RouteTableBuilder {
    private RouteTableBuilder() {}

    /** Makes a rule's handler from its action. */
    @FunctionalInterface
    public interface HandlerFactory {
        /**
         * @param path the rule's field path, for messages
         * @throws IllegalArgumentException naming what is wrong (the config is then refused)
         */
        Handler create(Route.Action action, String path);

        /**
         * The rule's handler when it needs more than its action (proxying reads the rule's timeouts,
         * retries and host rewrite); by default the action's.
         *
         * @param index the rule's position in its route
         */
        default Handler create(Route route, int index, Route.Rule rule, String path) {
            return create(rule.action(), path);
        }

        /**
         * The handler of the rule at {@code routes[routeIndex].rules[index]}: what the builder asks for. A
         * factory that reuses handlers can answer without making the rule's path, a string per rule per
         * build (20k per change at 10k Routes) that only a new handler or an error reads.
         */
        default Handler create(int routeIndex, Route route, int index, Route.Rule rule) {
            return create(route, index, rule, path(routeIndex, index));
        }
    }

    /** A rule's field path in the config, for messages. */
    public static String path(int routeIndex, int index) {
        return "routes[" + routeIndex + "].rules[" + index + "]";
    }

    public static RouteTable build(Config config, HandlerFactory handlers) {
        return build(config, handlers, ConfigWriter.version(config));
    }

    /** @param version {@link ConfigWriter#version} of {@code config}, when the caller has it (or a faster way to it) */
    public static RouteTable build(Config config, HandlerFactory handlers, String version) {
        return build(config, handlers, version, null);
    }

    /**
     * What one stream of configs (the control channel's) built per host, for the next build: a host whose
     * rules come out the same (the same matches, by identity, with equal compiled rules: same route name,
     * index and handler instance, in the same order) keeps its {@link VirtualHost}, which only reads them.
     * Hosts are kept per table (each listener's, and the one of routes on every listener), so a route bound
     * to listeners keeps its hosts as a route on all does. A build with it gives tables that answer every
     * request as ones built without. Use from one thread; {@link #commit} after the table is accepted or
     * refused.
     */
    public static final class Memo {
        private Map<String, Map<String, Built>> previous = new HashMap<>();
        private Map<String, Map<String, Built>> pending;
        private IdentityHashMap<Route, List<Object>> previousRoutes = new IdentityHashMap<>();
        private IdentityHashMap<Route, List<Object>> pendingRoutes;
        private long reused;

        /** Hosts whose compiled form was reused, so far. */
        public long reused() {
            return reused;
        }

        /** Keeps what the last build made when its table is the one now served; forgets it otherwise. */
        public void commit(boolean accepted) {
            if (accepted && pending != null) {
                previous = pending;
                previousRoutes = pendingRoutes;
            }
            pending = null;
            pendingRoutes = null;
        }

        /**
         * A memo that starts from what this one kept and then goes its own way, for throwaway builds (the
         * warm-up, ADR 0030): the kept maps are shared, which is safe because neither memo modifies them
         * in place (a build fills its own pending maps; a commit replaces the kept ones).
         */
        public Memo copy() {
            Memo m = new Memo();
            m.previous = previous;
            m.previousRoutes = previousRoutes;
            return m;
        }

        private record Built(List<Object> rules, VirtualHost host) {}
    }

    /**
     * The tables of one config: {@code all}, the routes served on every listener, and, only when a route
     * names listeners, each listener's own table ({@code null} otherwise, so a config whose routes name
     * none has one table, as before listeners could be named).
     */
    public record Tables(RouteTable all, Map<String, RouteTable> byListener) {}

    /** @param memo what earlier builds of the same stream made, or null */
    public static RouteTable build(Config config, HandlerFactory handlers, String version, Memo memo) {
        return tables(config, handlers, version, memo).all();
    }

    /** The memo's key of the table of routes on every listener (listener names are never empty). */
    private static final String ALL = "";

    /**
     * Compiles every table of the config (see {@link Tables}). Each rule's handler is made once per build,
     * whatever the number of listeners it is served on, and a host whose rules are the very same list in
     * two tables (one route, or routes on every listener) shares one {@link VirtualHost}.
     *
     * @param memo what earlier builds of the same stream made, or null
     */
    public static Tables tables(Config config, HandlerFactory handlers, String version, Memo memo) {
        // Each route's (compiled rule, match) pairs, made once whatever the listeners that serve it.
        List<List<Object>> pairsByRoute = new ArrayList<>(config.routes().size());
        IdentityHashMap<Route, List<Object>> routePairs = memo == null ? null
                : new IdentityHashMap<>(config.routes().size() * 2);
        boolean bound = false;
        for (int ri = 0; ri < config.routes().size(); ri++) {
            Route route = config.routes().get(ri);
            // Every rule's handler is asked for on every build (making one may check the machine, and
            // reports what is wrong); the same Route with the same handlers keeps its pairs list.
            List<Route.Rule> ruleList = rulesOf(route);
            Handler[] made = new Handler[ruleList.size()];
            for (int i = 0; i < made.length; i++) {
                made[i] = handlers.create(ri, route, i, ruleList.get(i));
            }
            List<Object> before = memo == null ? null : memo.previousRoutes.get(route);
            List<Object> rules = before != null && sameHandlers(before, made) ? before : pairs(route, made);
            if (routePairs != null) {
                routePairs.put(route, rules);
            }
            pairsByRoute.add(rules);
            bound |= route.listeners() != null;
        }
        if (memo != null) {
            memo.pendingRoutes = routePairs;
        }
        Map<String, Map<String, Memo.Built>> built = memo == null ? null : new HashMap<>();
        IdentityHashMap<List<Object>, VirtualHost> compiled = bound ? new IdentityHashMap<>() : null;
        RouteTable all = table(config, pairsByRoute, null, version, memo, built, compiled);
        Map<String, RouteTable> byListener = null;
        if (bound) {
            byListener = new HashMap<>();
            for (Config.Listener l : config.listeners()) {
                byListener.put(l.name(), table(config, pairsByRoute, l.name(), version, memo, built, compiled));
            }
        }
        if (memo != null) {
            memo.pending = built;
        }
        return new Tables(all, byListener == null ? null : Collections.unmodifiableMap(byListener));
    }

    /**
     * One table: the routes served on {@code listener}, or with {@code null} those on every listener.
     *
     * @param compiled the virtual hosts this build made so far, by their rules list (null: one table only)
     */
    private static RouteTable table(Config config, List<List<Object>> pairsByRoute, String listener, String version,
                                    Memo memo, Map<String, Map<String, Memo.Built>> built,
                                    IdentityHashMap<List<Object>, VirtualHost> compiled) {
        // Each host's rules in config order, as (compiled rule, match) pairs: routes that claim the same
        // host are merged into one virtual host, in config order.
        Map<String, List<Object>> hosts = new LinkedHashMap<>();
        for (int ri = 0; ri < config.routes().size(); ri++) {
            Route route = config.routes().get(ri);
            if (listener == null ? route.listeners() != null : !route.servedOn(listener)) {
                continue;
            }
            List<Object> rules = pairsByRoute.get(ri);
            for (String host : route.hosts()) {
                List<Object> merged = hosts.get(host);
                if (merged == null) {
                    hosts.put(host, rules); // shared until a second route claims the host
                } else if (merged instanceof ArrayList<Object> own) {
                    own.addAll(rules);
                } else {
                    ArrayList<Object> own = new ArrayList<>(merged.size() + rules.size());
                    own.addAll(merged);
                    own.addAll(rules);
                    hosts.put(host, own);
                }
            }
        }
        String key = listener == null ? ALL : listener;
        Map<String, Memo.Built> before = memo == null ? null : memo.previous.get(key);
        Map<String, Memo.Built> now = built == null ? null : new HashMap<>(hosts.size() * 2);
        if (built != null) {
            built.put(key, now);
        }
        Map<String, VirtualHost> exact = new HashMap<>();
        Map<String, VirtualHost> wildcard = new HashMap<>();
        VirtualHost any = null;
        for (Map.Entry<String, List<Object>> e : hosts.entrySet()) {
            String h = e.getKey();
            VirtualHost vh = compiled == null ? null : compiled.get(e.getValue());
            if (vh == null && before != null) {
                Memo.Built b = before.get(h);
                if (b != null && sameRules(b.rules(), e.getValue())) {
                    vh = b.host();
                    memo.reused++;
                }
            }
            if (vh == null) {
                HostBuilder hb = new HostBuilder();
                List<Object> pairs = e.getValue();
                for (int i = 0; i < pairs.size(); i += 2) {
                    // The place within the host is the order: only the relative order of a host's rules counts.
                    hb.add(candidate((Route.Match) pairs.get(i + 1), (CompiledRule) pairs.get(i), i / 2));
                }
                vh = hb.build();
            }
            if (compiled != null) {
                compiled.put(e.getValue(), vh);
            }
            if (now != null) {
                now.put(h, new Memo.Built(e.getValue(), vh));
            }
            if (h.equals("*")) {
                any = vh;
            } else if (h.startsWith("*.")) {
                wildcard.put(h.substring(2), vh);
            } else {
                exact.put(h, vh);
            }
        }
        return new RouteTable(version, exact, wildcard, any);
    }

    /**
     * What answers HTTP for the hosts of a {@code tlsPassthrough} route, whose TLS connections never reach the
     * table: a plain-HTTP request is sent to https (308, method and body kept), and one that came over TLS this
     * listener ended (its SNI named another host, or none) is told it reached the wrong server (421, RFC 9110
     * 15.5.20), since the host's certificate is its backend's.
     */
    private static final List<Route.Rule> PASSTHROUGH_RULES = List.of(
            new Route.Rule(List.of(new Route.Match(null, null, List.of())),
                    new Route.Redirect("https", null, null, null, 308), null, null, null),
            new Route.Rule(List.of(new Route.Match(null, null, List.of())),
                    new Route.Respond(421, "421 Misdirected Request: this host's TLS is passed through to its"
                            + " backend; connect with its name as the TLS server name (SNI)\n",
                            Map.of("content-type", "text/plain; charset=utf-8")), null, null, null));

    /** The rules a route answers with. */
    private static List<Route.Rule> rulesOf(Route route) {
        return route.tlsPassthrough() != null ? PASSTHROUGH_RULES : route.rules();
    }

    /**
     * A route's (compiled rule, match) pairs, read only. A rule's matches share one compiled rule, except
     * where its handler answers per matched prefix ({@link PrefixAware}): each Prefix match then gets the
     * handler for its own prefix, so the rule found for a request carries the prefix that matched it.
     */
    private static List<Object> pairs(Route route, Handler[] made) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < made.length; i++) {
            Route.Rule rule = rulesOf(route).get(i);
            RuleGuard guard = RuleGuard.of(rule, route.hsts());
            long maxBody = rule.maxBodyBytes() == null ? -1 : rule.maxBodyBytes();
            String hsts = route.hsts() == null ? null : route.hsts().value();
            CompiledRule compiled = new CompiledRule(route.name(), i, decorated(made[i], route, rule), guard, maxBody,
                    rule.accessLog(), rule.tracing(), hsts);
            for (Route.Match m : rule.matches()) {
                CompiledRule c = compiled;
                if (made[i] instanceof PrefixAware pa && (m.path() == null || m.path().type() == Route.PathType.Prefix)) {
                    Handler h = pa.forPrefix(m.path() == null ? "/" : prefixValue(m.path().value()));
                    if (h != made[i]) {
                        c = new CompiledRule(route.name(), i, decorated(h, route, rule), guard, maxBody, rule.accessLog(),
                                rule.tracing(), hsts);
                    }
                }
                out.add(c);
                out.add(m);
            }
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * The rule's action with what surrounds it: its CORS, outside that its header edits, which win, and outermost
     * the route's HSTS, which an answer's own {@code Strict-Transport-Security} (a rule's edit) wins over.
     */
    private static Handler decorated(Handler action, Route route, Route.Rule rule) {
        return HstsHandler.wrap(HeaderEditHandler.wrap(CorsHandler.wrap(action, rule.cors()), rule.requestHeaders(),
                rule.responseHeaders()), route.hsts());
    }

    private static boolean sameHandlers(List<Object> pairs, Handler[] made) {
        for (int i = 0; i < pairs.size(); i += 2) {
            CompiledRule r = (CompiledRule) pairs.get(i);
            Handler h = r.handler() instanceof PrefixAware pa ? pa.unbound() : r.handler();
            if (r.index() >= made.length || h != made[r.index()]) {
                return false;
            }
        }
        return true;
    }

    /** Prefixes match by path element, so a trailing slash does not change what matches. */
    private static String prefixValue(String value) {
        return value.length() > 1 && value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
    }

    private static boolean sameRules(List<Object> before, List<Object> now) {
        if (before == now) {
            return true;
        }
        if (before.size() != now.size()) {
            return false;
        }
        for (int i = 0; i < now.size(); i += 2) {
            // Matches are immutable values shared by an unchanged Route; compiled rules are equal when they
            // name the same route and index and hold the very same handler.
            if (before.get(i + 1) != now.get(i + 1) || !before.get(i).equals(now.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static Candidate candidate(Route.Match m, CompiledRule rule, int order) {
        int h = m.headers().size();
        String[] names = new String[h + m.cookies().size()];
        String[] values = new String[names.length];
        Pattern[] patterns = null;
        for (int i = 0; i < h; i++) {
            Route.HeaderMatch hm = m.headers().get(i);
            names[i] = hm.name();
            values[i] = hm.value();
            if (hm.type() == Route.HeaderMatchType.RegularExpression) {
                if (patterns == null) {
                    patterns = new Pattern[names.length];
                }
                patterns[i] = Pattern.compile(hm.value());
            }
        }
        for (int i = h; i < names.length; i++) {
            // A cookie condition rides with the header ones, its name marked (no header name holds a NUL).
            names[i] = Candidate.COOKIE + m.cookies().get(i - h).name();
            values[i] = m.cookies().get(i - h).value();
        }
        Route.PathMatch pm = m.path() == null ? new Route.PathMatch(Route.PathType.Prefix, "/") : m.path();
        String value = pm.value();
        Pattern regex = null;
        if (pm.type() == Route.PathType.RegularExpression) {
            regex = Pattern.compile(value);
        } else if (pm.type() == Route.PathType.Prefix) {
            value = prefixValue(value);
        }
        String method = m.method() == null ? null : m.method().toUpperCase(Locale.ROOT);
        return new Candidate(pm.type(), value, method, names, values, patterns, regex, rule, order, pm.priority());
    }

    private static final class HostBuilder {
        private static final Comparator<Candidate> PRECEDENCE =
                Comparator.comparingInt(Candidate::specificity).reversed().thenComparingInt(c -> c.order);
        /** A host's regex paths: higher {@code priority} first, then in config order (ADR 0074). */
        private static final Comparator<Candidate> REGEX_ORDER =
                Comparator.comparingInt((Candidate c) -> c.priority).reversed().thenComparingInt(c -> c.order);
        private final Map<String, List<Candidate>> exact = new HashMap<>();
        private final Map<String, List<Candidate>> prefix = new HashMap<>();
        private final List<Candidate> regex = new ArrayList<>();
        /** The first (in config order) of the host's routes' HSTS values, for its 404. */
        private String hsts;

        void add(Candidate c) {
            if (hsts == null) {
                hsts = c.rule.hsts();
            }
            switch (c.pathType) {
                case Exact -> exact.computeIfAbsent(c.pathValue, k -> new ArrayList<>()).add(c);
                case Prefix -> prefix.computeIfAbsent(c.pathValue, k -> new ArrayList<>()).add(c);
                case RegularExpression -> regex.add(c);
            }
        }

        VirtualHost build() {
            Candidate[] rx = regex.toArray(new Candidate[0]);
            if (rx.length > 1) {
                Arrays.sort(rx, REGEX_ORDER);
            }
            return new VirtualHost(sorted(exact), sorted(prefix), rx, hsts);
        }

        // Plain loops: at 10k hosts of one or two paths each, streams cost more than the sort.
        private static Map<String, Candidate[]> sorted(Map<String, List<Candidate>> in) {
            Map<String, Candidate[]> out = new HashMap<>(Math.max(4, in.size() * 2));
            for (Map.Entry<String, List<Candidate>> e : in.entrySet()) {
                Candidate[] cs = e.getValue().toArray(new Candidate[0]);
                if (cs.length > 1) {
                    Arrays.sort(cs, PRECEDENCE);
                }
                out.put(e.getKey(), cs);
            }
            return out;
        }
    }
}
