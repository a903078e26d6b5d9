package dev.strait.proxy.route;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.config.SnapshotBuilder;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ADR 0025: a control-channel stream of configs (each sharing its unchanged Routes' nodes with the one
 * before, as a delta's result does) parsed and built with the memos gives, at every step, the version and
 * the answers of a snapshot built from nothing: for every host, path, method and header tried, the same
 * rule (route and index) or none. Hosts are few and Routes share them, so virtual hosts merge rules of
 * several Routes and are both reused and rebuilt along the way. From seed 6 on, Routes also name
 * listeners (or not), and change them along the way: every listener's table is compared.
 */
class IncrementalTableTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] HOSTS = {"a.example.com", "b.example.com", "*.example.com", "*"};
    private static final String[] PATHS = {"/", "/a", "/a/b", "/b", "/c.png", "/a/x.png"};
    private static final HttpMethod[] METHODS = {HttpMethod.GET, HttpMethod.POST, HttpMethod.HEAD};

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void incrementalBuildsServeAsFreshOnes(long seed) throws Exception {
        Random rnd = new Random(seed);
        boolean bound = seed > 5; // Routes name listeners
        List<JsonNode> routes = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            routes.add(route(rnd, bound, "r" + i));
        }
        ConfigParser.Memo parsed = new ConfigParser.Memo();
        SnapshotBuilder.Reuse built = new SnapshotBuilder.Reuse();
        for (int step = 0; step < 60; step++) {
            for (int c = rnd.nextInt(3); c >= 0; c--) {
                int i = rnd.nextInt(routes.size());
                switch (rnd.nextInt(5)) {
                    case 0 -> routes.add(rnd.nextInt(routes.size() + 1), route(rnd, bound, "n" + step + "x" + c));
                    case 1 -> {
                        if (routes.size() > 2) {
                            routes.remove(i);
                        }
                    }
                    case 2 -> routes.add(rnd.nextInt(routes.size()), routes.remove(i)); // moved, same node
                    default -> routes.set(i, route(rnd, bound, routes.get(i).path("name").asText()));
                }
            }
            ObjectNode doc = JSON.createObjectNode();
            doc.putArray("listeners").addObject().put("name", "http").put("address", "127.0.0.1:0");
            doc.withArray("listeners").addObject().put("name", "https").put("address", "127.0.0.1:0");
            doc.putArray("routes").addAll(routes);
            Snapshot got = SnapshotBuilder.build(ConfigParser.parse(doc, "doc", parsed), "doc", built);
            Snapshot want = SnapshotBuilder.build(fresh(doc), "doc");
            String at = "seed " + seed + ", step " + step;
            assertThat(got.version()).as(at).isEqualTo(want.version());
            for (String host : new String[] {"a.example.com", "b.example.com", "c.example.com", "x.org"}) {
                for (String path : PATHS) {
                    for (HttpMethod m : METHODS) {
                        for (String v : new String[] {null, "1"}) {
                            HttpHeaders h = new DefaultHttpHeaders();
                            if (v != null) {
                                h.set("x-v", v);
                            }
                            for (String l : new String[] {null, "http", "https"}) {
                                assertThat(name(got.table(l).find(host, path, m, h)))
                                        .as(at + ": " + m + " " + host + path + " x-v=" + v + " on " + l)
                                        .isEqualTo(name(want.table(l).find(host, path, m, h)));
                            }
                        }
                    }
                }
            }
        }
        assertThat(built.hostsReused()).as("virtual hosts reused").isGreaterThan(20);
    }

    private static Config fresh(JsonNode doc) throws InvalidConfigException {
        return ConfigParser.parse(doc.toString(), "doc");
    }

    private static String name(CompiledRule r) {
        return r == null ? "none" : r.route() + "#" + r.index();
    }

    private static JsonNode route(Random rnd, boolean bound, String name) throws Exception {
        StringBuilder rules = new StringBuilder();
        int n = 1 + rnd.nextInt(3);
        for (int i = 0; i < n; i++) {
            String type = switch (rnd.nextInt(3)) {
                case 0 -> "Exact";
                case 1 -> "Prefix";
                default -> "RegularExpression";
            };
            String value = type.equals("RegularExpression") ? "/.*\\\\.png" : PATHS[rnd.nextInt(PATHS.length)];
            String extra = switch (rnd.nextInt(4)) {
                case 0 -> ",\"method\":\"POST\"";
                case 1 -> ",\"headers\":[{\"name\":\"x-v\",\"value\":\"1\"}]";
                default -> "";
            };
            rules.append(i == 0 ? "" : ",").append("{\"matches\":[{\"path\":{\"type\":\"").append(type)
                    .append("\",\"value\":\"").append(value).append("\"}").append(extra)
                    .append("}],\"respond\":{\"status\":200,\"body\":\"").append(name).append(i).append("\"}}");
        }
        String listeners = !bound ? "" : switch (rnd.nextInt(4)) {
            case 0 -> "\"listeners\":[\"http\"],";
            case 1 -> "\"listeners\":[\"https\"],";
            case 2 -> "\"listeners\":[\"https\",\"http\"],";
            default -> "";
        };
        return JSON.readTree("{\"name\":\"" + name + "\",\"hosts\":[\"" + HOSTS[rnd.nextInt(HOSTS.length)] + "\"],"
                + listeners + "\"rules\":[" + rules + "]}");
    }
}
