package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import dev.strait.model.Upstream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A Route's {@code forwardAuth}: its backend resolves as any other (a Service becomes its upstream), and until it
 * resolves the rule answers 503, never unchecked, reported as an unresolved reference naming the field.
 */
class RouteForwardAuthTest {
    private static final String SPEC = """
            hosts: [ example.com ]
            rules:
              - matches: [ { path: { type: Prefix, value: /admin } } ]
                respond: { body: "admin" }
                forwardAuth:
                  backend: { service: { name: auth, port: 4180 } }
                  path: /oauth2/auth?allowed_groups=staff
                  responseHeaders: [ X-Auth-Request-User, x-auth-request-email ]
                  signIn: "https://login.example.com/oauth2/start?rd={url}"
              - respond: { body: "public" }
            """;
    private static final Object AUTH = service("shop", "auth", "http:4180");
    private static final Object AUTH_PODS = slice("shop", "auth", "auth-1", "http", 4180, "10.0.0.7");

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().get(0).rules();
    }

    private static final Route.Backends LOCKED = new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1)));

    @Test
    void theCheckGoesToTheServicesUpstream() {
        Translation t = Fixtures.translate(route("shop", "site", 1, SPEC), AUTH, AUTH_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t).get(0).forwardAuth()).isEqualTo(new Route.ForwardAuth("service.shop.auth.4180",
                "/oauth2/auth?allowed_groups=staff", List.of("x-auth-request-user", "x-auth-request-email"),
                "https://login.example.com/oauth2/start?rd={url}"));
        assertThat(rules(t).get(0).action()).isEqualTo(new Route.Respond(200, "admin", Map.of()));
        assertThat(rules(t).get(1).forwardAuth()).isNull();
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name, Upstream::endpoints)
                .contains(org.assertj.core.groups.Tuple.tuple("service.shop.auth.4180",
                        List.of(new dev.strait.model.HostPort("10.0.0.7", 4180))));
        Fixtures.parse(t.snapshot(STRAIT).json());
        t = Fixtures.translate(route("shop", "site", 1, SPEC.replace("signIn:", "alwaysSetCookie: true\n"
                + "      cache: { headers: [ Authorization ], duration: 2m }\n      signIn:")), AUTH, AUTH_PODS);
        assertThat(rules(t).get(0).forwardAuth().alwaysSetCookie()).isTrue();
        assertThat(rules(t).get(0).forwardAuth().cache()).isEqualTo(new Route.AuthCache(List.of("authorization"), List.of(),
                java.time.Duration.ofMinutes(2)));
    }

    @Test
    void anUpstreamOrABalancedServiceServesTheCheckToo() {
        Translation t = Fixtures.translate(route("shop", "site", 1, SPEC.replace("{ service: { name: auth, port: 4180 } }",
                "{ upstream: auth }")), Fixtures.upstream("shop", "auth", "service: { name: auth, port: 4180 }"), AUTH, AUTH_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t).get(0).forwardAuth().upstream()).isEqualTo("upstream.shop.auth");

        t = Fixtures.translate(route("shop", "site", 1, SPEC.replace("{ service: { name: auth, port: 4180 } }",
                "{ service: { name: auth, port: 4180 }, connectTimeout: 1s }")), AUTH, AUTH_PODS);
        assertThat(rules(t).get(0).forwardAuth().upstream()).startsWith("service.shop.auth.4180.balanced-");
        // Defaults: the path is /, no fields taken, no sign-in.
        t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules: [ { respond: { body: x }, forwardAuth: { backend: { service: { name: auth, port: 4180 } } } } ]
                """), AUTH, AUTH_PODS);
        assertThat(rules(t).get(0).forwardAuth()).isEqualTo(new Route.ForwardAuth("service.shop.auth.4180", "/",
                List.of(), null));
    }

    /**
     * Without a backend the check is a request for the path on the request's own host, which the proxy routes as
     * any (another rule or Route serves {@code /oauth2}): the model has no upstream, and nothing is looked up.
     */
    @Test
    void withoutABackendTheCheckIsRoutedOnTheRequestsHost() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - matches: [ { path: { type: Prefix, value: /admin } } ]
                    respond: { body: "admin" }
                    forwardAuth:
                      path: /oauth2/auth
                      responseHeaders: [ X-Auth-Request-User ]
                      signIn: "/oauth2/start?rd={url}"
                  - matches: [ { path: { type: Prefix, value: /oauth2 } } ]
                    backends: [ { service: { name: auth, port: 4180 } } ]
                """), AUTH, AUTH_PODS);
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.errors()).isEmpty();
        assertThat(r.resolvedRefs().status()).isTrue();
        assertThat(rules(t).get(0).forwardAuth()).isEqualTo(new Route.ForwardAuth(null, "/oauth2/auth",
                List.of("x-auth-request-user"), "/oauth2/start?rd={url}"));
        assertThat(rules(t).get(0).action()).isEqualTo(new Route.Respond(200, "admin", Map.of()));
        // No stand-in: a check without an upstream has nothing to resolve, so nothing to fail closed on.
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name)
                .containsExactly("service.shop.auth.4180");
        Fixtures.parse(t.snapshot(STRAIT).json());
    }

    /** A Service without ready endpoints is no error (it may be starting): the check answers 503 until one is. */
    @Test
    void aServiceWithoutEndpointsKeepsTheCheckWhichAnswers503() {
        Translation t = Fixtures.translate(route("shop", "site", 1, SPEC), AUTH);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t).get(0).forwardAuth().upstream()).isEqualTo("service.shop.auth.4180");
        assertThat(t.snapshot(STRAIT).config().upstreams()).filteredOn(u -> u.name().equals("service.shop.auth.4180"))
                .singleElement().satisfies(u -> assertThat(u.endpoints()).isEmpty());
    }

    @Test
    void aCheckThatCannotBeHadLocksTheRuleAndNamesTheField() {
        String[][] cases = {
            {"", "spec.rules[0].forwardAuth.backend.service.name: Service \"auth\" not found; the rule answers 503"},
            {"port", "spec.rules[0].forwardAuth.backend.service.port: Service \"auth\" has no TCP port 4180; the rule"
                + " answers 503"},
            {"upstream", "spec.rules[0].forwardAuth.backend.upstream: Upstream \"auth\" not found; the rule answers 503"},
        };
        for (String[] c : cases) {
            Translation t = switch (c[0]) {
                case "port" -> Fixtures.translate(route("shop", "site", 1, SPEC), service("shop", "auth", "http:80"));
                case "upstream" -> Fixtures.translate(route("shop", "site", 1, SPEC.replace(
                        "{ service: { name: auth, port: 4180 } }", "{ upstream: auth }")), AUTH, AUTH_PODS);
                default -> Fixtures.translate(route("shop", "site", 1, SPEC));
            };
            ResourceReport r = Fixtures.routeReport(t, "shop", "site");
            assertThat(r.errors()).as(c[1]).containsExactly(c[1]);
            assertThat(r.accepted().status()).isTrue();
            assertThat(r.resolvedRefs().status()).isFalse();
            assertThat(r.resolvedRefs().reason()).isEqualTo("BackendNotFound");
            // Twice closed: the check asks the stand-in (no endpoints), and the action is the stand-in's 503.
            assertThat(rules(t).get(0).action()).as(c[1]).isEqualTo(LOCKED);
            assertThat(rules(t).get(0).forwardAuth().upstream()).isEqualTo(Translator.UNRESOLVED);
            assertThat(rules(t).get(1).action()).isEqualTo(new Route.Respond(200, "public", Map.of()));
            assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name).contains(Translator.UNRESOLVED);
            Fixtures.parse(t.snapshot(STRAIT).json());
        }
    }

    /** A rule with backends and their settings is locked whole: nothing that needs a backend is left behind. */
    @Test
    void aLockedRuleDropsItsOwnBackendsAndTheirSettings() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - backends: [ { service: { name: web, port: 80 } } ]
                    pathRewrite: { replacePrefixMatch: /v2 }
                    timeouts: { request: 5s }
                    forwardAuth: { backend: { service: { name: auth, port: 4180 } } }
                """), service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).containsExactly(
                "spec.rules[0].forwardAuth.backend.service.name: Service \"auth\" not found; the rule answers 503");
        Route.Rule rule = rules(t).get(0);
        assertThat(rule.action()).isEqualTo(LOCKED);
        assertThat(rule.pathRewrite()).isNull();
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name).doesNotContain("service.shop.web.80");
    }

    /** The memo of a Route's state knows the check's Service: once it exists, the rule serves behind it. */
    @Test
    void theServiceAppearingUnlocksTheRule() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        dev.strait.operator.crd.Route site = route("shop", "site", 1, SPEC);
        site.getMetadata().setUid("uid-site");
        Translation before = translator.translate(Fixtures.inputs(site));
        assertThat(rules(before).get(0).action()).isEqualTo(LOCKED);
        Translation after = translator.translate(Fixtures.inputs(site, AUTH, AUTH_PODS));
        assertThat(Fixtures.routeReport(after, "shop", "site").errors()).isEmpty();
        assertThat(rules(after).get(0).action()).isEqualTo(new Route.Respond(200, "admin", Map.of()));
        assertThat(rules(after).get(0).forwardAuth().upstream()).isEqualTo("service.shop.auth.4180");
    }

    /** What the proxy would refuse is the Route's spec error, named as the resource's field; it is not served. */
    @Test
    void badFieldsAreSpecErrorsNamingThem() {
        String[][] cases = {
            {"path: /oauth2/auth?allowed_groups=staff", "path: oauth2/auth",
                "spec.rules[0].forwardAuth.path: must be a path starting with /"},
            {"X-Auth-Request-User", "Host", "spec.rules[0].forwardAuth.responseHeaders[0]: is the proxy's to set, not the"
                + " authorization service's"},
            {"\"https://login.example.com/oauth2/start?rd={url}\"", "\"//login.example.com/\"",
                "spec.rules[0].forwardAuth.signIn: must be an http(s) URL or a path starting with /"},
        };
        for (String[] c : cases) {
            Fixtures.assertRouteRefused(c[2], route("shop", "site", 1, SPEC.replace(c[0], c[1])), AUTH, AUTH_PODS);
        }
        Translation t = Fixtures.translate(route("shop", "site", 1, SPEC.replace("{ service: { name: auth, port: 4180 } }",
                "{ upstream: php }")), Fixtures.upstream("shop", "php", "service: { name: auth, port: 4180 }\nprotocol: fastcgi"),
                AUTH, AUTH_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).containsExactly("spec.rules[0].forwardAuth.backend:"
                + " the check goes to an HTTP upstream, not fastcgi \"upstream.shop.php\"");
    }
}
