package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.CERT;
import static dev.strait.operator.translate.Fixtures.KEY;
import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.routeReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import dev.strait.model.HostPort;
import dev.strait.model.Upstream;
import io.fabric8.kubernetes.api.model.Service;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Route's {@code tlsPassthrough}: its hosts' TLS connections go, as they are, to a plain upstream of a Service's
 * endpoints or to an Upstream that adds nothing to the bytes; one Route per passed-through host; the https listener
 * comes with them, without a certificate where no Route brings one.
 */
class TlsPassthroughTest {
    /** A Route that brings a certificate to the https listener. */
    private static final Object[] SITE = {
        route("shop", "site", 0, "hosts: [ shop.example.com ]\ntls: { secretName: site-tls }\n"
                + "rules: [ { respond: { status: 200 } } ]"),
        Fixtures.tlsSecret("shop", "site-tls", CERT, KEY)};

    /** Argo CD's server: its port asks for h2c, which must not make the passed-through upstream speak it. */
    private static Object[] argocd() {
        Service svc = service("shop", "argocd", "https:443");
        svc.getSpec().getPorts().get(0).setAppProtocol("kubernetes.io/h2c");
        return new Object[] {svc, slice("shop", "argocd", "argocd-1", "https", 8080, "10.0.0.7")};
    }

    private static Translation translate(Object... resources) {
        List<Object> all = new ArrayList<>(Arrays.asList(SITE));
        all.addAll(Arrays.asList(argocd()));
        all.addAll(Arrays.asList(resources));
        Translation t = Fixtures.translate(all.toArray());
        // What a proxy is sent, it must take (it refuses a snapshot whole).
        Fixtures.parse(t.snapshot(STRAIT).json());
        return t;
    }

    private static dev.strait.model.Route modelRoute(Translation t, String name) {
        return t.snapshot(STRAIT).config().routes().stream().filter(r -> r.name().equals(name)).findFirst().orElse(null);
    }

    private static Upstream upstream(Translation t, String name) {
        return t.snapshot(STRAIT).config().upstreams().stream().filter(u -> u.name().equals(name)).findFirst()
                .orElse(null);
    }

    @Test
    void aServiceBackendIsAPlainUpstreamOfItsEndpointsWhateverItsAppProtocol() {
        Translation t = translate(route("shop", "argocd", 1, """
                hosts: [ argocd.example.com ]
                tlsPassthrough: { service: { name: argocd, port: 443 } }
                """));
        assertThat(routeReport(t, "shop", "argocd").errors()).isEmpty();
        assertThat(routeReport(t, "shop", "argocd").inSnapshot()).isTrue();
        assertThat(modelRoute(t, "shop.argocd")).isEqualTo(new dev.strait.model.Route("shop.argocd",
                List.of("argocd.example.com"), List.of(), null,
                new dev.strait.model.Route.TlsPassthrough("service.shop.argocd.443.passthrough")));
        Upstream u = upstream(t, "service.shop.argocd.443.passthrough");
        assertThat(u.endpoints()).containsExactly(new HostPort("10.0.0.7", 8080));
        assertThat(u.protocol()).as("not the port's h2c").isEqualTo(Upstream.Protocol.HTTP1);
        assertThat(u.tls()).isNull();
        assertThat(u.healthCheck()).isNull();
        assertThat(t.snapshot(STRAIT).config().listeners()).extracting(Config.Listener::name)
                .containsExactly(ProxyDefaults.HTTP, ProxyDefaults.HTTPS);
    }

    @Test
    void anUpstreamThatAddsNothingToTheBytesIsUsedAsItIs() {
        Translation t = translate(Fixtures.upstream("shop", "argocd", "service: { name: argocd, port: 443 }"),
                route("shop", "argocd", 1, "hosts: [ argocd.example.com ]\ntlsPassthrough: { upstream: argocd }"));
        assertThat(routeReport(t, "shop", "argocd").errors()).isEmpty();
        assertThat(modelRoute(t, "shop.argocd").tlsPassthrough().upstream()).isEqualTo("upstream.shop.argocd");
        assertThat(upstream(t, "upstream.shop.argocd")).isNotNull();
    }

