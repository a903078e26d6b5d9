package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import dev.strait.operator.publish.tls.ChannelPki;
import io.fabric8.kubernetes.api.model.Secret;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's {@code --default-ssl-certificate} (ADR 0096): the Secret the operator's flag names is the ingress
 * proxies' https listener's first certificate (names no certificate has, clients without SNI), and the hosts an
 * Ingress lists in a {@code spec.tls} entry without {@code secretName} are TLS hosts served with it. Without a usable
 * one, such hosts stay on plain HTTP, reported, never served with some other host's certificate.
 */
class IngressDefaultCertificateTest {
    /** The platform's wildcard certificate, in a namespace of its own (no consent needed: the operator's own flag). */
    private static final ChannelPki.Issued WILDCARD = issue("*.apps.example.com");
    private static final ProxyDefaults.SecretRef FLAG = new ProxyDefaults.SecretRef("certs", "wildcard-tls");
    private static final Config.Certificate DEFAULT = new Config.Certificate(WILDCARD.certificatePem(), WILDCARD.keyPem());
    private static final Config.Certificate SITE = new Config.Certificate(Fixtures.CERT, Fixtures.KEY);
    private static final Route.Hsts YEAR = ProxyDefaults.INGRESS_HSTS;

    /** Hosts listed under tls without a Secret: the common set-up with one wildcard certificate for the controller. */
    private static final String SHOP = """
            ingressClassName: strait
            tls: [ { hosts: [ shop.apps.example.com ] } ]
            rules:
              - host: shop.apps.example.com
                http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
            """;
    /** A host with a Secret of its own. */
    private static final String OWN = """
            ingressClassName: strait
            tls: [ { hosts: [ example.com ], secretName: site-tls } ]
            rules:
              - host: example.com
                http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
            """;

    private static ChannelPki.Issued issue(String name) {
        Instant now = Instant.now();
        ChannelPki.Issued ca = ChannelPki.newCa("platform", now, Duration.ofDays(1));
        return ChannelPki.serverCertificate(ca, List.of(name), now, Duration.ofDays(1));
    }

    private static Secret wildcard(String cert, String key) {
        return Fixtures.tlsSecret("certs", "wildcard-tls", cert, key);
    }

    private static Translator translator(ProxyDefaults.SecretRef flag) {
        return new Translator(ProxyDefaults.STANDARD.withDefaultCertificate(flag));
    }

    /** The web Service and the site's own Secret, with {@code more}, on a controller with {@code flag} (null: none). */
    private static Translation translate(ProxyDefaults.SecretRef flag, Object... more) {
        return run(translator(flag), more);
    }

