package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import org.junit.jupiter.api.Test;

/** A Route's rule with {@code tracing: false} is carried to the proxies as it is; others are traced. */
class RouteTracingTest {
    @Test
    void aRulesTracingOffIsCarried() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - matches: [ { path: { type: Exact, value: /healthz } } ]
                    respond: { status: 200 }
                    tracing: false
                  - backends: [ { service: { name: web, port: 80 } } ]
                """), service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(t.snapshot(STRAIT).config().routes().get(0).rules()).extracting(Route.Rule::tracing)
                .containsExactly(false, true);
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes().get(0).rules()).extracting(Route.Rule::tracing)
                .containsExactly(false, true);
    }
}
