package dev.strait.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The difference between two config documents (the canonical JSON of {@link ConfigWriter}), as the
 * control channel's {@code delta} message carries it (docs/control-channel.md), and its application.
 * Both ends use this one class, so the operator can check a delta applies to exactly its target
 * before sending it.
 *
 * <p>A delta is an object with, each optional:
 * <ul>
 *   <li>{@code set}: top-level keys replaced whole (listeners, limits, ...);</li>
 *   <li>{@code upserts}: {@code {routes: [...], upstreams: [...]}}, items replacing the one of the same
 *       name in place, or appended when there is none;</li>
 *   <li>{@code removes}: {@code {routes: [names], upstreams: [names]}};</li>
 *   <li>{@code order}: {@code {routes: [names]}}, the whole list's order, given only when removing and
 *       upserting alone would not give it (a Route that comes back among older ones).</li>
 * </ul>
 * Pure functions on JSON trees; the inputs are not modified. Results share nodes with their inputs
 * (a diff's items are the target's, an applied delta keeps the base's unchanged items), so trees passed
 * here are treated as read only afterwards by both ends.
 */
public final class ConfigDelta {
    /** The top-level lists whose items are named and sent one by one. */
    public static final List<String> NAMED = List.of("routes", "upstreams");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ConfigDelta() {}

    /**
     * What turns {@code base} into {@code target}, or null when a delta cannot say it (a top-level key
     * appears or disappears, a named list has an unnamed or twice-named item).
     */
    public static ObjectNode diff(ObjectNode base, ObjectNode target) {
        if (!keys(base).equals(keys(target))) {
            return null;
        }
        ObjectNode delta = NODES.objectNode();
        for (String key : keys(target)) {
            JsonNode b = base.get(key);
            JsonNode t = target.get(key);
            if (NAMED.contains(key) && b.isArray() && t.isArray()) {
                ArrayNode aligned = alignedUpserts(b, t);
                if (aligned != null) {
                    if (!aligned.isEmpty()) {
                        delta.withObjectProperty("upserts").set(key, aligned);
                    }
                    continue;
                }
                Map<String, JsonNode> before = byName(b);
                Map<String, JsonNode> after = byName(t);
                if (before == null || after == null) {
                    return null;
                }
                ArrayNode removes = NODES.arrayNode();
                before.keySet().stream().filter(n -> !after.containsKey(n)).forEach(removes::add);
                ArrayNode upserts = NODES.arrayNode();
                after.forEach((n, item) -> {
                    if (!item.equals(before.get(n))) {
                        upserts.add(item);
                    }
                });
                if (!removes.isEmpty()) {
                    delta.withObjectProperty("removes").set(key, removes);
                }
                if (!upserts.isEmpty()) {
                    delta.withObjectProperty("upserts").set(key, upserts);
                }
                List<String> naturally = new ArrayList<>(before.keySet());
                naturally.removeIf(n -> !after.containsKey(n));
                after.keySet().stream().filter(n -> !before.containsKey(n)).forEach(naturally::add);
                if (!naturally.equals(new ArrayList<>(after.keySet()))) {
                    ArrayNode order = delta.withObjectProperty("order").putArray(key);
                    after.keySet().forEach(order::add);
                }
            } else if (!b.equals(t)) {
                delta.withObjectProperty("set").set(key, t);
            }
        }
        return delta;
    }

    /**
     * {@code base} with {@code delta} applied; the result shares what did not change with {@code base}.
     *
     * @throws IllegalArgumentException when the delta is malformed or does not fit the base (it removes
     *                                  or orders names the base does not have)
     */
    public static ObjectNode apply(ObjectNode base, JsonNode delta) {
        if (delta == null || !delta.isObject()) {
            throw new IllegalArgumentException("a delta is an object");
        }
        // Shallow: every list the delta touches is replaced by a new one in the result, so the result can
        // share the base's untouched values and items instead of copying a 10k-route document per change.
        ObjectNode out = NODES.objectNode();
        out.setAll(base);
        JsonNode set = delta.path("set");
        if (!set.isMissingNode()) {
            if (!set.isObject()) {
                throw new IllegalArgumentException("set: must be an object");
            }
            set.properties().forEach(e -> {
                if (NAMED.contains(e.getKey())) {
                    throw new IllegalArgumentException("set." + e.getKey() + ": named lists change by upserts and removes");
                }
                out.set(e.getKey(), e.getValue());
            });
        }
        for (String key : NAMED) {
            JsonNode removes = delta.path("removes").path(key);
            JsonNode upserts = delta.path("upserts").path(key);
            JsonNode order = delta.path("order").path(key);
            if (removes.isMissingNode() && upserts.isMissingNode() && order.isMissingNode()) {
                continue;
            }
            JsonNode list = out.path(key);
            if (removes.isMissingNode() && order.isMissingNode() && list.isArray() && upserts.isArray()) {
                List<JsonNode> upserted = upsertedInPlace(list, (ArrayNode) upserts);
                if (upserted != null) {
                    out.putArray(key).addAll(upserted);
                    continue;
                }
            }
            Map<String, JsonNode> items = list.isArray() ? byName(list) : null;
            if (items == null) {
                throw new IllegalArgumentException(key + ": the base has no named list here");
            }
            for (JsonNode n : array(removes, "removes." + key)) {
                if (items.remove(n.asText()) == null) {
                    throw new IllegalArgumentException("removes." + key + ": \"" + n.asText() + "\" is not in the base");
                }
            }
            for (JsonNode item : array(upserts, "upserts." + key)) {
                JsonNode name = item.path("name");
                if (!name.isTextual()) {
                    throw new IllegalArgumentException("upserts." + key + ": every item needs a name");
                }
                items.put(name.asText(), item);
            }
            List<JsonNode> result = new ArrayList<>(items.values());
            if (!order.isMissingNode()) {
                ArrayNode o = array(order, "order." + key);
                if (o.size() != items.size()) {
                    throw new IllegalArgumentException("order." + key + ": names " + o.size() + " items, not " + items.size());
                }
                result.clear();
                for (JsonNode n : o) {
                    JsonNode item = items.remove(n.asText());
                    if (item == null) {
                        throw new IllegalArgumentException("order." + key + ": \"" + n.asText() + "\" is not in the result or is named twice");
                    }
                    result.add(item);
                }
            }
            out.putArray(key).addAll(result);
        }
        return out;
    }

    /**
     * The usual change (items edited in place, none added, removed or moved) in one pass without maps:
     * the target's items that differ from the base's at the same index, when both lists hold the same
     * names in the same order, each once; null otherwise (the general diff then decides). Unchanged items
     * are usually the very same nodes (ADR 0024), so comparing them costs nothing.
     */
    private static ArrayNode alignedUpserts(JsonNode base, JsonNode target) {
        if (base.size() != target.size()) {
            return null;
        }
        ArrayNode upserts = NODES.arrayNode();
        Set<String> names = new HashSet<>(target.size() * 2);
        for (int i = 0; i < target.size(); i++) {
            JsonNode b = base.get(i);
            JsonNode t = target.get(i);
            JsonNode tn = t.path("name");
            if (!tn.isTextual() || !names.add(tn.textValue())) {
                return null;
            }
            if (b != t) {
                JsonNode bn = b.path("name");
                if (!bn.isTextual() || !bn.textValue().equals(tn.textValue())) {
                    return null;
                }
                if (!b.equals(t)) {
                    upserts.add(t);
                }
            }
        }
        return upserts;
    }

    /**
     * {@code list} with upserts applied when the delta only upserts (no removes, no order): items replaced
     * in place, new names appended in the order of their first upsert, as the general path does; null when
     * that path must decide (an unnamed or twice-named item in the base, or a malformed upsert, which it
     * refuses with its own message).
     */
    private static List<JsonNode> upsertedInPlace(JsonNode list, ArrayNode upserts) {
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        for (JsonNode item : upserts) {
            JsonNode name = item.path("name");
            if (!name.isTextual()) {
                return null;
            }
            byName.put(name.textValue(), item);
        }
        List<JsonNode> out = new ArrayList<>(list.size() + byName.size());
        Set<String> seen = new HashSet<>(list.size() * 2);
        for (int i = 0; i < list.size(); i++) {
            JsonNode item = list.get(i);
            JsonNode name = item.path("name");
            if (!name.isTextual() || !seen.add(name.textValue())) {
                return null;
            }
            JsonNode replaced = byName.isEmpty() ? null : byName.remove(name.textValue());
            out.add(replaced != null ? replaced : item);
        }
        out.addAll(byName.values());
        return out;
    }

    private static ArrayNode array(JsonNode n, String path) {
        if (n.isMissingNode()) {
            return NODES.arrayNode();
        }
        if (!n.isArray()) {
            throw new IllegalArgumentException(path + ": must be a list");
        }
        return (ArrayNode) n;
    }

    private static List<String> keys(ObjectNode n) {
        List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        out.sort(null);
        return out;
    }

    /** Items by name in list order; null when one has no name or a name comes twice. */
    private static Map<String, JsonNode> byName(JsonNode list) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (Iterator<JsonNode> it = list.elements(); it.hasNext(); ) {
            JsonNode item = it.next();
            JsonNode name = item.path("name");
            if (!name.isTextual() || out.put(name.asText(), item) != null) {
                return null;
            }
        }
        return out;
    }
}
