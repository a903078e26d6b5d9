package dev.strait.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The control channel's delta: diff then apply gives back the target exactly, and says only what changed. */
class ConfigDeltaTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BASE = """
            {"listeners":[{"name":"http","address":"0.0.0.0:8080"}],
             "upstreams":[{"name":"a","endpoints":["10.0.0.1:80"]},{"name":"b","endpoints":[]}],
             "routes":[{"name":"r1","hosts":["one"]},{"name":"r2","hosts":["two"]},{"name":"r3","hosts":["three"]}]}""";

    private static ObjectNode tree(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static Stream<Arguments> changes() {
        return Stream.of(
                Arguments.of("nothing", BASE, "{}"),
                Arguments.of("one route changed in place", BASE.replace("\"two\"", "\"2\""),
                        "{\"upserts\":{\"routes\":[{\"name\":\"r2\",\"hosts\":[\"2\"]}]}}"),
                Arguments.of("a route removed", BASE.replace(",{\"name\":\"r2\",\"hosts\":[\"two\"]}", ""),
                        "{\"removes\":{\"routes\":[\"r2\"]}}"),
                Arguments.of("a route added at the end",
                        BASE.replace("\"three\"]}]", "\"three\"]},{\"name\":\"r4\",\"hosts\":[\"four\"]}]"),
                        "{\"upserts\":{\"routes\":[{\"name\":\"r4\",\"hosts\":[\"four\"]}]}}"),
                Arguments.of("a route back among older ones: the order is sent",
                        BASE.replace("{\"name\":\"r2\"", "{\"name\":\"r0\",\"hosts\":[\"zero\"]},{\"name\":\"r2\""),
                        "{\"upserts\":{\"routes\":[{\"name\":\"r0\",\"hosts\":[\"zero\"]}]},"
                                + "\"order\":{\"routes\":[\"r1\",\"r0\",\"r2\",\"r3\"]}}"),
                Arguments.of("an upstream's endpoints and the listeners",
                        BASE.replace("\"endpoints\":[]", "\"endpoints\":[\"10.0.0.2:80\"]").replace("8080", "8081"),
                        "{\"set\":{\"listeners\":[{\"name\":\"http\",\"address\":\"0.0.0.0:8081\"}]},"
                                + "\"upserts\":{\"upstreams\":[{\"name\":\"b\",\"endpoints\":[\"10.0.0.2:80\"]}]}}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("changes")
    void diffThenApplyGivesTheTarget(String name, String target, String expectedDelta) {
        ObjectNode delta = ConfigDelta.diff(tree(BASE), tree(target));
        assertThat(delta).isEqualTo(tree(expectedDelta));
        ObjectNode applied = ConfigDelta.apply(tree(BASE), delta);
        assertThat(applied).isEqualTo(tree(target));
        assertThat(applied.toString()).as("same order, so the same canonical text").isEqualTo(tree(target).toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("changes")
    void applyLeavesTheBaseAloneAndSharesWhatDidNotChange(String name, String target, String expectedDelta) {
        ObjectNode base = tree(BASE);
        ObjectNode applied = ConfigDelta.apply(base, ConfigDelta.diff(tree(BASE), tree(target)));
        assertThat(base).as("the base is not modified").isEqualTo(tree(BASE));
        JsonNode r3 = base.path("routes").get(base.path("routes").size() - 1);
        assertThat(applied.path("routes")).allSatisfy(r -> {
            if (r.path("name").equals(r3.path("name")) && r.equals(r3)) {
                assertThat(r).as("an unchanged route is the base's node, not a copy").isSameAs(r3);
            }
        });
    }

    @org.junit.jupiter.api.Test
    void aKeyThatAppearsOrAnUnnamedItemIsNotADelta() {
        assertThat(ConfigDelta.diff(tree(BASE), tree(BASE.replace("{\"listeners\"", "{\"workers\":2,\"listeners\"")))).isNull();
        assertThat(ConfigDelta.diff(tree(BASE), tree(BASE.replace("{\"name\":\"r3\",", "{")))).isNull();
    }

    static Stream<Arguments> misfits() {
        return Stream.of(
                Arguments.of("removes a name the base lacks", "{\"removes\":{\"routes\":[\"r9\"]}}",
                        "removes.routes: \"r9\" is not in the base"),
                Arguments.of("orders too few", "{\"order\":{\"routes\":[\"r1\"]}}", "order.routes: names 1 items, not 3"),
                Arguments.of("orders a name twice", "{\"order\":{\"routes\":[\"r1\",\"r1\",\"r2\"]}}",
                        "order.routes: \"r1\" is not in the result or is named twice"),
                Arguments.of("an unnamed upsert", "{\"upserts\":{\"routes\":[{\"hosts\":[]}]}}",
                        "upserts.routes: every item needs a name"),
                Arguments.of("sets a named list", "{\"set\":{\"routes\":[]}}", "set.routes: named lists change"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("misfits")
    void aDeltaThatDoesNotFitIsRefused(String name, String delta, String error) {
        JsonNode d = tree(delta);
        assertThatThrownBy(() -> ConfigDelta.apply(tree(BASE), d))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(error);
    }

    /**
     * Along random edits (in place, added, removed, moved, sharing untouched items as the operator's trees
     * do), a diff applied to its base gives exactly the target, whichever path (in place or general) made it.
     */
    @org.junit.jupiter.params.provider.ValueSource(longs = {1, 2, 3, 4, 5})
    @ParameterizedTest(name = "seed {0}")
    void randomChangesRoundTrip(long seed) {
        java.util.Random rnd = new java.util.Random(seed);
        java.util.List<JsonNode> routes = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            routes.add(tree("{\"name\":\"r" + i + "\",\"hosts\":[\"h" + i + "\"]}"));
        }
        ObjectNode base = doc(routes);
        for (int step = 0; step < 200; step++) {
            int what = rnd.nextInt(10);
            int i = rnd.nextInt(routes.size());
            if (what < 6) {
                routes.set(i, tree("{\"name\":\"" + routes.get(i).path("name").asText() + "\",\"hosts\":[\"x" + step + "\"]}"));
            } else if (what < 7 && routes.size() > 2) {
                routes.remove(i);
            } else if (what < 8) {
                routes.add(i, tree("{\"name\":\"n" + step + "\",\"hosts\":[\"n\"]}"));
            } else if (what < 9) {
                routes.add(rnd.nextInt(routes.size()), routes.remove(i));
            }
            ObjectNode target = doc(routes);
            ObjectNode delta = ConfigDelta.diff(base, target);
            ObjectNode applied = ConfigDelta.apply(base, delta);
            assertThat(applied).as("step " + step).isEqualTo(target);
            assertThat(applied.toString()).as("step " + step).isEqualTo(target.toString());
            base = rnd.nextBoolean() ? target : applied;
        }
    }

    private static ObjectNode doc(java.util.List<JsonNode> routes) {
        ObjectNode d = JSON.createObjectNode();
        d.putArray("upstreams");
        d.putArray("routes").addAll(routes);
        return d;
    }
}
