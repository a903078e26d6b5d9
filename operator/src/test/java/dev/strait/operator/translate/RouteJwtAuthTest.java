package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Route's {@code jwtAuth} (ADR 0108): the config's shape, carried to the snapshot as it is; what the proxies'
 * parser refuses, the operator refuses, naming the field.
 */
class RouteJwtAuthTest {
    private static final Object WEB = service("shop", "web", "http:80");
    private static final Object WEB_PODS = slice("shop", "web", "web-1", "http", 8080, "10.0.0.1");

    @Test
    void theRulesJwtAuthIsCarriedAsItIs() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - matches: [ { path: { type: Prefix, value: /api } } ]
                    backends: [ { service: { name: web, port: 80 } } ]
                    jwtAuth:
                      jwksUri: https://idp.example.com/certs
                      refresh: 15m
                      issuer: https://idp.example.com/
                      audiences: [ shop ]
                      claimHeaders: { sub: X-User }
                      require: { scope: [ "orders:read" ] }
                      cookie: session
                  - backends: [ { service: { name: web, port: 80 } } ]
                """), WEB, WEB_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        List<Route.Rule> rules = t.snapshot(STRAIT).config().routes().get(0).rules();
        assertThat(rules.get(0).jwtAuth()).isEqualTo(new Route.JwtAuth("https://idp.example.com/", List.of("shop"), null,
                "https://idp.example.com/certs", Duration.ofMinutes(15), false, "session",
                List.of(new Route.ClaimHeader("sub", "x-user")), "strait",
                List.of(new Route.ClaimRequirement("scope", List.of("orders:read")))));
        assertThat(rules.get(1).jwtAuth()).isNull();
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes().get(0).rules().get(0).jwtAuth())
                .isEqualTo(rules.get(0).jwtAuth());
    }

    @Test
    void badJwtAuthIsASpecErrorNamingIt() {
        String backends = "backends: [ { service: { name: web, port: 80 } } ]\n  ";
        String[][] cases = {
            {backends + "jwtAuth: { issuer: x }", "spec.rules[0].jwtAuth: needs the keys that sign tokens: jwksUri (the"
                + " identity provider's jwks_uri), jwks (a JWK Set as JSON), or an issuer URL whose OpenID discovery"
                + " names them"},
            {backends + "jwtAuth: { jwks: '{\"keys\":[]}' }", "spec.rules[0].jwtAuth.jwks: has no key that checks"
                + " signatures"},
            {backends + "jwtAuth: { jwksUri: \"https://idp/certs\", claimHeaders: { sub: Host } }",
                "spec.rules[0].jwtAuth.claimHeaders.sub: \"Host\" is a field the proxy keeps as it is"},
        };
        Fixtures.assertRulesRefused(cases, WEB, WEB_PODS);
    }
}
