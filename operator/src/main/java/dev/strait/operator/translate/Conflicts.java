package dev.strait.operator.translate;

import dev.strait.model.Route;
import java.lang.reflect.RecordComponent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Two Routes of one scope claiming the same host and the same match (path type and value, method,
 * header conditions): the older Route keeps it (creation time, then namespace/name), the younger one
 * loses that match, and the loss is reported on the younger one with the field path of the match.
 * This is Gateway API's rule; it keeps a newly created Route from taking traffic away from one that
 * was already serving.
 *
 * <p>One instance per scope lives from one translation to the next (ADR 0028): the owners it decided
 * stay, and a translation decides again only the keys that a changed, added or removed Route claims or
 * claimed, together with every key of every Route that competes for one of those (transitively: a
 * Route that loses one host of a match gives up the match's other hosts, which a younger Route may
 * then take). Those keys lose their owners ({@link #reopen}) and their Routes claim again, oldest
 * first; keys outside that closure have the same claimants as before, in the same order, so the same
 * owners as a translation from nothing would give them.
 */
final class Conflicts {
    /** The claim key of a host's catch-all from an Ingress's defaultBackend (no path key looks like it). */
    private static final String DEFAULT_BACKEND = "defaultBackend";
    /** The claim key of a host a Route passes TLS through for. */
    private static final String PASSTHROUGH = "tlsPassthrough";

    private final Map<String, ResourceKey> owners;
    /** Each Route's claim keys, by rule, match and host: a Route's are the same every time (ADR 0025). */
    private final KeyCache keys;
    /**
     * Who competes for each key: every source with a Route model in this scope, whether or not it turns
     * out valid (a superset of those that claim, which can only make {@link #reopen} reopen more).
     */
    private final Map<String, Set<ResourceKey>> claimants = new HashMap<>();
    /** Keys entered or left since the last {@link #reopen}. */
    private final Set<String> dirty = new HashSet<>();

    Conflicts() {
        this(new KeyCache());
    }

    Conflicts(KeyCache keys) {
        this.keys = keys;
        this.owners = new HashMap<>();
    }

    /** A source competes for the keys of {@code route} from this translation on. */
    void enter(ResourceKey source, Route route) {
        for (String[][] rule : keys.of(route)) {
            for (String[] match : rule) {
                for (String c : match) {
                    claimants.computeIfAbsent(c, x -> new HashSet<>(2)).add(source);
                    dirty.add(c);
                }
            }
        }
    }

    /** A source no longer competes for the keys of {@code route} (its old model: it changed or went away). */
    void leave(ResourceKey source, Route route) {
        for (String[][] rule : keys.of(route)) {
            for (String[] match : rule) {
                for (String c : match) {
                    Set<ResourceKey> who = claimants.get(c);
                    if (who != null && who.remove(source) && who.isEmpty()) {
                        claimants.remove(c);
                    }
                    dirty.add(c);
                }
            }
        }
    }

    /**
     * Ends the entering and leaving: the keys touched, closed over the sources competing for them (each
     * source's keys from {@code routesOf}, its Routes in this translation), lose their owners. Returns
     * those sources: they must claim again, oldest first; every other source keeps what it owned.
     */
    Set<ResourceKey> reopen(Function<ResourceKey, List<Route>> routesOf) {
        Set<ResourceKey> sources = new HashSet<>();
        ArrayDeque<String> todo = new ArrayDeque<>(dirty);
        Set<String> seen = new HashSet<>(dirty);
        dirty.clear();
        while (!todo.isEmpty()) {
            String c = todo.poll();
            owners.remove(c);
            for (ResourceKey source : claimants.getOrDefault(c, Set.of())) {
                if (sources.add(source)) {
                    for (Route route : routesOf.apply(source)) {
                        for (String[][] rule : keys.of(route)) {
                            for (String[] match : rule) {
                                for (String k : match) {
                                    if (seen.add(k)) {
                                        todo.add(k);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return sources;
    }

    /**
     * The claim keys of Routes (immutable model values) by identity, kept from one translation to the
     * next for the Routes it used again; shared by the scopes of a translation, used by one thread.
     */
    static final class KeyCache {
        private IdentityHashMap<Route, String[][][]> previous = new IdentityHashMap<>();
        private IdentityHashMap<Route, String[][][]> current = new IdentityHashMap<>();

        String[][][] of(Route route) {
            String[][][] k = current.get(route);
            if (k == null) {
                k = previous.get(route);
                if (k == null) {
                    // One key per host and listener that serves the route: Routes on different listeners (the
                    // ssl-redirect on http, the site on https) do not compete.
                    List<String> on = route.listeners() == null ? ProxyDefaults.LISTENERS : route.listeners();
                    k = route.tlsPassthrough() != null ? passthroughKeys(route, on) : ruleKeys(route, on);
                }
                current.put(route, k);
            }
            return k;
        }

        private static String[][][] ruleKeys(Route route, List<String> on) {
            // An Ingress's defaultBackend competes only with other defaultBackends: every explicit path
            // of the host answers before it, whatever their ages (ADR 0056).
            boolean fallback = IngressRoutes.yields(route.name());
            int hosts = route.hosts().size();
            String[][][] k = new String[route.rules().size()][][];
            for (int i = 0; i < k.length; i++) {
                List<Route.Match> ms = route.rules().get(i).matches();
                k[i] = new String[ms.size()][hosts * on.size()];
                for (int j = 0; j < ms.size(); j++) {
                    for (int h = 0; h < hosts; h++) {
                        String key = fallback ? route.hosts().get(h) + " " + DEFAULT_BACKEND
                                : key(route.hosts().get(h), ms.get(j));
                        for (int l = 0; l < on.size(); l++) {
                            k[i][j][h * on.size() + l] = on.get(l) + " " + key;
                        }
                    }
                }
            }
            return k;
        }

        /**
         * A passed-through Route's keys, as one match of one rule: a host per listener, which only another Route
         * passing the host through competes for (the model lets one Route pass a host through per listener).
         */
        private static String[][][] passthroughKeys(Route route, List<String> on) {
            String[] k = new String[route.hosts().size() * on.size()];
            for (int h = 0; h < route.hosts().size(); h++) {
                for (int l = 0; l < on.size(); l++) {
                    k[h * on.size() + l] = on.get(l) + " " + route.hosts().get(h) + " " + PASSTHROUGH;
                }
            }
            return new String[][][] {{k}};
        }

        /** A translation is done: keep what it used. */
        void next() {
            previous = current;
            current = new IdentityHashMap<>();
        }
    }

    /**
     * The route without the matches that older routes already claim; {@code lost} gets one message per
     * match. The route itself when it loses nothing.
     */
    Route claim(ResourceKey key, Route route, List<Boolean> implicitMatches, List<String> lost) {
        String[][][] k = keys.of(route);
        if (!contested(key, k)) {
            // The usual case, and at 10k Routes per rebuild the one worth making cheap: nothing to drop.
            for (String[][] rule : k) {
                for (String[] match : rule) {
                    for (String c : match) {
                        owners.putIfAbsent(c, key);
                    }
                }
            }
            return route;
        }
        if (route.tlsPassthrough() != null) {
            return claimPassthrough(key, route, k[0][0], lost);
        }
        List<Route.Rule> rules = null; // made only once a match is lost
        List<String> claimed = new ArrayList<>();
        for (int i = 0; i < route.rules().size(); i++) {
            Route.Rule rule = route.rules().get(i);
            List<Route.Match> kept = new ArrayList<>();
            for (int j = 0; j < rule.matches().size(); j++) {
                Route.Match m = rule.matches().get(j);
                String conflict = null;
                int perHost = k[i][j].length / route.hosts().size(); // keys per host: one per listener
                for (int h = 0; h < k[i][j].length; h++) {
                    ResourceKey owner = owners.get(k[i][j][h]);
                    if (owner != null && !owner.equals(key)) {
                        String where = implicitMatches.get(i) ? "spec.rules[" + i + "]" : "spec.rules[" + i + "].matches[" + j + "]";
                        String host = "host \"" + route.hosts().get(h / perHost) + "\"";
                        String on = route.listeners() == null ? ""
                                : " on listener " + k[i][j][h].substring(0, k[i][j][h].indexOf(' '));
                        String by = owner.kind() + " " + owner.namespace() + "/" + owner.name();
                        conflict = IngressRoutes.yields(route.name())
                                ? where + ": " + host + on + " already has the defaultBackend of " + by
                                        + " (the older Ingress wins)"
                                : where + ": " + host + " " + describe(m) + on + " is already served by " + by
                                        + " (the older Route wins)";
                        break;
                    }
                }
                if (conflict != null) {
                    lost.add(conflict);
                } else {
                    kept.add(m);
                    claimed.addAll(Arrays.asList(k[i][j]));
                }
            }
            if (rules == null && (kept.isEmpty() || kept.size() != rule.matches().size())) {
                rules = new ArrayList<>(route.rules().subList(0, i));
            }
            if (rules != null && !kept.isEmpty()) {
                rules.add(kept.size() == rule.matches().size() ? rule : withMatches(rule, kept));
            }
        }
        for (String c : claimed) {
            owners.putIfAbsent(c, key);
        }
        return rules == null ? route : new Route(route.name(), route.hosts(), rules, route.listeners(), null, route.hsts());
    }

    /**
     * A passed-through Route without the hosts an older Route passes through on one of its listeners (its connections
     * cannot go two ways); with none left, its hosts are empty and it serves nothing.
     */
    private Route claimPassthrough(ResourceKey key, Route route, String[] k, List<String> lost) {
        int perHost = k.length / route.hosts().size(); // one per listener
        List<String> hosts = new ArrayList<>();
        List<String> claimed = new ArrayList<>();
        for (int h = 0; h < route.hosts().size(); h++) {
            String conflict = null;
            for (int l = h * perHost; l < (h + 1) * perHost && conflict == null; l++) {
                ResourceKey owner = owners.get(k[l]);
                if (owner != null && !owner.equals(key)) {
                    conflict = "spec.hosts[" + h + "]: host \"" + route.hosts().get(h) + "\"" + (route.listeners() == null
                            ? "" : " on listener " + k[l].substring(0, k[l].indexOf(' '))) + " is already passed through by "
                            + owner.kind() + " " + owner.namespace() + "/" + owner.name() + " (the older Route wins)";
                }
            }
            if (conflict != null) {
                lost.add(conflict);
            } else {
                hosts.add(route.hosts().get(h));
                claimed.addAll(Arrays.asList(k).subList(h * perHost, (h + 1) * perHost));
            }
        }
        for (String c : claimed) {
            owners.putIfAbsent(c, key);
        }
        return new Route(route.name(), hosts, List.of(), route.listeners(), route.tlsPassthrough());
    }

    /** Whether another (older) source already owns one of these keys. */
    private boolean contested(ResourceKey key, String[][][] k) {
        for (String[][] rule : k) {
            for (String[] match : rule) {
                for (String c : match) {
                    ResourceKey owner = owners.get(c);
                    if (owner != null && !owner.equals(key)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * The rule with other matches and every other component unchanged. Copied through the record's
     * components rather than by naming them, so that settings the model gains later (it grows with the
     * proxy's features) are never silently dropped from a Route that lost a conflict.
     */
    static Route.Rule withMatches(Route.Rule rule, List<Route.Match> matches) {
        return with(rule, matches, rule.action());
    }

    /** The same with another action too (a canary's split), for the same reason. */
    static Route.Rule with(Route.Rule rule, List<Route.Match> matches, Route.Action action) {
        RecordComponent[] components = Route.Rule.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                values[i] = switch (components[i].getName()) {
                    case "matches" -> matches;
                    case "action" -> action;
                    default -> components[i].getAccessor().invoke(rule);
                };
            }
            return Route.Rule.class.getDeclaredConstructor(types).newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot copy a rule", e);
        }
    }

    private static String key(String host, Route.Match m) {
        Route.PathMatch p = m.path() == null ? new Route.PathMatch(Route.PathType.Prefix, "/") : m.path();
        String value = p.type() == Route.PathType.Prefix && p.value().length() > 1 && p.value().endsWith("/")
                ? p.value().substring(0, p.value().length() - 1) : p.value(); // "/api/" and "/api" match alike
        String headers = m.headers().stream()
                .map(h -> h.name().toLowerCase(Locale.ROOT) + "=" + h.value())
                .sorted().collect(Collectors.joining("&"));
        return host + " " + p.type() + " " + value + " " + (m.method() == null ? "" : m.method()) + " " + headers;
    }

    private static String describe(Route.Match m) {
        Route.PathMatch p = m.path() == null ? new Route.PathMatch(Route.PathType.Prefix, "/") : m.path();
        StringBuilder sb = new StringBuilder("path ").append(p.type()).append(' ').append(p.value());
        if (m.method() != null) {
            sb.append(" method ").append(m.method());
        }
        if (!m.headers().isEmpty()) {
            sb.append(" with headers ").append(m.headers().stream().map(h -> h.name() + ": " + h.value())
                    .collect(Collectors.joining(", ")));
        }
        return sb.toString();
    }
}
