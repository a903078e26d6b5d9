package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static dev.strait.operator.translate.IngressAnnotationsTest.annotated;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import dev.strait.model.Upstream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's request mirroring ({@code mirror-target}, {@code mirror-request-body}, {@code mirror-host}) as one
 * mirror on every backend rule: a Service's cluster name is that Service, any other host an upstream of its own. What
 * cannot be read is reported and the paths serve unmirrored: a mirror guards nothing.
 */
class IngressMirrorTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String TARGET = "metadata.annotations[" + N + "mirror-target]";
    /** Two paths (one whose Service is missing) and a defaultBackend. */
    private static final String SITE = IngressAnnotationsTest.SITE;
    private static final String GONE = "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found";
    private static final String NOT_APPLIED = "; it is not applied (the Ingress's requests are not mirrored)";
    private static final Route.Backends WEB = new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1)));

    /** The Ingress with these annotations, and the Service shadow (ports 80, 8080 and 8443) with one pod. */
    private static Translation translate(String... annotations) {
        return IngressAnnotationsTest.translate(service("shop", "shadow", "http:80", "alt:8080", "tls:8443"),
                slice("shop", "shadow", "shadow-1", "http", 9000, "10.0.0.9"),
                slice("shop", "shadow", "shadow-2", "alt", 9080, "10.0.0.9"),
                slice("shop", "shadow", "shadow-3", "tls", 9443, "10.0.0.9"),
                annotated("site", SITE, annotations));
    }

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream()).toList();
    }

    /** The one mirror every rule of the Ingress has (both paths and the defaultBackends). */
    private static Route.Mirror mirror(Translation t) {
        List<Route.Rule> rules = rules(t);
        assertThat(rules).hasSize(4);
        assertThat(rules).allSatisfy(r -> assertThat(r.mirrors()).hasSize(1));
        assertThat(rules).extracting(r -> r.mirrors().get(0)).allMatch(rules.get(0).mirrors().get(0)::equals);
        return rules.get(0).mirrors().get(0);
    }

    private static Upstream upstream(Translation t, String name) {
        return Fixtures.parse(t.snapshot(STRAIT).json()).upstreams().stream().filter(u -> u.name().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no upstream " + name));
    }

    /**
     * The copies carry the target's host name as their Host, as ingress-nginx sends them, and go for the request's
     * own path and query ({@code $request_uri}, the documented {@code /$request_uri}, or nothing after the host).
     */
    @Test
    void theClusterNameOfAServiceIsThatServicesPort() {
        String[][] cases = {
            {"http://shadow.shop.svc.cluster.local:8080$request_uri", "service.shop.shadow.8080",
                "shadow.shop.svc.cluster.local"},
            {"http://shadow.shop.svc$request_uri", "service.shop.shadow.80", "shadow.shop.svc"},
            {"http://shadow.shop.svc:8080/$request_uri", "service.shop.shadow.8080", "shadow.shop.svc"},
            {" HTTP://Shadow.Shop.SVC:8080 ", "service.shop.shadow.8080", "shadow.shop.svc"},
            {"https://shadow.shop.svc:8443$request_uri", "service.shop.shadow.8443.https", "shadow.shop.svc"},
        };
        for (String[] c : cases) {
            Translation t = translate("mirror-target", c[0]);
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[0]).containsExactly(GONE);
            assertThat(mirror(t)).as(c[0]).isEqualTo(new Route.Mirror(c[1], 100, c[2], true));
            assertThat(upstream(t, c[1]).endpoints()).as(c[0]).hasSize(1);
        }
        // https: over TLS without checking the certificate, as auth-url and ingress-nginx (proxy_ssl_verify off).
        Upstream tls = upstream(translate("mirror-target", "https://shadow.shop.svc:8443$request_uri"),
                "service.shop.shadow.8443.https");
        assertThat(tls.tls()).isEqualTo(Upstream.Tls.UNVERIFIED);
        assertThat(rules(translate("mirror-target", "http://shadow.shop.svc$request_uri"))).extracting(Route.Rule::action)
                .as("the paths keep their backends").contains(WEB);
    }

    /**
     * A host outside the cluster is one endpoint the proxy looks up, which may not lead to a local address; over TLS
     * its certificate is checked against the proxy's trust store, with the host as SNI: the copies carry the
     * clients' requests out of the cluster.
     */
    @Test
    void anotherHostIsAnUpstreamOfItsOwn() {
        Translation t = translate("mirror-target", "https://test.env.com$request_uri");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        assertThat(mirror(t)).isEqualTo(new Route.Mirror("external.test.env.com.443.https", 100, "test.env.com", true));
        Upstream u = upstream(t, "external.test.env.com.443.https");
        assertThat(u.endpoints()).containsExactly(new dev.strait.model.HostPort("test.env.com", 443));
        assertThat(u.refuseLocalAddresses()).isTrue();
        assertThat(u.tls()).isEqualTo(new Upstream.Tls(null, null, null, null, true));

        t = translate("mirror-target", "http://203.0.113.7:8080$request_uri");
        assertThat(mirror(t)).isEqualTo(new Route.Mirror("external.203.0.113.7.8080", 100, "203.0.113.7", true));
        u = upstream(t, "external.203.0.113.7.8080");
        assertThat(u.endpoints()).containsExactly(new dev.strait.model.HostPort("203.0.113.7", 8080));
        assertThat(u.tls()).isNull();
        assertThat(u.refuseLocalAddresses()).isTrue();
    }

    @Test
    void requestBodyOffAndMirrorHostAreTheMirrorsBodyAndHost() {
        String target = "https://test.env.com$request_uri";
        Translation t = translate("mirror-target", target, "mirror-request-body", "off", "mirror-host", "shadow.internal");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        assertThat(mirror(t)).isEqualTo(new Route.Mirror("external.test.env.com.443.https", 100, "shadow.internal", false));
        assertThat(mirror(translate("mirror-target", target, "mirror-request-body", "on")).body()).isTrue();
        // What cannot be read warns; the mirror stays, as ingress-nginx's default.
        t = translate("mirror-target", target, "mirror-request-body", "no", "mirror-host", "$host");
        assertThat(mirror(t)).isEqualTo(new Route.Mirror("external.test.env.com.443.https", 100, "test.env.com", true));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(GONE,
                "metadata.annotations[" + N + "mirror-request-body]: \"no\" is neither on nor off; the copies carry the"
                        + " body, as with on",
                "metadata.annotations[" + N + "mirror-host]: \"$host\" is not a host (nginx variables are not read); the"
                        + " copies carry \"test.env.com\", the target's");
    }

    /**
     * Strait's copies go for the request's own path and query: a target that sends anything else, or that cannot be
     * reached as an ExternalName Service's name could not, is reported and the paths serve, unmirrored.
     */
    @Test
    void whatCannotBeMirroredAsAskedIsReportedAndThePathsServe() {
        String ownPath = "sends a path or query of its own; Strait's copies go for the request's own path and query, as"
                + " $request_uri alone (or nothing) after the host asks";
        String variables = "uses nginx variables besides a final $request_uri, which Strait does not have";
        String[][] cases = {
            {"https://test.env.com/mirror", ownPath},
            {"https://test.env.com/", ownPath},
            {"https://test.env.com/v2$request_uri", ownPath},
            {"https://test.env.com?src=prod", ownPath},
            {"https://test.env.com$uri", variables},
            {"https://test.env.com$request_uri?src=prod", variables},
            {"https://$host$request_uri", variables},
            {"ftp://test.env.com$request_uri", "is not an http(s) URL of a host"},
            {"test.env.com$request_uri", "is not an http(s) URL of a host"},
            {"http://localhost:8080$request_uri", "host \"localhost\" names the proxy's own host (RFC 6761)"},
            {"http://169.254.169.254$request_uri", "host \"169.254.169.254\" is a link-local address"},
            {"http://shadow$request_uri", "host \"shadow\" is a single label"},
            {"http://web-0.web.shop.svc.cluster.local$request_uri", "host \"web-0.web.shop.svc.cluster.local\" is a name"
                + " of the cluster's DNS that names no Service"},
            {"http://[2001:db8::1]$request_uri", "is an IPv6 address, which Strait does not mirror to"},
        };
        for (String[] c : cases) {
            Translation t = translate("mirror-target", c[0]);
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[0]).hasSize(2).contains(GONE).anySatisfy(e -> assertThat(e)
                    .startsWith(TARGET + ": \"" + c[0] + "\"").contains(c[1]).endsWith(NOT_APPLIED));
            assertThat(r.resolvedRefs().reason()).as(c[0]).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(rules(t)).as(c[0]).allSatisfy(rule -> assertThat(rule.mirrors()).isEmpty());
            assertThat(rules(t)).extracting(Route.Rule::action).as(c[0]).contains(WEB);
            Fixtures.parse(t.snapshot(STRAIT).json());
        }
    }

    /** A copy sent to a host the Ingress serves would come back and be copied again, without end. */
    @Test
    void aTargetOnTheIngresssOwnHostIsNotApplied() {
        Translation t = translate("mirror-target", "https://old.example.com$request_uri");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(GONE, TARGET + ": host"
                + " \"old.example.com\" is served by this Ingress: each copy would come back and be copied again; it is"
                + " not applied");
        assertThat(rules(t)).allSatisfy(rule -> assertThat(rule.mirrors()).isEmpty());
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name)
                .noneMatch(n -> n.startsWith("external."));
    }

    /** A Service the target names that does not exist, or does not accept the Ingress's namespace: no mirror. */
    @Test
    void aServiceThatCannotBeHadIsReportedAndThePathsServeUnmirrored() {
        String[][] cases = {
            {"http://nowhere.shop.svc$request_uri", "BackendNotFound", TARGET + ": Service \"nowhere\" not found"},
            {"http://shadow.shop.svc:9999$request_uri", "BackendNotFound", TARGET + ": Service \"shadow\" has no TCP port"
                + " 9999"},
            {"http://shadow.test.svc$request_uri", "RefNotPermitted", TARGET + ": Service \"shadow\" of namespace \"test\""},
        };
        for (String[] c : cases) {
            Translation t = IngressAnnotationsTest.translate(service("test", "shadow", "http:80"),
                    slice("test", "shadow", "shadow-1", "http", 9000, "10.0.0.9"), service("shop", "shadow", "http:80"),
                    annotated("site", SITE, "mirror-target", c[0]));
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[0]).hasSize(2).contains(GONE).anySatisfy(e -> assertThat(e).startsWith(c[2])
                    .endsWith("; the mirror is left out"));
            assertThat(r.resolvedRefs().reason()).as(c[0]).isEqualTo(c[1]);
            assertThat(rules(t)).as(c[0]).allSatisfy(rule -> assertThat(rule.mirrors()).isEmpty());
            assertThat(rules(t)).extracting(Route.Rule::action).as(c[0]).contains(WEB);
            Fixtures.parse(t.snapshot(STRAIT).json());
        }
        // Once the other namespace's Service accepts the Ingress's (ADR 0078), the copies go there.
        Translation t = IngressAnnotationsTest.translate(
                ReferencesTest.accepting(service("test", "shadow", "http:80"), "shop"),
                slice("test", "shadow", "shadow-1", "http", 9000, "10.0.0.9"),
                annotated("site", SITE, "mirror-target", "http://shadow.test.svc$request_uri"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        assertThat(mirror(t)).isEqualTo(new Route.Mirror("service.test.shadow.80", 100, "shadow.test.svc", true));
    }

    /**
     * ingress-nginx's older {@code mirror-uri} named a location of the Ingress's own nginx configuration; the others
     * mean nothing without a target; a canary's are not read, as in ingress-nginx: its share is mirrored as its
     * primary's.
     */
    @Test
    void mirrorUriTheSettingsAloneAndACanarysAreReported() {
        Translation t = translate("mirror-uri", "/mirror", "mirror-request-body", "off", "mirror-host", "a.example.com");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(GONE,
                "metadata.annotations[" + N + "mirror-uri]: mirrors to a location of the Ingress's own nginx"
                        + " configuration, which Strait does not read; it is not applied (write " + TARGET + " instead)",
                "metadata.annotations[" + N + "mirror-request-body]: applies with " + TARGET + ", which is not set; it"
                        + " has no effect",
                "metadata.annotations[" + N + "mirror-host]: applies with " + TARGET + ", which is not set; it has no"
                        + " effect");
        assertThat(rules(t)).allSatisfy(rule -> assertThat(rule.mirrors()).isEmpty());

        t = IngressAnnotationsTest.withCanary(annotated("site", SITE, "mirror-target", "https://test.env.com$request_uri"),
                "canary-weight", "20", "mirror-target", "https://canary.env.com$request_uri");
        assertThat(ingressReport(t, "shop", "site-canary").errors()).contains("metadata.annotations[" + N
                + "mirror-target]: not read on a canary: its requests are mirrored as the Ingress it splits says");
        // The split rule is the primary's: the canary's share is mirrored where the primary's is.
        Route.Rule about = rules(t).stream().filter(r -> r.matches().get(0).path() != null
                && r.matches().get(0).path().value().equals("/about"))
                .findFirst().orElseThrow();
        assertThat(((Route.Backends) about.action()).backends()).extracting(Route.Backend::upstream)
                .contains("service.shop.web-canary.80");
        assertThat(about.mirrors()).extracting(Route.Mirror::upstream).containsExactly("external.test.env.com.443.https");
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(Upstream::name)
                .doesNotContain("external.canary.env.com.443.https");
        Fixtures.parse(t.snapshot(STRAIT).json());
    }

    /** Annotations change without a new generation: each change of the target is seen. */
    @Test
    void aChangedTargetIsTranslatedAfresh() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        for (String target : List.of("https://test.env.com$request_uri", "http://shadow.shop.svc$request_uri",
                "https://other.env.com$request_uri")) {
            Object[] all = {service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                service("shop", "shadow", "http:80"), annotated("site", SITE, "mirror-target", target)};
            Translation got = translator.translate(Fixtures.inputs(all));
            Translation want = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(all));
            assertThat(got.snapshot(STRAIT).json()).as(target).isEqualTo(want.snapshot(STRAIT).json());
            assertThat(got.snapshot(STRAIT).json()).as(target).contains(target.contains("shadow")
                    ? "service.shop.shadow.80" : target.contains("other") ? "external.other.env.com.443.https"
                    : "external.test.env.com.443.https");
        }
    }
}