    @Test
    void theBackendMayAskForAProxyProtocolHeader() {
        Translation t = translate(route("shop", "argocd", 1, """
                hosts: [ argocd.example.com ]
                tlsPassthrough: { service: { name: argocd, port: 443 }, proxyProtocol: 2 }
                """));
        assertThat(routeReport(t, "shop", "argocd").errors()).isEmpty();
        assertThat(modelRoute(t, "shop.argocd").tlsPassthrough())
                .isEqualTo(new dev.strait.model.Route.TlsPassthrough("service.shop.argocd.443.passthrough", 2));
    }

    /** The model refuses such an upstream: the Route says why, and every other Route serves on. */
    @Test
    void anUpstreamWithAProtocolOrHealthCheckIsAnErrorOnThatRouteAlone() {
        Translation t = translate(Fixtures.upstream("shop", "argocd", """
                        service: { name: argocd, port: 443 }
                        protocol: h2c
                        healthCheck: { path: /healthz }
                        """),
                route("shop", "argocd", 1, "hosts: [ argocd.example.com ]\ntlsPassthrough: { upstream: argocd }"),
                route("shop", "api", 2, """
                        hosts: [ api.example.com ]
                        rules: [ { backends: [ { upstream: argocd } ] } ]
                        """));
        ResourceReport argocd = routeReport(t, "shop", "argocd");
        assertThat(argocd.errors()).containsExactly("spec.tlsPassthrough.upstream: Upstream \"argocd\" gets the client's"
                + " TLS bytes as they are: it takes no protocol, tls or healthCheck, and has protocol h2c, healthCheck;"
                + " the hosts' connections are closed until it has none (or name the Service instead)");
        assertThat(argocd.resolvedRefs().reason()).isEqualTo("InvalidBackend");
        assertThat(modelRoute(t, "shop.argocd").tlsPassthrough().upstream())
                .as("its hosts stay passed through, to nothing").isEqualTo(Translator.UNRESOLVED);
        assertThat(routeReport(t, "shop", "api").errors()).isEmpty();
        assertThat(modelRoute(t, "shop.api")).isNotNull();
        assertThat(routeReport(t, "shop", "site").inSnapshot()).isTrue();
    }

    @Test
    void aMissingServiceLeavesTheHostsPassedThroughToNothing() {
        Translation t = translate(route("shop", "vault", 1, """
                hosts: [ vault.example.com ]
                tlsPassthrough: { service: { name: vault, port: 8200 } }
                """));
        assertThat(routeReport(t, "shop", "vault").errors())
                .containsExactly("spec.tlsPassthrough.service.name: Service \"vault\" not found");
        assertThat(modelRoute(t, "shop.vault").tlsPassthrough().upstream()).isEqualTo(Translator.UNRESOLVED);
    }

    /** The model lets one Route pass a host through: the older keeps it, the younger its other hosts. */
    @Test
    void theOlderRouteKeepsAPassedThroughHost() {
        Translation t = translate(
                route("shop", "first", 1, """
                        hosts: [ argocd.example.com ]
                        tlsPassthrough: { service: { name: argocd, port: 443 } }
                        """),
                route("shop", "second", 2, """
                        hosts: [ argocd.example.com, cd.example.com ]
                        tlsPassthrough: { service: { name: argocd, port: 443 } }
                        """),
                route("shop", "third", 3, """
                        hosts: [ argocd.example.com ]
                        tlsPassthrough: { service: { name: argocd, port: 443 } }
                        """));
        assertThat(modelRoute(t, "shop.first").hosts()).containsExactly("argocd.example.com");
        assertThat(modelRoute(t, "shop.second").hosts()).containsExactly("cd.example.com");
        assertThat(routeReport(t, "shop", "second").errors()).containsExactly("spec.hosts[0]: host \"argocd.example.com\""
                + " is already passed through by Route shop/first (the older Route wins)");
        assertThat(routeReport(t, "shop", "second").accepted().reason()).isEqualTo("PartiallyConflicted");
        assertThat(modelRoute(t, "shop.third")).isNull();
        assertThat(routeReport(t, "shop", "third").accepted().reason()).isEqualTo("Conflicted");
        assertThat(routeReport(t, "shop", "third").inSnapshot()).isFalse();
    }

