package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static dev.strait.operator.translate.Fixtures.tlsSecret;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Route's {@code hsts}: the config's shape, carried to the snapshot as it is ({@code {}} one year without
 * subdomains); what the proxies' parser refuses (preload without subdomains and a year, a negative max-age, beside
 * {@code tlsPassthrough}), the operator refuses, naming the field. Whatever the translation later does to the Route
 * (a match lost to an older Route, no TLS listener in the snapshot), its hsts stays.
 */
class RouteHstsTest {
    private static final Object WEB = service("shop", "web", "http:80");
    private static final Object WEB_PODS = slice("shop", "web", "web-1", "http", 8080, "10.0.0.1");
    private static final Object CERT = tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY);

    private static String spec(String hsts) {
        return """
                hosts: [ example.com ]
                tls: { secretName: site-tls }
                rules:
                  - backends: [ { service: { name: web, port: 80 } } ]
                """ + (hsts == null ? "" : "hsts: " + hsts + "\n");
    }

    private static Route model(Translation t) {
        List<Route> routes = t.snapshot(STRAIT).config().routes();
        assertThat(routes).hasSize(1);
        // What the proxies get reads back the same.
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes()).extracting(Route::hsts)
                .containsExactly(routes.get(0).hsts());
        return routes.get(0);
    }

    @Test
    void theRoutesHstsIsCarriedAsItIs() {
        String[] given = {null, "{}", "{ maxAgeSeconds: 63072000, includeSubDomains: true, preload: true }",
            "{ maxAgeSeconds: 0 }", "{ includeSubDomains: true, preload: true }", "{ maxAgeSeconds: 300, includeSubDomains: false }"};
        Route.Hsts[] expected = {null, new Route.Hsts(Route.Hsts.DEFAULT_MAX_AGE, false, false),
            new Route.Hsts(63_072_000, true, true), new Route.Hsts(0, false, false),
            new Route.Hsts(Route.Hsts.DEFAULT_MAX_AGE, true, true), new Route.Hsts(300, false, false)};
        for (int i = 0; i < given.length; i++) {
            Translation t = Fixtures.translate(route("shop", "site", 1, spec(given[i])), WEB, WEB_PODS, CERT);
            assertThat(Fixtures.routeReport(t, "shop", "site").errors()).as(given[i]).isEmpty();
            assertThat(model(t).hsts()).as(given[i]).isEqualTo(expected[i]);
        }
    }

    /** What the API server's schema refuses, the operator refuses too, with the proxy's words and the field named. */
    @Test
    void badHstsIsASpecErrorNamingIt() {
        String preload = "spec.hsts.preload: needs includeSubDomains: true and maxAgeSeconds of at least 31536000 (one"
                + " year), as the browsers' preload list requires";
        String[][] cases = {
            {"{ preload: true }", preload},
            {"{ includeSubDomains: false, preload: true }", preload},
            {"{ maxAgeSeconds: 86400, includeSubDomains: true, preload: true }", preload},
            {"{ maxAgeSeconds: -1 }", "spec.hsts.maxAgeSeconds: must be a whole number of seconds (0 tells browsers to"
                + " forget the host), got -1"},
        };
        for (String[] c : cases) {
            Fixtures.assertRouteRefused(c[1], route("shop", "site", 1, spec(c[0])), WEB, WEB_PODS, CERT);
        }
        Fixtures.assertRouteRefused("spec.hsts: a route with tlsPassthrough gives no answers to add it to: its backend"
                + " ends TLS", route("shop", "site", 1, """
                hosts: [ argocd.example.com ]
                tlsPassthrough: { service: { name: web, port: 80 } }
                hsts: {}
                """), WEB, WEB_PODS);
    }

    /** Younger than a Route that serves /api of the host, it keeps the rest, and its hsts with it. */
    @Test
    void aRouteThatLosesAMatchKeepsItsHsts() {
        Translation t = Fixtures.translate(route("shop", "old", 1, """
                hosts: [ example.com ]
                rules:
                  - matches: [ { path: { type: Prefix, value: /api } } ]
                    respond: { status: 200 }
                """), route("shop", "site", 2, """
                hosts: [ example.com ]
                tls: { secretName: site-tls }
                hsts: { includeSubDomains: true }
                rules:
                  - matches: [ { path: { type: Prefix, value: /api } }, { path: { type: Prefix, value: /shop } } ]
                    backends: [ { service: { name: web, port: 80 } } ]
                """), WEB, WEB_PODS, CERT);
        assertThat(Fixtures.routeReport(t, "shop", "site").accepted().reason()).isEqualTo("PartiallyConflicted");
        Route site = t.snapshot(STRAIT).config().routes().get(1);
        assertThat(site.rules().get(0).matches()).extracting(m -> m.path().value()).containsExactly("/shop");
        assertThat(site.hsts()).isEqualTo(new Route.Hsts(Route.Hsts.DEFAULT_MAX_AGE, true, false));
    }

    /**
     * With no certificate in the snapshot there is no TLS listener, and a Route bound to both is served on http alone;
     * its hsts stays, for the https a trusted load balancer's {@code X-Forwarded-Proto} says (never sent over http).
     */
    @Test
    void aRouteServedOnHttpAloneKeepsItsHsts() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                listeners: [ http, https ]
                hsts: {}
                rules:
                  - backends: [ { service: { name: web, port: 80 } } ]
                """), WEB, WEB_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        Route site = model(t);
        assertThat(site.listeners()).containsExactly(ProxyDefaults.HTTP);
        assertThat(site.hsts()).isEqualTo(new Route.Hsts(Route.Hsts.DEFAULT_MAX_AGE, false, false));
    }

    /** The operator's HSTS for Ingresses is no Route's: a Route with TLS and without hsts stays without. */
    @Test
    void theIngressHstsFlagLeavesRoutesAlone() {
        Translation t = Fixtures.translate(route("shop", "site", 1, spec(null)), WEB, WEB_PODS, CERT);
        assertThat(ProxyDefaults.STANDARD.ingressHsts()).isNotNull();
        assertThat(model(t).hsts()).isNull();
    }
}
