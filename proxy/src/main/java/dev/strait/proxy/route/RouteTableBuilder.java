package dev.strait.proxy.route;

import dev.strait.model.Config;
import dev.strait.model.ConfigWriter;
import dev.strait.model.Route;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
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
    }

    public static RouteTable build(Config config, HandlerFactory handlers) {
        return build(config, handlers, ConfigWriter.version(config));
    }

    /** @param version {@link ConfigWriter#version} of {@code config}, when the caller has it (or a faster way to it) */
    public static RouteTable build(Config config, HandlerFactory handlers, String version) {
        Map<String, HostBuilder> hosts = new LinkedHashMap<>();
        int order = 0;
        for (int ri = 0; ri < config.routes().size(); ri++) {
            Route route = config.routes().get(ri);
            List<Candidate> candidates = new ArrayList<>();
            for (int i = 0; i < route.rules().size(); i++) {
                Route.Rule rule = route.rules().get(i);
                String path = "routes[" + ri + "].rules[" + i + "]";
                CompiledRule compiled = new CompiledRule(route.name(), i, handlers.create(route, i, rule, path));
                for (Route.Match m : rule.matches()) {
                    candidates.add(candidate(m, compiled, order++));
                }
            }
            for (String host : route.hosts()) {
                HostBuilder hb = hosts.computeIfAbsent(host, h -> new HostBuilder());
                candidates.forEach(hb::add);
            }
        }
        Map<String, VirtualHost> exact = new HashMap<>();
        Map<String, VirtualHost> wildcard = new HashMap<>();
        VirtualHost any = null;
        for (Map.Entry<String, HostBuilder> e : hosts.entrySet()) {
            String h = e.getKey();
            VirtualHost vh = e.getValue().build();
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

    private static Candidate candidate(Route.Match m, CompiledRule rule, int order) {
        String[] names = new String[m.headers().size()];
        String[] values = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            names[i] = m.headers().get(i).name();
            values[i] = m.headers().get(i).value();
        }
        Route.PathMatch pm = m.path() == null ? new Route.PathMatch(Route.PathType.Prefix, "/") : m.path();
        String value = pm.value();
        Pattern regex = null;
        if (pm.type() == Route.PathType.RegularExpression) {
            regex = Pattern.compile(value);
        } else if (pm.type() == Route.PathType.Prefix && value.length() > 1 && value.endsWith("/")) {
            // Prefixes match by path element, so a trailing slash does not change what matches.
            value = value.substring(0, value.length() - 1);
        }
        String method = m.method() == null ? null : m.method().toUpperCase(Locale.ROOT);
        return new Candidate(pm.type(), value, method, names, values, regex, rule, order);
    }

    private static final class HostBuilder {
        private static final Comparator<Candidate> PRECEDENCE =
                Comparator.comparingInt(Candidate::specificity).reversed().thenComparingInt(c -> c.order);
        private final Map<String, List<Candidate>> exact = new HashMap<>();
        private final Map<String, List<Candidate>> prefix = new HashMap<>();
        private final List<Candidate> regex = new ArrayList<>();

        void add(Candidate c) {
            switch (c.pathType) {
                case Exact -> exact.computeIfAbsent(c.pathValue, k -> new ArrayList<>()).add(c);
                case Prefix -> prefix.computeIfAbsent(c.pathValue, k -> new ArrayList<>()).add(c);
                case RegularExpression -> regex.add(c);
            }
        }

        VirtualHost build() {
            Candidate[] rx = regex.toArray(new Candidate[0]);
            if (rx.length > 1) {
                Arrays.sort(rx, Comparator.comparingInt(c -> c.order));
            }
            return new VirtualHost(sorted(exact), sorted(prefix), rx);
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
