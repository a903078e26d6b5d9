package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import dev.strait.model.Upstream;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Route's Service backend chooses how its upstream spreads requests and connects: {@code loadBalancer},
 * {@code hashOn}, {@code connectTimeout} (beside {@code sessionAffinity}). Each setting is an upstream of its
 * own; what cannot be read is the Route's error, and the Routes that were serving keep serving.
 */
class ServiceBalancingTest {
    private static Translation translate(String... backends) {
        Object[] resources = new Object[backends.length + 2];
        resources[0] = service("shop", "api", "http:80");
        resources[1] = slice("shop", "api", "api-1", "http", 8080, "10.0.0.1", "10.0.0.2");
        for (int i = 0; i < backends.length; i++) {
            resources[i + 2] = route("shop", "r" + i, 1,
                    "hosts: [ r" + i + ".example.com ]\nrules: [ { backends: [ " + backends[i] + " ] } ]");
        }
        return Fixtures.translate(resources);
    }

    private static Translation withRule(String rule) {
        return Fixtures.translate(service("shop", "api", "http:80"), slice("shop", "api", "api-1", "http", 8080, "10.0.0.1"),
                route("shop", "r0", 1, "hosts: [ r0.example.com ]\nrules: [ " + rule + " ]"));
    }

    private static Upstream only(Translation t) {
        assertThat(Fixtures.routeReport(t, "shop", "r0").errors()).isEmpty();
        List<Upstream> made = t.snapshot(STRAIT).config().upstreams().stream()
                .filter(u -> u.name().startsWith("service.shop.api.80")).toList();
        assertThat(made).hasSize(1);
        return made.get(0);
    }

    private static String upstreamOf(Translation t, String routeName) {
        for (Route r : t.snapshot(STRAIT).config().routes()) {
            if (r.name().contains(routeName)) {
                return ((Route.Backends) r.rules().get(0).action()).backends().get(0).upstream();
            }
        }
        throw new AssertionError("no route " + routeName);
    }

