package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Two Routes claiming one host and path: the older keeps it, the younger is told why it lost it. */
class ConflictsTest {
    private static final String API = """
            hosts: [ example.com ]
            rules:
              - matches: [ { path: { type: Prefix, value: /api } } ]
                respond: { status: 200, body: "%s" }
            """;

    @Test
    void olderRouteWinsAndTheYoungerIsReported() {
        Translation t = Fixtures.translate(
                route("b-team", "new", 30, API.formatted("new")),
                route("a-team", "old", 10, API.formatted("old")));
        assertThat(Fixtures.routeNames(t)).containsExactly("a-team.old");
        ResourceReport loser = Fixtures.routeReport(t, "b-team", "new");
        assertThat(loser.accepted().status()).isFalse();
        assertThat(loser.accepted().reason()).isEqualTo("Conflicted");
        assertThat(loser.accepted().message()).isEqualTo("spec.rules[0].matches[0]: host \"example.com\" path Prefix"
                + " /api is already served by Route a-team/old (the older Route wins)");
        assertThat(Fixtures.routeReport(t, "a-team", "old").accepted().reason()).isEqualTo("Accepted");
    }

    @Test
    void sameAgeFallsBackToNamespaceAndName() {
        Translation t = Fixtures.translate(
                route("shop", "b", 10, API.formatted("b")),
                route("shop", "a", 10, API.formatted("a")));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.a");
    }

    @Test
    void onlyTheConflictingMatchIsDropped() {
        Translation t = Fixtures.translate(
                route("shop", "old", 10, API.formatted("old")),
                route("shop", "new", 20, """
                        hosts: [ example.com, www.example.com ]
                        rules:
                          - matches: [ { path: { type: Prefix, value: /api/ } }, { path: { type: Prefix, value: /v2 } } ]
                            respond: { status: 200 }
                          - matches: [ { path: { type: Exact, value: /api } } ]
                            respond: { status: 200 }"""));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.old", "shop.new");
        Route kept = t.snapshot(Fixtures.STRAIT).config().routes().get(1);
        assertThat(kept.rules()).hasSize(2);
        assertThat(kept.rules().get(0).matches()).extracting(m -> m.path().value()).containsExactly("/v2");
        ResourceReport r = Fixtures.routeReport(t, "shop", "new");
        assertThat(r.accepted().status()).isTrue();
        assertThat(r.accepted().reason()).isEqualTo("PartiallyConflicted");
        assertThat(r.errors()).containsExactly("spec.rules[0].matches[0]: host \"example.com\" path Prefix /api/ is"
                + " already served by Route shop/old (the older Route wins)");
    }

    @Test
    void aRuleThatLosesAMatchKeepsEverythingElse() {
        Route.Rule rule = new Route.Rule(List.of(new Route.Match(null, "GET", List.of()), new Route.Match(null, null, List.of())),
                new Route.Respond(200, "x", java.util.Map.of()), new Route.Cache(true),
                new Route.Timeouts(java.time.Duration.ofSeconds(3)), new Route.Retries(2, List.of("5xx")));
        Route.Rule copy = Conflicts.withMatches(rule, List.of(rule.matches().get(1)));
        assertThat(copy.matches()).containsExactly(rule.matches().get(1));
        assertThat(copy).usingRecursiveComparison().ignoringFields("matches").isEqualTo(rule);
    }

    /** A canary's split rule is the primary's with another action: its guards stay (forwardAuth among them). */
    @Test
    void aRuleGivenAnotherActionKeepsItsGuards() {
        Route.Rule rule = new Route.Rule(List.of(new Route.Match(null, null, List.of())),
                new Route.Backends(List.of(new Route.Backend("web", 1))), null, null, null, null, null, null, null,
                new Route.BasicAuth("Staff", "alice:{PLAIN}x\n"), null, null, null, null, null, null, null, null, true,
                new Route.ForwardAuth("auth", "/verify", List.of("x-user"), null));
        Route.Backends canary = new Route.Backends(List.of(new Route.Backend("web-canary", 1)));
        Route.Rule copy = Conflicts.with(rule, rule.matches(), canary);
        assertThat(copy.action()).isEqualTo(canary);
        assertThat(copy).usingRecursiveComparison().ignoringFields("action").isEqualTo(rule);
    }

    @Test
    void differentMethodsHeadersOrHostsDoNotConflict() {
        Translation t = Fixtures.translate(
                route("shop", "a", 10, API.formatted("a")),
                route("shop", "b", 11, """
                        hosts: [ example.com ]
                        rules: [ { matches: [ { path: { value: /api }, method: POST } ], respond: { status: 200 } } ]"""),
                route("shop", "c", 12, """
                        hosts: [ example.com ]
                        rules: [ { matches: [ { path: { value: /api }, headers: [ { name: x-v, value: "2" } ] } ], respond: { status: 200 } } ]"""),
                route("shop", "d", 13, API.formatted("d").replace("example.com", "other.example.com")));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.a", "shop.b", "shop.c", "shop.d");
    }

