package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static dev.strait.operator.translate.IngressAnnotationsTest.annotated;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx sends HSTS on https for every host with a certificate (its ConfigMap's {@code hsts}, on by default,
 * {@code hsts-max-age}, {@code hsts-include-subdomains}, {@code hsts-preload}), never per Ingress: the operator's
 * {@code --ingress-hsts} gives every Route made from an Ingress for a host with TLS that {@code hsts}. Hosts without
 * TLS, the Routes redirecting plain requests to https, and passed-through hosts get none.
 */
class IngressHstsTest {
    /** A host with TLS, one without (all of whose paths {@code /} takes), and a defaultBackend (for the first and {@code *}). */
    private static final String SITE = """
            ingressClassName: strait
            defaultBackend: { service: { name: web, port: { number: 80 } } }
            tls: [ { hosts: [ example.com ], secretName: site-tls } ]
            rules:
              - host: example.com
                http: { paths: [ { path: /api, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
              - host: plain.example.com
                http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
            """;
    private static final Route.Hsts TWO_YEARS = new Route.Hsts(63_072_000, true, true);

    /** The Ingresses (and more) on a controller with this HSTS for Ingresses (null: off). */
    private static Translation translate(Route.Hsts hsts, Object... more) {
        ProxyDefaults d = ProxyDefaults.STANDARD;
        Translator translator = new Translator(new ProxyDefaults(d.defaultClass(), d.sidecarClass(), d.http(), d.https(),
                d.admin(), d.limits(), d.accessLog(), d.forwardedHeaders(), d.proxyProtocol(), d.tracing(),
                d.clusterDomain(), d.ingressCompression(), hsts));
        Object[] base = {service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
            Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY)};
        Object[] all = new Object[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        Translation t = translator.translate(Fixtures.inputs(all));
        // What a proxy is sent, it takes, and reads back the same.
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes()).extracting(Route::hsts)
                .isEqualTo(t.snapshot(STRAIT).config().routes().stream().map(Route::hsts).toList());
        return t;
    }

    /** Each Route's name and hsts ("none" for null), in the snapshot's order. */
    private static Map<String, Object> hsts(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().collect(Collectors.toMap(Route::name,
                r -> r.hsts() == null ? "none" : r.hsts(), (a, b) -> a, LinkedHashMap::new));
    }

    @Test
    void aTlsHostGetsIngressNginxsDefaultAndAPlainHostNone() {
        Translation t = Fixtures.translate(service("shop", "web", "http:80"),
                slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY), Fixtures.ingress("shop", "site", 1, SITE));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        Route.Hsts year = new Route.Hsts(31_536_000, true, false);
        assertThat(hsts(t)).containsExactly(
                Map.entry("shop.site..ingress-0", year),
                Map.entry("shop.site..ingress-0-to-https", "none"),
                Map.entry("shop.site..ingress-1", "none"),
                Map.entry("shop.site..ingress-0-default", year),
                Map.entry("shop.site..ingress-2-default", "none"));
        assertThat(year.value()).isEqualTo("max-age=31536000; includeSubDomains");
    }

    @Test
    void aCustomValueIsCarriedAndOffGivesNone() {
        Translation t = translate(TWO_YEARS, Fixtures.ingress("shop", "site", 1, SITE));
        assertThat(hsts(t)).containsEntry("shop.site..ingress-0", TWO_YEARS)
                .containsEntry("shop.site..ingress-0-default", TWO_YEARS)
                .containsEntry("shop.site..ingress-0-to-https", "none").containsEntry("shop.site..ingress-1", "none");
        assertThat(hsts(translate(null, Fixtures.ingress("shop", "site", 1, SITE)))).hasSize(5).containsOnly(
                Map.entry("shop.site..ingress-0", "none"), Map.entry("shop.site..ingress-0-to-https", "none"),
                Map.entry("shop.site..ingress-1", "none"), Map.entry("shop.site..ingress-0-default", "none"),
                Map.entry("shop.site..ingress-2-default", "none"));
    }

    /** Without the redirect the TLS host is served on both listeners: the proxies send its hsts on https alone. */
    @Test
    void aTlsHostServedOnBothListenersHasItToo() {
        Translation t = translate(TWO_YEARS, annotated("site", SITE, "ssl-redirect", "false"));
        Route site = t.snapshot(STRAIT).config().routes().get(0);
        assertThat(site.name()).isEqualTo("shop.site..ingress-0");
        assertThat(site.listeners()).isNull();
        assertThat(site.hsts()).isEqualTo(TWO_YEARS);
        assertThat(hsts(t)).doesNotContainKey("shop.site..ingress-0-to-https");
    }

    /** force-ssl-redirect without TLS: the https is a load balancer's or the default certificate's, none of the host's. */
    @Test
    void aHostForcedToHttpsWithoutTlsHasNone() {
        // With another Ingress's certificate, so there is an https listener to redirect to.
        Translation t = translate(TWO_YEARS, Fixtures.ingress("shop", "site", 1, SITE), annotated("forced", """
                ingressClassName: strait
                rules:
                  - host: forced.example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """, "force-ssl-redirect", "true"));
        assertThat(hsts(t)).containsEntry("shop.forced..ingress-0", "none")
                .containsEntry("shop.forced..ingress-0-to-https", "none").containsEntry("shop.site..ingress-0", TWO_YEARS);
        assertThat(t.snapshot(STRAIT).config().routes()).filteredOn(r -> r.name().equals("shop.forced..ingress-0"))
                .singleElement().extracting(Route::listeners).isEqualTo(List.of(ProxyDefaults.HTTPS));
    }

    /** A passed-through host's TLS is its backend's, which answers for itself (the proxies' parser refuses it there). */
    @Test
    void aPassedThroughHostHasNone() {
        Translation t = translate(TWO_YEARS, Fixtures.ingress("shop", "site", 1, SITE), annotated("argocd", """
                ingressClassName: strait
                tls: [ { hosts: [ argocd.example.com ], secretName: site-tls } ]
                rules:
                  - host: argocd.example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """, "ssl-passthrough", "true"));
        assertThat(ingressReport(t, "shop", "argocd").errors()).isEmpty();
        Route argocd = t.snapshot(STRAIT).config().routes().stream().filter(r -> r.name().startsWith("shop.argocd"))
                .findFirst().orElseThrow();
        assertThat(argocd.tlsPassthrough()).isNotNull();
        assertThat(argocd.hsts()).isNull();
        assertThat(hsts(t)).containsEntry("shop.site..ingress-0", TWO_YEARS);
    }

    /** The www twin's redirect: over https with the twin's certificate, it teaches browsers https for the twin too. */
    @Test
    void aWwwTwinWithTlsHasItAndOneWithoutNone() {
        String spec = """
                ingressClassName: strait
                tls: [ { hosts: [ example.com%s ], secretName: site-tls } ]
                rules:
                  - host: example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """;
        Translation t = translate(TWO_YEARS, annotated("site", spec.formatted(", www.example.com"),
                "from-to-www-redirect", "true"));
        assertThat(hsts(t)).containsEntry("shop.site..ingress-0", TWO_YEARS)
                .containsEntry("shop.site..ingress-0-www", TWO_YEARS);
        t = translate(TWO_YEARS, annotated("site", spec.formatted(""), "from-to-www-redirect", "true"));
        assertThat(hsts(t)).containsEntry("shop.site..ingress-0", TWO_YEARS)
                .containsEntry("shop.site..ingress-0-www", "none");
    }

    /** A canary's share is served by its primary's rule (ADR 0063), on its primary's Route: the hsts stays. */
    @Test
    void aCanarysShareKeepsItsPrimarysHsts() {
        Ingress canary = Fixtures.ingress("shop", "site-canary", 0, """
                ingressClassName: strait
                rules:
                  - host: example.com
                    http: { paths: [ { path: /api, pathType: Prefix, backend: { service: { name: web-canary, port: { number: 80 } } } } ] }
                """);
        canary.getMetadata().setAnnotations(Map.of("nginx.ingress.kubernetes.io/canary", "true",
                "nginx.ingress.kubernetes.io/canary-weight", "20"));
        Translation t = translate(TWO_YEARS, Fixtures.ingress("shop", "site", 1, SITE), canary,
                service("shop", "web-canary", "http:80"), slice("shop", "web-canary", "web-canary-1", "http", 8080, "10.0.0.2"));
        Route site = t.snapshot(STRAIT).config().routes().get(0);
        assertThat(site.name()).isEqualTo("shop.site..ingress-0");
        assertThat(site.rules()).flatExtracting(r -> ((Route.Backends) r.action()).backends()).extracting(Route.Backend::upstream)
                .contains("service.shop.web-canary.80");
        assertThat(site.hsts()).isEqualTo(TWO_YEARS);
    }

    /** Routes are not the operator's to give HSTS: a Route with TLS and no hsts stays without. */
    @Test
    void routesAreLeftAlone() {
        Translation t = translate(TWO_YEARS, Fixtures.route("shop", "page", 1, """
                hosts: [ example.com ]
                tls: { secretName: site-tls }
                rules: [ { backends: [ { service: { name: web, port: 80 } } ] } ]
                """));
        assertThat(hsts(t)).containsExactly(Map.entry("shop.page", "none"));
    }
}
