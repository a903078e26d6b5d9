package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Route's {@code responseRate}: the config's shape, carried to the snapshot as it is; what the proxies' parser
 * refuses, the operator refuses, naming the field.
 */
class RouteResponseRateTest {
    private static final Object WEB = service("shop", "web", "http:80");
    private static final Object WEB_PODS = slice("shop", "web", "web-1", "http", 8080, "10.0.0.1");

    @Test
    void theRulesResponseRateIsCarriedAsItIs() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - matches: [ { path: { type: Prefix, value: /downloads } } ]
                    backends: [ { service: { name: web, port: 80 } } ]
                    responseRate: { bytesPerSecond: 102400, afterBytes: 1048576 }
                  - backends: [ { service: { name: web, port: 80 } } ]
                """), WEB, WEB_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        List<Route.Rule> rules = t.snapshot(STRAIT).config().routes().get(0).rules();
        assertThat(rules).extracting(Route.Rule::responseRate).containsExactly(new Route.ResponseRate(102400, 1 << 20),
                null);
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes().get(0).rules()).extracting(Route.Rule::responseRate)
                .isEqualTo(rules.stream().map(Route.Rule::responseRate).toList());
    }

    @Test
    void badResponseRateIsASpecErrorNamingIt() {
        String backends = "backends: [ { service: { name: web, port: 80 } } ]\n  ";
        String[][] cases = {
            {"respond: { status: 200 }\n  responseRate: { bytesPerSecond: 1024 }",
                "spec.rules[0].responseRate: only applies to a rule with backends (answers streamed from an upstream)"},
            {backends + "responseRate: { bytesPerSecond: 0 }",
                "spec.rules[0].responseRate.bytesPerSecond: must be at least 1 byte a second, got 0"},
            {backends + "responseRate: { afterBytes: 10 }", "spec.rules[0].responseRate.bytesPerSecond: is required"},
        };
        Fixtures.assertRulesRefused(cases, WEB, WEB_PODS);
    }
}
