package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.externalName;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static dev.strait.operator.translate.IngressAnnotationsTest.annotated;
import static dev.strait.operator.translate.ReferencesTest.accepting;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.HostPort;
import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A cluster whose DNS domain is not {@code cluster.local} (kubelet's {@code --cluster-domain corp.internal}), told to
 * the operator by its own {@code --cluster-domain}: a Service's name in that domain, as ingress-nginx users there write
 * it in {@code auth-url}, {@code mirror-target} and ExternalName Services, is that Service; in the default domain it is
 * not, and a {@code cluster.local} name is not one in a cluster of another domain (it does not resolve there).
 */
class ClusterDomainTest {
    private static final String CORP = "corp.internal";
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String SITE = IngressAnnotationsTest.SITE;
    private static final String GONE = "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found";
    private static final Route.Backends LOCKED = new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1)));
    private static final Route.Backends WEB = new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1)));

    /** A translator of an operator given {@code --cluster-domain domain} (null: not given). */
    private static Translation translate(String domain, Object... resources) {
        ProxyDefaults d = ProxyDefaults.STANDARD;
        Translator translator = new Translator(new ProxyDefaults(d.defaultClass(), d.sidecarClass(), d.http(), d.https(),
                d.admin(), d.limits(), d.accessLog(), d.forwardedHeaders(), d.proxyProtocol(), d.tracing(), domain));
        return translator.translate(Fixtures.inputs(resources));
    }

    /** The Ingress site with these annotations, oauth2-proxy in identity (accepting shop) and shadow in shop. */
    private static Translation ingress(String domain, String... annotations) {
        return translate(domain, service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                accepting(service("identity", "oauth2-proxy", "http:4180"), "shop"),
                slice("identity", "oauth2-proxy", "op-1", "http", 4180, "10.1.0.9"),
                service("shop", "shadow", "http:8080"), slice("shop", "shadow", "shadow-1", "http", 9080, "10.0.0.9"),
                annotated("site", SITE, annotations));
    }

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream()).toList();
    }

    @Test
    void theDefaultDomainIsClusterLocal() {
        assertThat(ProxyDefaults.STANDARD.clusterDomain()).isEqualTo("cluster.local");
        Translation t = ingress(null, "auth-url", "http://oauth2-proxy.identity.svc.cluster.local:4180/oauth2/auth");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        assertThat(rules(t)).extracting(Route.Rule::forwardAuth).containsOnly(
                new Route.ForwardAuth("service.identity.oauth2-proxy.4180", "/oauth2/auth", List.of(), null));
    }

    @Test
    void anAuthUrlInTheClusterDomainIsItsService() {
        String url = "http://oauth2-proxy.identity.svc.corp.internal:4180/oauth2/auth";
        Route.ForwardAuth check = new Route.ForwardAuth("service.identity.oauth2-proxy.4180", "/oauth2/auth", List.of(),
                null);
        for (String asked : List.of(url, "http://oauth2-proxy.identity.svc:4180/oauth2/auth",
                " HTTP://OAuth2-Proxy.Identity.SVC.Corp.Internal:4180/oauth2/auth ")) {
            Translation t = ingress(CORP, "auth-url", asked);
            assertThat(ingressReport(t, "shop", "site").errors()).as(asked).containsExactly(GONE);
            assertThat(rules(t)).as(asked).hasSize(4).extracting(Route.Rule::forwardAuth).containsOnly(check);
            assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).upstreams())
                    .filteredOn(u -> u.name().equals("service.identity.oauth2-proxy.4180")).singleElement()
                    .extracting(dev.strait.model.Upstream::endpoints).asList()
                    .containsExactly(new HostPort("10.1.0.9", 4180));
        }
    }

    /** Each domain's Service names are reported in the other's cluster, as a host outside the cluster is. */
    @Test
    void anAuthUrlInAnotherDomainIsNotAServiceAndThePathsAnswer503() {
        String[][] cases = {
            {null, "http://oauth2-proxy.identity.svc.corp.internal:4180/oauth2/auth", "cluster.local"},
            {CORP, "http://oauth2-proxy.identity.svc.cluster.local:4180/oauth2/auth", CORP},
        };
        for (String[] c : cases) {
            Translation t = ingress(c[0], "auth-url", c[1]);
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[1]).containsExactly("metadata.annotations[" + N + "auth-url]: \"" + c[1] + "\" is"
                    + " not a Service of the cluster (http(s)://NAME, NAME.NAMESPACE, NAME.NAMESPACE.svc or"
                    + " NAME.NAMESPACE.svc." + c[2] + ", with an optional port); the Ingress's paths answer 503 rather"
                    + " than serve them unauthenticated");
            assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(rules(t)).as(c[1]).hasSize(4).allSatisfy(rule -> {
                assertThat(rule.action()).isEqualTo(LOCKED);
                assertThat(rule.forwardAuth()).isNull();
            });
        }
    }

    @Test
    void aMirrorTargetInTheClusterDomainIsItsService() {
        Translation t = ingress(CORP, "mirror-target", "http://shadow.shop.svc.corp.internal:8080$request_uri");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        assertThat(rules(t)).hasSize(4).allSatisfy(rule -> assertThat(rule.mirrors()).containsExactly(
                new Route.Mirror("service.shop.shadow.8080", 100, "shadow.shop.svc.corp.internal", true)));

        String[][] cases = {
            {null, "http://shadow.shop.svc.corp.internal:8080$request_uri", "cluster.local"},
            {CORP, "http://shadow.shop.svc.cluster.local:8080$request_uri", CORP},
        };
        for (String[] c : cases) {
            t = ingress(c[0], "mirror-target", c[1]);
            String host = c[1].substring("http://".length(), c[1].indexOf(':', "http://".length()));
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[1]).containsExactlyInAnyOrder(GONE,
                    "metadata.annotations[" + N + "mirror-target]: \"" + c[1] + "\": host \"" + host + "\" is a name of"
                    + " the cluster's DNS that names no Service as NAME.NAMESPACE.svc or NAME.NAMESPACE.svc." + c[2]
                    + " do (a pod, or another cluster domain): it would reach into the cluster without the consent of"
                    + " what it names; it is not applied (the Ingress's requests are not mirrored)");
            assertThat(rules(t)).as(c[1]).allSatisfy(rule -> assertThat(rule.mirrors()).isEmpty());
            assertThat(rules(t)).extracting(Route.Rule::action).as(c[1]).contains(WEB);
            assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(dev.strait.model.Upstream::name).as(c[1])
                    .noneMatch(u -> u.startsWith("external."));
        }
    }

    private static final String EXTERNAL_SITE = """
            hosts: [ example.com ]
            rules:
              - matches: [ { path: { value: /api } } ]
                backends: [ { service: { name: ext, port: 80 } } ]
            """;

    /** A Route to the ExternalName Service ext of shop, naming {@code name}, with auth in identity accepting shop. */
    private static Translation externalNameTo(String domain, String name) {
        return translate(domain, externalName("shop", "ext", name), accepting(service("identity", "auth", "http:80"), "shop"),
                slice("identity", "auth", "auth-1", "http", 4180, "10.1.0.9"), route("shop", "site", 1, EXTERNAL_SITE));
    }

    @Test
    void anExternalNameInTheClusterDomainIsFollowedToItsService() {
        Translation t = externalNameTo(CORP, "auth.identity.svc.corp.internal");
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).upstreams())
                .filteredOn(u -> u.name().equals("service.shop.ext.80")).singleElement().satisfies(u -> {
                    assertThat(u.endpoints()).as("the Service's endpoints").containsExactly(new HostPort("10.1.0.9", 4180));
                    assertThat(u.refuseLocalAddresses()).isFalse();
                });

        String[][] cases = {
            {null, "auth.identity.svc.corp.internal", "cluster.local"},
            {CORP, "auth.identity.svc.cluster.local", CORP},
            {CORP, "10-1-0-9.identity.pod.corp.internal", CORP},
            {CORP, "10-1-0-9.identity.pod.cluster.local", CORP},
        };
        for (String[] c : cases) {
            t = externalNameTo(c[0], c[1]);
            ResourceReport r = Fixtures.routeReport(t, "shop", "site");
            assertThat(r.resolvedRefs().reason()).as(c[1]).isEqualTo("InvalidBackend");
            assertThat(r.resolvedRefs().message()).as(c[1]).isEqualTo("spec.rules[0].backends[0].service.name: Service"
                    + " \"ext\" (ExternalName \"" + c[1] + "\") is a name of the cluster's DNS that names no Service as"
                    + " NAME.NAMESPACE.svc or NAME.NAMESPACE.svc." + c[2] + " do (a pod, or another cluster domain): it"
                    + " would reach into the cluster without the consent of what it names");
            assertThat(t.snapshot(STRAIT).config().routes().get(0).rules().get(0).action()).as(c[1]).isEqualTo(LOCKED);
        }
    }
}
