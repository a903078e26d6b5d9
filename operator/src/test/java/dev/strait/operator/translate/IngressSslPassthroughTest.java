package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.CERT;
import static dev.strait.operator.translate.Fixtures.KEY;
import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.annotatedIngress;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's {@code ssl-passthrough: "true"}: each host's TLS connections go as they are to the backend of its
 * path {@code /} (ingress-nginx's root location), else the defaultBackend; no other annotation applies; what has no
 * host to match a ClientHello's name against is reported and not served.
 */
class IngressSslPassthroughTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String PASSTHROUGH = "metadata.annotations[" + N + "ssl-passthrough]";

    /** Another Ingress of the class with a certificate: the https listener that passthrough needs. */
    private static final Object[] BASE = {
        Fixtures.ingress("shop", "site", 0, """
                ingressClassName: strait
                tls: [ { hosts: [ shop.example.com ], secretName: site-tls } ]
                rules: [ { host: shop.example.com, http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] } } ]
                """),
        Fixtures.tlsSecret("shop", "site-tls", CERT, KEY),
        service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
        service("shop", "argocd", "https:443"), slice("shop", "argocd", "argocd-1", "https", 8080, "10.0.0.7")};

    private static Translation translate(Object... more) {
        List<Object> all = new ArrayList<>(Arrays.asList(BASE));
        all.addAll(Arrays.asList(more));
        Translation t = Fixtures.translate(all.toArray());
        Fixtures.parse(t.snapshot(STRAIT).json()); // what a proxy is sent, it takes
        return t;
    }

    private static List<Route> routesOf(Translation t, String ingress) {
        return t.snapshot(STRAIT).config().routes().stream()
                .filter(r -> r.name().startsWith("shop." + ingress + Translator.INGRESS_PIECE)).toList();
    }

    private static Route passedThrough(String host, String upstream) {
        return new Route("shop.argocd..ingress-0", List.of(host), List.of(), null, new Route.TlsPassthrough(upstream));
    }

    @Test
    void theHostGoesToTheBackendOfItsRootPathAndTheRestIsReported() {
        Translation t = translate(annotatedIngress("shop", "argocd", 1, """
                ingressClassName: strait
                tls: [ { hosts: [ argocd.example.com ], secretName: argocd-tls } ]
                rules:
                  - host: argocd.example.com
                    http:
                      paths:
                        - { path: /api, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
                        - { path: /, pathType: Prefix, backend: { service: { name: argocd, port: { name: https } } } }
                  - http:
                      paths:
                        - { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
                """, "ssl-passthrough", "true", "backend-protocol", "HTTPS", "force-ssl-redirect", "true"));
        assertThat(routesOf(t, "argocd")).as("no -to-https Route: the proxy redirects a passed-through host itself")
                .containsExactly(passedThrough("argocd.example.com", "service.shop.argocd.443.passthrough"));
        ResourceReport r = ingressReport(t, "shop", "argocd");
        assertThat(r.errors()).containsExactlyInAnyOrder(
                "metadata.annotations[" + N + "backend-protocol]: not applied: with " + PASSTHROUGH + " the connections"
                        + " go to the backend as they are, and no other annotation applies (as in ingress-nginx)",
                "metadata.annotations[" + N + "force-ssl-redirect]: not applied: with " + PASSTHROUGH + " the"
                        + " connections go to the backend as they are, and no other annotation applies (as in ingress-nginx)",
                "spec.rules[1].host: a rule without a host cannot be passed through (" + PASSTHROUGH + "): a connection"
                        + " is told apart by the name its ClientHello sends (SNI); its paths are not served",
                "spec.rules[0].http.paths[0].path: not served: " + PASSTHROUGH + " passes the host's connections whole"
                        + " to the backend of its path /");
        assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
        assertThat(r.accepted().status()).isTrue();
        assertThat(r.inSnapshot()).isTrue();
    }

    @Test
    void aHostWithoutRootPathTakesTheDefaultBackend() {
        Translation t = translate(annotatedIngress("shop", "argocd", 1, """
                ingressClassName: strait
                defaultBackend: { service: { name: argocd, port: { number: 443 } } }
                rules: [ { host: argocd.example.com } ]
                """, "ssl-passthrough", "true"));
        assertThat(routesOf(t, "argocd"))
                .containsExactly(passedThrough("argocd.example.com", "service.shop.argocd.443.passthrough"));
        assertThat(ingressReport(t, "shop", "argocd").errors()).isEmpty();
    }

    @Test
    void aBackendThatDoesNotResolveIsReportedOnTheIngressFields() {
        Translation t = translate(annotatedIngress("shop", "argocd", 1, """
                ingressClassName: strait
                rules: [ { host: argocd.example.com, http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: gone, port: { number: 443 } } } } ] } } ]
                """, "ssl-passthrough", "true"));
        assertThat(routesOf(t, "argocd")).containsExactly(passedThrough("argocd.example.com", Translator.UNRESOLVED));
        assertThat(ingressReport(t, "shop", "argocd").errors())
                .containsExactly("spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found");
    }

    /** Neither a host-less rule nor the catch-all has a name to pass through on: nothing is served with TLS ended. */
    @Test
    void anIngressWithoutHostsServesNothing() {
        Translation t = translate(annotatedIngress("shop", "argocd", 1, """
                ingressClassName: strait
                defaultBackend: { service: { name: argocd, port: { number: 443 } } }
                rules: [ { http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: argocd, port: { number: 443 } } } } ] } } ]
                """, "ssl-passthrough", "true"));
        assertThat(routesOf(t, "argocd")).isEmpty();
        ResourceReport r = ingressReport(t, "shop", "argocd");
        assertThat(r.inSnapshot()).isFalse();
        assertThat(r.errors()).containsExactly(
                "spec.rules[0].host: a rule without a host cannot be passed through (" + PASSTHROUGH + "): a connection"
                        + " is told apart by the name its ClientHello sends (SNI); its paths are not served",
                "spec.defaultBackend: not served: " + PASSTHROUGH + " passes a host of the rules to it when the host has"
                        + " no path /, and none here does; hosts the Ingress does not name cannot be passed through (no"
                        + " name to match the ClientHello's against)");
    }

    /** As every other annotation, canary does not apply: the Ingress is passed through, not split into another's. */
    @Test
    void aCanaryWithSslPassthroughIsPassedThrough() {
        Translation t = translate(annotatedIngress("shop", "argocd", 1, """
                ingressClassName: strait
                rules: [ { host: argocd.example.com, http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: argocd, port: { number: 443 } } } } ] } } ]
                """, "ssl-passthrough", "true", "canary", "true"));
        assertThat(routesOf(t, "argocd"))
                .containsExactly(passedThrough("argocd.example.com", "service.shop.argocd.443.passthrough"));
        assertThat(ingressReport(t, "shop", "argocd").errors()).containsExactly("metadata.annotations[" + N
                + "canary]: not applied: with " + PASSTHROUGH + " the connections go to the backend as they are, and no"
                + " other annotation applies (as in ingress-nginx)");
    }

    @Test
    void sslPassthroughOtherThanTrueChangesNothing() {
        Translation t = translate(annotatedIngress("shop", "argocd", 1, """
                ingressClassName: strait
                rules: [ { host: argocd.example.com, http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: argocd, port: { number: 443 } } } } ] } } ]
                """, "ssl-passthrough", "false"));
        assertThat(routesOf(t, "argocd")).singleElement().satisfies(r -> assertThat(r.tlsPassthrough()).isNull());
        assertThat(ingressReport(t, "shop", "argocd").errors()).isEmpty();
    }
}
