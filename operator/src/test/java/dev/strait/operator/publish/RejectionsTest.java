package dev.strait.operator.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.operator.translate.Fixtures;
import dev.strait.operator.translate.ProxyDefaults;
import dev.strait.operator.translate.ProxyRejection;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.ResourceReport;
import dev.strait.operator.translate.Translation;
import dev.strait.operator.translate.Translator;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A NACK's {@code routes[i]} errors name the Route or Ingress host they came from (ADR 0050). */
class RejectionsTest {
    private static final Object[] INPUTS = {
        Fixtures.service("shop", "web", "http:80"),
        Fixtures.route("shop", "site.v2", 1, "hosts: [ example.com ]\nrules: [ { respond: { status: 200 } } ]"),
        Fixtures.ingress("shop", "two-hosts", 2, """
                ingressClassName: strait
                rules:
                  - host: a.example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                  - host: b.example.com
                    http: { paths: [ { path: /b, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """),
    };

    @Test
    void errorsAboutRoutesNameTheirResourceAndOthersNothing() {
        Translation t = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(INPUTS));
        // routes: [shop.site.v2, shop.two-hosts..ingress-0, shop.two-hosts..ingress-1]
        String nack = """
                snapshot: 3 error(s):
                  routes[0].rules[0]: first
                  routes[2].rules[0].backends[0]: second
                  listeners[1].tls.certificates[0].cert: not about a Route""";
        Map<ResourceKey, ProxyRejection> r = Fleet.rejections(t, Fixtures.STRAIT, nack, "/10.0.0.9:4000");
        ResourceKey route = new ResourceKey("Route", "shop", "site.v2");
        ResourceKey ingress = new ResourceKey("Ingress", "shop", "two-hosts");
        assertThat(r).containsOnlyKeys(route, ingress);
        assertThat(r.get(route).message()).isEqualTo(
                "spec.rules[0]: first (refused by the proxy at /10.0.0.9:4000; left out until the Route changes)");
        assertThat(r.get(ingress).route()).isEqualTo("two-hosts..ingress-1");
        assertThat(r.get(ingress).generation()).isEqualTo(t.report(ingress).generation());

        Translation after = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(INPUTS).withRejected(r));
        ResourceReport ing = after.report(ingress);
        assertThat(ing.accepted().reason()).isEqualTo("RejectedByProxy");
        assertThat(ing.errors()).singleElement().asString()
                .startsWith("spec.rules[1].http.paths[0].backend: second (refused by the proxy at");
        assertThat(after.snapshot(Fixtures.STRAIT).config().routes()).as("both hosts out, and the Route").isEmpty();
    }

    @Test
    void anErrorAboutAnIngressesDefaultBackendOrRedirectNamesTheIngress() {
        // Before ADR 0056 only NAME..ingress-N was read, so a refused defaultBackend (or redirect) was not left out
        // and the proxies went on refusing every snapshot of the class.
        Object[] inputs = {
            Fixtures.service("shop", "web", "http:80"),
            Fixtures.tlsSecret("shop", "tls", Fixtures.CERT, Fixtures.KEY),
            Fixtures.ingress("shop", "site", 1, """
                    ingressClassName: strait
                    tls: [ { hosts: [ a.example.com ], secretName: tls } ]
                    defaultBackend: { service: { name: web, port: { number: 80 } } }
                    rules:
                      - host: a.example.com
                        http: { paths: [ { path: /a, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                    """),
        };
        Translation t = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(inputs));
        assertThat(t.snapshot(Fixtures.STRAIT).config().routes()).extracting(dev.strait.model.Route::name).containsExactly(
                "shop.site..ingress-0", "shop.site..ingress-0-to-https", "shop.site..ingress-0-default",
                "shop.site..ingress-1-default");
        ResourceKey ingress = new ResourceKey("Ingress", "shop", "site");
        for (int i : new int[] {1, 2}) {
            Map<ResourceKey, ProxyRejection> r = Fleet.rejections(t, Fixtures.STRAIT,
                    "snapshot: 1 error(s):\n  routes[" + i + "].rules[0]: refused", "/10.0.0.9:4000");
            assertThat(r).as("routes[%d]", i).containsOnlyKeys(ingress);
            Translation after = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(inputs).withRejected(r));
            assertThat(after.report(ingress).accepted().reason()).isEqualTo("RejectedByProxy");
            assertThat(after.snapshot(Fixtures.STRAIT).config().routes()).isEmpty();
            if (i == 2) {
                assertThat(after.report(ingress).errors()).singleElement().asString().startsWith("spec.defaultBackend: refused");
            }
        }
    }
}
