package dev.strait.operator.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.operator.publish.ProxyState;
import dev.strait.operator.translate.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * What one operator replica's control server has: per scope, how many proxies ACKed which version
 * and which refused one. Proxies dial whichever replica the Service gives them, so the replica that
 * writes status (the leader) adds up every replica's report. A report is small (scopes x versions,
 * not proxies), so it fits an annotation whatever the fleet's size.
 */
public final class FleetReport {
    private static final ObjectMapper JSON = new ObjectMapper();

    private FleetReport() {}

    /** One replica's proxies, summed per scope and version, as JSON. */
    public static String encode(List<ProxyState> proxies) {
        Map<Scope, Map<String, Integer>> acked = new TreeMap<>();
        Map<Scope, List<ProxyState>> refused = new TreeMap<>();
        for (ProxyState p : proxies) {
            if (p.scope() == null) {
                continue;
            }
            acked.computeIfAbsent(p.scope(), s -> new TreeMap<>()).merge(String.valueOf(p.acked()), 1, Integer::sum);
            if (p.nacked() != null) {
                refused.computeIfAbsent(p.scope(), s -> new ArrayList<>()).add(p);
            }
        }
        ArrayNode out = JSON.createArrayNode();
        acked.forEach((scope, versions) -> {
            ObjectNode s = out.addObject().put("class", scope.ingressClass());
            if (scope.namespace() != null) {
                s.put("namespace", scope.namespace());
            }
            ObjectNode v = s.putObject("acked");
            versions.forEach(v::put);
            ArrayNode r = s.putArray("refused");
            for (ProxyState p : refused.getOrDefault(scope, List.of())) {
                r.addObject().put("acked", p.acked()).put("version", p.nacked()).put("error", p.nackError());
            }
        });
        return out.toString();
    }

    /**
     * Another replica's report as proxy states the status board counts like its own. {@code seqOf} gives
     * a version's place in this replica's history (-1 when unknown: not counted as programmed, which is
     * the safe side; replicas build the same versions from the same API state).
     */
    public static List<ProxyState> decode(String json, BiFunction<Scope, String, Long> seqOf) {
        List<ProxyState> out = new ArrayList<>();
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (Exception e) {
            return out;
        }
        long id = -1;
        for (JsonNode s : root) {
            Scope scope = new Scope(s.path("class").asText(), s.hasNonNull("namespace") ? s.get("namespace").asText() : null);
            List<JsonNode> refused = new ArrayList<>();
            s.path("refused").forEach(refused::add);
            for (var it = s.path("acked").fields(); it.hasNext(); ) {
                var e = it.next();
                String version = e.getKey().equals("null") ? null : e.getKey();
                for (int i = 0; i < e.getValue().asInt(); i++) {
                    String nacked = null;
                    String error = null;
                    for (int k = 0; k < refused.size(); k++) {
                        if (String.valueOf(version).equals(refused.get(k).path("acked").asText("null"))) {
                            nacked = refused.get(k).path("version").asText(null);
                            error = refused.get(k).path("error").asText(null);
                            refused.remove(k);
                            break;
                        }
                    }
                    out.add(new ProxyState(id--, "another replica", null, scope, version,
                            version == null ? -1 : seqOf.apply(scope, version), nacked, error));
                }
            }
        }
        return out;
    }
}
