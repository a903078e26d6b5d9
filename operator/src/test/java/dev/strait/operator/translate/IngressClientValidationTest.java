package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's {@code auth-tls-*} annotations as the {@code tls.clientValidation} of the Ingress's TLS hosts:
 * what can be honoured asks for client certificates on https, what cannot answers 503, never unchecked.
 */
class IngressClientValidationTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String SECRET = "metadata.annotations[" + N + "auth-tls-secret]";
    private static final String CA = RouteClientValidationTest.CA;
    private static final Route.Backends LOCKED = new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1)));
    private static final Route.Backends WEB = new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1)));
    private static final String FAIL = "; the Ingress's paths answer 503 rather than serve clients without the certificate"
            + " check asked";
    static final String SITE = """
            ingressClassName: strait
            tls: [ { hosts: [ site.example.com ], secretName: site-tls } ]
            rules:
              - host: site.example.com
                http:
                  paths:
                    - { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
            """;

    /** An Ingress of shop with these annotations ({@code name, value, ...}, names without ingress-nginx's prefix). */
    private static Ingress annotated(String name, int minute, String spec, String... annotations) {
        return Fixtures.annotatedIngress("shop", name, minute, spec, annotations);
    }

    /** The web Service, the site's certificate and the clients' CA, with {@code more}. */
    private static Translation translate(Object... more) {
        List<Object> all = new ArrayList<>(List.of(service("shop", "web", "http:80"),
                slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY),
                Fixtures.caSecret("shop", "clients-ca", CA)));
        all.addAll(List.of(more));
        return Fixtures.translate(all.toArray());
    }

    private static Translation site(String... annotations) {
        return translate(annotated("site", 1, SITE, annotations));
    }

    /** The https listener's entries, as the proxy's parser reads them from the snapshot. */
    private static List<Config.ClientValidation> clientValidation(Translation t) throws Exception {
        Config c = ConfigParser.parse(t.snapshot(STRAIT).json(), "snapshot");
        return c.listeners().size() < 2 ? List.of() : c.listeners().get(1).tls().clientValidation();
    }

    private static Route route(Translation t, String name) {
        return t.snapshot(STRAIT).config().routes().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    private static Config.ClientValidation require(String... hosts) {
        return new Config.ClientValidation(List.of(hosts), CA, Config.ClientValidationMode.REQUIRE, 1, null, false);
    }

    @Test
    void theSecretAsksTheTlsHostsClientsForCertificates() throws Exception {
        for (String secret : List.of("shop/clients-ca", "clients-ca")) {
            Translation t = site("auth-tls-secret", secret);
            assertThat(ingressReport(t, "shop", "site").errors()).as(secret).isEmpty();
            assertThat(clientValidation(t)).as(secret).containsExactly(require("site.example.com"));
            Route r = route(t, "shop.site..ingress-0");
            assertThat(r.listeners()).as("never on plain HTTP").containsExactly("https");
            assertThat(r.rules()).extracting(Route.Rule::action).containsExactly(WEB);
            assertThat(route(t, "shop.site..ingress-0-to-https").listeners()).as("the ssl-redirect stays")
                    .containsExactly("http");
        }
    }

    @Test
    void eachSettingIsRead() throws Exception {
        Object[][] cases = {
            {new String[] {"auth-tls-verify-client", "on"}, require("site.example.com")},
            {new String[] {"auth-tls-verify-client", "optional"}, new Config.ClientValidation(List.of("site.example.com"),
                CA, Config.ClientValidationMode.OPTIONAL, 1, null, false)},
            {new String[] {"auth-tls-verify-client", "optional_no_ca"}, new Config.ClientValidation(
                List.of("site.example.com"), CA, Config.ClientValidationMode.OPTIONAL_NO_CA, 1, null, false)},
            {new String[] {"auth-tls-verify-depth", "3"}, new Config.ClientValidation(List.of("site.example.com"), CA,
                Config.ClientValidationMode.REQUIRE, 3, null, false)},
            {new String[] {"auth-tls-pass-certificate-to-upstream", "true"}, new Config.ClientValidation(
                List.of("site.example.com"), CA, Config.ClientValidationMode.REQUIRE, 1, null, true)},
            {new String[] {"auth-tls-pass-certificate-to-upstream", "false"}, require("site.example.com")},
            {new String[] {"auth-tls-match-cn", "CN=client1|CN=client2"}, new Config.ClientValidation(
                List.of("site.example.com"), CA, Config.ClientValidationMode.REQUIRE, 1, "CN=client1|CN=client2", false)},
        };
        for (Object[] c : cases) {
            String[] setting = (String[]) c[0];
            Translation t = site("auth-tls-secret", "clients-ca", setting[0], setting[1]);
            assertThat(ingressReport(t, "shop", "site").errors()).as(setting[1]).isEmpty();
            assertThat(clientValidation(t)).as(setting[1]).containsExactly((Config.ClientValidation) c[1]);
        }
    }

    /** Serving the paths with less of a check than asked would let in clients meant to be kept out: 503. */
    @Test
    void settingsThatCannotBeHonouredLockThePaths() throws Exception {
        String[][] cases = {
            {"auth-tls-verify-client", "maybe", "metadata.annotations[" + N + "auth-tls-verify-client]: \"maybe\" is"
                + " not on, optional, optional_no_ca or off" + FAIL},
            {"auth-tls-verify-depth", "0", "metadata.annotations[" + N + "auth-tls-verify-depth]: \"0\" is not a whole"
                + " number from 1 to 10" + FAIL},
            {"auth-tls-verify-depth", "11", "metadata.annotations[" + N + "auth-tls-verify-depth]: \"11\" is not a"
                + " whole number from 1 to 10" + FAIL},
            {"auth-tls-verify-depth", "two", "metadata.annotations[" + N + "auth-tls-verify-depth]: \"two\" is not a"
                + " whole number from 1 to 10" + FAIL},
            {"auth-tls-match-cn", "CN=(client1", "metadata.annotations[" + N + "auth-tls-match-cn]: \"CN=(client1\" is"
                + " not a regular expression Java reads (Unclosed group near index 11)" + FAIL},
        };
        for (String[] c : cases) {
            Translation t = site("auth-tls-secret", "clients-ca", c[0], c[1]);
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[1]).containsExactly(c[2]);
            assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(route(t, "shop.site..ingress-0").rules()).extracting(Route.Rule::action).as(c[1])
                    .containsExactly(LOCKED);
            assertThat(clientValidation(t)).isEmpty();
        }
    }

    /**
     * A CA of another namespace (cert-manager's, shared by every team) is read once its Secret accepts the Ingress's
     * namespace (ADR 0078); until then, and for a Secret that is not there, the paths answer 503.
     */
    @Test
    void aSecretOfAnotherNamespaceIsReadOnceItAccepts() throws Exception {
        io.fabric8.kubernetes.api.model.Secret shared = Fixtures.caSecret("pki", "clients-ca", CA);
        shared.getMetadata().setAnnotations(Map.of(Consent.ANNOTATION, "team-a, shop"));
        Translation t = translate(shared, annotated("site", 1, SITE, "auth-tls-secret", "pki/clients-ca"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(route(t, "shop.site..ingress-0").rules()).extracting(Route.Rule::action).containsExactly(WEB);
        assertThat(clientValidation(t)).singleElement().satisfies(cv -> assertThat(cv.ca()).isNotNull());

        String answers = "; the Ingress's paths answer 503";
        String[][] cases = {
            {"pki/clients-ca", SECRET + ": Secret \"clients-ca\" of namespace \"pki\" does not accept references from"
                + " namespace \"shop\": its annotation strait.dev/accept-references-from must list \"shop\" (or be \"*\")"
                + answers},
            {"other/clients-ca", SECRET + ": Secret \"clients-ca\" of namespace \"other\" not found" + answers},
            {"shop/", SECRET + ": names no Secret" + FAIL},
        };
        for (String[] c : cases) {
            t = translate(Fixtures.caSecret("pki", "clients-ca", CA), annotated("site", 1, SITE, "auth-tls-secret", c[0]));
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[0]).containsExactly(c[1]);
            assertThat(route(t, "shop.site..ingress-0").rules()).extracting(Route.Rule::action).containsExactly(LOCKED);
            assertThat(clientValidation(t)).isEmpty();
        }
    }

    @Test
    void offAsksForNothing() throws Exception {
        Translation t = site("auth-tls-secret", "clients-ca", "auth-tls-verify-client", "off", "auth-tls-verify-depth", "2");
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(clientValidation(t)).isEmpty();
        assertThat(route(t, "shop.site..ingress-0").rules()).extracting(Route.Rule::action).containsExactly(WEB);
    }

    @Test
    void whatCannotBeFollowedButChecksAsAskedIsAWarning() throws Exception {
        Translation t = site("auth-tls-secret", "clients-ca", "auth-tls-error-page", "ftp://example.com/denied",
                "auth-tls-pass-certificate-to-upstream", "yes");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(
                "metadata.annotations[" + N + "auth-tls-error-page]: \"ftp://example.com/denied\" is not an http(s) URL or"
                        + " a path; a client whose certificate is refused gets 400 (403 when auth-tls-match-cn does not match)",
                "metadata.annotations[" + N + "auth-tls-pass-certificate-to-upstream]: \"yes\" is not true or false; the"
                        + " certificate is not sent upstream");
        assertThat(clientValidation(t)).containsExactly(require("site.example.com"));
        assertThat(route(t, "shop.site..ingress-0").rules()).extracting(Route.Rule::action).containsExactly(WEB);
        // An http(s) URL or a path: refused requests are sent there (nginx's error_page 495 496 = URL).
        t = site("auth-tls-secret", "clients-ca", "auth-tls-error-page", "https://example.com/denied");
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(clientValidation(t)).extracting(Config.ClientValidation::errorPage).containsExactly("https://example.com/denied");
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).listeners().get(1).tls().clientValidation())
                .extracting(Config.ClientValidation::errorPage).containsExactly("https://example.com/denied");

        t = site("auth-tls-verify-client", "on", "auth-tls-match-cn", "CN=a");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(
                "metadata.annotations[" + N + "auth-tls-verify-client]: applies with " + SECRET + ", which is not set; it"
                        + " has no effect",
                "metadata.annotations[" + N + "auth-tls-match-cn]: applies with " + SECRET + ", which is not set; it has"
                        + " no effect");
        assertThat(clientValidation(t)).isEmpty();
    }

    @Test
    void aHostWithoutTlsAnswers503() throws Exception {
        String spec = SITE + """
                  - host: plain.example.com
                    http:
                      paths:
                        - { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
                """;
        Translation t = translate(annotated("site", 1, spec, "auth-tls-secret", "clients-ca"));
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.errors()).containsExactly(SECRET + ": host \"plain.example.com\" has no TLS (a spec.tls entry with"
                + " a Secret) to ask for client certificates with; its paths answer 503");
        assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
        assertThat(route(t, "shop.site..ingress-1").rules()).extracting(Route.Rule::action).containsExactly(LOCKED);
        assertThat(route(t, "shop.site..ingress-0").rules()).extracting(Route.Rule::action).containsExactly(WEB);
        assertThat(clientValidation(t)).containsExactly(require("site.example.com"));
    }

    /** The defaultBackend of a TLS host asks as its paths do; on any other host ("*") it has no TLS to ask with. */
    @Test
    void theDefaultBackendAsksOnTheTlsHostAndAnswers503Elsewhere() throws Exception {
        String spec = SITE.replace("rules:", "defaultBackend: { service: { name: web, port: { number: 80 } } }\nrules:")
                .replace("path: /, pathType: Prefix", "path: /app, pathType: Prefix");
        Translation t = translate(annotated("site", 1, spec, "auth-tls-secret", "clients-ca"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(SECRET + ": host \"*\" has no TLS (a"
                + " spec.tls entry with a Secret) to ask for client certificates with; its paths answer 503");
        Route siteDefault = route(t, "shop.site..ingress-0-default");
        assertThat(siteDefault.listeners()).containsExactly("https");
        assertThat(siteDefault.rules()).extracting(Route.Rule::action).containsExactly(WEB);
        assertThat(route(t, "shop.site..ingress-1-default").rules()).extracting(Route.Rule::action)
                .containsExactly(LOCKED);
        assertThat(clientValidation(t)).containsExactly(require("site.example.com"));
    }

    @Test
    void aCaSecretThatDoesNotResolveLocksThePaths() throws Exception {
        Translation t = Fixtures.translate(service("shop", "web", "http:80"),
                slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY),
                annotated("site", 1, SITE, "auth-tls-secret", "shop/clients-ca"));
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.errors()).containsExactly(SECRET + ": Secret \"clients-ca\" not found; the Ingress's paths answer 503");
        assertThat(r.resolvedRefs().reason()).isEqualTo("SecretNotFound");
        Route served = route(t, "shop.site..ingress-0");
        assertThat(served.rules()).extracting(Route.Rule::action).containsExactly(LOCKED);
        assertThat(served.listeners()).containsExactly("https");
        assertThat(clientValidation(t)).isEmpty();

        t = Fixtures.translate(service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY),
                Fixtures.caSecret("shop", "clients-ca", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
                annotated("site", 1, SITE, "auth-tls-secret", "shop/clients-ca"));
        r = ingressReport(t, "shop", "site");
        assertThat(r.errors()).singleElement().asString()
                .startsWith(SECRET + ": Secret \"clients-ca\" holds no PEM certificate in ca.crt (")
                .endsWith("; the Ingress's paths answer 503");
        assertThat(r.resolvedRefs().reason()).isEqualTo("InvalidSecret");
        assertThat(route(t, "shop.site..ingress-0").rules()).extracting(Route.Rule::action).containsExactly(LOCKED);
    }

    @Test
    void aHostWhoseCertificateDoesNotResolveAnswers503() throws Exception {
        Translation t = Fixtures.translate(service("shop", "web", "http:80"),
                slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"), Fixtures.caSecret("shop", "clients-ca", CA),
                annotated("site", 1, SITE, "auth-tls-secret", "clients-ca"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly("spec.tls[0].secretName: Secret"
                + " \"site-tls\" not found; the Ingress's paths answer 503 (its hosts ask for client certificates)");
        // No https listener at all: the host is served on http as an Ingress host without its certificate is, 503.
        assertThat(route(t, "shop.site..ingress-0").rules()).extracting(Route.Rule::action).containsExactly(LOCKED);
        assertThat(clientValidation(t)).isEmpty();
    }

    /**
     * Proxies without a TLS listener cannot ask for certificates: the host is not served at all, where an Ingress
     * host without its certificate falls back to plain HTTP.
     */
    @Test
    void withoutAnHttpsListenerTheHostIsNotServedOnHttp() throws Exception {
        ProxyDefaults plainOnly = new ProxyDefaults("strait", "strait-sidecar", new dev.strait.model.HostPort("0.0.0.0",
                8080), null, null, dev.strait.model.Limits.DEFAULTS, true);
        Translation t = new Translator(plainOnly).translate(Fixtures.inputs(service("shop", "web", "http:80"),
                slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY),
                Fixtures.caSecret("shop", "clients-ca", CA), annotated("site", 1, SITE, "auth-tls-secret", "clients-ca")));
        assertThat(t.snapshot(STRAIT).config().listeners()).extracting(Config.Listener::name).containsExactly("http");
        assertThat(t.snapshot(STRAIT).config().routes()).isEmpty();
    }

    /** ssl-redirect "false" would serve the host on http, around the check: it stays on https. */
    @Test
    void sslRedirectFalseDoesNotOpenHttp() throws Exception {
        Translation t = site("auth-tls-secret", "clients-ca", "ssl-redirect", "false");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly("metadata.annotations[" + N
                + "ssl-redirect]: \"false\" does not apply to hosts that ask for client certificates (" + SECRET + "): they"
                + " are served on https only, and plain requests are not redirected");
        assertThat(route(t, "shop.site..ingress-0").listeners()).containsExactly("https");
        assertThat(t.snapshot(STRAIT).config().routes()).extracting(Route::name).containsExactly("shop.site..ingress-0");
        assertThat(clientValidation(t)).containsExactly(require("site.example.com"));
    }

    @Test
    void theOlderIngressSettingsWinAHost() throws Exception {
        Translation t = translate(Fixtures.caSecret("shop", "other-ca", Fixtures.CERT),
                annotated("older", 1, SITE, "auth-tls-secret", "clients-ca"),
                annotated("younger", 2, SITE.replace("path: /,", "path: /y,"), "auth-tls-secret", "other-ca"));
        ResourceReport r = ingressReport(t, "shop", "younger");
        assertThat(r.errors()).contains(SECRET + ": host \"site.example.com\" already asks for client certificates as"
                + " Ingress shop/older says, with other settings (the older Ingress wins)");
        assertThat(r.accepted().reason()).isEqualTo("Conflicted");
        assertThat(t.snapshot(STRAIT).config().routes()).extracting(Route::name)
                .doesNotContain("shop.younger..ingress-0");
        assertThat(clientValidation(t)).containsExactly(require("site.example.com"));

        // The same settings: both serve, one entry.
        t = translate(annotated("older", 1, SITE, "auth-tls-secret", "clients-ca"),
                annotated("younger", 2, SITE.replace("path: /,", "path: /y,"), "auth-tls-secret", "shop/clients-ca"));
        assertThat(ingressReport(t, "shop", "younger").errors()).as("only its ssl-redirect, which the older's serves")
                .noneMatch(e -> e.startsWith(SECRET));
        assertThat(t.snapshot(STRAIT).config().routes()).extracting(Route::name).contains("shop.younger..ingress-0");
        assertThat(clientValidation(t)).containsExactly(require("site.example.com"));
    }

    /** A canary's share is checked as the Ingress it splits asks; its own auth-tls-* are not read, as in ingress-nginx. */
    @Test
    void aCanaryIsCheckedAsItsPrimary() throws Exception {
        Translation t = translate(service("shop", "web2", "http:80"), slice("shop", "web2", "web2-1", "http", 8080, "10.0.0.2"),
                annotated("site", 1, SITE, "auth-tls-secret", "clients-ca"),
                annotated("canary", 2, SITE.replace("name: web,", "name: web2,"), "canary", "true", "canary-weight", "10",
                        "auth-tls-secret", "other/ca"));
        assertThat(ingressReport(t, "shop", "canary").errors()).containsExactly(SECRET + ": not read on a canary: its"
                + " requests are checked as the Ingress it splits asks");
        assertThat(route(t, "shop.site..ingress-0").rules()).singleElement().extracting(Route.Rule::action)
                .isEqualTo(new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 90),
                        new Route.Backend("service.shop.web2.80", 10))));
        assertThat(clientValidation(t)).containsExactly(require("site.example.com"));
    }
}
