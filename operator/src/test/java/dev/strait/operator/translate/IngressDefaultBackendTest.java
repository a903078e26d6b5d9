package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingress;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.ConfigParser;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.route.CompiledRule;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An Ingress's {@code defaultBackend} is the catch-all of its hosts, as in ingress-nginx: it answers only
 * what no path of any Ingress or Route of the host matches, whatever their ages (ADR 0056). Explicit
 * paths still conflict among themselves by age (ADR 0007), and defaultBackends among themselves.
 */
class IngressDefaultBackendTest {
    /** A defaultBackend, and a path of its own on the host. */
    private static final String FALLBACK = """
            ingressClassName: strait
            defaultBackend: { service: { name: fallback, port: { number: 80 } } }
            rules:
              - host: shop.example.com
                http: { paths: [ { path: /api, pathType: Prefix, backend: { service: { name: api, port: { number: 80 } } } } ] }
            """;
    /** An explicit {@code Prefix /} on the same host. */
    private static final String ROOT = """
            ingressClassName: strait
            rules:
              - host: shop.example.com
                http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
            """;

    private static Object[] cluster(Object... more) {
        List<Object> all = new ArrayList<>();
        for (String name : new String[] {"fallback", "api", "web"}) {
            all.add(service("shop", name, "http:80"));
            all.add(slice("shop", name, name + "-1", "http", 8080, "10.0.0." + (all.size() + 1)));
        }
        all.addAll(List.of(more));
        return all.toArray();
    }

    /** The model Route that answers on a proxy that takes this snapshot. */
    private static String served(Translation t, String listener, String host, String path) throws Exception {
        Snapshot s = SnapshotBuilder.build(ConfigParser.parse(t.snapshot(STRAIT).json(), "snapshot"), "snapshot");
        CompiledRule r = s.table(listener).find(host, path, HttpMethod.GET, new DefaultHttpHeaders());
        return r == null ? null : r.route();
    }

    @Test
    void aYoungerIngressesRootPathWinsOverAnOlderDefaultBackend() throws Exception {
        Translation t = Fixtures.translate(cluster(ingress("shop", "old", 1, FALLBACK), ingress("shop", "young", 2, ROOT)));
        assertThat(served(t, "http", "shop.example.com", "/")).isEqualTo("shop.young..ingress-0");
        assertThat(served(t, "http", "shop.example.com", "/cart")).isEqualTo("shop.young..ingress-0");
        assertThat(served(t, "http", "shop.example.com", "/api/x")).isEqualTo("shop.old..ingress-0");
        assertThat(served(t, "http", "other.example.com", "/")).as("hosts no rule names")
                .isEqualTo("shop.old..ingress-1-default");
        for (String name : new String[] {"old", "young"}) {
            ResourceReport r = ingressReport(t, "shop", name);
            assertThat(r.errors()).as(name).isEmpty();
            assertThat(r.accepted().reason()).as(name).isEqualTo("Accepted");
        }
    }

    @Test
    void anOlderIngressesRootPathKeepsWinningOverAYoungerDefaultBackendWithoutAConflict() throws Exception {
        Translation t = Fixtures.translate(cluster(ingress("shop", "old", 1, ROOT), ingress("shop", "young", 2, FALLBACK)));
        assertThat(served(t, "http", "shop.example.com", "/")).isEqualTo("shop.old..ingress-0");
        assertThat(served(t, "http", "shop.example.com", "/api/x")).isEqualTo("shop.young..ingress-0");
        assertThat(served(t, "http", "other.example.com", "/")).isEqualTo("shop.young..ingress-1-default");
        ResourceReport r = ingressReport(t, "shop", "young");
        assertThat(r.errors()).as("a defaultBackend under another Ingress's path is what a catch-all is").isEmpty();
        assertThat(r.accepted().reason()).isEqualTo("Accepted");
    }

    @Test
    void theDefaultBackendStillAnswersWhatNoPathOfTheHostMatches() throws Exception {
        Translation t = Fixtures.translate(cluster(ingress("shop", "young", 2, """
                ingressClassName: strait
                rules:
                  - host: shop.example.com
                    http: { paths: [ { path: /web, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """), ingress("shop", "old", 1, FALLBACK)));
        assertThat(served(t, "http", "shop.example.com", "/web/x")).isEqualTo("shop.young..ingress-0");
        assertThat(served(t, "http", "shop.example.com", "/api")).isEqualTo("shop.old..ingress-0");
        assertThat(served(t, "http", "shop.example.com", "/elsewhere")).isEqualTo("shop.old..ingress-0-default");
        assertThat(t.snapshot(STRAIT).config().routes()).extracting(dev.strait.model.Route::name)
                .as("paths oldest first, then the defaultBackends")
                .containsExactly("shop.old..ingress-0", "shop.young..ingress-0", "shop.old..ingress-0-default",
                        "shop.old..ingress-1-default");
    }