    /** An Argo CD on its own brings no certificate: the https listener then has none, and only passes through. */
    @Test
    void withoutACertificateTheHttpsListenerOnlyPassesThrough() {
        Translation t = Fixtures.translate(argocd()[0], argocd()[1], route("shop", "argocd", 1, """
                hosts: [ argocd.example.com ]
                tlsPassthrough: { service: { name: argocd, port: 443 } }
                """));
        Fixtures.parse(t.snapshot(STRAIT).json()); // a proxy takes it
        assertThat(routeReport(t, "shop", "argocd").errors()).isEmpty();
        assertThat(routeReport(t, "shop", "argocd").inSnapshot()).isTrue();
        Config c = t.snapshot(STRAIT).config();
        assertThat(c.listeners()).extracting(Config.Listener::name).containsExactly("http", "https");
        assertThat(c.listeners().get(1).tls().certificates()).isEmpty();
        assertThat(modelRoute(t, "shop.argocd").tlsPassthrough()).isNotNull();
    }

    /** An operator run without an https listener has nowhere to pass through: the Route says so and is left out. */
    @Test
    void withoutAnHttpsListenerTheRouteIsLeftOutAndSaysWhy() {
        ProxyDefaults plainOnly = new ProxyDefaults("strait", "strait-sidecar", new HostPort("0.0.0.0", 8080), null,
                null, dev.strait.model.Limits.DEFAULTS, true);
        Translation t = new Translator(plainOnly).translate(Fixtures.inputs(argocd()[0], argocd()[1],
                route("shop", "argocd", 1, """
                        hosts: [ argocd.example.com ]
                        tlsPassthrough: { service: { name: argocd, port: 443 } }
                        """)));
        ResourceReport r = routeReport(t, "shop", "argocd");
        assertThat(r.errors()).containsExactly("spec.tlsPassthrough: the proxies of class strait have no https listener"
                + " to pass connections through on (the operator is run without one); the hosts are not served");
        assertThat(r.inSnapshot()).isFalse();
        assertThat(t.snapshot(STRAIT).config().routes()).isEmpty();
        assertThat(t.snapshot(STRAIT).config().upstreams()).isEmpty();
    }

    @Test
    void whatThePassthroughCannotTakeIsASpecError() {
        Translation t = translate(
                route("shop", "any", 1, "hosts: [ \"*\" ]\ntlsPassthrough: { service: { name: argocd, port: 443 } }"),
                route("shop", "both", 2, """
                        hosts: [ both.example.com ]
                        tlsPassthrough: { service: { name: argocd, port: 443 } }
                        rules: [ { respond: { status: 200 } } ]
                        """),
                route("shop", "tls", 3, """
                        hosts: [ tls.example.com ]
                        tls: { secretName: site-tls }
                        tlsPassthrough: { service: { name: argocd, port: 443 } }
                        """));
        assertThat(routeReport(t, "shop", "any").errors()).containsExactly("spec.hosts[0]: tlsPassthrough needs host"
                + " names: a connection is passed through on the name its ClientHello sends (SNI), so * cannot be told apart");
        assertThat(routeReport(t, "shop", "both").errors()).containsExactly("spec.rules: a route with tlsPassthrough has"
                + " no rules: its TLS connections go to the upstream as they are, and plain-HTTP requests for its hosts are"
                + " redirected to https");
        assertThat(routeReport(t, "shop", "tls").errors()).containsExactly("spec.tls: a Route with tlsPassthrough takes"
                + " no tls: its backend ends TLS with its own certificate");
        assertThat(t.snapshot(STRAIT).config().routes()).extracting(dev.strait.model.Route::name)
                .containsExactly("shop.site");
    }
}
