package dev.strait.operator.translate;

import dev.strait.model.Route;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Two Routes of one scope claiming the same host and the same match (path type and value, method,
 * header conditions): the older Route keeps it (creation time, then namespace/name), the younger one
 * loses that match, and the loss is reported on the younger one with the field path of the match.
 * This is Gateway API's rule; it keeps a newly created Route from taking traffic away from one that
 * was already serving.
 */
final class Conflicts {
    private final Map<String, ResourceKey> owners = new HashMap<>();

    /** The route without the matches that older routes already claim; {@code lost} gets one message per match. */
    Route claim(ResourceKey key, Route route, List<Boolean> implicitMatches, List<String> lost) {
        List<Route.Rule> rules = new ArrayList<>();
        List<String> claimed = new ArrayList<>();
        for (int i = 0; i < route.rules().size(); i++) {
            Route.Rule rule = route.rules().get(i);
            List<Route.Match> kept = new ArrayList<>();
            for (int j = 0; j < rule.matches().size(); j++) {
                Route.Match m = rule.matches().get(j);
                String where = implicitMatches.get(i) ? "spec.rules[" + i + "]" : "spec.rules[" + i + "].matches[" + j + "]";
                String conflict = null;
                for (String host : route.hosts()) {
                    ResourceKey owner = owners.get(key(host, m));
                    if (owner != null && !owner.equals(key)) {
                        conflict = where + ": host \"" + host + "\" " + describe(m) + " is already served by " + owner.kind() + " "
                                + owner.namespace() + "/" + owner.name() + " (the older Route wins)";
                        break;
                    }
                }
                if (conflict != null) {
                    lost.add(conflict);
                } else {
                    kept.add(m);
                    for (String host : route.hosts()) {
                        claimed.add(key(host, m));
                    }
                }
            }
            if (!kept.isEmpty()) {
                rules.add(kept.size() == rule.matches().size() ? rule : withMatches(rule, kept));
            }
        }
        for (String c : claimed) {
            owners.putIfAbsent(c, key);
        }
        return new Route(route.name(), route.hosts(), rules);
    }

    /**
     * The rule with other matches and every other component unchanged. Copied through the record's
     * components rather than by naming them, so that settings the model gains later (it grows with the
     * proxy's features) are never silently dropped from a Route that lost a conflict.
     */
    static Route.Rule withMatches(Route.Rule rule, List<Route.Match> matches) {
        RecordComponent[] components = Route.Rule.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                values[i] = components[i].getName().equals("matches") ? matches : components[i].getAccessor().invoke(rule);
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
