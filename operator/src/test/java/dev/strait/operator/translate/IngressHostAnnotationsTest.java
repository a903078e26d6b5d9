package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.route.CompiledRule;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's annotations that add host names: {@code server-alias} (more names for the Ingress's host)
 * and {@code from-to-www-redirect} (the host's www twin, or the bare name of a www host, redirects to it
 * with 308, and yields to any Ingress or Route that serves the twin itself).
 */
class IngressHostAnnotationsTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String SHOP = """
            ingressClassName: strait
            rules:
              - host: shop.example.com
                http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
              - host: admin.example.com
                http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
            """;

    /** The route that answers a request on the proxy that takes this snapshot, or null for none (404). */
    private static CompiledRule served(Translation t, String host, String path) throws Exception {
        Snapshot s = SnapshotBuilder.build(ConfigParser.parse(t.snapshot(STRAIT).json(), "snapshot"), "snapshot");
        return s.table("http").find(host, path, HttpMethod.GET, new DefaultHttpHeaders());
    }

    private static String routeOf(Translation t, String host, String path) throws Exception {
        CompiledRule r = served(t, host, path);
        return r == null ? null : r.route();
    }

    @Test
    void serverAliasesServeTheFirstHostsPaths() throws Exception {
        Translation t = IngressAnnotationsTest.translate(IngressAnnotationsTest.annotated("site", SHOP,
                "server-alias", "Shop.example.org, *.shop.example.net,bad_host!, shop.example.com, admin.example.com"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly("metadata.annotations[" + N
                + "server-alias]: \"bad_host!\" is not a host name; it is left out");
        assertThat(t.snapshot(STRAIT).config().routes()).extracting(Route::name, Route::hosts).contains(
                org.assertj.core.groups.Tuple.tuple("shop.site..ingress-0",
                        java.util.List.of("shop.example.com", "shop.example.org", "*.shop.example.net")),
                org.assertj.core.groups.Tuple.tuple("shop.site..ingress-1", java.util.List.of("admin.example.com")));
        assertThat(routeOf(t, "shop.example.org", "/cart")).isEqualTo("shop.site..ingress-0");
        assertThat(routeOf(t, "eu.shop.example.net", "/")).isEqualTo("shop.site..ingress-0");
        assertThat(routeOf(t, "admin.example.com", "/")).as("a host of the Ingress keeps its own paths")
                .isEqualTo("shop.site..ingress-1");

        String hostless = """
                ingressClassName: strait
                rules:
                  - http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """;
        t = IngressAnnotationsTest.translate(IngressAnnotationsTest.annotated("any", hostless, "server-alias", "a.example.com"));
        assertThat(ingressReport(t, "shop", "any").errors()).containsExactly("metadata.annotations[" + N
                + "server-alias]: the Ingress has no host to add names to; it is not applied");
        assertThat(routeOf(t, "a.example.com", "/")).as("its paths still serve every host").isEqualTo("shop.any..ingress-0");
    }

    @Test
    void theWwwTwinRedirectsToTheHost() throws Exception {
        Translation t = IngressAnnotationsTest.translate(IngressAnnotationsTest.annotated("site", SHOP,
                "from-to-www-redirect", "true"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        CompiledRule www = served(t, "www.shop.example.com", "/cart");
        assertThat(www.route()).isEqualTo("shop.site..ingress-0-www");
        assertThat(t.snapshot(STRAIT).config().routes()).filteredOn(r -> r.name().equals("shop.site..ingress-0-www"))
                .singleElement().satisfies(r -> {
                    assertThat(r.hosts()).containsExactly("www.shop.example.com");
                    assertThat(r.rules()).singleElement().extracting(Route.Rule::action)
                            .isEqualTo(new Route.Redirect(null, "shop.example.com", null, null, 308));
                });
        assertThat(routeOf(t, "www.admin.example.com", "/")).isEqualTo("shop.site..ingress-1-www");
        assertThat(routeOf(t, "shop.example.com", "/cart")).isEqualTo("shop.site..ingress-0");

        String www2 = """
                ingressClassName: strait
                tls: [ { hosts: [ www.example.com, example.com ], secretName: site-tls } ]
                rules:
                  - host: www.example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """;
        t = IngressAnnotationsTest.translate(Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY),
                IngressAnnotationsTest.annotated("www", www2, "from-to-www-redirect", "true", "ssl-redirect", "false"));
        assertThat(routeOf(t, "example.com", "/a")).as("the bare name goes to www").isEqualTo("shop.www..ingress-0-www");
        assertThat(t.snapshot(STRAIT).config().routes()).filteredOn(r -> r.name().equals("shop.www..ingress-0-www"))
                .singleElement().satisfies(r -> assertThat(r.rules()).singleElement().extracting(Route.Rule::action)
                        .isEqualTo(new Route.Redirect(null, "www.example.com", null, null, 308)));
        java.util.List<IngressRoutes.Piece> pieces = IngressRoutes.pieces(
                IngressAnnotationsTest.annotated("www", www2, "from-to-www-redirect", "true"),
                new ServiceEndpoints(java.util.List.of(), java.util.List.of()), new java.util.ArrayList<>());
        assertThat(pieces).filteredOn(p -> p.route().getMetadata().getName().endsWith("-www")).singleElement()
                .satisfies(p -> assertThat(p.route().getSpec().tls.secretName).as("the TLS entry naming the twin")
                        .isEqualTo("site-tls"));
    }

    @Test
    void theRedirectYieldsToWhoeverServesTheTwin() throws Exception {
        String twin = """
                ingressClassName: strait
                rules:
                  - host: www.shop.example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """;
        // The redirect's Ingress is the older one: the twin's own paths still answer, and no conflict is said.
        Translation t = IngressAnnotationsTest.translate(
                IngressAnnotationsTest.annotated("site", SHOP, "from-to-www-redirect", "true"),
                Fixtures.ingress("shop", "blog", 2, twin));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(ingressReport(t, "shop", "blog").errors()).isEmpty();
        assertThat(routeOf(t, "www.shop.example.com", "/")).isEqualTo("shop.blog..ingress-0");
        assertThat(routeOf(t, "www.shop.example.com", "/cart")).isEqualTo("shop.blog..ingress-0");
        assertThat(routeOf(t, "www.admin.example.com", "/cart")).as("the other host's twin is still redirected")
                .isEqualTo("shop.site..ingress-1-www");

        // A twin the same Ingress names is its own host, not redirected.
        String both = """
                ingressClassName: strait
                rules:
                  - host: example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                  - host: www.example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """;
        t = IngressAnnotationsTest.translate(IngressAnnotationsTest.annotated("both", both, "from-to-www-redirect", "true"));
        assertThat(t.snapshot(STRAIT).config().routes()).extracting(Route::name).noneMatch(n -> n.endsWith("-www"));
    }
}
