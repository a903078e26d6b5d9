package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingress;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.route.CompiledRule;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's default {@code ssl-redirect}: an Ingress host with TLS is served on the https listener,
 * and its plain requests get a 308 to https from a Route of its own on http; the annotation turns it off;
 * a host whose certificate is missing keeps serving over HTTP (ADR 0049); other Ingresses' rules for the
 * host on every listener (cert-manager's HTTP-01 solver) still answer their paths over HTTP.
 */
class IngressSslRedirectTest {
    private static final String SITE = """
            ingressClassName: strait
            tls: [ { hosts: [ example.com ], secretName: site-tls } ]
            rules:
              - host: example.com
                http: { paths: [ { path: /api, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
              - host: plain.example.com
                http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
            """;

    private static Translation translate(Object... more) {
        Object[] base = {service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1")};
        Object[] all = new Object[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return Fixtures.translate(all);
    }

    private static Object secret() {
        return Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY);
    }

    /** The route that answers on a listener of the proxy that takes this snapshot. */
    private static String served(Translation t, String listener, String host, String path) throws Exception {
        Snapshot s = SnapshotBuilder.build(ConfigParser.parse(t.snapshot(STRAIT).json(), "snapshot"), "snapshot");
        CompiledRule r = s.table(listener).find(host, path, HttpMethod.GET, new DefaultHttpHeaders());
        return r == null ? null : r.route();
    }

    @Test
    void aTlsHostIsServedOnHttpsAndRedirectedOnHttp() throws Exception {
        Translation t = translate(secret(), ingress("shop", "site", 1, SITE));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        Config c = t.snapshot(STRAIT).config();
        assertThat(c.routes()).extracting(Route::name, Route::listeners).containsExactly(
                org.assertj.core.groups.Tuple.tuple("shop.site..ingress-0", List.of("https")),
                org.assertj.core.groups.Tuple.tuple("shop.site..ingress-0-to-https", List.of("http")),
                org.assertj.core.groups.Tuple.tuple("shop.site..ingress-1", null));
        assertThat(c.routes().get(1).rules()).singleElement().extracting(Route.Rule::action)
                .isEqualTo(new Route.Redirect("https", null, null, null, 308));
        // Every path on http, the Ingress's own longer prefix included, is the redirect; none is on https.
        assertThat(served(t, "http", "example.com", "/api/x")).isEqualTo("shop.site..ingress-0-to-https");
        assertThat(served(t, "http", "example.com", "/")).isEqualTo("shop.site..ingress-0-to-https");
        assertThat(served(t, "https", "example.com", "/api/x")).isEqualTo("shop.site..ingress-0");
        assertThat(served(t, "https", "example.com", "/")).as("404 on https, no redirect loop").isNull();
        // The host without TLS is on both.
        assertThat(served(t, "http", "plain.example.com", "/")).isEqualTo("shop.site..ingress-1");
        assertThat(served(t, "https", "plain.example.com", "/")).isEqualTo("shop.site..ingress-1");
    }

    @Test
    void theAnnotationFalseServesTlsHostsOnBothListeners() throws Exception {
        // Fixtures.ingress takes no annotations: set it on the object.
        Object off = ingress("shop", "off", 2, """
                ingressClassName: strait
                tls: [ { hosts: [ off.example.com ], secretName: site-tls } ]
                rules:
                  - host: off.example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """);
        ((io.fabric8.kubernetes.api.model.networking.v1.Ingress) off).getMetadata()
                .setAnnotations(java.util.Map.of(IngressRoutes.SSL_REDIRECT_ANNOTATION, "false"));
        Translation t = translate(secret(), off);
        assertThat(t.snapshot(STRAIT).config().routes()).extracting(Route::name, Route::listeners)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("shop.off..ingress-0", null));
        assertThat(served(t, "http", "off.example.com", "/x")).isEqualTo("shop.off..ingress-0");
        assertThat(served(t, "https", "off.example.com", "/x")).isEqualTo("shop.off..ingress-0");
    }

    @Test
    void aHostWhoseCertificateIsMissingKeepsServingOverHttp() throws Exception {
        Translation t = translate(ingress("shop", "site", 1, SITE));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(
                "spec.tls[0].secretName: Secret \"site-tls\" not found");
        Config c = t.snapshot(STRAIT).config();
        assertThat(c.listeners()).extracting(Config.Listener::name).containsExactly("http");
        assertThat(c.routes()).extracting(Route::name).containsExactly("shop.site..ingress-0", "shop.site..ingress-1");
        assertThat(served(t, "http", "example.com", "/api/x")).isEqualTo("shop.site..ingress-0");
    }

    @Test
    void anAcmeSolverOfAnotherIngressAnswersItsPathOverHttp() throws Exception {
        Translation t = translate(secret(), ingress("shop", "site", 1, SITE), ingress("shop", "cm-acme-http-solver", 2, """
                ingressClassName: strait
                rules:
                  - host: example.com
                    http: { paths: [ { path: /.well-known/acme-challenge/tok, pathType: Exact,
                                       backend: { service: { name: web, port: { number: 80 } } } } ] }
                """));
        assertThat(served(t, "http", "example.com", "/.well-known/acme-challenge/tok"))
                .isEqualTo("shop.cm-acme-http-solver..ingress-0");
        assertThat(served(t, "http", "example.com", "/api")).isEqualTo("shop.site..ingress-0-to-https");
    }

    @Test
    void turningTheAnnotationOnAndOffIsTranslatedAsFromNothing() throws Exception {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        Object on = ingress("shop", "site", 1, SITE);
        io.fabric8.kubernetes.api.model.networking.v1.Ingress off = ingress("shop", "site", 1, SITE);
        off.getMetadata().setAnnotations(java.util.Map.of(IngressRoutes.SSL_REDIRECT_ANNOTATION, "false"));
        Object[][] steps = {{secret(), on}, {secret(), off}, {secret(), on}};
        for (Object[] step : steps) {
            Object[] base = {service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1")};
            Object[] all = new Object[base.length + step.length];
            System.arraycopy(base, 0, all, 0, base.length);
            System.arraycopy(step, 0, all, base.length, step.length);
            Translation got = translator.translate(Fixtures.inputs(all));
            Translation want = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(all));
            assertThat(got.snapshot(STRAIT).json()).isEqualTo(want.snapshot(STRAIT).json());
        }
    }
}
