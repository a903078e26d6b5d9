package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.externalName;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static dev.strait.operator.translate.ReferencesTest.accepting;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.HostPort;
import dev.strait.model.Route;
import dev.strait.model.Upstream;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Services of type ExternalName, wherever a Service is named: the backend is the Service's {@code externalName}
 * with the backend's port, which the proxy looks up and may not lead to a local address (refuseLocalAddresses); a
 * name that says it leads there is refused at once (the backend answers 503); a name of a Service of the cluster
 * is followed as a reference from the ExternalName Service's namespace, with that Service's consent (ADR 0078).
 */
class ExternalNameTest {
    private static final String WHY = "an ExternalName Service may not lead to the proxy's own host or the node's:"
            + " loopback, link-local (the cloud metadata service at 169.254.169.254), unspecified and multicast"
            + " addresses are refused";
    private static final String FIELD = "spec.rules[0].backends[0].service.name: ";
    private static final Route.Backends UNRESOLVED = new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1)));

    /** /api to the Service ext (port {@code port}) of the Route's namespace, /web to the Service web. */
    private static String site(int port) {
        return """
                hosts: [ example.com ]
                rules:
                  - matches: [ { path: { value: /api } } ]
                    backends: [ { service: { name: ext, port: %d } } ]
                  - matches: [ { path: { value: /web } } ]
                    backends: [ { service: { name: web, port: 80 } } ]
                """.formatted(port);
    }

    private static final Object WEB = service("shop", "web", "http:80");
    private static final Object WEB_PODS = slice("shop", "web", "web-1", "http", 8080, "10.0.0.1");

    /** The upstream {@code name} as a proxy reads it: the snapshot's JSON parsed again. */
    private static Upstream upstream(Translation t, String name) {
        return Fixtures.parse(t.snapshot(STRAIT).json()).upstreams().stream().filter(u -> u.name().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no upstream " + name + " in "
                        + t.snapshot(STRAIT).json()));
    }

    private static Route.Action action(Translation t, int rule) {
        return t.snapshot(STRAIT).config().routes().get(0).rules().get(rule).action();
    }

    @Test
    void anExternalNameIsItsNameWithTheBackendsPortLookedUpByTheProxy() {
        Translation t = Fixtures.translate(externalName("shop", "ext", "API.Example.COM."), WEB, WEB_PODS,
                route("shop", "site", 1, site(443)));
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.errors()).isEmpty();
        assertThat(r.resolvedRefs().status()).isTrue();
        assertThat(action(t, 0)).isEqualTo(new Route.Backends(List.of(new Route.Backend("service.shop.ext.443", 1))));
        Upstream ext = upstream(t, "service.shop.ext.443");
        assertThat(ext.endpoints()).as("lower-case, without the trailing dot").containsExactly(new HostPort("api.example.com", 443));
        assertThat(ext.refuseLocalAddresses()).isTrue();
        assertThat(ext.protocol()).isEqualTo(Upstream.Protocol.HTTP1);
        Upstream web = upstream(t, "service.shop.web.80");
        assertThat(web.endpoints()).containsExactly(new HostPort("10.0.0.1", 8080));
        assertThat(web.refuseLocalAddresses()).as("a Service's own endpoints").isFalse();

        // The port as given, listed among the Service's ports or not; an address outside is taken as a name is.
        t = Fixtures.translate(externalName("shop", "ext", "203.0.113.7", "https:443"), WEB, route("shop", "site", 1, site(8443)));
        assertThat(upstream(t, "service.shop.ext.8443").endpoints()).containsExactly(new HostPort("203.0.113.7", 8443));
        t = Fixtures.translate(externalName("shop", "ext", "2001:DB8::7"), WEB, route("shop", "site", 1, site(443)));
        assertThat(upstream(t, "service.shop.ext.443")).satisfies(u -> {
            assertThat(u.endpoints()).containsExactly(new HostPort("2001:db8::7", 443));
            assertThat(u.refuseLocalAddresses()).isTrue();
        });
    }

    /** The listed port's appProtocol chooses the protocol, as for any Service; useClusterIP has nothing to choose. */
    @Test
    void theListedPortsAppProtocolAppliesAndUseClusterIpKeepsTheName() {
        Service ext = externalName("shop", "ext", "grpc.example.com", "grpc:50051");
        ext.getSpec().getPorts().get(0).setAppProtocol("kubernetes.io/h2c");
        Translation t = Fixtures.translate(ext, WEB, route("shop", "site", 1, site(50051)));
        assertThat(upstream(t, "service.shop.ext.50051.h2c")).satisfies(u -> {
            assertThat(u.protocol()).isEqualTo(Upstream.Protocol.H2C);
            assertThat(u.endpoints()).containsExactly(new HostPort("grpc.example.com", 50051));
        });

        t = Fixtures.translate(externalName("shop", "ext", "api.example.com"), WEB, route("shop", "site", 1,
                site(443).replace("{ service: { name: ext, port: 443 } }", "{ service: { name: ext, port: 443 }, useClusterIP: true }")));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(t.snapshot(STRAIT).config().upstreams()).filteredOn(u -> u.name().startsWith("service.shop.ext.443."))
                .singleElement().satisfies(u -> {
                    assertThat(u.endpoints()).containsExactly(new HostPort("api.example.com", 443));
                    assertThat(u.refuseLocalAddresses()).isTrue();
                });
    }

    static Stream<Arguments> refused() {
        String loopback = "is a loopback address; " + WHY;
        String linkLocal = "is a link-local address; " + WHY;
        String unspecified = "is the unspecified address; " + WHY;
        String multicast = "is a multicast address; " + WHY;
        String ownHost = "names the proxy's own host (RFC 6761); " + WHY;
        String notInFull = "is neither a DNS name nor an IP address written in full (four numbers 0..255 without"
                + " leading zeros, or IPv6): a resolver may read such a form as another address";
        String inCluster = "is a name of the cluster's DNS that names no Service as NAME.NAMESPACE.svc or"
                + " NAME.NAMESPACE.svc.cluster.local do (a pod, or another cluster domain): it would reach into the"
                + " cluster without the consent of what it names";
        return Stream.of(
                Arguments.of("localhost", ownHost),
                Arguments.of("LocalHost.", ownHost),
                Arguments.of("admin.localhost", ownHost),
                Arguments.of("127.0.0.1", loopback),
                Arguments.of("127.9.9.9", loopback),
                Arguments.of("::1", loopback),
                Arguments.of("::ffff:127.0.0.1", loopback),
                Arguments.of("169.254.169.254", linkLocal),
                Arguments.of("::ffff:169.254.169.254", linkLocal),
                Arguments.of("fe80::1", linkLocal),
                Arguments.of("0.0.0.0", unspecified),
                Arguments.of("::", unspecified),
                Arguments.of("224.0.0.251", multicast),
                Arguments.of("ff02::1", multicast),
                Arguments.of("127.1", notInFull),
                Arguments.of("2130706433", notInFull),
                Arguments.of("0177.0.0.1", notInFull),
                Arguments.of("fe80::1%eth0", notInFull),
                Arguments.of("api", "is a single label, which the proxy's resolver would complete with its pod's search"
                        + " domains (a Service of the proxy's own namespace); write the whole name"),
                Arguments.of("web-0.web.identity.svc.cluster.local", inCluster),
                Arguments.of("10-1-0-9.identity.pod.cluster.local", inCluster),
                Arguments.of("auth.identity.svc.example.internal", inCluster),
                Arguments.of("bad_name.example.com", "is neither a DNS name nor an IP address"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void aNameThatLeadsToTheProxysOrTheNodesOwnAddressesIsRefused(String externalName, String why) {
        Translation t = Fixtures.translate(externalName("shop", "ext", externalName), WEB, WEB_PODS,
                route("shop", "site", 1, site(443)));
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.accepted().status()).isTrue();
        assertThat(r.resolvedRefs().status()).isFalse();
        assertThat(r.resolvedRefs().reason()).isEqualTo("InvalidBackend");
        assertThat(r.resolvedRefs().message()).isEqualTo(FIELD + "Service \"ext\" (ExternalName \"" + externalName
                + "\") " + why);
        assertThat(action(t, 0)).as("503").isEqualTo(UNRESOLVED);
        assertThat(action(t, 1)).as("the rest serves")
                .isEqualTo(new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1))));
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name).doesNotContain("service.shop.ext.443");
    }

    @Test
    void anExternalNameServiceWithoutANameIsRefused() {
        for (String none : new String[] {null, ""}) {
            Translation t = Fixtures.translate(externalName("shop", "ext", none), WEB, route("shop", "site", 1, site(443)));
            ResourceReport r = Fixtures.routeReport(t, "shop", "site");
            assertThat(r.resolvedRefs().reason()).isEqualTo("InvalidBackend");
            assertThat(r.resolvedRefs().message()).isEqualTo(FIELD + "Service \"ext\" is of type ExternalName but has"
                    + " no spec.externalName");
            assertThat(action(t, 0)).isEqualTo(UNRESOLVED);
        }
    }

    /**
     * A Service's cluster name is not looked up: it is that Service, named from the ExternalName Service's namespace,
     * which must have its consent as any reference from there would (else the ExternalName is a way round it).
     */
    @Test
    void aServiceOfTheClusterIsFollowedWithItsConsentToTheExternalNamesNamespace() {
        Object pods = slice("identity", "auth", "auth-1", "http", 4180, "10.1.0.9");
        Object ext = externalName("shop", "ext", "auth.identity.svc.cluster.local");
        Translation t = Fixtures.translate(ext, pods, service("identity", "auth", "http:80"), WEB,
                route("shop", "site", 1, site(80)));
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.resolvedRefs().reason()).isEqualTo("RefNotPermitted");
        assertThat(r.resolvedRefs().message()).isEqualTo(FIELD + "Service \"ext\" (ExternalName"
                + " \"auth.identity.svc.cluster.local\"): Service \"auth\" of namespace \"identity\" does not accept"
                + " references from namespace \"shop\": its annotation strait.dev/accept-references-from must list"
                + " \"shop\" (or be \"*\")");
        assertThat(action(t, 0)).isEqualTo(UNRESOLVED);

        t = Fixtures.translate(ext, pods, accepting(service("identity", "auth", "http:80"), "shop"), WEB,
                route("shop", "site", 1, site(80)));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(upstream(t, "service.shop.ext.80")).satisfies(u -> {
            assertThat(u.endpoints()).as("the Service's endpoints").containsExactly(new HostPort("10.1.0.9", 4180));
            assertThat(u.refuseLocalAddresses()).isFalse();
        });
        // The same port on the Service named: absent there, the backend's port is what is missing.
        t = Fixtures.translate(ext, pods, accepting(service("identity", "auth", "http:80"), "shop"), WEB,
                route("shop", "site", 1, site(81)));
        r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.resolvedRefs().reason()).isEqualTo("BackendNotFound");
        assertThat(r.resolvedRefs().message()).isEqualTo("spec.rules[0].backends[0].service.port: Service \"ext\""
                + " (ExternalName \"auth.identity.svc.cluster.local\"): Service \"auth\" has no TCP port 81");
        // Of its own namespace, NAME.NAMESPACE.svc: no consent needed.
        t = Fixtures.translate(externalName("shop", "ext", "web.shop.svc"), WEB, WEB_PODS, route("shop", "site", 1, site(80)));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(upstream(t, "service.shop.ext.80").endpoints()).containsExactly(new HostPort("10.0.0.1", 8080));
    }

    /** Asked is the consent to the ExternalName Service's namespace, not the Route's. */
    @Test
    void theConsentAskedIsTheExternalNameServicesNamespaces() {
        String spec = """
                hosts: [ example.com ]
                rules: [ { backends: [ { service: { name: ext, namespace: shop, port: 80 } } ] } ]
                """;
        Object ext = accepting(externalName("shop", "ext", "auth.identity.svc"), "team");
        Object pods = slice("identity", "auth", "auth-1", "http", 4180, "10.1.0.9");
        Translation t = Fixtures.translate(ext, pods, accepting(service("identity", "auth", "http:80"), "team"),
                route("team", "site", 1, spec));
        ResourceReport r = Fixtures.routeReport(t, "team", "site");
        assertThat(r.resolvedRefs().reason()).isEqualTo("RefNotPermitted");
        assertThat(r.resolvedRefs().message()).isEqualTo(FIELD + "Service \"ext\" (ExternalName \"auth.identity.svc\"):"
                + " Service \"auth\" of namespace \"identity\" does not accept references from namespace \"shop\": its"
                + " annotation strait.dev/accept-references-from must list \"shop\" (or be \"*\")");

        t = Fixtures.translate(ext, pods, accepting(service("identity", "auth", "http:80"), "shop"),
                route("team", "site", 1, spec));
        assertThat(Fixtures.routeReport(t, "team", "site").errors()).isEmpty();
        assertThat(upstream(t, "service.shop.ext.80").endpoints()).containsExactly(new HostPort("10.1.0.9", 4180));
    }

    @Test
    void anExternalNameNamingAnotherOrItselfOrNothingIsRefused() {
        String[][] cases = {
            {"ext2.shop.svc", "InvalidBackend", "Service \"ext\" (ExternalName \"ext2.shop.svc\") names Service \"ext2\""
                    + " of namespace \"shop\", of type ExternalName too: one ExternalName is followed, not a chain"},
            {"ext.shop.svc.cluster.local", "InvalidBackend", "Service \"ext\" (ExternalName \"ext.shop.svc.cluster.local\")"
                    + " names Service \"ext\" of namespace \"shop\", of type ExternalName too: one ExternalName is"
                    + " followed, not a chain"},
            {"gone.identity.svc", "BackendNotFound", "Service \"ext\" (ExternalName \"gone.identity.svc\"): Service"
                    + " \"gone\" of namespace \"identity\" not found"},
        };
        for (String[] c : cases) {
            Translation t = Fixtures.translate(externalName("shop", "ext", c[0]), externalName("shop", "ext2", "web.shop.svc"),
                    WEB, WEB_PODS, route("shop", "site", 1, site(80)));
            ResourceReport r = Fixtures.routeReport(t, "shop", "site");
            assertThat(r.resolvedRefs().reason()).as(c[0]).isEqualTo(c[1]);
            assertThat(r.resolvedRefs().message()).as(c[0]).isEqualTo(FIELD + c[2]);
            assertThat(action(t, 0)).as(c[0]).isEqualTo(UNRESOLVED);
        }
    }

    /** An Ingress backend names the port by number or by name; a name is the ExternalName Service's port's. */
    @Test
    void anIngressBackendByPortNumberOrName() {
        Object ing = Fixtures.ingress("shop", "site", 1, """
                ingressClassName: strait
                rules:
                  - host: shop.example.com
                    http:
                      paths:
                        - { path: /pay, pathType: Prefix, backend: { service: { name: ext, port: { name: https } } } }
                        - { path: /alt, pathType: Prefix, backend: { service: { name: ext, port: { number: 8443 } } } }
                        - { path: /nope, pathType: Prefix, backend: { service: { name: ext, port: { name: nope } } } }
                """);
        Translation t = Fixtures.translate(externalName("shop", "ext", "pay.example.com", "https:443"), ing);
        ResourceReport r = Fixtures.ingressReport(t, "shop", "site");
        assertThat(r.errors()).containsExactly("spec.rules[0].http.paths[2].backend.service.port.name: Service \"ext\""
                + " has no TCP port named \"nope\"");
        assertThat(upstream(t, "service.shop.ext.443").endpoints()).containsExactly(new HostPort("pay.example.com", 443));
        assertThat(upstream(t, "service.shop.ext.443").refuseLocalAddresses()).isTrue();
        assertThat(upstream(t, "service.shop.ext.8443").endpoints()).containsExactly(new HostPort("pay.example.com", 8443));

        t = Fixtures.translate(externalName("shop", "ext", "169.254.169.254", "https:443"), ing);
        r = Fixtures.ingressReport(t, "shop", "site");
        String refused = "Service \"ext\" (ExternalName \"169.254.169.254\") is a link-local address; " + WHY;
        assertThat(r.resolvedRefs().reason()).as("the first problem's").isEqualTo("BackendNotFound");
        assertThat(r.errors()).containsExactly(
                "spec.rules[0].http.paths[2].backend.service.port.name: Service \"ext\" has no TCP port named \"nope\"",
                "spec.rules[0].http.paths[0].backend.service.name: " + refused,
                "spec.rules[0].http.paths[1].backend.service.name: " + refused);
        assertThat(t.snapshot(STRAIT).config().routes().get(0).rules()).extracting(Route.Rule::action)
                .as("503").containsOnly(UNRESOLVED);
    }

    /** An Upstream resource's service: its endpoint is the name, and its settings apply to it. */
    @Test
    void anUpstreamsServiceThatIsAnExternalName() {
        Object route = route("shop", "site", 1, "hosts: [ example.com ]\nrules: [ { backends: [ { upstream: api } ] } ]");
        Object api = Fixtures.upstream("shop", "api", "service: { name: ext, port: 443 }\nloadBalancer: least-request");
        Translation t = Fixtures.translate(externalName("shop", "ext", "api.example.com"), api, route);
        ResourceReport u = Fixtures.upstreamReport(t, "shop", "api");
        assertThat(u.resolvedRefs().status()).isTrue();
        assertThat(u.resolvedRefs().message()).isEqualTo("ExternalName api.example.com:443, looked up by the proxy");
        assertThat(upstream(t, "upstream.shop.api")).satisfies(m -> {
            assertThat(m.endpoints()).containsExactly(new HostPort("api.example.com", 443));
            assertThat(m.refuseLocalAddresses()).isTrue();
            assertThat(m.loadBalancer()).isEqualTo(Upstream.LoadBalancer.LEAST_REQUEST);
        });

        t = Fixtures.translate(externalName("shop", "ext", "169.254.169.254"), api, route);
        u = Fixtures.upstreamReport(t, "shop", "api");
        assertThat(u.resolvedRefs().status()).isFalse();
        assertThat(u.resolvedRefs().reason()).isEqualTo("InvalidBackend");
        assertThat(u.resolvedRefs().message()).isEqualTo("spec.service.name: Service \"ext\" (ExternalName"
                + " \"169.254.169.254\") is a link-local address; " + WHY);
        assertThat(upstream(t, "upstream.shop.api").endpoints()).as("503, as for a missing Service").isEmpty();
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.site");
    }

    /** A rule's forwardAuth and errorPages backends resolve as any backend; a refused check locks the rule. */
    @Test
    void forwardAuthAndErrorPagesBackends() {
        String spec = """
                hosts: [ example.com ]
                rules:
                  - backends: [ { service: { name: web, port: 80 } } ]
                    forwardAuth: { backend: { service: { name: ext, port: 443 }, protocol: https }, path: /verify }
                    errorPages: { statuses: [ 503 ], backend: { service: { name: pages, port: 80 } }, path: / }
                """;
        Translation t = Fixtures.translate(externalName("shop", "ext", "auth.example.com"),
                externalName("shop", "pages", "pages.example.com"), WEB, WEB_PODS, route("shop", "site", 1, spec));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        Route.Rule rule = t.snapshot(STRAIT).config().routes().get(0).rules().get(0);
        assertThat(rule.forwardAuth().upstream()).isEqualTo("service.shop.ext.443.https");
        assertThat(rule.errorPages().upstream()).isEqualTo("service.shop.pages.80");
        assertThat(upstream(t, "service.shop.ext.443.https")).satisfies(u -> {
            assertThat(u.endpoints()).containsExactly(new HostPort("auth.example.com", 443));
            assertThat(u.refuseLocalAddresses()).isTrue();
            assertThat(u.tls()).as("the name is the SNI").isEqualTo(Upstream.Tls.UNVERIFIED);
        });
        assertThat(upstream(t, "service.shop.pages.80").endpoints()).containsExactly(new HostPort("pages.example.com", 80));

        t = Fixtures.translate(externalName("shop", "ext", "localhost"), externalName("shop", "pages", "pages.example.com"),
                WEB, WEB_PODS, route("shop", "site", 1, spec));
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.resolvedRefs().reason()).isEqualTo("InvalidBackend");
        assertThat(r.resolvedRefs().message()).isEqualTo("spec.rules[0].forwardAuth.backend.service.name: Service \"ext\""
                + " (ExternalName \"localhost\") names the proxy's own host (RFC 6761); " + WHY + "; the rule answers 503");
        assertThat(action(t, 0)).as("never unchecked").isEqualTo(UNRESOLVED);
    }

    /** ingress-nginx's auth-url names a Service by its cluster name; an ExternalName one is its name outside. */
    @Test
    void anAuthUrlNamingAnExternalNameService() {
        Translation t = IngressAnnotationsTest.translate(externalName("shop", "ext", "auth.example.com"),
                IngressAnnotationsTest.annotated("site", IngressAnnotationsTest.SITE, "auth-url", "https://ext.shop.svc/verify"));
        List<Route.Rule> rules = t.snapshot(STRAIT).config().routes().stream().flatMap(x -> x.rules().stream()).toList();
        assertThat(rules).extracting(x -> x.forwardAuth().upstream()).containsOnly("service.shop.ext.443.https");
        assertThat(upstream(t, "service.shop.ext.443.https")).satisfies(u -> {
            assertThat(u.endpoints()).containsExactly(new HostPort("auth.example.com", 443));
            assertThat(u.refuseLocalAddresses()).isTrue();
        });

        t = IngressAnnotationsTest.translate(externalName("shop", "ext", "169.254.169.254"),
                IngressAnnotationsTest.annotated("site", IngressAnnotationsTest.SITE, "auth-url", "http://ext.shop.svc/verify"));
        ResourceReport r = Fixtures.ingressReport(t, "shop", "site");
        assertThat(r.errors()).contains("metadata.annotations[nginx.ingress.kubernetes.io/auth-url]: Service \"ext\""
                + " (ExternalName \"169.254.169.254\") is a link-local address; " + WHY + "; the rule answers 503");
        rules = t.snapshot(STRAIT).config().routes().stream().flatMap(x -> x.rules().stream()).toList();
        assertThat(rules).extracting(Route.Rule::action).as("the paths answer 503, never unchecked").containsOnly(UNRESOLVED);
    }

    /**
     * ADR 0025: a Route that does not change follows what its ExternalName Service becomes (another name, a refused
     * one, a Service with endpoints, other ports), as a translator from nothing would.
     */
    @Test
    void aRouteFollowsItsExternalNameServiceAsItChanges() {
        Object site = route("shop", "site", 1, site(443));
        Object ing = Fixtures.ingress("shop", "pay", 2, """
                ingressClassName: strait
                rules:
                  - host: pay.example.com
                    http:
                      paths: [ { path: /, pathType: Prefix, backend: { service: { name: ext, port: { name: https } } } } ]
                """);
        Object pods = slice("shop", "ext", "ext-1", "https", 8443, "10.0.0.5");
        Object[][] steps = {
            {externalName("shop", "ext", "a.example.com", "https:443"), List.of(new HostPort("a.example.com", 443)), true},
            {externalName("shop", "ext", "b.example.com", "https:443"), List.of(new HostPort("b.example.com", 443)), true},
            {externalName("shop", "ext", "localhost", "https:443"), null, false},
            {service("shop", "ext", "https:443"), List.of(new HostPort("10.0.0.5", 8443)), false},
            {externalName("shop", "ext", "b.example.com", "https:443"), List.of(new HostPort("b.example.com", 443)), true},
            {externalName("shop", "ext", "b.example.com", "https:8443"), List.of(new HostPort("b.example.com", 443)), true},
        };
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        for (Object[] step : steps) {
            Object[] world = {site, ing, pods, WEB, step[0]};
            Translation got = translator.translate(Fixtures.inputs(world));
            Translation want = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(world));
            Service svc = (Service) step[0];
            String at = svc.getSpec().getType() + " " + svc.getSpec().getExternalName() + " " + svc.getSpec().getPorts().get(0).getPort();
            assertThat(got.snapshot(STRAIT).json()).as(at).isEqualTo(want.snapshot(STRAIT).json());
            assertThat(got.reports()).as(at).isEqualTo(want.reports());
            if (step[1] == null) {
                assertThat(action(got, 0)).as(at).isEqualTo(UNRESOLVED);
                assertThat(Fixtures.routeReport(got, "shop", "site").resolvedRefs().reason()).as(at).isEqualTo("InvalidBackend");
            } else {
                Upstream u = upstream(got, "service.shop.ext.443");
                assertThat(u.endpoints()).as(at).isEqualTo(step[1]);
                assertThat(u.refuseLocalAddresses()).as(at).isEqualTo(step[2]);
            }
        }
        // The Ingress named the port https: now 8443 on the ExternalName Service.
        Translation last = translator.translate(Fixtures.inputs(site, ing, pods, WEB, steps[steps.length - 1][0]));
        assertThat(upstream(last, "service.shop.ext.8443").endpoints()).containsExactly(new HostPort("b.example.com", 8443));
    }
}