    @Test
    void rulesWithoutMatchesClaimPrefixSlash() {
        Translation t = Fixtures.translate(
                route("shop", "a", 10, "hosts: [ example.com ]\nrules: [ { respond: { status: 200 } } ]"),
                route("shop", "b", 11, """
                        hosts: [ example.com ]
                        rules: [ { matches: [ { path: { type: Prefix, value: / } } ], respond: { status: 200 } } ]"""),
                route("shop", "c", 12, "hosts: [ example.com ]\nrules: [ { respond: { status: 200 } } ]"));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.a");
        assertThat(Fixtures.routeReport(t, "shop", "c").errors()).containsExactly("spec.rules[0]: host \"example.com\""
                + " path Prefix / is already served by Route shop/a (the older Route wins)");
    }

    @Test
    void routesOfDifferentClassesNeverConflict() {
        Translation t = Fixtures.translate(
                route("shop", "a", 10, API.formatted("a")),
                route("shop", "b", 11, "ingressClassName: internal\n" + API.formatted("b")));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.a");
        assertThat(t.snapshot(Scope.ingress("internal")).config().routes()).extracting(Route::name)
                .isEqualTo(List.of("shop.b"));
    }

    // ---- Conflicts kept between translations (ADR 0028): one translator, changes one at a time ----

    @Test
    void aYoungerRouteTakesOverWhenTheOwnerIsDeleted() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        var old = route("shop", "old", 10, API.formatted("old"));
        var young = route("shop", "young", 20, API.formatted("young"));
        assertThat(Fixtures.routeNames(translator.translate(Fixtures.inputs(old, young)))).containsExactly("shop.old");
        Translation t = translator.translate(Fixtures.inputs(young));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.young");
        assertThat(Fixtures.routeReport(t, "shop", "young").accepted().reason()).isEqualTo("Accepted");
    }

    @Test
    void anOlderRouteCreatedLaterTakesOver() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        var serving = route("shop", "serving", 20, API.formatted("serving"));
        assertThat(Fixtures.routeNames(translator.translate(Fixtures.inputs(serving)))).containsExactly("shop.serving");
        // Created after the first translation, with an earlier creation time (a restored backup, say).
        Translation t = translator.translate(Fixtures.inputs(serving, route("shop", "restored", 5, API.formatted("restored"))));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.restored");
        assertThat(Fixtures.routeReport(t, "shop", "serving").accepted().reason()).isEqualTo("Conflicted");
    }

    @Test
    void aRouteCreatedAgainWithTheSameSpecTakesItsNewAge() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        var a = route("shop", "a", 10, API.formatted("same"));
        var b = route("shop", "b", 20, API.formatted("b"));
        assertThat(Fixtures.routeNames(translator.translate(Fixtures.inputs(a, b)))).containsExactly("shop.a");
        // Same name, spec and generation (the fixtures have no uid): only the creation time tells them apart.
        Translation t = translator.translate(Fixtures.inputs(route("shop", "a", 30, API.formatted("same")), b));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.b");
    }

    @Test
    void aMatchLostOnOneHostFreesItsOtherHostsForYoungerRoutes() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        var a = route("shop", "a", 10, API.formatted("a"));
        var b = route("shop", "b", 20, API.formatted("b").replace("[ example.com ]", "[ example.com, www.example.com ]"));
        var c = route("shop", "c", 30, API.formatted("c").replace("example.com", "www.example.com"));
        // b loses its only match for example.com, so claims nothing; c gets www.example.com.
        assertThat(Fixtures.routeNames(translator.translate(Fixtures.inputs(a, b, c)))).containsExactly("shop.a", "shop.c");
        // a goes: b now keeps its match on both hosts, and c, which shares no key with a, loses.
        Translation t = translator.translate(Fixtures.inputs(b, c));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.b");
        assertThat(Fixtures.routeReport(t, "shop", "c").accepted().reason()).isEqualTo("Conflicted");
        // a's hosts change to www.example.com only: it takes that from b (whose match is then lost whole).
        Translation moved = translator.translate(Fixtures.inputs(
                route("shop", "a", 10, API.formatted("a").replace("example.com", "www.example.com")), b, c));
        assertThat(Fixtures.routeNames(moved)).containsExactly("shop.a");
        assertThat(moved.reports()).isEqualTo(new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(c, b,
                route("shop", "a", 10, API.formatted("a").replace("example.com", "www.example.com")))).reports());
    }
}
