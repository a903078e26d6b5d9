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
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx compresses per controller (its ConfigMap's {@code use-gzip}, {@code gzip-level}, {@code gzip-min-length},
 * {@code gzip-types}), not per Ingress: the operator's {@code --ingress-compression*} give every backend rule made from
 * an Ingress that {@code compression}; redirects and gRPC backends get none.
 */
class IngressCompressionTest {
    /** Two paths (one whose Service is missing) and a defaultBackend. */
    private static final String SITE = IngressAnnotationsTest.SITE;
    private static final String GONE = "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found";
    private static final Route.Compression JSON_AT_5 = new Route.Compression(List.of("application/json", "text/*"), 256, 5);

    /** The Ingresses (and more) on a controller with this compression for Ingresses (null: off). */
    private static Translation translate(Route.Compression compression, Object... more) {
        ProxyDefaults d = ProxyDefaults.STANDARD;
        Translator translator = new Translator(new ProxyDefaults(d.defaultClass(), d.sidecarClass(), d.http(), d.https(),
                d.admin(), d.limits(), d.accessLog(), d.forwardedHeaders(), d.proxyProtocol(), d.tracing(),
                d.clusterDomain(), compression));
        Object[] base = {service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1")};
        Object[] all = new Object[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return translator.translate(Fixtures.inputs(all));
    }

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream()).toList();
    }