    private static Translation run(Translator translator, Object... more) {
        List<Object> all = new ArrayList<>(List.of(service("shop", "web", "http:80"),
                slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY)));
        all.addAll(List.of(more));
        Translation t = translator.translate(Fixtures.inputs(all.toArray()));
        try {
            // What a proxy is sent, it takes (certificates that load, every listener a Route names exists).
            ConfigParser.parse(t.snapshot(STRAIT).json(), "snapshot");
        } catch (dev.strait.model.InvalidConfigException e) {
            throw new AssertionError(e.getMessage(), e);
        }
        return t;
    }

    /** The https listener's certificates in order, or none without one. */
    private static List<Config.Certificate> certificates(Translation t, Scope scope) {
        List<Config.Listener> listeners = t.snapshot(scope).config().listeners();
        return listeners.size() < 2 ? List.of() : listeners.get(1).tls().certificates();
    }

    /** Each Route of the snapshot by name: its listeners ("all" for none named) and hsts ("none" for null). */
    private static Map<String, String> routes(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().collect(Collectors.toMap(Route::name,
                r -> (r.listeners() == null ? "all" : String.join(",", r.listeners()))
                        + " " + (r.hsts() == null ? "none" : r.hsts().value()),
                (a, b) -> a, java.util.LinkedHashMap::new));
    }

    private static final String TLS = "https " + YEAR.value();

    @Test
    void withoutTheFlagAHostListedWithoutASecretIsReportedAndStaysOnPlainHttp() {
        Translation t = translate(null, Fixtures.ingress("shop", "shop", 1, SHOP));
        ResourceReport r = ingressReport(t, "shop", "shop");
        assertThat(r.errors()).containsExactly("spec.tls[0].secretName: not given, and the operator has no"
                + " --default-ssl-certificate to serve host \"shop.apps.example.com\" with: it is served as a host without"
                + " TLS (plain HTTP, no redirect to https)");
        assertThat(r.resolvedRefs().status()).isFalse();
        assertThat(r.resolvedRefs().reason()).isEqualTo("SecretNotFound");
        assertThat(r.accepted().status()).as("the rest of the Ingress serves").isTrue();
        assertThat(routes(t)).containsExactly(Map.entry("shop.shop..ingress-0", "all none"));
        assertThat(certificates(t, STRAIT)).isEmpty();
        assertThat(t.defaultCertificateProblem()).as("nothing to log without the flag").isNull();
    }

    @Test
    void withTheFlagTheHostIsATlsHostServedWithTheDefaultCertificate() {
        Translation t = translate(FLAG, wildcard(WILDCARD.certificatePem(), WILDCARD.keyPem()),
                Fixtures.ingress("shop", "shop", 1, SHOP));
        assertThat(ingressReport(t, "shop", "shop").errors()).isEmpty();
        assertThat(ingressReport(t, "shop", "shop").resolvedRefs().status()).isTrue();
        // As a host with its own Secret: https only, its plain requests redirected (308), HSTS.
        assertThat(routes(t)).containsExactly(Map.entry("shop.shop..ingress-0", TLS),
                Map.entry("shop.shop..ingress-0-to-https", "http none"));
        assertThat(t.snapshot(STRAIT).config().routes().get(1).rules().get(0).action())
                .isEqualTo(new Route.Redirect("https", null, null, null, 308));
        // The proxies' config is as before: the host has no certificate entry, the listener's first answers it.
        assertThat(certificates(t, STRAIT)).containsExactly(DEFAULT);
        assertThat(t.defaultCertificateProblem()).isNull();
    }

    /** The default answers unknown names and clients without SNI, so it comes before every Route's certificate. */
    @Test
    void theDefaultCertificateIsTheListenersFirst() {
        Translation without = translate(null, Fixtures.ingress("shop", "site", 1, OWN));
        assertThat(certificates(without, STRAIT)).containsExactly(SITE);
        Translation t = translate(FLAG, wildcard(WILDCARD.certificatePem(), WILDCARD.keyPem()),
                Fixtures.ingress("shop", "site", 1, OWN), Fixtures.ingress("shop", "shop", 2, SHOP));
        assertThat(certificates(t, STRAIT)).containsExactly(DEFAULT, SITE);
        assertThat(routes(t)).containsEntry("shop.site..ingress-0", TLS).containsEntry("shop.shop..ingress-0", TLS);
        // Even a class whose Routes have no TLS at all answers on https with it, as ingress-nginx's 443 does.
        Translation plain = translate(FLAG, wildcard(WILDCARD.certificatePem(), WILDCARD.keyPem()));
        assertThat(certificates(plain, STRAIT)).containsExactly(DEFAULT);
        assertThat(certificates(plain, Scope.ingress("other"))).containsExactly(DEFAULT);
    }

    /** Sidecars take traffic from pods: the controller's certificate is not theirs. */
    @Test
    void sidecarsDoNotGetIt() {
        Translation t = translate(FLAG, wildcard(WILDCARD.certificatePem(), WILDCARD.keyPem()),
                Fixtures.route("shop", "api", 1, """
                        ingressClassName: strait-sidecar
                        hosts: [ api.shop.svc ]
                        tls: { secretName: site-tls }
                        rules: [ { respond: { status: 200 } } ]
                        """));
        assertThat(certificates(t, Scope.sidecar("strait-sidecar", "shop"))).containsExactly(SITE);
    }

    /** A Secret of the host's own wins over the default, in whichever entry it is. */
    @Test
    void aHostsOwnSecretWinsOverTheDefault() {
        Translation t = translate(FLAG, wildcard(WILDCARD.certificatePem(), WILDCARD.keyPem()),
                Fixtures.ingress("shop", "site", 1, """
                        ingressClassName: strait
                        tls: [ { hosts: [ example.com ] }, { hosts: [ example.com ], secretName: site-tls } ]
                        rules:
                          - host: example.com
                            http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                        """));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(certificates(t, STRAIT)).containsExactly(DEFAULT, SITE);
    }

    /** The flag's Secret missing or unusable: logged once per change, such hosts reported and on plain HTTP. */
    @Test
    void aMissingOrInvalidDefaultSecretLeavesSuchHostsOnPlainHttp() {
        Object[][] cases = {
            {new Object[0], "SecretNotFound", "--default-ssl-certificate certs/wildcard-tls: Secret not found"},
            {new Object[] {wildcard(WILDCARD.certificatePem(), Fixtures.OTHER_KEY)}, "InvalidSecret",
                "--default-ssl-certificate certs/wildcard-tls: Secret: "},
            {new Object[] {Fixtures.caSecret("certs", "wildcard-tls", WILDCARD.certificatePem())}, "InvalidSecret",
                "--default-ssl-certificate certs/wildcard-tls: Secret needs PEM data in tls.crt and tls.key"
                        + " (type kubernetes.io/tls)"},
        };
        for (Object[] c : cases) {
            List<Object> resources = new ArrayList<>(List.of((Object[]) c[0]));
            // Another Ingress brings a certificate, so there is an https listener the host could wrongly be put on.
            resources.add(Fixtures.ingress("shop", "site", 1, OWN));
            resources.add(Fixtures.ingress("shop", "shop", 2, SHOP));
            Translation t = translate(FLAG, resources.toArray());
            String problem = (String) c[2];
            assertThat(t.defaultCertificateProblem()).as(problem).startsWith(problem);
            ResourceReport r = ingressReport(t, "shop", "shop");
            assertThat(r.errors()).as(problem).singleElement().asString().startsWith("spec.tls[0].secretName: not given,"
                    + " and host \"shop.apps.example.com\" cannot take the default certificate (" + problem)
                    .endsWith("): it is served as a host without TLS (plain HTTP, no redirect to https)");
            assertThat(r.resolvedRefs().reason()).as(problem).isEqualTo(c[1]);
            assertThat(routes(t)).as(problem).containsEntry("shop.shop..ingress-0", "all none")
                    .doesNotContainKey("shop.shop..ingress-0-to-https");
            assertThat(certificates(t, STRAIT)).as(problem).containsExactly(SITE);
        }
    }

    /** As in ingress-nginx, a host whose own Secret is missing is served with the default certificate, reported. */
    @Test
    void aHostWhoseOwnSecretIsMissingIsServedWithTheDefault() {
        Translation t = translate(FLAG, wildcard(WILDCARD.certificatePem(), WILDCARD.keyPem()),
                Fixtures.ingress("shop", "site", 1, OWN.replace("site-tls", "gone-tls")));
        assertThat(ingressReport(t, "shop", "site").errors())
                .containsExactly("spec.tls[0].secretName: Secret \"gone-tls\" not found");
        assertThat(routes(t)).containsEntry("shop.site..ingress-0", TLS);
        assertThat(certificates(t, STRAIT)).containsExactly(DEFAULT);
    }

    /** The rest of what a TLS host has: ssl-redirect "false" keeps it on both listeners; client certificates. */
    @Test
    void theHostTakesTheAnnotationsOfATlsHost() throws Exception {
        Secret wildcard = wildcard(WILDCARD.certificatePem(), WILDCARD.keyPem());
        Translation both = translate(FLAG, wildcard,
                Fixtures.annotatedIngress("shop", "shop", 1, SHOP, "ssl-redirect", "false"));
        assertThat(routes(both)).containsExactly(Map.entry("shop.shop..ingress-0", "all " + YEAR.value()));
        Translation checked = translate(FLAG, wildcard, Fixtures.caSecret("shop", "clients-ca", RouteClientValidationTest.CA),
                Fixtures.annotatedIngress("shop", "shop", 1, SHOP, "auth-tls-secret", "shop/clients-ca"));
        assertThat(ingressReport(checked, "shop", "shop").errors()).isEmpty();
        Config c = ConfigParser.parse(checked.snapshot(STRAIT).json(), "snapshot");
        assertThat(c.listeners().get(1).tls().clientValidation()).extracting(Config.ClientValidation::hosts)
                .containsExactly(List.of("shop.apps.example.com"));
        assertThat(routes(checked)).containsEntry("shop.shop..ingress-0", TLS);
    }

    /**
     * cert-manager renews the Secret: the next snapshot's listener has the new certificate, and the Ingress's Routes,
     * which carry none of their own, are what they were (nothing of the Ingress needs programming again).
     */
    @Test
    void aRenewedDefaultCertificateChangesTheListenerAlone() {
        Translator translator = translator(FLAG);
        Translation before = run(translator, wildcard(WILDCARD.certificatePem(), WILDCARD.keyPem()),
                Fixtures.ingress("shop", "shop", 1, SHOP));
        ChannelPki.Issued renewed = issue("*.apps.example.com");
        Translation after = run(translator, wildcard(renewed.certificatePem(), renewed.keyPem()),
                Fixtures.ingress("shop", "shop", 1, SHOP));
        assertThat(certificates(after, STRAIT)).containsExactly(new Config.Certificate(renewed.certificatePem(),
                renewed.keyPem()));
        assertThat(after.snapshot(STRAIT).version()).isNotEqualTo(before.snapshot(STRAIT).version());
        assertThat(after.snapshot(STRAIT).config().routes()).isEqualTo(before.snapshot(STRAIT).config().routes());
        ResourceKey key = new ResourceKey("Ingress", "shop", "shop");
        assertThat(after.content(key)).isEqualTo(before.content(key));
    }

    /** The Secret comes (late, or fixed): the hosts move to https and the report clears, without touching the Ingress. */
    @Test
    void theDefaultSecretArrivingMakesTheHostsTlsHosts() {
        Translator translator = translator(FLAG);
        Translation before = run(translator, Fixtures.ingress("shop", "shop", 1, SHOP));
        assertThat(routes(before)).containsExactly(Map.entry("shop.shop..ingress-0", "all none"));
        Translation after = run(translator, wildcard(WILDCARD.certificatePem(), WILDCARD.keyPem()),
                Fixtures.ingress("shop", "shop", 1, SHOP));
        assertThat(ingressReport(after, "shop", "shop").errors()).isEmpty();
        assertThat(routes(after)).containsExactly(Map.entry("shop.shop..ingress-0", TLS),
                Map.entry("shop.shop..ingress-0-to-https", "http none"));
        Translation gone = run(translator, Fixtures.ingress("shop", "shop", 1, SHOP));
        assertThat(routes(gone)).containsExactly(Map.entry("shop.shop..ingress-0", "all none"));
        assertThat(ingressReport(gone, "shop", "shop").errors()).hasSize(1);
    }

    /** A defaultBackend and a from-to-www-redirect twin of such a host take the default certificate too. */
    @Test
    void theHostsDefaultBackendAndWwwTwinTakeItToo() {
        Translation t = translate(FLAG, wildcard(WILDCARD.certificatePem(), WILDCARD.keyPem()),
                Fixtures.annotatedIngress("shop", "shop", 1, """
                        ingressClassName: strait
                        defaultBackend: { service: { name: web, port: { number: 80 } } }
                        tls: [ { hosts: [ shop.apps.example.com, www.shop.apps.example.com ] } ]
                        rules:
                          - host: shop.apps.example.com
                            http: { paths: [ { path: /api, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                        """, "from-to-www-redirect", "true"));
        assertThat(ingressReport(t, "shop", "shop").errors()).isEmpty();
        assertThat(routes(t)).containsEntry("shop.shop..ingress-0", TLS)
                .containsEntry("shop.shop..ingress-0-default", TLS)
                .containsEntry("shop.shop..ingress-0-www", "all " + YEAR.value());
        Translation none = translate(null, Fixtures.annotatedIngress("shop", "shop", 1, """
                ingressClassName: strait
                tls: [ { hosts: [ shop.apps.example.com, www.shop.apps.example.com ] } ]
                rules:
                  - host: shop.apps.example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """, "from-to-www-redirect", "true"));
        assertThat(ingressReport(none, "shop", "shop").errors()).containsExactly(
                "spec.tls[0].secretName: not given, and the operator has no --default-ssl-certificate to serve host"
                        + " \"shop.apps.example.com\" with: it is served as a host without TLS (plain HTTP, no redirect"
                        + " to https)",
                "spec.tls[0].secretName: not given, and the operator has no --default-ssl-certificate to serve host"
                        + " \"www.shop.apps.example.com\" with: it is served as a host without TLS (plain HTTP, no"
                        + " redirect to https)");
    }
}
