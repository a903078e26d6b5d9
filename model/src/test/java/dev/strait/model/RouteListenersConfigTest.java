package dev.strait.model;

import static dev.strait.model.TestConfigs.errors;
import static dev.strait.model.TestConfigs.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A route's {@code listeners}: parsed, checked against the config's listeners, written back. */
class RouteListenersConfigTest {
    private static final String TWO_LISTENERS = """
            listeners:
              - { name: http, address: "0.0.0.0:8080" }
              - { name: admin-ish, address: "0.0.0.0:8081" }
            """;

    private static String withRoute(String listeners) {
        return TWO_LISTENERS + "routes: [ { name: site, hosts: [ example.com ], " + listeners
                + " rules: [ { respond: { status: 200 } } ] } ]\n";
    }

    @Test
    void absentMeansEveryListener() throws Exception {
        Route r = parse(withRoute("")).routes().get(0);
        assertThat(r.listeners()).isNull();
        assertThat(r.servedOn("http")).isTrue();
        assertThat(r.servedOn("admin-ish")).isTrue();
    }

    @Test
    void namedListenersOnly() throws Exception {
        Route r = parse(withRoute("listeners: [ http ],")).routes().get(0);
        assertThat(r.listeners()).containsExactly("http");
        assertThat(r.servedOn("http")).isTrue();
        assertThat(r.servedOn("admin-ish")).isFalse();
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                arguments("listeners: [ https ],", "routes[0].listeners[0]",
                        "listener \"https\" not found (listeners: admin-ish, http)"),
                arguments("listeners: [ http, nope ],", "routes[0].listeners[1]",
                        "listener \"nope\" not found (listeners: admin-ish, http)"),
                arguments("listeners: [],", "routes[0].listeners", "must list at least one item"),
                arguments("listeners: http,", "routes[0].listeners", "must be a list, got \"http\""),
                arguments("listeners: [ HTTP ],", "routes[0].listeners[0]",
                        "\"HTTP\" must be lower case letters, digits, '-' and '.' (a Kubernetes name)"),
                arguments("listeners: [ http, http ],", "routes[0].listeners[1]", "listener \"http\" is listed twice"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusedWithTheFieldPath(String listeners, String path, String message) {
        assertThat(errors(withRoute(listeners))).contains(new ConfigError(path, message));
    }

    @Test
    void writtenBackOnlyWhenSet() throws Exception {
        Config bound = parse(withRoute("listeners: [ admin-ish, http ],"));
        JsonNode n = ConfigWriter.toTree(bound).get("routes").get(0);
        assertThat(n.get("listeners")).hasSize(2);
        assertThat(n.get("listeners").get(0).asText()).isEqualTo("admin-ish");
        assertThat(parse(ConfigWriter.toJson(bound, false))).isEqualTo(bound);

        Config all = parse(withRoute(""));
        assertThat(ConfigWriter.toTree(all).get("routes").get(0).has("listeners")).isFalse();
        // A route on every listener keeps the version it had before the key existed.
        assertThat(ConfigWriter.version(all)).isEqualTo(ConfigWriter.version(new Config(all.workers(), all.transport(),
                all.accessLog(), all.limits(), all.listeners(), all.admin(), all.upstreams(),
                List.of(new Route("site", List.of("example.com"), all.routes().get(0).rules())),
                all.requestId(), all.cache())));
        assertThat(ConfigWriter.version(bound)).isNotEqualTo(ConfigWriter.version(all));
    }
}