    /** The one compression every rule of the Ingress has (both paths and the defaultBackends), or null for none. */
    private static Route.Compression compression(Translation t) {
        List<Route.Rule> rules = rules(t);
        assertThat(rules).hasSize(4);
        assertThat(rules).extracting(Route.Rule::compression)
                .allMatch(c -> java.util.Objects.equals(c, rules.get(0).compression()));
        // The proxies take it, and read back the same.
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes()).flatExtracting(Route::rules)
                .extracting(Route.Rule::compression).containsOnly(rules.get(0).compression());
        return rules.get(0).compression();
    }

    /** As ingress-nginx's use-gzip, whose default is false. */
    @Test
    void offByDefault() {
        Translation t = translate(null, annotated("site", SITE));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        assertThat(compression(t)).isNull();
        assertThat(compression(Fixtures.translate(service("shop", "web", "http:80"),
                slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"), annotated("site", SITE))))
                .as("the standard defaults").isNull();
    }

    @Test
    void everyBackendRuleOfAnIngressGetsTheControllersCompression() {
        Route.Compression brotliFirst = new Route.Compression(JSON_AT_5.types(), 256, 5, List.of("br", "zstd", "gzip"));
        for (Route.Compression c : List.of(Route.Compression.DEFAULTS, JSON_AT_5, brotliFirst)) {
            Translation t = translate(c, annotated("site", SITE));
            assertThat(ingressReport(t, "shop", "site").errors()).as("%s", c).containsExactly(GONE);
            assertThat(compression(t)).isEqualTo(c);
        }
        // Backends spoken to over TLS are HTTP as any other.
        assertThat(compression(translate(JSON_AT_5, annotated("site", SITE, "backend-protocol", "HTTPS"))))
                .isEqualTo(JSON_AT_5);
    }

    /** A redirect's answer has no body to compress (the parser refuses compression there). */
    @Test
    void redirectsGetNone() {
        List<Route.Rule> rules = rules(translate(JSON_AT_5, annotated("site", SITE, "app-root", "/shop")));
        assertThat(rules).filteredOn(r -> r.action() instanceof Route.Redirect).singleElement()
                .extracting(Route.Rule::compression).isNull();
        assertThat(rules).filteredOn(r -> r.action() instanceof Route.Backends).hasSize(4)
                .extracting(Route.Rule::compression).containsOnly(JSON_AT_5);
        Translation moved = translate(JSON_AT_5, annotated("site", SITE, "permanent-redirect", "https://example.com/"));
        assertThat(rules(moved)).isNotEmpty().allMatch(r -> r.action() instanceof Route.Redirect)
                .extracting(Route.Rule::compression).containsOnlyNulls();
    }

    /** gRPC compresses its messages itself (grpc-encoding), and its clients read no gzip'd body. */
    @Test
    void grpcBackendsGetNone() {
        for (String protocol : List.of("GRPC", "GRPCS", "grpc")) {
            Translation t = translate(Route.Compression.DEFAULTS, annotated("site", SITE, "backend-protocol", protocol));
            assertThat(ingressReport(t, "shop", "site").errors()).as(protocol).containsExactly(GONE);
            assertThat(compression(t)).as(protocol).isNull();
        }
    }

    /**
     * A canary's share is served by its primary's rule (ADR 0063): the rules made for its header and cookie and the
     * split rule keep the primary's compression.
     */
    @Test
    void aCanarysShareIsCompressedAsItsPrimarys() {
        Ingress canary = Fixtures.ingress("shop", "site-canary", 0, """
                ingressClassName: strait
                rules:
                  - host: old.example.com
                    http:
                      paths:
                        - { path: /about, pathType: Exact, backend: { service: { name: web-canary, port: { number: 80 } } } }
                """);
        Map<String, String> a = new LinkedHashMap<>();
        a.put("nginx.ingress.kubernetes.io/canary", "true");
        a.put("nginx.ingress.kubernetes.io/canary-weight", "20");
        a.put("nginx.ingress.kubernetes.io/canary-by-header", "X-Canary");
        canary.getMetadata().setAnnotations(a);
        Translation t = translate(JSON_AT_5, annotated("site", SITE), canary, service("shop", "web-canary", "http:80"),
                slice("shop", "web-canary", "web-canary-1", "http", 8080, "10.0.0.2"));
        List<Route.Rule> about = rules(t).stream().filter(r -> r.matches().get(0).path() != null
                && r.matches().get(0).path().value().equals("/about")).toList();
        assertThat(about).hasSize(3); // the X-Canary always and never rules, and the split
        assertThat(about).flatExtracting(r -> ((Route.Backends) r.action()).backends()).extracting(Route.Backend::upstream)
                .contains("service.shop.web-canary.80");
        assertThat(about).extracting(Route.Rule::compression).containsOnly(JSON_AT_5);
    }

    /** ingress-nginx users turn gzip on or off per Ingress with nginx's own directives in a configuration-snippet. */
    @Test
    void aConfigurationSnippetsGzipTurnsItOnOffOrChangesIt() {
        String snippet = "configuration-snippet";
        Translation on = translate(null, annotated("site", SITE, snippet, "gzip on;\ngzip_comp_level 5;\n"));
        assertThat(ingressReport(on, "shop", "site").errors()).containsExactly(GONE);
        assertThat(compression(on)).isEqualTo(new Route.Compression(Route.Compression.DEFAULT_TYPES,
                Route.Compression.DEFAULT_MIN_BYTES, 5));
        assertThat(compression(translate(JSON_AT_5, annotated("site", SITE, snippet, "gzip off;\n")))).isNull();
        assertThat(compression(translate(JSON_AT_5, annotated("site", SITE, snippet, "gzip_min_length 1000;\n"))))
                .isEqualTo(new Route.Compression(JSON_AT_5.types(), 1000, 5));
        assertThat(compression(translate(null, annotated("site", SITE, snippet, "gzip_min_length 1000;\n"))))
                .as("settings without gzip on change nothing, as in nginx").isNull();
    }

    /**
     * nginx's brotli lines in a configuration-snippet: br first over the controller's codings (ngx_brotli wins over
     * gzip), or taken out; a setting that differs from gzip's is reported on the Ingress, which still serves it.
     */
    @Test
    void aConfigurationSnippetsBrotliPutsBrFirstOrTakesItOut() {
        String snippet = "configuration-snippet";
        assertThat(compression(translate(JSON_AT_5, annotated("site", SITE, snippet, "brotli on;\n"))))
                .isEqualTo(new Route.Compression(JSON_AT_5.types(), 256, 5, List.of("br", "zstd", "gzip")));
        Route.Compression withBrotli = new Route.Compression(JSON_AT_5.types(), 256, 5, List.of("zstd", "br", "gzip"));
        assertThat(compression(translate(withBrotli, annotated("site", SITE, snippet, "brotli off;\n"))))
                .isEqualTo(JSON_AT_5);
        assertThat(compression(translate(withBrotli, annotated("site", SITE, snippet, "gzip off;\n"))))
                .as("brotli is a switch of its own, as in nginx")
                .isEqualTo(new Route.Compression(JSON_AT_5.types(), 256, 5, List.of("br")));

        Translation t = translate(null, annotated("site", SITE, snippet,
                "brotli on;\nbrotli_comp_level 11;\nmore_set_headers \"X-A: 1\";\n"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(GONE,
                "metadata.annotations[nginx.ingress.kubernetes.io/configuration-snippet]: \"brotli_comp_level 11\" is"
                        + " applied as level 9: Strait's levels go from 1 to 9");
        assertThat(compression(t)).isEqualTo(new Route.Compression(Route.Compression.DEFAULT_TYPES,
                Route.Compression.DEFAULT_MIN_BYTES, 9, List.of("br")));
    }
}
