package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Route naming something that does not exist keeps serving everything else (ADR 0049): the backend
 * answers 503 (an upstream without endpoints), a missing certificate leaves the host to the default one,
 * and ResolvedRefs says what and where.
 */
class ReferencesTest {
    private static final String RULES_BEFORE = """
            hosts: [ example.com ]
            rules:
              - respond: { status: 200 }
              - matches: [ { path: { value: /a } } ]
                respond: { status: 200 }
            """;

    private static String rule(String rule) {
        return RULES_BEFORE + rule.indent(2);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("missing Upstream", rule("""
                          - matches: [ { path: { value: /api } } ]
                            backends: [ { upstream: api } ]"""),
                        "BackendNotFound", "spec.rules[2].backends[0].upstream: Upstream \"api\" not found"),
                Arguments.of("Upstream in another namespace does not count", rule("""
                          - matches: [ { path: { value: /api } } ]
                            backends: [ { upstream: elsewhere } ]"""),
                        "BackendNotFound", "spec.rules[2].backends[0].upstream: Upstream \"elsewhere\" not found"),
                Arguments.of("missing Service", rule("""
                          - matches: [ { path: { value: /api } } ]
                            backends: [ { upstream: web }, { service: { name: gone, port: 80 } } ]"""),
                        "BackendNotFound", "spec.rules[2].backends[1].service.name: Service \"gone\" not found"),
                Arguments.of("Service of another namespace that does not accept it", rule("""
                          - matches: [ { path: { value: /api } } ]
                            backends: [ { service: { name: web, namespace: other, port: 80 } } ]"""),
                        "RefNotPermitted", "spec.rules[2].backends[0].service.namespace: Service \"web\" of namespace"
                                + " \"other\" does not accept references from namespace \"shop\": its annotation"
                                + " strait.dev/accept-references-from must list \"shop\" (or be \"*\")"),
                Arguments.of("Service of another namespace that accepts others", rule("""
                          - matches: [ { path: { value: /api } } ]
                            backends: [ { service: { name: open, namespace: other, port: 81 } } ]"""),
                        "BackendNotFound", "spec.rules[2].backends[0].service.port: Service \"open\" has no TCP port 81"),
                Arguments.of("missing Service of another namespace", rule("""
                          - matches: [ { path: { value: /api } } ]
                            backends: [ { service: { name: gone, namespace: other, port: 80 } } ]"""),
                        "BackendNotFound", "spec.rules[2].backends[0].service.name: Service \"gone\" of namespace"
                                + " \"other\" not found"),
                Arguments.of("missing Service port", rule("""
                          - matches: [ { path: { value: /api } } ]
                            backends: [ { service: { name: web, port: 81 } } ]"""),
                        "BackendNotFound", "spec.rules[2].backends[0].service.port: Service \"web\" has no TCP port 81"),
                Arguments.of("missing Secret", "tls: { secretName: site-tls }\n" + RULES_BEFORE,
                        "SecretNotFound", "spec.tls.secretName: Secret \"site-tls\" not found"),
                Arguments.of("Secret without PEM data", "tls: { secretName: opaque }\n" + RULES_BEFORE,
                        "InvalidSecret",
                        "spec.tls.secretName: Secret \"opaque\" needs PEM data in tls.crt and tls.key (type kubernetes.io/tls)"));
    }

    /** {@code svc} accepting references from the namespaces {@code namespaces} lists (ADR 0078). */
    static io.fabric8.kubernetes.api.model.Service accepting(io.fabric8.kubernetes.api.model.Service svc, String namespaces) {
        svc.getMetadata().setAnnotations(java.util.Map.of(Consent.ANNOTATION, namespaces));
        return svc;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void unresolvedReferenceDegradesOnlyWhatItNames(String name, String spec, String reason, String error) {
        Translation t = Fixtures.translate(
                Fixtures.upstream("shop", "web", "service: { name: web, port: 80 }"),
                Fixtures.upstream("other", "elsewhere", "service: { name: web, port: 80 }"),
                Fixtures.service("shop", "web", "http:80"),
                Fixtures.service("other", "web", "http:80"),
                accepting(Fixtures.service("other", "open", "http:80"), "team-a,shop"),
                Fixtures.tlsSecret("shop", "opaque", "not pem", "not pem"),
                route("shop", "site", 1, spec));
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.accepted().status()).as("the spec itself is fine").isTrue();
        assertThat(r.resolvedRefs().status()).isFalse();
        assertThat(r.resolvedRefs().reason()).isEqualTo(reason);
        assertThat(r.resolvedRefs().message()).isEqualTo(error);
        assertThat(r.scopes()).as("still served").containsExactly(Fixtures.STRAIT);
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.site");
        dev.strait.model.Config c = t.snapshot(Fixtures.STRAIT).config();
        assertThat(c.routes().get(0).rules()).as("every rule kept").hasSize(spec.contains("/api") ? 3 : 2);
        if (spec.contains("/api")) {
            var backends = ((dev.strait.model.Route.Backends) c.routes().get(0).rules().get(2).action()).backends();
            assertThat(backends).extracting(dev.strait.model.Route.Backend::upstream).contains(Translator.UNRESOLVED);
            assertThat(c.upstreams()).filteredOn(u -> u.name().equals(Translator.UNRESOLVED)).singleElement()
                    .satisfies(u -> assertThat(u.endpoints()).as("answers 503").isEmpty());
        } else {
            assertThat(c.listeners()).as("no certificate, so no https listener").hasSize(1);
        }
    }

    @org.junit.jupiter.api.Test
    void aRouteWhoseServiceGoesAwayKeepsItsPathsFromAYoungerRoute() {
        String spec = """
                hosts: [ example.com ]
                rules:
                  - matches: [ { path: { value: /api } } ]
                    backends: [ { service: { name: api, port: 80 } } ]
                  - respond: { status: 200, body: "old" }
                """;
        Object old = route("shop", "old", 1, spec);
        Object young = route("other", "young", 2, "hosts: [ example.com ]\nrules: [ { respond: { status: 200, body: \"young\" } } ]");
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        translator.translate(Fixtures.inputs(old, young, Fixtures.service("shop", "api", "http:80")));
        Translation without = translator.translate(Fixtures.inputs(old, young));
        assertThat(without.snapshot(Fixtures.STRAIT).config().routes()).extracting(dev.strait.model.Route::name)
                .as("the younger Route does not take the older one's host").containsExactly("shop.old");
        assertThat(Fixtures.routeReport(without, "other", "young").accepted().reason()).isEqualTo("Conflicted");
    }

    @org.junit.jupiter.api.Test
    void anUpstreamWhoseServiceIsMissingServesWithNoEndpoints() {
        Translation t = Fixtures.translate(
                Fixtures.upstream("shop", "api", "service: { name: api, port: 80 }"),
                route("shop", "site", 1, "hosts: [ example.com ]\nrules: [ { backends: [ { upstream: api } ] } ]"));
        ResourceReport u = Fixtures.upstreamReport(t, "shop", "api");
        assertThat(u.resolvedRefs().status()).isFalse();
        assertThat(u.resolvedRefs().message()).isEqualTo("spec.service.name: Service \"api\" not found");
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.site");
        assertThat(t.snapshot(Fixtures.STRAIT).config().upstreams().get(0).endpoints()).isEmpty();
    }

    /**
     * A Service of another namespace that accepts this one (ADR 0078) is a backend like one's own: a Route's backend and
     * an Upstream's service reach its endpoints; once it stops accepting, both lose them and say why.
     */
    @org.junit.jupiter.api.Test
    void aServiceOfAnotherNamespaceServesWhileItAcceptsTheNamespace() {
        Object[] world = {
            Fixtures.slice("identity", "auth", "auth-1", "http", 4180, "10.1.0.9"),
            Fixtures.upstream("shop", "auth", "service: { name: auth, namespace: identity, port: 80 }"),
            route("shop", "site", 1, """
                    hosts: [ example.com ]
                    rules:
                      - matches: [ { path: { value: /a } } ]
                        backends: [ { service: { name: auth, namespace: identity, port: 80 } } ]
                      - backends: [ { upstream: auth } ]
                    """)};
        Translation t = Fixtures.translate(with(world, accepting(Fixtures.service("identity", "auth", "http:80"), "shop")));
        assertThat(Fixtures.routeReport(t, "shop", "site").resolvedRefs().status()).isTrue();
        assertThat(Fixtures.upstreamReport(t, "shop", "auth").resolvedRefs().status()).isTrue();
        var upstreams = t.snapshot(Fixtures.STRAIT).config().upstreams();
        assertThat(upstreams).extracting(dev.strait.model.Upstream::name)
                .containsExactlyInAnyOrder("service.identity.auth.80", Translator.upstreamName("shop", "auth"));
        assertThat(upstreams).allSatisfy(u -> assertThat(u.endpoints())
                .containsExactly(new dev.strait.model.HostPort("10.1.0.9", 4180)));

        t = Fixtures.translate(with(world, Fixtures.service("identity", "auth", "http:80")));
        assertThat(Fixtures.routeReport(t, "shop", "site").resolvedRefs().reason()).isEqualTo("RefNotPermitted");
        ResourceReport u = Fixtures.upstreamReport(t, "shop", "auth");
        assertThat(u.resolvedRefs().status()).isFalse();
        assertThat(u.resolvedRefs().message()).startsWith("spec.service.namespace: Service \"auth\" of namespace"
                + " \"identity\" does not accept references from namespace \"shop\"");
        assertThat(t.snapshot(Fixtures.STRAIT).config().upstreams()).allSatisfy(up -> assertThat(up.endpoints()).isEmpty());
    }

    private static Object[] with(Object[] world, Object more) {
        Object[] all = java.util.Arrays.copyOf(world, world.length + 1);
        all[world.length] = more;
        return all;
    }
}
