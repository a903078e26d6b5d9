package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import dev.strait.operator.publish.tls.ChannelPki;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A Route's {@code spec.tls.clientValidation}: its hosts ask for client certificates on the https listener, it is
 * served there alone, and until its CA Secret and certificate resolve its rules answer 503, never unchecked.
 */
class RouteClientValidationTest {
    /** The CA that issues the clients' certificates, as a user keeps it: PEM in an Opaque Secret's ca.crt. */
    private static final ChannelPki.Issued CA_KEYS = ChannelPki.newCa("clients", Instant.now(), Duration.ofDays(1));
    static final String CA = CA_KEYS.certificatePem();
    private static final ChannelPki.Issued OTHER_CA_KEYS = ChannelPki.newCa("others", Instant.now(), Duration.ofDays(1));
    private static final String OTHER_CA = OTHER_CA_KEYS.certificatePem();
    private static final Route.Backends LOCKED = new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1)));

    private static String spec(String host, String clientValidation) {
        return """
                hosts: [ %s ]
                tls: { secretName: site-tls, clientValidation: %s }
                rules: [ { matches: [ { path: { value: /%s } } ], respond: { body: "hi" } } ]
                """.formatted(host, clientValidation, host.replace('.', '-'));
    }

    private static Object[] with(Object... more) {
        Object[] base = {Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY),
            Fixtures.caSecret("shop", "clients-ca", CA)};
        Object[] all = new Object[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    private static Config.Tls https(Translation t) {
        List<Config.Listener> ls = t.snapshot(STRAIT).config().listeners();
        assertThat(ls).extracting(Config.Listener::name).containsExactly("http", "https");
        return ls.get(1).tls();
    }

    /** What the proxy makes of the snapshot: its own parser must accept the listener's entries. */
    private static Config proxyView(Translation t) throws Exception {
        return ConfigParser.parse(t.snapshot(STRAIT).json(), "snapshot");
    }

    @Test
    void theHostsAskForClientCertificatesOnTheHttpsListener() throws Exception {
        Translation t = Fixtures.translate(with(route("shop", "site", 1, spec("example.com",
                "{ caSecretName: clients-ca, mode: optional, verifyDepth: 2, subjectMatch: \"CN=(a|b)\","
                        + " forwardCertificate: true }"))));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        Config.ClientValidation expected = new Config.ClientValidation(List.of("example.com"), CA,
                Config.ClientValidationMode.OPTIONAL, 2, "CN=(a|b)", true);
        assertThat(https(t).clientValidation()).containsExactly(expected);
        assertThat(https(t).certificates()).containsExactly(new Config.Certificate(Fixtures.CERT, Fixtures.KEY));
        assertThat(proxyView(t).listeners().get(1).tls().clientValidation()).as("the proxy's parser takes it as sent")
                .containsExactly(expected);
    }

    /** ingress-nginx's ca.crl beside ca.crt: the lists go to the proxy; one no CA of ca.crt signed locks the rules. */
    @Test
    void revocationListsInTheCaSecretGoAlongAndABadOneAnswers503() throws Exception {
        String crl = crl(CA_KEYS);
        Secret withCrl = Fixtures.caSecret("shop", "clients-ca", CA);
        withCrl.getData().put("ca.crl", Fixtures.b64(crl));
        Translation t = Fixtures.translate(Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY), withCrl,
                route("shop", "site", 1, spec("example.com", "{ caSecretName: clients-ca }")));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(https(t).clientValidation()).singleElement().extracting(Config.ClientValidation::crl).isEqualTo(crl);
        // The proxy builds it: the list is read and its signature checked there too.
        dev.strait.proxy.config.SnapshotBuilder.build(proxyView(t), "snapshot");

        Secret strangers = Fixtures.caSecret("shop", "clients-ca", CA);
        strangers.getData().put("ca.crl", Fixtures.b64(crl(OTHER_CA_KEYS)));
        t = Fixtures.translate(Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY), strangers,
                route("shop", "site", 1, spec("example.com", "{ caSecretName: clients-ca }")));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).singleElement().asString()
                .contains("spec.tls.clientValidation.caSecretName: Secret \"clients-ca\" holds in ca.crl a revocation list"
                        + " of CN=others that no CA of ca.crt signed; the Route's rules answer 503");
        assertThat(proxyView(t).routes()).singleElement().satisfies(r -> assertThat(r.rules()).extracting(Route.Rule::action)
                .containsOnly(LOCKED));
    }

    private static String crl(ChannelPki.Issued ca) throws Exception {
        Instant now = Instant.now();
        org.bouncycastle.cert.X509v2CRLBuilder b = new org.bouncycastle.cert.X509v2CRLBuilder(
                new org.bouncycastle.asn1.x500.X500Name(ca.certificate().getSubjectX500Principal().getName()),
                java.util.Date.from(now.minus(Duration.ofHours(1))));
        b.setNextUpdate(java.util.Date.from(now.plus(Duration.ofDays(1))));
        b.addCRLEntry(java.math.BigInteger.TEN, java.util.Date.from(now), org.bouncycastle.asn1.x509.CRLReason.keyCompromise);
        java.security.cert.X509CRL crl = new org.bouncycastle.cert.jcajce.JcaX509CRLConverter().getCRL(b.build(
                new org.bouncycastle.operator.jcajce.JcaContentSignerBuilder(
                        ca.key().getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA").build(ca.key())));
        return "-----BEGIN X509 CRL-----\n" + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'})
                .encodeToString(crl.getEncoded()) + "\n-----END X509 CRL-----\n";
    }

    @Test
    void anErrorPageGoesAlong() throws Exception {
        Translation t = Fixtures.translate(with(route("shop", "site", 1, spec("example.com",
                "{ caSecretName: clients-ca, errorPage: /no-certificate.html }"))));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(proxyView(t).listeners().get(1).tls().clientValidation()).singleElement()
                .extracting(Config.ClientValidation::errorPage).isEqualTo("/no-certificate.html");
    }

    /** nginx's ssl_ocsp and ssl_ocsp_responder, as the proxy takes them. */
    @Test
    void ocspChecksGoAlong() throws Exception {
        Translation t = Fixtures.translate(with(route("shop", "site", 1, spec("example.com",
                "{ caSecretName: clients-ca, ocsp: chain, ocspResponder: \"http://ocsp.example.com/\" }"))));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(proxyView(t).listeners().get(1).tls().clientValidation()).singleElement()
                .extracting(Config.ClientValidation::ocsp, Config.ClientValidation::ocspResponder)
                .containsExactly(Config.ClientOcsp.CHAIN, "http://ocsp.example.com/");
    }

    @Test
    void theDefaultsAreRequireAndADepthOfOne() throws Exception {
        Translation t = Fixtures.translate(with(route("shop", "site", 1, spec("example.com", "{ caSecretName: clients-ca }"))));
        assertThat(proxyView(t).listeners().get(1).tls().clientValidation()).containsExactly(new Config.ClientValidation(
                List.of("example.com"), CA, Config.ClientValidationMode.REQUIRE, 1, null, false));
    }

    @Test
    void optionalNoCaTakesNoCa() throws Exception {
        Translation t = Fixtures.translate(with(route("shop", "site", 1, spec("example.com", "{ mode: optional-no-ca }"))));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(proxyView(t).listeners().get(1).tls().clientValidation()).containsExactly(new Config.ClientValidation(
                List.of("example.com"), null, Config.ClientValidationMode.OPTIONAL_NO_CA, 1, null, false));
    }

    /** On plain HTTP a request would reach the rules without a certificate check. */
    @Test
    void itIsServedOnHttpsOnly() throws Exception {
        Translation t = Fixtures.translate(with(route("shop", "site", 1, spec("example.com", "{ caSecretName: clients-ca }"))));
        assertThat(proxyView(t).routes()).singleElement().extracting(Route::listeners).isEqualTo(List.of("https"));

        t = Fixtures.translate(with(route("shop", "site", 1, spec("example.com", "{ caSecretName: clients-ca }")
                + "listeners: [ http, https ]\n")));
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.accepted().status()).isFalse();
        assertThat(r.errors()).containsExactly("spec.listeners: a Route with spec.tls.clientValidation is served on https"
                + " only (on http a request would reach its rules without a certificate check); leave listeners out or"
                + " give [ https ]");
        assertThat(Fixtures.routeNames(t)).isEmpty();
    }

    @Test
    void withoutACaSecretThatHoldsCertificatesTheRulesAnswer503() throws Exception {
        Secret noKey = new SecretBuilder().withNewMetadata().withNamespace("shop").withName("clients-ca").endMetadata()
                .withType("Opaque").withData(Map.of("tls.crt", Fixtures.b64(CA))).build();
        Object[][] cases = {
            {null, "SecretNotFound", "Secret \"clients-ca\" not found; the Route's rules answer 503"},
            {noKey, "InvalidSecret", "Secret \"clients-ca\" needs PEM data in ca.crt; the Route's rules answer 503"},
            {Fixtures.caSecret("shop", "clients-ca", "not a certificate"), "InvalidSecret",
                "Secret \"clients-ca\" needs PEM data in ca.crt; the Route's rules answer 503"},
            {Fixtures.caSecret("shop", "clients-ca", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"),
                "InvalidSecret", "Secret \"clients-ca\" holds no PEM certificate in ca.crt ("},
        };
        for (Object[] c : cases) {
            List<Object> in = new java.util.ArrayList<>(List.of(Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT,
                    Fixtures.KEY), route("shop", "site", 1, spec("example.com", "{ caSecretName: clients-ca }"))));
            if (c[0] != null) {
                in.add(c[0]);
            }
            Translation t = Fixtures.translate(in.toArray());
            ResourceReport r = Fixtures.routeReport(t, "shop", "site");
            String message = "spec.tls.clientValidation.caSecretName: " + c[2];
            assertThat(r.accepted().status()).as(message).isTrue();
            assertThat(r.resolvedRefs().status()).isFalse();
            assertThat(r.resolvedRefs().reason()).isEqualTo(c[1]);
            assertThat(r.errors()).singleElement().asString().startsWith(message);
            Route served = proxyView(t).routes().get(0);
            assertThat(served.rules()).singleElement().extracting(Route.Rule::action).as("locked: 503").isEqualTo(LOCKED);
            assertThat(served.listeners()).containsExactly("https");
            assertThat(https(t).clientValidation()).isEmpty();
        }
    }

    @Test
    void withoutItsOwnCertificateTheRulesAnswer503() throws Exception {
        // Another Route's certificate makes the https listener; the host would be served with it, unchecked.
        Translation t = Fixtures.translate(Fixtures.caSecret("shop", "clients-ca", CA),
                Fixtures.tlsSecret("shop", "other-tls", Fixtures.CERT, Fixtures.KEY),
                route("shop", "site", 1, spec("example.com", "{ caSecretName: clients-ca }")),
                route("shop", "other", 2, "hosts: [ other.example.com ]\ntls: { secretName: other-tls }\n"
                        + "rules: [ { respond: { body: \"other\" } } ]"));
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.errors()).containsExactly("spec.tls.secretName: Secret \"site-tls\" not found; the Route's rules"
                + " answer 503 (its hosts ask for client certificates)");
        assertThat(r.resolvedRefs().reason()).isEqualTo("SecretNotFound");
        Route served = proxyView(t).routes().get(0);
        assertThat(served.name()).isEqualTo("shop.site");
        assertThat(served.rules()).extracting(Route.Rule::action).containsExactly(LOCKED);
        assertThat(https(t).clientValidation()).isEmpty();
    }

    @Test
    void withoutACertificateAtAllItIsASpecError() {
        Translation t = Fixtures.translate(with(route("shop", "site", 1, """
                hosts: [ example.com ]
                tls: { clientValidation: { caSecretName: clients-ca } }
                rules: [ { respond: { body: "hi" } } ]
                """)));
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.accepted().status()).isFalse();
        assertThat(r.errors()).containsExactly("spec.tls.secretName: is required with clientValidation: the hosts ask"
                + " for client certificates in a TLS handshake with the Route's own certificate");
        assertThat(Fixtures.routeNames(t)).isEmpty();
    }

    @Test
    void settingsTheProxyWouldRefuseAreSpecErrors() {
        String[][] cases = {
            {"{ mode: require }", "spec.tls.clientValidation.caSecretName: is required unless mode is optional-no-ca"
                + " (the CAs that issue client certificates)"},
            {"{ caSecretName: clients-ca, verifyDepth: 11 }", "spec.tls.clientValidation.verifyDepth: must be a whole"
                + " number 1..10"},
            {"{ caSecretName: clients-ca, subjectMatch: \"CN=(a\" }", "spec.tls.clientValidation.subjectMatch: not a"
                + " valid regular expression: Unclosed group"},
            {"{ mode: optional-no-ca, ocsp: leaf }", "spec.tls.clientValidation.ocsp: asks the CAs of caSecretName"
                + " about certificates they issued: give it too"},
            {"{ caSecretName: clients-ca, ocspResponder: \"http://ocsp.example.com/\" }",
                "spec.tls.clientValidation.ocspResponder: is asked only with ocsp: leaf or chain"},
            {"{ caSecretName: clients-ca, ocsp: chain, ocspResponder: \"http://\" }",
                "spec.tls.clientValidation.ocspResponder: must be an http(s) URL, got \"http://\""},
        };
        for (String[] c : cases) {
            Translation t = Fixtures.translate(with(route("shop", "site", 1, spec("example.com", c[0]))));
            ResourceReport r = Fixtures.routeReport(t, "shop", "site");
            assertThat(r.accepted().status()).as(c[0]).isFalse();
            assertThat(r.errors()).as(c[0]).containsExactly(c[1]);
            assertThat(Fixtures.routeNames(t)).isEmpty();
        }
    }

    /** A host's clients are asked one way: a younger Route asking otherwise is left out, never served so. */
    @Test
    void theOlderRoutesSettingsWinAHost() throws Exception {
        Translation t = Fixtures.translate(with(Fixtures.caSecret("shop", "other-ca", OTHER_CA),
                route("shop", "older", 1, spec("example.com", "{ caSecretName: clients-ca }")),
                route("shop", "younger", 2, spec("example.com", "{ caSecretName: other-ca }").replace(
                        "hosts: [ example.com ]", "hosts: [ example.com, api.example.com ]").replace("/example-com", "/y"))));
        ResourceReport r = Fixtures.routeReport(t, "shop", "younger");
        assertThat(r.accepted().status()).isFalse();
        assertThat(r.accepted().reason()).isEqualTo("Conflicted");
        assertThat(r.errors()).containsExactly("spec.tls.clientValidation: host \"example.com\" already asks for client"
                + " certificates as Route shop/older says, with other settings (the older Route wins)");
        assertThat(r.inSnapshot()).isFalse();
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.older");
        assertThat(proxyView(t).listeners().get(1).tls().clientValidation()).containsExactly(new Config.ClientValidation(
                List.of("example.com"), CA, Config.ClientValidationMode.REQUIRE, 1, null, false));
        assertThat(Fixtures.routeReport(t, "shop", "older").errors()).isEmpty();

        // Younger the other way round: the other CA asks for the host.
        t = Fixtures.translate(with(Fixtures.caSecret("shop", "other-ca", OTHER_CA),
                route("shop", "older", 3, spec("example.com", "{ caSecretName: clients-ca }")),
                route("shop", "younger", 2, spec("example.com", "{ caSecretName: other-ca }").replace("/example-com", "/y"))));
        assertThat(Fixtures.routeReport(t, "shop", "older").accepted().reason()).isEqualTo("Conflicted");
        assertThat(https(t).clientValidation()).extracting(Config.ClientValidation::ca).containsExactly(OTHER_CA);
    }

    @Test
    void theSameSettingsForAHostAreOneEntryAndHostsOfOneSettingShareIt() throws Exception {
        Translation t = Fixtures.translate(with(Fixtures.caSecret("shop", "same-ca", CA),
                route("shop", "a", 1, spec("example.com", "{ caSecretName: clients-ca }")),
                route("shop", "b", 2, spec("example.com", "{ caSecretName: same-ca }").replace("/example-com", "/b")),
                route("shop", "c", 3, spec("api.example.com", "{ caSecretName: clients-ca }")),
                route("shop", "d", 4, spec("admin.example.com", "{ caSecretName: clients-ca, mode: optional }"))));
        for (String name : List.of("a", "b", "c", "d")) {
            assertThat(Fixtures.routeReport(t, "shop", name).errors()).as(name).isEmpty();
        }
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.a", "shop.b", "shop.c", "shop.d");
        assertThat(proxyView(t).listeners().get(1).tls().clientValidation()).containsExactly(
                new Config.ClientValidation(List.of("example.com", "api.example.com"), CA,
                        Config.ClientValidationMode.REQUIRE, 1, null, false),
                new Config.ClientValidation(List.of("admin.example.com"), CA, Config.ClientValidationMode.OPTIONAL, 1,
                        null, false));
    }

    /** A Route of the host that asks for nothing is checked with it: nothing conflicts, nothing is opened. */
    @Test
    void aRouteWithoutClientValidationSharesTheHost() throws Exception {
        Translation t = Fixtures.translate(with(
                route("shop", "plain", 1, "hosts: [ example.com ]\nrules: [ { respond: { body: \"plain\" } } ]"),
                route("shop", "site", 2, spec("example.com", "{ caSecretName: clients-ca }"))));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(Fixtures.routeReport(t, "shop", "plain").errors()).isEmpty();
        assertThat(proxyView(t).listeners().get(1).tls().clientValidation()).extracting(Config.ClientValidation::hosts)
                .containsExactly(List.of("example.com"));
    }

    /** Should two policies for one host ever reach a snapshot, the younger Route is left out: a proxy refuses both. */
    @Test
    void aSnapshotNeverListsAHostInTwoEntries() throws Exception {
        Translation real = Fixtures.translate(with(route("shop", "a", 1, spec("example.com", "{ caSecretName: clients-ca }")),
                route("shop", "b", 2, spec("example.com", "{ caSecretName: clients-ca }").replace("/example-com", "/b"))));
        List<Route> routes = real.snapshot(STRAIT).config().routes();
        Config.Certificate cert = new Config.Certificate(Fixtures.CERT, Fixtures.KEY);
        Translation t = new Translation(ProxyDefaults.STANDARD, Map.of(STRAIT, List.of(
                new Translation.Programmed(routes.get(0), java.util.Set.of(), cert, new Config.ClientValidation(
                        List.of("example.com"), CA, Config.ClientValidationMode.REQUIRE, 1, null, false)),
                new Translation.Programmed(routes.get(1), java.util.Set.of(), cert, new Config.ClientValidation(
                        List.of("example.com"), OTHER_CA, Config.ClientValidationMode.REQUIRE, 1, null, false)))),
                Map.of(), new java.util.HashMap<>(), new java.util.HashMap<>(), new java.util.HashMap<>());
        assertThat(proxyView(t).routes()).extracting(Route::name).containsExactly("shop.a");
        assertThat(proxyView(t).listeners().get(1).tls().clientValidation()).extracting(Config.ClientValidation::ca)
                .containsExactly(CA);
    }

    /** The CA Secret is a reference: its arrival is seen though the Route did not change. */
    @Test
    void aCaSecretThatArrivesLaterUnlocksTheRules() throws Exception {
        Translator translator = Fixtures.TRANSLATOR.fresh();
        Object site = route("shop", "site", 1, spec("example.com", "{ caSecretName: clients-ca }"));
        Object tls = Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY);
        Translation t = translator.translate(Fixtures.inputs(site, tls));
        assertThat(https(t).clientValidation()).isEmpty();
        t = translator.translate(Fixtures.inputs(site, tls, Fixtures.caSecret("shop", "clients-ca", CA)));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(https(t).clientValidation()).extracting(Config.ClientValidation::ca).containsExactly(CA);
        assertThat(t.snapshot(STRAIT).config().routes().get(0).rules().get(0).action())
                .isEqualTo(new Route.Respond(200, "hi", Map.of()));
    }
}
