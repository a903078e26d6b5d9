package dev.strait.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ADR 0025: parsing with a {@link ConfigParser.Memo} and writing with a {@link ConfigWriter.Memo} give
 * exactly what they give without, along any sequence of documents that share unchanged items (as a
 * delta's results do), valid or not: the same config or the same errors, the same JSON, tree and version.
 */
class IncrementalParseTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void memoizedEqualsFromScratch(long seed) throws Exception {
        Random rnd = new Random(seed);
        List<JsonNode> upstreams = new ArrayList<>();
        upstreams.add(node("{\"name\":\"app\",\"endpoints\":[\"127.0.0.1:3000\"]}"));
        upstreams.add(node("{\"name\":\"php\",\"endpoints\":[\"127.0.0.1:9000\"],\"protocol\":\"fastcgi\"}"));
        List<JsonNode> routes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            routes.add(route(rnd, "r" + i, false));
        }
        ConfigParser.Memo parsed = new ConfigParser.Memo();
        ConfigWriter.Memo written = new ConfigWriter.Memo();
        int valid = 0;
        for (int step = 0; step < 80; step++) {
            // Change a few items; every other item stays the very same node, as after a delta. Invalid
            // Routes are often fixed again, so that valid documents come up too.
            if (rnd.nextBoolean()) {
                java.util.Set<String> names = new java.util.HashSet<>();
                for (int i = 0; i < routes.size(); i++) {
                    String text = routes.get(i).toString();
                    String name = routes.get(i).path("name").asText();
                    if (!names.add(name)) {
                        name = "u" + step + "x" + i;
                        routes.set(i, route(rnd, name, false));
                    } else if (text.contains("999") || text.contains("missing")) {
                        routes.set(i, route(rnd, name, false));
                    }
                }
                if (upstreams.size() == 1) {
                    upstreams.add(node("{\"name\":\"php\",\"endpoints\":[\"127.0.0.1:9000\"],\"protocol\":\"fastcgi\"}"));
                }
                if (upstreams.get(0).toString().contains("nope")) {
                    upstreams.set(0, node("{\"name\":\"app\",\"endpoints\":[\"127.0.0.1:3000\"]}"));
                }
            }
            for (int c = rnd.nextInt(3); c >= 0; c--) {
                int what = rnd.nextInt(10);
                if (what < 6) {
                    int i = rnd.nextInt(routes.size());
                    routes.set(i, route(rnd, rnd.nextInt(8) == 0 ? "r" + rnd.nextInt(30) : routes.get(i).path("name").asText(), true));
                } else if (what < 7 && routes.size() > 1) {
                    routes.remove(rnd.nextInt(routes.size()));
                } else if (what < 8) {
                    routes.add(rnd.nextInt(routes.size() + 1), route(rnd, "r" + (20 + rnd.nextInt(20)), true));
                } else if (what < 9) {
                    upstreams.set(0, node("{\"name\":\"app\",\"endpoints\":[\"127.0.0.1:" + (3000 + rnd.nextInt(3)) + "\"]"
                            + (rnd.nextInt(6) == 0 ? ",\"protocol\":\"nope\"" : "") + "}"));
                } else if (upstreams.size() > 1) {
                    upstreams.remove(1); // php's routes now name an upstream that is not there
                } else {
                    upstreams.add(node("{\"name\":\"php\",\"endpoints\":[\"127.0.0.1:9000\"],\"protocol\":\"fastcgi\"}"));
                }
            }
            ObjectNode doc = JSON.createObjectNode();
            doc.putArray("listeners").addObject().put("name", "http").put("address", "0.0.0.0:8080");
            doc.putArray("upstreams").addAll(upstreams);
            doc.putArray("routes").addAll(routes);
            String at = "seed " + seed + ", step " + step;
            String wantError = null;
            String gotError = null;
            Config want = null;
            Config got = null;
            try {
                want = ConfigParser.parse(doc, "doc");
            } catch (InvalidConfigException e) {
                wantError = e.getMessage();
            }
            try {
                got = ConfigParser.parse(doc, "doc", parsed);
            } catch (InvalidConfigException e) {
                gotError = e.getMessage();
            }
            assertThat(gotError).as(at).isEqualTo(wantError);

            assertThat(got).as(at).isEqualTo(want);
            if (got != null) {
                valid++;
                assertThat(ConfigWriter.toTree(got, written)).as(at).isEqualTo(ConfigWriter.toTree(want));
                assertThat(ConfigWriter.toJson(got, written)).as(at).isEqualTo(ConfigWriter.toJson(want, false));
                assertThat(ConfigWriter.version(got, written)).as(at).isEqualTo(ConfigWriter.version(want));
                ConfigWriter.Written both = ConfigWriter.write(got, written);
                assertThat(both.tree()).as(at).isEqualTo(ConfigWriter.toTree(want));
                assertThat(both.json()).as(at).isEqualTo(ConfigWriter.toJson(want, false));
            }
        }
        assertThat(valid).as("valid documents among 80").isGreaterThan(5);
        assertThat(parsed.reused()).as("items parsed once and reused").isGreaterThan(100);
    }

    /** A Route: mostly valid, sometimes invalid in itself or in what it names. */
    private static JsonNode route(Random rnd, String name, boolean mayBeInvalid) throws Exception {
        String match = "{\"path\":{\"type\":\"" + (rnd.nextBoolean() ? "Exact" : "Prefix") + "\",\"value\":\"/"
                + (char) ('a' + rnd.nextInt(3)) + "\"}}";
        int pick = mayBeInvalid ? rnd.nextInt(20) : 2 + rnd.nextInt(58);
        String action = pick == 0 ? "\"respond\":{\"status\":999}"
                : pick == 1 ? "\"backends\":[{\"upstream\":\"missing\"}]"
                : pick < 5 ? "\"backends\":[{\"upstream\":\"php\"}],\"fastcgi\":{\"root\":\"/srv\"}"
                : pick < 15 ? "\"backends\":[{\"upstream\":\"app\"}]"
                : "\"respond\":{\"status\":200,\"body\":\"v" + rnd.nextInt(4)
                        // now and then text that is not ASCII: a version hashes the document's UTF-8
                        + (rnd.nextInt(4) == 0 ? "\u00e9\u2713\ud83d\ude80" : "") + "\"}";
        return node("{\"name\":\"" + name + "\",\"hosts\":[\"" + name + ".example.com\"],\"rules\":[{\"matches\":["
                + match + "]," + action + "}]}");
    }

    private static JsonNode node(String json) throws Exception {
        return JSON.readTree(json);
    }
}
