package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import dev.strait.model.Upstream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Route's {@code mirrors}: each backend resolves as any other (a Service becomes its upstream, an Upstream its
 * model), with its share, Host and body carried as they are. A mirror guards nothing, so one whose backend cannot be
 * had is left out and reported, and the rule serves as it would without it.
 */
class RouteMirrorsTest {
    private static final String SPEC = """
            hosts: [ example.com ]
            rules:
              - backends: [ { service: { name: web, port: 80 } } ]
                mirrors:
                  - backend: { service: { name: shadow, port: 8080 } }
                    percent: 12.5
                    hostRewrite: shadow.internal:8080
                    body: false
                  - backend: { upstream: canary }
              - respond: { body: "no copies" }
            """;
    private static final Object WEB = service("shop", "web", "http:80");
    private static final Object WEB_PODS = slice("shop", "web", "web-1", "http", 8080, "10.0.0.1");
    private static final Object SHADOW = service("shop", "shadow", "http:8080");
    private static final Object SHADOW_PODS = slice("shop", "shadow", "shadow-1", "http", 9000, "10.0.0.9");
    private static final Object CANARY = Fixtures.upstream("shop", "canary", "service: { name: shadow, port: 8080 }");
    private static final Route.Backends WEB_BACKENDS = new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1)));

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().get(0).rules();
    }

    @Test
    void copiesGoToTheServicesAndTheUpstreamsUpstreamWithTheirSettings() {
        Translation t = Fixtures.translate(route("shop", "site", 1, SPEC), WEB, WEB_PODS, SHADOW, SHADOW_PODS, CANARY);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t).get(0).mirrors()).containsExactly(
                new Route.Mirror("service.shop.shadow.8080", 12.5, "shadow.internal:8080", false),
                new Route.Mirror("upstream.shop.canary"));
        assertThat(rules(t).get(0).action()).isEqualTo(WEB_BACKENDS);
        assertThat(rules(t).get(1).mirrors()).isEmpty();
        // Every upstream a mirror names is in the snapshot, or proxies would refuse it whole.
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name, Upstream::endpoints).contains(
                org.assertj.core.groups.Tuple.tuple("service.shop.shadow.8080",
                        List.of(new dev.strait.model.HostPort("10.0.0.9", 9000))),
                org.assertj.core.groups.Tuple.tuple("upstream.shop.canary",
                        List.of(new dev.strait.model.HostPort("10.0.0.9", 9000))));
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes().get(0).rules().get(0).mirrors())
                .isEqualTo(rules(t).get(0).mirrors());
    }

    /** A Service backend's settings make its upstream, as for any backend; a weight is the rule's, not a mirror's. */
    @Test
    void aMirrorsServiceTakesTheBackendSettings() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - respond: { body: "answered here, copied there" }
                    mirrors: [ { backend: { service: { name: shadow, port: 8080 }, protocol: h2c, weight: 3 } } ]
                """), SHADOW, SHADOW_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t).get(0).mirrors()).containsExactly(new Route.Mirror("service.shop.shadow.8080.h2c"));
        assertThat(t.snapshot(STRAIT).config().upstreams()).filteredOn(u -> u.name().equals("service.shop.shadow.8080.h2c"))
                .singleElement().satisfies(u -> assertThat(u.protocol()).isEqualTo(Upstream.Protocol.H2C));
        Fixtures.parse(t.snapshot(STRAIT).json());
    }

    @Test
    void aMirrorThatCannotBeHadIsLeftOutAndTheRuleServes() {
        String php = "service: { name: shadow, port: 8080 }\nprotocol: fastcgi";
        // error, reason, what the Route's namespace holds besides web, the mirror kept
        Object[][] cases = {
            {"spec.rules[0].mirrors[0].backend.service.name: Service \"shadow\" not found; the mirror is left out",
                "BackendNotFound", new Object[] {CANARY}, "upstream.shop.canary"},
            {"spec.rules[0].mirrors[0].backend.service.port: Service \"shadow\" has no TCP port 8080; the mirror is left"
                + " out", "BackendNotFound", new Object[] {service("shop", "shadow", "http:80"), CANARY},
                "upstream.shop.canary"},
            {"spec.rules[0].mirrors[1].backend.upstream: Upstream \"canary\" not found; the mirror is left out",
                "BackendNotFound", new Object[] {SHADOW, SHADOW_PODS}, "service.shop.shadow.8080"},
            {"spec.rules[0].mirrors[1].backend.upstream: Upstream \"canary\" speaks fastcgi, and a mirror's copies are"
                + " HTTP requests; the mirror is left out", "InvalidBackend",
                new Object[] {SHADOW, SHADOW_PODS, Fixtures.upstream("shop", "canary", php)}, "service.shop.shadow.8080"},
        };
        for (Object[] c : cases) {
            String error = (String) c[0];
            Object[] more = (Object[]) c[2];
            Object[] all = new Object[more.length + 3];
            all[0] = route("shop", "site", 1, SPEC);
            all[1] = WEB;
            all[2] = WEB_PODS;
            System.arraycopy(more, 0, all, 3, more.length);
            Translation t = Fixtures.translate(all);
            ResourceReport r = Fixtures.routeReport(t, "shop", "site");
            assertThat(r.errors()).as(error).containsExactly(error);
            assertThat(r.accepted().status()).isTrue();
            assertThat(r.resolvedRefs().status()).isFalse();
            assertThat(r.resolvedRefs().reason()).as(error).isEqualTo(c[1]);
            assertThat(r.inSnapshot()).isTrue();
            // Not locked: the rule keeps its own backend, and the other mirror.
            assertThat(rules(t).get(0).action()).as(error).isEqualTo(WEB_BACKENDS);
            assertThat(rules(t).get(0).mirrors()).as(error).extracting(Route.Mirror::upstream).containsExactly((String) c[3]);
            // Nothing of the mirror left out is in the snapshot: no stand-in, no FastCGI upstream.
            assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name).as(error)
                    .containsExactlyInAnyOrder("service.shop.web.80", (String) c[3]);
            Fixtures.parse(t.snapshot(STRAIT).json());
        }
    }

    /** The memo of a Route's state knows the mirrors' Services: once one exists, the rule's requests are copied. */
    @Test
    void theServiceAppearingAddsTheMirror() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        dev.strait.operator.crd.Route site = route("shop", "site", 1, SPEC);
        site.getMetadata().setUid("uid-site");
        Translation before = translator.translate(Fixtures.inputs(site, WEB, WEB_PODS, CANARY));
        assertThat(rules(before).get(0).mirrors()).extracting(Route.Mirror::upstream).containsExactly("upstream.shop.canary");
        Translation after = translator.translate(Fixtures.inputs(site, WEB, WEB_PODS, CANARY, SHADOW, SHADOW_PODS));
        assertThat(Fixtures.routeReport(after, "shop", "site").errors()).isEmpty();
        assertThat(rules(after).get(0).mirrors()).extracting(Route.Mirror::upstream)
                .containsExactly("service.shop.shadow.8080", "upstream.shop.canary");
        assertThat(after.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name).contains("service.shop.shadow.8080");
    }

    /** So does it know whether an Upstream speaks fastcgi: one that no longer does takes the copies. */
    @Test
    void anUpstreamThatStopsSpeakingFastCgiTakesTheCopies() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        dev.strait.operator.crd.Route site = route("shop", "site", 1, SPEC);
        site.getMetadata().setUid("uid-site");
        Translation before = translator.translate(Fixtures.inputs(site, WEB, WEB_PODS, SHADOW, SHADOW_PODS,
                Fixtures.upstream("shop", "canary", "service: { name: shadow, port: 8080 }\nprotocol: fastcgi")));
        assertThat(rules(before).get(0).mirrors()).extracting(Route.Mirror::upstream)
                .containsExactly("service.shop.shadow.8080");
        Translation after = translator.translate(Fixtures.inputs(site, WEB, WEB_PODS, SHADOW, SHADOW_PODS, CANARY));
        assertThat(Fixtures.routeReport(after, "shop", "site").errors()).isEmpty();
        assertThat(rules(after).get(0).mirrors()).extracting(Route.Mirror::upstream)
                .containsExactly("service.shop.shadow.8080", "upstream.shop.canary");
    }

    /**
     * A rule whose guard cannot be had answers 503 to every request from a stand-in, its basicAuth gone: no copy of
     * those requests may reach a mirror, which would then see what the guard keeps out.
     */
    @Test
    void aLockedRuleCopiesNothing() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - backends: [ { service: { name: web, port: 80 } } ]
                    basicAuth: { secretName: users }
                    mirrors: [ { backend: { service: { name: shadow, port: 8080 } } } ]
                """), WEB, WEB_PODS, SHADOW, SHADOW_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).containsExactly(
                "spec.rules[0].basicAuth.secretName: Secret \"users\" not found; the rule answers 503");
        assertThat(rules(t).get(0).action()).isEqualTo(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
        assertThat(rules(t).get(0).mirrors()).isEmpty();
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name).doesNotContain("service.shop.shadow.8080");
    }

    /** What the API server's schema refuses, the operator refuses too, with the proxy's words and the field named. */
    @Test
    void badMirrorFieldsAreSpecErrorsNamingThem() {
        String[][] cases = {
            {"percent: 12.5", "percent: 0", "spec.rules[0].mirrors[0].percent: must be a number over 0 and at most 100"},
            {"percent: 12.5", "percent: 150", "spec.rules[0].mirrors[0].percent: must be a number over 0 and at most 100"},
            {"hostRewrite: shadow.internal:8080", "hostRewrite: \"shadow internal\"",
                "spec.rules[0].mirrors[0].hostRewrite: \"shadow internal\" is not a host"},
            {"- backend: { upstream: canary }", "- percent: 5", "spec.rules[0].mirrors[1].backend: is required"},
        };
        for (String[] c : cases) {
            Fixtures.assertRouteRefused(c[2], route("shop", "site", 1, SPEC.replace(c[0], c[1])), WEB, WEB_PODS, SHADOW,
                    SHADOW_PODS, CANARY);
        }
    }
}
