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
 * A Route's {@code responseRewrite}: the config's shape, carried to the snapshot as it is; what the proxies' parser
 * refuses, the operator refuses, naming the field.
 */
class RouteResponseRewriteTest {
    private static final String SPEC = """
            hosts: [ example.com ]
            rules:
              - matches: [ { path: { type: Prefix, value: /app } } ]
                backends: [ { service: { name: web, port: 80 } } ]
                pathRewrite: { replacePrefixMatch: / }
                responseRewrite:
                  location:
                    - { from: "http://web.internal:8080/", to: "{scheme}://{host}/app/" }
                    - { from: /, to: /app/ }
                  cookiePath: [ { from: /, to: /app/ } ]
                  cookieDomain: [ { from: web.internal, to: "{host}" } ]
              - backends: [ { service: { name: web, port: 80 } } ]
            """;
    private static final Object WEB = service("shop", "web", "http:80");
    private static final Object WEB_PODS = slice("shop", "web", "web-1", "http", 8080, "10.0.0.1");

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().get(0).rules();
    }

    @Test
    void theRulesResponseRewriteIsCarriedAsItIs() {
        Translation t = Fixtures.translate(route("shop", "site", 1, SPEC), WEB, WEB_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t)).extracting(Route.Rule::responseRewrite).containsExactly(
                new Route.ResponseRewrite(
                        List.of(new Route.Replace("http://web.internal:8080/", "{scheme}://{host}/app/"),
                                new Route.Replace("/", "/app/")),
                        List.of(new Route.Replace("/", "/app/")),
                        List.of(new Route.Replace("web.internal", "{host}"))),
                null);
        // What the proxies get reads back the same.
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes().get(0).rules())
                .extracting(Route.Rule::responseRewrite).isEqualTo(rules(t).stream().map(Route.Rule::responseRewrite).toList());
    }

    /** What the API server's schema refuses, the operator refuses too, with the proxy's words and the field named. */
    @Test
    void badResponseRewriteFieldsAreSpecErrorsNamingThem() {
        String backends = "backends: [ { service: { name: web, port: 80 } } ]\n  ";
        String[][] cases = {
            {"respond: { status: 200 }\n  responseRewrite: { cookiePath: [ { from: /, to: /app/ } ] }",
                "spec.rules[0].responseRewrite: only applies to a rule with backends"},
            {backends + "responseRewrite: {}", "spec.rules[0].responseRewrite: needs location, cookiePath or cookieDomain"},
            {backends + "responseRewrite: { cookiePath: [ { from: /, to: \"/app; Secure\" } ] }",
                "spec.rules[0].responseRewrite.cookiePath[0].to: must be visible ASCII without spaces or ';'"},
            {backends + "responseRewrite: { location: [ { from: /, to: /app/ }, { from: \"http://a b/\", to: / } ] }",
                "spec.rules[0].responseRewrite.location[1].from: must be visible ASCII without spaces"},
            {backends + "responseRewrite: { cookiePath: [ { from: /, to: /app/ } ], cookieDomain: [ { from: web.internal } ] }",
                "spec.rules[0].responseRewrite.cookieDomain[0].to: is required"},
        };
        Fixtures.assertRulesRefused(cases, WEB, WEB_PODS);
    }

    /** A rule whose guard cannot be had answers 503 from a stand-in: nothing of its backend's answers is left to rewrite. */
    @Test
    void aLockedRuleKeepsNoRewrite() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - backends: [ { service: { name: web, port: 80 } } ]
                    basicAuth: { secretName: users }
                    responseRewrite: { cookiePath: [ { from: /, to: /app/ } ] }
                """), WEB, WEB_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).containsExactly(
                "spec.rules[0].basicAuth.secretName: Secret \"users\" not found; the rule answers 503");
        assertThat(rules(t).get(0).action()).isEqualTo(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
        assertThat(rules(t).get(0).responseRewrite()).isNull();
    }
}