    @Test
    void eachSettingIsAnUpstreamOfItsOwn() {
        Upstream plain = only(translate("{ service: { name: api, port: 80 } }"));
        assertThat(plain.name()).isEqualTo("service.shop.api.80");
        assertThat(plain.loadBalancer()).isEqualTo(Upstream.LoadBalancer.ROUND_ROBIN);
        assertThat(plain.pool()).isEqualTo(Upstream.Pool.DEFAULTS);
        assertThat(only(translate("{ service: { name: api, port: 80 }, loadBalancer: round-robin }")).name())
                .as("the default asked for is the default's upstream").isEqualTo("service.shop.api.80");

        Upstream least = only(translate("{ service: { name: api, port: 80 }, loadBalancer: least-request }"));
        assertThat(least.name()).startsWith("service.shop.api.80.balanced-");
        assertThat(least.loadBalancer()).isEqualTo(Upstream.LoadBalancer.LEAST_REQUEST);
        assertThat(least.endpoints()).hasSize(2);

        Upstream byHeader = only(translate("{ service: { name: api, port: 80 }, hashOn: { source: header, name: x-user } }"));
        assertThat(byHeader.loadBalancer()).as("hashOn implies the consistent hash")
                .isEqualTo(Upstream.LoadBalancer.CONSISTENT_HASH);
        assertThat(byHeader.hashOn()).isEqualTo(new Upstream.HashOn(Upstream.HashSource.HEADER, "x-user"));
        Upstream byClient = only(translate("{ service: { name: api, port: 80 }, loadBalancer: consistent-hash }"));
        assertThat(byClient.hashOn()).isEqualTo(Upstream.HashOn.CLIENT_ADDRESS);
        assertThat(byClient.name()).isNotEqualTo(byHeader.name());
        Upstream byUri = only(translate("{ service: { name: api, port: 80 }, hashOn: { source: uri } }"));
        assertThat(byUri.hashOn()).isEqualTo(new Upstream.HashOn(Upstream.HashSource.URI, null));
        Upstream byTenant = only(translate("{ service: { name: api, port: 80 }, hashOn: { source: query, name: tenant } }"));
        assertThat(byTenant.hashOn()).isEqualTo(new Upstream.HashOn(Upstream.HashSource.QUERY, "tenant"));
        Upstream byUriAndTenant = only(translate("{ service: { name: api, port: 80 }, hashOn: { source: uri, also: ["
                + " { source: query, name: tenant } ] } }"));
        assertThat(byUriAndTenant.hashOn()).isEqualTo(new Upstream.HashOn(Upstream.HashSource.URI, null, null,
                java.util.List.of(new Upstream.HashPart(Upstream.HashSource.QUERY, "tenant"))));
        assertThat(java.util.Set.of(byUri.name(), byTenant.name(), byHeader.name(), byClient.name(), byUriAndTenant.name()))
                .hasSize(5);

        Upstream quick = only(translate("{ service: { name: api, port: 80 }, connectTimeout: 250ms }"));
        assertThat(quick.pool().connectTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(quick.pool().maxIdlePerLoop()).isEqualTo(Upstream.Pool.DEFAULTS.maxIdlePerLoop());
        assertThat(quick.loadBalancer()).isEqualTo(Upstream.LoadBalancer.ROUND_ROBIN);
        assertThat(quick.name()).startsWith("service.shop.api.80.balanced-");
    }

    @Test
    void useClusterIpSendsToTheServiceRatherThanItsPods() {
        io.fabric8.kubernetes.api.model.Service svc = service("shop", "api", "http:80");
        svc.getSpec().setClusterIP("10.96.0.7");
        Translation t = Fixtures.translate(svc, slice("shop", "api", "api-1", "http", 8080, "10.0.0.1", "10.0.0.2"),
                route("shop", "r0", 1, "hosts: [ r0.example.com ]\nrules: [ { backends: [ { service: { name: api, port: 80 },"
                        + " useClusterIP: true } ] } ]"));
        Upstream viaService = only(t);
        assertThat(viaService.endpoints()).containsExactly(new dev.strait.model.HostPort("10.96.0.7", 80));
        assertThat(viaService.name()).startsWith("service.shop.api.80.balanced-");

        Translation headless = translate("{ service: { name: api, port: 80 }, useClusterIP: true }");
        assertThat(Fixtures.routeReport(headless, "shop", "r0").errors()).containsExactly("spec.rules[0].backends[0]"
                + ".useClusterIP: Service \"api\" has no cluster IP (headless); its pods can be reached only through"
                + " its endpoints");
    }

    /** A rule's errorPages name their source as a backend: a Service becomes its upstream, an Upstream its own. */
    @Test
    void errorPagesComeFromAServiceOrAnUpstream() {
        Translation t = withRule("{ backends: [ { service: { name: api, port: 80 } } ], errorPages: { statuses: [ 404, 503 ],"
                + " backend: { service: { name: api, port: 80 }, connectTimeout: 1s }, path: \"/e/{status}\" } }");
        assertThat(Fixtures.routeReport(t, "shop", "r0").errors()).isEmpty();
        Route.Rule rule = t.snapshot(STRAIT).config().routes().get(0).rules().get(0);
        assertThat(rule.errorPages().statuses()).containsExactly(404, 503);
        assertThat(rule.errorPages().path()).isEqualTo("/e/{status}");
        assertThat(rule.errorPages().upstream()).startsWith("service.shop.api.80.balanced-");
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name)
                .contains(rule.errorPages().upstream(), "service.shop.api.80");

        t = withRule("{ backends: [ { service: { name: api, port: 80 } } ], errorPages: { statuses: [ 404 ],"
                + " backend: { service: { name: nope, port: 80 } } } }");
        assertThat(Fixtures.routeReport(t, "shop", "r0").errors()).containsExactly(
                "spec.rules[0].errorPages.backend.service.name: Service \"nope\" not found");
        assertThat(t.snapshot(STRAIT).config().routes()).as("the rule serves; its pages answer as the stand-in")
                .singleElement().satisfies(r -> assertThat(r.rules().get(0).errorPages().upstream())
                        .isEqualTo(Translator.UNRESOLVED));
        // Declared in the snapshot, or proxies would refuse all of it for the undefined name.
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name).contains(Translator.UNRESOLVED);
        Fixtures.parse(t.snapshot(STRAIT).json());
    }

    @Test
    void routesAskingTheSameShareOneUpstream() {
        Translation t = translate("{ service: { name: api, port: 80 }, loadBalancer: least-request, connectTimeout: 2s }",
                "{ service: { name: api, port: 80 }, connectTimeout: 2s, loadBalancer: least-request }",
                "{ service: { name: api, port: 80 }, loadBalancer: least-request, connectTimeout: 3s }",
                "{ service: { name: api, port: 80 } }");
        assertThat(upstreamOf(t, "r0")).isEqualTo(upstreamOf(t, "r1"));
        assertThat(upstreamOf(t, "r2")).isNotEqualTo(upstreamOf(t, "r0")).startsWith("service.shop.api.80.balanced-");
        assertThat(upstreamOf(t, "r3")).isEqualTo("service.shop.api.80");
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name)
                .filteredOn(n -> n.startsWith("service.shop.api.80")).hasSize(3);
    }

    /** sessionAffinity's cookie settings reach the upstream's setCookie; each setting is an upstream of its own. */
    @Test
    void aStickyCookieTakesItsSettingsFromTheRoute() {
        Upstream sticky = only(translate("{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid,"
                + " path: /shop, maxAge: 1h, sameSite: None, changeOnFailure: true, domain: .example.com, secure: true } }"));
        assertThat(sticky.loadBalancer()).isEqualTo(Upstream.LoadBalancer.CONSISTENT_HASH);
        assertThat(sticky.hashOn()).isEqualTo(new Upstream.HashOn(Upstream.HashSource.COOKIE, "sid",
                new Upstream.SetCookie("/shop", Duration.ofHours(1), "None", true, ".example.com", true)));

        Translation t = translate("{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid } }",
                "{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid, domain: example.com } }",
                "{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid, domain: example.org } }",
                "{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid, secure: true } }",
                "{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid, secure: false } }");
        assertThat(java.util.Set.of(upstreamOf(t, "r0"), upstreamOf(t, "r1"), upstreamOf(t, "r2"), upstreamOf(t, "r3")))
                .hasSize(4);
        assertThat(upstreamOf(t, "r4")).as("secure: false is the default").isEqualTo(upstreamOf(t, "r0"));

        t = translate("{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid, domain: 10.0.0.1 } }",
                "{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid, domain: a..example.com } }");
        assertThat(Fixtures.routeReport(t, "shop", "r0").errors()).containsExactly("spec.rules[0].backends[0]"
                + ".sessionAffinity.domain: \"10.0.0.1\" is an IP address; browsers ignore Domain for addresses (leave"
                + " it out: the cookie then goes back to the address that set it)");
        assertThat(Fixtures.routeReport(t, "shop", "r1").errors()).containsExactly("spec.rules[0].backends[0]"
                + ".sessionAffinity.domain: \"a..example.com\" is not a domain (a host name such as example.com or"
                + " .example.com; no port, scheme or path)");
        assertThat(Fixtures.routeNames(t)).as("neither is programmed").isEmpty();
    }

    /**
     * sessionAffinity.mode: persistent reaches the upstream's setCookie and is an upstream of its own; balanced (or
     * absent) keeps the name the upstream had before modes existed, so an upgrade renames nothing.
     */
    @Test
    void aPersistentCookieIsAnUpstreamOfItsOwnAndBalancedKeepsItsName() {
        String all = "cookieName: sid, path: /shop, maxAge: 1h, sameSite: None, changeOnFailure: true,"
                + " domain: .example.com, secure: true";
        Translation t = translate("{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid } }",
                "{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid, mode: balanced } }",
                "{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid, mode: persistent } }",
                "{ service: { name: api, port: 80 }, sessionAffinity: { " + all + " } }",
                "{ service: { name: api, port: 80 }, sessionAffinity: { " + all + ", mode: balanced } }",
                "{ service: { name: api, port: 80 }, sessionAffinity: { " + all + ", mode: persistent } }");
        for (int i = 0; i < 6; i++) {
            assertThat(Fixtures.routeReport(t, "shop", "r" + i).errors()).isEmpty();
        }
        // The names upstreams had before the mode: a balanced cookie's digest did not change.
        assertThat(upstreamOf(t, "r0")).isEqualTo("service.shop.api.80.sticky-efd49912");
        assertThat(upstreamOf(t, "r1")).isEqualTo("service.shop.api.80.sticky-efd49912");
        assertThat(upstreamOf(t, "r3")).isEqualTo("service.shop.api.80.sticky-b6635055");
        assertThat(upstreamOf(t, "r4")).isEqualTo("service.shop.api.80.sticky-b6635055");
        assertThat(upstreamOf(t, "r2")).startsWith("service.shop.api.80.sticky-")
                .isNotIn(upstreamOf(t, "r0"), upstreamOf(t, "r3"), upstreamOf(t, "r5"));
        assertThat(upstreamOf(t, "r5")).startsWith("service.shop.api.80.sticky-").isNotEqualTo(upstreamOf(t, "r3"));

        java.util.Map<String, Upstream> byName = new java.util.HashMap<>();
        t.snapshot(STRAIT).config().upstreams().forEach(u -> byName.put(u.name(), u));
        assertThat(byName.get(upstreamOf(t, "r0")).hashOn().setCookie().persistent()).isFalse();
        assertThat(byName.get(upstreamOf(t, "r2")).hashOn()).isEqualTo(new Upstream.HashOn(Upstream.HashSource.COOKIE,
                "sid", new Upstream.SetCookie("/", null, null, false, null, false, true)));
        assertThat(byName.get(upstreamOf(t, "r5")).hashOn().setCookie()).isEqualTo(
                new Upstream.SetCookie("/shop", Duration.ofHours(1), "None", true, ".example.com", true, true));
        assertThat(byName.get(upstreamOf(t, "r5")).loadBalancer()).isEqualTo(Upstream.LoadBalancer.CONSISTENT_HASH);
        // What the proxies get reads back the same (mode: persistent is written; balanced is not).
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).upstreams()).filteredOn(u -> u.name().contains(".sticky-"))
                .extracting(u -> u.hashOn().setCookie().persistent()).containsExactlyInAnyOrder(false, false, true, true);

        // Where no API server checked the schema, another mode is the Route's error, as its domain is.
        t = translate("{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid, mode: sticky } }");
        assertThat(Fixtures.routeReport(t, "shop", "r0").errors()).containsExactly("spec.rules[0].backends[0]"
                + ".sessionAffinity.mode: \"sticky\" is neither balanced nor persistent");
        assertThat(Fixtures.routeNames(t)).isEmpty();
    }

    @Test
    void whatCannotBeReadIsTheRoutesErrorAndTheOthersServe() {
        Translation t = translate(
                "{ service: { name: api, port: 80 }, sessionAffinity: { cookieName: sid }, loadBalancer: least-request }",
                "{ service: { name: api, port: 80 }, loadBalancer: round-robin, hashOn: { source: client-address } }",
                "{ service: { name: api, port: 80 }, hashOn: { source: cookie } }",
                "{ service: { name: api, port: 80 }, connectTimeout: \"5\" }",
                "{ service: { name: api, port: 80 }, loadBalancer: least-request }",
                "{ service: { name: api, port: 80 }, hashOn: { source: path, name: x } }",
                "{ service: { name: api, port: 80 }, hashOn: { source: query } }");
        assertThat(Fixtures.routeReport(t, "shop", "r0").errors()).containsExactly("spec.rules[0].backends[0]:"
                + " sessionAffinity is a consistent hash of its own; it takes no loadBalancer or hashOn");
        assertThat(Fixtures.routeReport(t, "shop", "r1").errors()).containsExactly("spec.rules[0].backends[0].hashOn:"
                + " applies to the consistent-hash load balancer, not \"round-robin\"");
        assertThat(Fixtures.routeReport(t, "shop", "r2").errors()).containsExactly("spec.rules[0].backends[0].hashOn.name:"
                + " a cookie hash needs the cookie's name");
        assertThat(Fixtures.routeReport(t, "shop", "r3").errors()).singleElement().asString()
                .startsWith("spec.rules[0].backends[0].connectTimeout: must be a duration");
        assertThat(Fixtures.routeReport(t, "shop", "r4").errors()).isEmpty();
        assertThat(Fixtures.routeReport(t, "shop", "r5").errors()).containsExactly("spec.rules[0].backends[0].hashOn.name:"
                + " path takes none");
        assertThat(Fixtures.routeReport(t, "shop", "r6").errors()).containsExactly("spec.rules[0].backends[0].hashOn.name:"
                + " a query hash needs the query parameter's name");
        assertThat(Fixtures.routeNames(t)).as("only the good Route is programmed").hasSize(1);
    }
}