    @Test
    void aRoutesCatchAllRuleWinsOverAnOlderDefaultBackend() throws Exception {
        Translation t = Fixtures.translate(cluster(ingress("shop", "old", 1, FALLBACK), route("shop", "site", 2, """
                hosts: [ shop.example.com ]
                rules: [ { respond: { status: 204 } } ]
                """)));
        assertThat(served(t, "http", "shop.example.com", "/anything")).isEqualTo("shop.site");
        assertThat(Fixtures.routeReport(t, "shop", "site").accepted().reason()).isEqualTo("Accepted");
    }

    @Test
    void explicitRootPathsStillConflictByAge() throws Exception {
        Translation t = Fixtures.translate(cluster(ingress("shop", "old", 1, ROOT), ingress("shop", "young", 2, ROOT)));
        assertThat(served(t, "http", "shop.example.com", "/")).isEqualTo("shop.old..ingress-0");
        ResourceReport r = ingressReport(t, "shop", "young");
        assertThat(r.accepted().reason()).isEqualTo("Conflicted");
        assertThat(r.errors()).containsExactly("spec.rules[0].http.paths[0]: host \"shop.example.com\" path Prefix / "
                + "is already served by Ingress shop/old (the older Route wins)");
    }

    @Test
    void twoDefaultBackendsOfAHostConflictByAge() throws Exception {
        Translation t = Fixtures.translate(cluster(ingress("shop", "young", 2, FALLBACK.replace("/api", "/v2")),
                ingress("shop", "old", 1, FALLBACK)));
        assertThat(served(t, "http", "shop.example.com", "/elsewhere")).isEqualTo("shop.old..ingress-0-default");
        assertThat(served(t, "http", "other.example.com", "/")).isEqualTo("shop.old..ingress-1-default");
        assertThat(served(t, "http", "shop.example.com", "/v2")).isEqualTo("shop.young..ingress-0");
        ResourceReport r = ingressReport(t, "shop", "young");
        assertThat(r.accepted().reason()).isEqualTo("PartiallyConflicted");
        assertThat(r.errors()).containsExactly(
                "spec.defaultBackend: host \"shop.example.com\" already has the defaultBackend of Ingress shop/old "
                        + "(the older Ingress wins)",
                "spec.defaultBackend: host \"*\" already has the defaultBackend of Ingress shop/old (the older Ingress wins)");
    }

    @Test
    void eachListenerGivesPathsPrecedenceOnItsOwn() throws Exception {
        // The younger Ingress has TLS for the host, so its plain requests are redirected to https (a catch-all on
        // http); on https it serves /app only. The older one's defaultBackend answers the rest there.
        Translation t = Fixtures.translate(cluster(Fixtures.tlsSecret("shop", "tls", Fixtures.CERT, Fixtures.KEY),
                ingress("shop", "old", 1, FALLBACK), ingress("shop", "young", 2, """
                        ingressClassName: strait
                        tls: [ { hosts: [ shop.example.com ], secretName: tls } ]
                        rules:
                          - host: shop.example.com
                            http: { paths: [ { path: /app, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                        """)));
        assertThat(served(t, "http", "shop.example.com", "/")).isEqualTo("shop.young..ingress-0-to-https");
        assertThat(served(t, "https", "shop.example.com", "/app")).isEqualTo("shop.young..ingress-0");
        assertThat(served(t, "https", "shop.example.com", "/")).isEqualTo("shop.old..ingress-0-default");
        assertThat(ingressReport(t, "shop", "young").errors()).isEmpty();
    }

    @Test
    void eachStepIsTranslatedAsFromNothing() {
        // Ingresses come and go in both orders on one long-lived translator (ADR 0028's kept owners).
        Object old = ingress("shop", "old", 1, FALLBACK);
        Object young = ingress("shop", "young", 2, ROOT);
        Object youngFallback = ingress("shop", "young", 2, FALLBACK.replace("/api", "/v2"));
        Object[][] steps = {{old}, {old, young}, {young}, {young, old}, {old, youngFallback}, {youngFallback},
                {old, youngFallback}, {old}};
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        for (Object[] step : steps) {
            Translation got = translator.translate(Fixtures.inputs(cluster(step)));
            Translation want = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(cluster(step)));
            assertThat(got.snapshot(STRAIT).json()).isEqualTo(want.snapshot(STRAIT).json());
            assertThat(got.reports()).isEqualTo(want.reports());
        }
    }
}
