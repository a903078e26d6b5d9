package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingress;
import static dev.strait.operator.translate.Fixtures.ingressClass;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.parse;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import org.junit.jupiter.api.Test;

/** Standard networking.k8s.io/v1 Ingresses go through the Route translation, one Route per host. */
class IngressTest {
    private static final String CERT = Fixtures.CERT;
    private static final String KEY = Fixtures.KEY;

    private static Object[] web(Object... more) {
        Object[] base = {
            service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
            service("shop", "api", "grpc:9000", "http:8080"), slice("shop", "api", "api-1", "http", 3000, "10.0.0.2"),
        };
        Object[] out = new Object[base.length + more.length];
        System.arraycopy(base, 0, out, 0, base.length);
        System.arraycopy(more, 0, out, base.length, more.length);
        return out;
    }

    @Test
    void pathTypesHostsAndPortsBecomeOneRoutePerHost() {
        Translation t = Fixtures.translate(web(ingress("shop", "site", 1, """
                ingressClassName: strait
                rules:
                  - host: example.com
                    http:
                      paths:
                        - { path: /healthz, pathType: Exact, backend: { service: { name: web, port: { number: 80 } } } }
                        - { path: /api, pathType: Prefix, backend: { service: { name: api, port: { name: http } } } }
                  - http:
                      paths:
                        - { path: /, pathType: ImplementationSpecific, backend: { service: { name: web, port: { number: 80 } } } }
                """)));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(t.snapshot(STRAIT).config()).isEqualTo(parse("""
                accessLog: { enabled: true }
                listeners: [ { name: http, address: 0.0.0.0:8080 } ]
                admin: { address: 0.0.0.0:9901 }
                upstreams:
                  - { name: service.shop.api.8080, endpoints: [ 10.0.0.2:3000 ] }
                  - { name: service.shop.web.80, endpoints: [ 10.0.0.1:8080 ] }
                routes:
                  - name: shop.site..ingress-0
                    hosts: [ example.com ]
                    rules:
                      - matches: [ { path: { type: Exact, value: /healthz } } ]
                        backends: [ { upstream: service.shop.web.80 } ]
                        requestBuffering: { maxBytes: 1073741824, memoryBytes: 1048576 }
                      - matches: [ { path: { type: Prefix, value: /api } } ]
                        backends: [ { upstream: service.shop.api.8080 } ]
                        requestBuffering: { maxBytes: 1073741824, memoryBytes: 1048576 }
                  - name: shop.site..ingress-1
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: / } } ]
                        backends: [ { upstream: service.shop.web.80 } ]
                        requestBuffering: { maxBytes: 1073741824, memoryBytes: 1048576 }
                """));
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.accepted().status()).isTrue();
        assertThat(r.scopes()).containsExactly(STRAIT);
    }

    @Test
    void defaultBackendAnswersWhatNoPathMatchesAndAnyOtherHost() {
        Translation t = Fixtures.translate(web(ingress("shop", "site", 1, """
                ingressClassName: strait
                defaultBackend: { service: { name: web, port: { number: 80 } } }
                rules:
                  - host: api.example.com
                    http:
                      paths:
                        - { path: /v1, pathType: Prefix, backend: { service: { name: api, port: { number: 8080 } } } }
                """)));
        var routes = t.snapshot(STRAIT).config().routes();
        // The defaultBackend is a Route of its own per host, listed last (ADR 0056).
        assertThat(routes).extracting(dev.strait.model.Route::name, dev.strait.model.Route::hosts).containsExactly(
                org.assertj.core.groups.Tuple.tuple("shop.site..ingress-0", java.util.List.of("api.example.com")),
                org.assertj.core.groups.Tuple.tuple("shop.site..ingress-0-default", java.util.List.of("api.example.com")),
                org.assertj.core.groups.Tuple.tuple("shop.site..ingress-1-default", java.util.List.of("*")));
        assertThat(routes.get(0).rules()).hasSize(1);
        for (var fallback : routes.subList(1, 3)) {
            assertThat(fallback.rules()).hasSize(1);
            assertThat(((dev.strait.model.Route.Backends) fallback.rules().get(0).action()).backends().get(0).upstream())
                    .isEqualTo("service.shop.web.80");
        }
    }

    @Test
    void tlsSecretsGoToTheHostsTheyList() {
        Translation t = Fixtures.translate(web(Fixtures.tlsSecret("shop", "site-tls", CERT, KEY), ingress("shop", "site", 1, """
                ingressClassName: strait
                tls: [ { hosts: [ example.com ], secretName: site-tls } ]
                rules:
                  - host: example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """)));
        Config c = t.snapshot(STRAIT).config();
        assertThat(c.listeners()).extracting(Config.Listener::name).containsExactly("http", "https");
        assertThat(c.listeners().get(1).tls().certificates()).containsExactly(new Config.Certificate(CERT, KEY));
    }

    @Test
    void errorsNameTheIngressFieldsAndOnlyTheirPathsAnswer503() {
        Translation t = Fixtures.translate(web(ingress("shop", "site", 1, """
                ingressClassName: strait
                tls: [ { secretName: missing } ]
                rules:
                  - host: example.com
                    http:
                      paths:
                        - { path: /a, pathType: Prefix, backend: { service: { name: nope, port: { number: 80 } } } }
                        - { path: /b, pathType: Prefix, backend: { service: { name: api, port: { name: admin } } } }
                """)));
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.resolvedRefs().status()).isFalse();
        assertThat(r.errors()).containsExactlyInAnyOrder(
                "spec.rules[0].http.paths[0].backend.service.name: Service \"nope\" not found",
                "spec.rules[0].http.paths[1].backend.service.port.name: Service \"api\" has no TCP port named \"admin\"",
                "spec.tls[0].secretName: Secret \"missing\" not found");
        assertThat(r.inSnapshot()).as("the host still serves (ADR 0049)").isTrue();
        var rules = t.snapshot(STRAIT).config().routes().get(0).rules();
        assertThat(rules).hasSize(2);
        for (var rule : rules) {
            assertThat(((dev.strait.model.Route.Backends) rule.action()).backends().get(0).upstream())
                    .isEqualTo(Translator.UNRESOLVED);
        }
    }

    @Test
    void aMissingDefaultBackendIsReportedOnceAndAnswers503OnEveryHost() {
        Translation t = Fixtures.translate(web(ingress("shop", "site", 1, """
                ingressClassName: strait
                defaultBackend: { service: { name: gone, port: { number: 80 } } }
                rules:
                  - host: a.example.com
                    http: { paths: [ { path: /a, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                  - host: b.example.com
                    http: { paths: [ { path: /b, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """)));
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.errors()).containsExactly("spec.defaultBackend.service.name: Service \"gone\" not found");
        assertThat(r.resolvedRefs().message()).isEqualTo("spec.defaultBackend.service.name: Service \"gone\" not found");
        assertThat(t.snapshot(STRAIT).config().routes()).as("two hosts, their defaultBackends and *'s").hasSize(5);
    }

    @Test
    void onlyIngressesOfOurClassesAreServed() {
        String spec = """
                rules: [ { host: %s.example.com, http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] } } ]
                """;
        Translation noDefault = Fixtures.translate(web(
                ingress("shop", "nginx", 1, "ingressClassName: nginx\n" + spec.formatted("nginx")),
                ingress("shop", "none", 2, spec.formatted("none")),
                ingress("shop", "ours", 3, "ingressClassName: strait\n" + spec.formatted("ours"))));
        assertThat(ingressReport(noDefault, "shop", "nginx")).isNull();
        assertThat(ingressReport(noDefault, "shop", "none")).as("no default IngressClass").isNull();
        assertThat(ingressReport(noDefault, "shop", "ours").inSnapshot()).isTrue();

        Translation withDefault = Fixtures.translate(web(
                ingressClass("strait", IngressRoutes.CONTROLLER, true),
                ingressClass("internal", IngressRoutes.CONTROLLER, false),
                ingressClass("nginx", "k8s.io/ingress-nginx", false),
                ingress("shop", "none", 2, spec.formatted("none")),
                ingress("shop", "internal", 4, "ingressClassName: internal\n" + spec.formatted("internal")),
                ingress("shop", "nginx", 1, "ingressClassName: nginx\n" + spec.formatted("nginx"))));
        assertThat(ingressReport(withDefault, "shop", "none").scopes()).as("the default class").containsExactly(STRAIT);
        assertThat(ingressReport(withDefault, "shop", "internal").scopes()).containsExactly(Scope.ingress("internal"));
        assertThat(ingressReport(withDefault, "shop", "nginx")).isNull();
    }

    @Test
    void anOlderRouteKeepsItsMatchAgainstAYoungerIngress() {
        Translation t = Fixtures.translate(web(
                route("shop", "site", 1, "hosts: [ example.com ]\nrules: [ { matches: [ { path: { type: Prefix, value: / } } ], respond: { status: 204 } } ]"),
                ingress("shop", "late", 2, """
                        ingressClassName: strait
                        rules:
                          - host: example.com
                            http:
                              paths:
                                - { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
                                - { path: /api, pathType: Prefix, backend: { service: { name: api, port: { number: 8080 } } } }
                        """)));
        ResourceReport r = ingressReport(t, "shop", "late");
        assertThat(r.accepted().reason()).isEqualTo("PartiallyConflicted");
        assertThat(r.accepted().message()).startsWith("spec.rules[0].http.paths[0]: host \"example.com\"")
                .endsWith("is already served by Route shop/site (the older Route wins)");
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.site", "shop.late..ingress-0");
    }
}
