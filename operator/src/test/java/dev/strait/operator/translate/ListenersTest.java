package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Route's {@code listeners}: checked against the proxies' listener names, no conflict between Routes on
 * different listeners (the ssl-redirect), and a snapshot the proxy accepts whether or not it has the TLS
 * listener a Route names.
 */
class ListenersTest {
    private static final String SITE = """
            tls: { secretName: site-tls }
            hosts: [ example.com ]
            listeners: [ https ]
            rules: [ { respond: { status: 200, body: site } } ]""";
    private static final String REDIRECT = """
            hosts: [ example.com ]
            listeners: [ http ]
            rules: [ { redirect: { scheme: https, statusCode: 308 } } ]""";

    @Test
    void routesOnDifferentListenersDoNotConflict() throws Exception {
        Translation t = Fixtures.translate(
                Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY),
                route("shop", "site", 1, SITE),
                route("shop", "to-https", 2, REDIRECT));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.site", "shop.to-https");
        assertThat(Fixtures.routeReport(t, "shop", "to-https").accepted().reason()).isEqualTo("Accepted");
        Config c = t.snapshot(Fixtures.STRAIT).config();
        assertThat(c.routes()).extracting(Route::listeners)
                .containsExactly(java.util.List.of("https"), java.util.List.of("http"));
        // The snapshot as a proxy reads it: its listeners are the ones named.
        assertThat(ConfigParser.parse(t.snapshot(Fixtures.STRAIT).json(), "snapshot").routes()).hasSize(2);
    }

    /** --proxy-protocol: both listeners of the ingress proxies read the balancer's header (ADR 0083), sidecars' never. */
    @Test
    void proxyProtocolIsOnTheIngressProxiesListenersOnly() throws Exception {
        ProxyDefaults d = ProxyDefaults.STANDARD;
        Translator translator = new Translator(new ProxyDefaults(d.defaultClass(), d.sidecarClass(), d.http(), d.https(),
                d.admin(), d.limits(), d.accessLog(), d.forwardedHeaders(), true));
        Object[] resources = {
                Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY),
                route("shop", "site", 1, SITE),
                route("shop", "to-https", 2, REDIRECT),
                route("shop", "side", 3, "ingressClassName: strait-sidecar\n" + SITE.replace("example.com", "side.example.com")
                        .replace("listeners: [ https ]", "listeners: [ http, https ]"))};
        Translation t = translator.translate(Fixtures.inputs(resources));
        Config ingress = t.snapshot(Fixtures.STRAIT).config();
        assertThat(ingress.listeners()).extracting(Config.Listener::name, Config.Listener::proxyProtocol)
                .containsExactly(tuple("http", true), tuple("https", true));
        // As a proxy reads the snapshot.
        assertThat(ConfigParser.parse(t.snapshot(Fixtures.STRAIT).json(), "snapshot").listeners())
                .extracting(Config.Listener::proxyProtocol).containsExactly(true, true);
        Config sidecar = t.snapshot(Scope.sidecar("strait-sidecar", "shop")).config();
        assertThat(sidecar.listeners()).extracting(Config.Listener::name).contains("http");
        assertThat(sidecar.listeners()).extracting(Config.Listener::proxyProtocol).containsOnly(false);
        // Without the flag nothing is written: snapshots keep the versions they had.
        assertThat(Fixtures.translate(resources).snapshot(Fixtures.STRAIT).json()).doesNotContain("proxyProtocol");
    }

    /** --proxy-ocsp-stapling: the ingress proxies' https listener staples (ADR 0104); sidecars' never asks the CAs. */
    @Test
    void ocspStaplingIsOnTheIngressProxiesHttpsListenerOnly() throws Exception {
        Translator translator = new Translator(ProxyDefaults.STANDARD.withOcspStapling(true));
        Object[] resources = {
                Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY),
                route("shop", "site", 1, SITE),
                route("shop", "side", 3, "ingressClassName: strait-sidecar\n" + SITE.replace("example.com", "side.example.com"))};
        Translation t = translator.translate(Fixtures.inputs(resources));
        Config ingress = ConfigParser.parse(t.snapshot(Fixtures.STRAIT).json(), "snapshot");
        assertThat(ingress.listeners()).extracting(Config.Listener::name, l -> l.tls() != null && l.tls().ocspStapling())
                .containsExactly(tuple("http", false), tuple("https", true));
        Config sidecar = ConfigParser.parse(t.snapshot(Scope.sidecar("strait-sidecar", "shop")).json(), "snapshot");
        assertThat(sidecar.listeners()).filteredOn(l -> l.tls() != null).isNotEmpty()
                .allMatch(l -> !l.tls().ocspStapling());
        // Without the flag nothing is written: snapshots keep the versions they had.
        assertThat(Fixtures.translate(resources).snapshot(Fixtures.STRAIT).json()).doesNotContain("ocspStapling");
    }

    /** --proxy-tls-min-version and --proxy-tls-ciphers: every proxy's https listener, sidecars' too. */
    @Test
    void tlsVersionsAndCiphersAreOnEveryProxysHttpsListener() throws Exception {
        Translator translator = new Translator(ProxyDefaults.STANDARD.withTls(Config.TlsVersion.TLS_1_2,
                List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA")));
        Object[] resources = {
                Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY),
                route("shop", "site", 1, SITE),
                route("shop", "side", 3, "ingressClassName: strait-sidecar\n" + SITE.replace("example.com", "side.example.com"))};
        Translation t = translator.translate(Fixtures.inputs(resources));
        for (Scope scope : new Scope[] {Fixtures.STRAIT, Scope.sidecar("strait-sidecar", "shop")}) {
            Config c = ConfigParser.parse(t.snapshot(scope).json(), "snapshot");
            assertThat(c.listeners()).filteredOn(l -> l.tls() != null).singleElement()
                    .extracting(l -> l.tls().ciphers()).isEqualTo(List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                            "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"));
        }
        Translation only13 = new Translator(ProxyDefaults.STANDARD.withTls(Config.TlsVersion.TLS_1_3, null))
                .translate(Fixtures.inputs(resources));
        assertThat(ConfigParser.parse(only13.snapshot(Fixtures.STRAIT).json(), "snapshot").listeners())
                .filteredOn(l -> l.tls() != null).singleElement().extracting(l -> l.tls().minVersion())
                .isEqualTo(Config.TlsVersion.TLS_1_3);
        // Without the flags nothing is written: snapshots keep the versions they had.
        String plain = Fixtures.translate(resources).snapshot(Fixtures.STRAIT).json();
        assertThat(plain).doesNotContain("minVersion").doesNotContain("ciphers");
    }

    @Test
    void aRouteOnEveryListenerCompetesWithOneOnEither() {
        Translation t = Fixtures.translate(
                route("shop", "site", 1, "hosts: [ example.com ]\nrules: [ { respond: { status: 200 } } ]"),
                route("shop", "to-https", 2, REDIRECT));
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.site");
        assertThat(Fixtures.routeReport(t, "shop", "to-https").accepted().message()).isEqualTo(
                "spec.rules[0]: host \"example.com\" path Prefix / on listener http is already served by Route shop/site"
                        + " (the older Route wins)");
    }

    @Test
    void anUnknownListenerIsASpecError() {
        Translation t = Fixtures.translate(route("shop", "site", 1, REDIRECT.replace("[ http ]", "[ web ]")));
        assertThat(Fixtures.routeNames(t)).isEmpty();
        assertThat(Fixtures.routeReport(t, "shop", "site").errors())
                .containsExactly("spec.listeners[0]: listener \"web\" not found (listeners: http, https)");
    }

    @Test
    void withoutATlsListenerHttpsIsDroppedAndARouteOnItAloneLeftOut() throws Exception {
        Translation t = Fixtures.translate(
                route("shop", "only-https", 1, SITE.replace("tls: { secretName: site-tls }\n", "")),
                route("shop", "both", 2, REDIRECT.replace("[ http ]", "[ https, http ]")
                        .replace("example.com", "www.example.com")));
        Config c = t.snapshot(Fixtures.STRAIT).config();
        assertThat(c.listeners()).extracting(Config.Listener::name).containsExactly("http");
        assertThat(c.routes()).extracting(Route::name).containsExactly("shop.both");
        assertThat(c.routes().get(0).listeners()).containsExactly("http");
        assertThat(ConfigParser.parse(t.snapshot(Fixtures.STRAIT).json(), "snapshot").routes()).hasSize(1);
    }
}
