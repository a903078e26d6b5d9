package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.CERT;
import static dev.strait.operator.translate.Fixtures.KEY;
import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.b64;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import dev.strait.model.Upstream;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ingress-nginx's {@code proxy-ssl-*} annotations as the TLS of the upstreams made for an Ingress's Service backends:
 * with {@code proxy-ssl-verify: on} their certificates are checked against the Secret's {@code ca.crt} and the name
 * {@code proxy-ssl-name}; the Secret's client certificate is presented, checked or not. What cannot be had answers
 * 503, never a backend nobody checked.
 */
class IngressBackendTlsTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String SECRET = "metadata.annotations[" + N + "proxy-ssl-secret]";
    private static final String NAME = "web.shop.svc.cluster.local";
    /** Any certificate will do as a CA: the translation checks that it loads, the proxy that the backend's chains to it. */
    private static final String CA = RouteClientValidationTest.CA;
    private static final Route.Backends LOCKED = new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1)));
    private static final String SITE = """
            ingressClassName: strait
            defaultBackend: { service: { name: web, port: { number: 443 } } }
            rules:
              - host: site.example.com
                http:
                  paths:
                    - { path: /shop, pathType: Prefix, backend: { service: { name: web, port: { number: 443 } } } }
                    - { path: /about, pathType: Exact, backend: { service: { name: web, port: { name: https } } } }
            """;
    /** The annotations of a checked backend: the Secret's CAs, the Service's cluster name. */
    private static final String[] VERIFIED = {"backend-protocol", "HTTPS", "proxy-ssl-secret", "backend-ca",
        "proxy-ssl-verify", "on", "proxy-ssl-name", NAME};

    /** An Ingress of shop with these annotations ({@code name, value, ...}, names without ingress-nginx's prefix). */
    private static Ingress annotated(String name, int minute, String spec, String... annotations) {
        return Fixtures.annotatedIngress("shop", name, minute, spec, annotations);
    }

    private static String[] with(String[] annotations, String... more) {
        String[] out = java.util.Arrays.copyOf(annotations, annotations.length + more.length);
        System.arraycopy(more, 0, out, annotations.length, more.length);
        return out;
    }

    /** A Secret of {@code ns} with these keys ({@code key, PEM, ...}), of {@code type}. */
    private static Secret secret(String ns, String name, String type, String... data) {
        Map<String, String> d = new LinkedHashMap<>();
        for (int i = 0; i < data.length; i += 2) {
            d.put(data[i], b64(data[i + 1]));
        }
        return new SecretBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata().withType(type)
                .withData(d).build();
    }

    /** The web Service (port https 443, one endpoint) and the backends' CA, with {@code more}. */
    private static Object[] world(Object... more) {
        List<Object> all = new ArrayList<>(List.of(service("shop", "web", "https:443"),
                slice("shop", "web", "web-1", "https", 8443, "10.0.0.1"), Fixtures.caSecret("shop", "backend-ca", CA)));
        all.addAll(List.of(more));
        return all.toArray();
    }

    private static Translation translate(Object... more) {
        return Fixtures.translate(world(more));
    }

    private static Translation site(String... annotations) {
        return translate(annotated("site", 1, SITE, annotations));
    }

    private static List<Upstream> webUpstreams(Translation t) {
        return t.snapshot(STRAIT).config().upstreams().stream().filter(u -> u.name().startsWith("service.shop.web."))
                .toList();
    }

    private static List<Route.Action> actions(Translation t, String ingress) {
        return t.snapshot(STRAIT).config().routes().stream().filter(r -> r.name().startsWith("shop." + ingress + ".."))
                .flatMap(r -> r.rules().stream()).map(Route.Rule::action).toList();
    }

    @Test
    void everyServiceBackendIsCheckedAgainstTheSecretsCas() {
        for (String secret : List.of("backend-ca", "shop/backend-ca")) {
            Translation t = site(with(VERIFIED, "proxy-ssl-secret", secret));
            assertThat(ingressReport(t, "shop", "site").errors()).as(secret).isEmpty();
            Upstream u = webUpstreams(t).get(0);
            assertThat(webUpstreams(t)).as("the paths and the defaultBackend share it").hasSize(1);
            assertThat(u.tls()).isEqualTo(new Upstream.Tls(CA, NAME, null, null, true, 1));
            assertThat(u.protocol()).isEqualTo(Upstream.Protocol.HTTP1);
            assertThat(u.name()).matches("service\\.shop\\.web\\.443\\.https\\.tls-[0-9a-f]{16}");
            assertThat(actions(t, "site")).hasSize(4)
                    .containsOnly(new Route.Backends(List.of(new Route.Backend(u.name(), 1))));
        }
        Translation grpcs = site(with(VERIFIED, "backend-protocol", "GRPCS"));
        assertThat(ingressReport(grpcs, "shop", "site").errors()).isEmpty();
        assertThat(webUpstreams(grpcs)).singleElement().satisfies(u -> {
            assertThat(u.protocol()).isEqualTo(Upstream.Protocol.H2);
            assertThat(u.tls()).isEqualTo(new Upstream.Tls(CA, NAME, null, null, true, 1));
            assertThat(u.name()).startsWith("service.shop.web.443.h2.tls-");
        });
        // The snapshot is one a proxy loads.
        Fixtures.parse(grpcs.snapshot(STRAIT).json());
    }

    /** Without proxy-ssl-name the proxy checks each endpoint's own host: for an EndpointSlice's, the pod's address. */
    @Test
    void withoutANameTheEndpointsAddressIsChecked() {
        Translation t = site("backend-protocol", "HTTPS", "proxy-ssl-secret", "backend-ca", "proxy-ssl-verify", "on");
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(webUpstreams(t)).singleElement().extracting(Upstream::tls)
                .isEqualTo(new Upstream.Tls(CA, null, null, null, true, 1));
    }

    /** As nginx: tls.crt and tls.key are presented whether or not the backend's certificate is checked. */
    @Test
    void theSecretsClientCertificateIsPresented() {
        Secret both = secret("shop", "backend-mtls", "kubernetes.io/tls", "ca.crt", CA, "tls.crt", CERT, "tls.key", KEY);
        Object[][] cases = {
            {VERIFIED, new Upstream.Tls(CA, NAME, CERT, KEY, true, 1)},
            {new String[] {"backend-protocol", "HTTPS", "proxy-ssl-secret", "backend-mtls"},
                new Upstream.Tls(null, null, CERT, KEY, false)},
            {new String[] {"backend-protocol", "HTTPS", "proxy-ssl-secret", "backend-mtls", "proxy-ssl-verify", "off",
                "proxy-ssl-name", NAME}, new Upstream.Tls(null, null, CERT, KEY, false)},
            {new String[] {"backend-protocol", "HTTPS", "proxy-ssl-secret", "backend-mtls", "proxy-ssl-name", NAME,
                "proxy-ssl-server-name", "on"}, new Upstream.Tls(null, NAME, CERT, KEY, false)},
        };
        for (Object[] c : cases) {
            String[] annotations = with((String[]) c[0], "proxy-ssl-secret", "backend-mtls");
            Translation t = translate(both, annotated("site", 1, SITE, annotations));
            String as = String.join(" ", annotations);
            assertThat(ingressReport(t, "shop", "site").errors()).as(as).isEmpty();
            assertThat(webUpstreams(t)).as(as).singleElement().extracting(Upstream::tls).isEqualTo(c[1]);
            Fixtures.parse(t.snapshot(STRAIT).json());
        }
        // An Opaque Secret holding all three, as ingress-nginx's docs write one, does as well.
        Secret opaque = secret("shop", "backend-mtls", "Opaque", "ca.crt", CA, "tls.crt", CERT, "tls.key", KEY);
        Translation t = translate(opaque, annotated("site", 1, SITE, with(VERIFIED, "proxy-ssl-secret", "backend-mtls")));
        assertThat(webUpstreams(t)).singleElement().extracting(Upstream::tls)
                .isEqualTo(new Upstream.Tls(CA, NAME, CERT, KEY, true, 1));
    }

    /** Unchecked and without a client certificate, the TLS is backend-protocol's own: the same upstream. */
    @Test
    void whatChecksNothingAndPresentsNothingIsBackendProtocolsTls() {
        String[][] cases = {
            {"backend-protocol", "HTTPS", "proxy-ssl-secret", "backend-ca"},
            {"backend-protocol", "HTTPS", "proxy-ssl-secret", "backend-ca", "proxy-ssl-verify", "off"},
            {"backend-protocol", "HTTPS", "proxy-ssl-name", NAME},
        };
        for (String[] c : cases) {
            Translation t = site(c);
            assertThat(ingressReport(t, "shop", "site").errors()).as(String.join(" ", c)).isEmpty();
            assertThat(webUpstreams(t)).as(String.join(" ", c)).singleElement().satisfies(u -> {
                assertThat(u.name()).isEqualTo("service.shop.web.443.https");
                assertThat(u.tls()).isEqualTo(Upstream.Tls.UNVERIFIED);
            });
        }
    }

    /** Two Ingresses that speak to one Service with other TLS never share an upstream (nor its connections). */
    @Test
    void otherTlsSettingsAreUpstreamsOfTheirOwn() {
        String other = SITE.replace("site.example.com", "other.example.com");
        Translation t = translate(Fixtures.caSecret("shop", "other-ca", CERT),
                annotated("site", 1, SITE, VERIFIED),
                annotated("same", 2, SITE.replace("site.example.com", "same.example.com"), VERIFIED),
                annotated("plain", 3, other.replace("other.example.com", "plain.example.com"), "backend-protocol", "HTTPS"),
                annotated("other-ca", 4, other, with(VERIFIED, "proxy-ssl-secret", "other-ca")),
                annotated("other-name", 5, other.replace("other.example.com", "name.example.com"),
                        with(VERIFIED, "proxy-ssl-name", "web.shop.svc")));
        List<Upstream> upstreams = webUpstreams(t);
        assertThat(upstreams).extracting(Upstream::tls).containsExactlyInAnyOrder(
                new Upstream.Tls(CA, NAME, null, null, true, 1), Upstream.Tls.UNVERIFIED,
                new Upstream.Tls(CERT, NAME, null, null, true, 1), new Upstream.Tls(CA, "web.shop.svc", null, null, true, 1));
        for (String ingress : List.of("site", "same", "plain", "other-ca", "other-name")) {
            Route.Backends b = (Route.Backends) actions(t, ingress).get(0);
            Upstream used = upstreams.stream().filter(u -> u.name().equals(b.backends().get(0).upstream())).findFirst()
                    .orElseThrow();
            Upstream.Tls want = switch (ingress) {
                case "plain" -> Upstream.Tls.UNVERIFIED;
                case "other-ca" -> new Upstream.Tls(CERT, NAME, null, null, true, 1);
                case "other-name" -> new Upstream.Tls(CA, "web.shop.svc", null, null, true, 1);
                default -> new Upstream.Tls(CA, NAME, null, null, true, 1);
            };
            assertThat(used.tls()).as(ingress).isEqualTo(want);
        }
    }

    static Stream<Arguments> secretsThatDoNotResolve() {
        String answers = "; the Ingress's paths answer 503";
        String broken = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        return Stream.of(
                Arguments.of("no Secret", List.of(), "SecretNotFound", SECRET + ": Secret \"backend-ca\" not found" + answers),
                Arguments.of("no ca.crt", List.of(Fixtures.tlsSecret("shop", "backend-ca", CERT, KEY)), "InvalidSecret",
                        SECRET + ": Secret \"backend-ca\" needs PEM data in ca.crt (the CAs the backends' certificates"
                                + " are checked against)" + answers),
                Arguments.of("ca.crt that is no certificate", List.of(Fixtures.caSecret("shop", "backend-ca", broken)),
                        "InvalidSecret", SECRET + ": Secret \"backend-ca\" holds no PEM certificate in ca.crt ("),
                Arguments.of("tls.crt without tls.key", List.of(secret("shop", "backend-ca", "Opaque", "ca.crt", CA,
                        "tls.crt", CERT)), "InvalidSecret", SECRET + ": Secret \"backend-ca\" needs PEM data in both"
                                + " tls.crt and tls.key (the client certificate it holds)" + answers),
                Arguments.of("a key of another certificate", List.of(secret("shop", "backend-ca", "Opaque", "ca.crt", CA,
                        "tls.crt", CERT, "tls.key", Fixtures.OTHER_KEY)), "InvalidSecret", SECRET + ": Secret"
                                + " \"backend-ca\": tls.key does not match the certificate in tls.crt" + answers));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("secretsThatDoNotResolve")
    void aSecretThatDoesNotResolveAnswers503(String name, List<Object> secrets, String reason, String error) {
        List<Object> all = new ArrayList<>(List.of(service("shop", "web", "https:443"),
                slice("shop", "web", "web-1", "https", 8443, "10.0.0.1")));
        all.addAll(secrets);
        all.add(annotated("site", 1, SITE, VERIFIED));
        Translation t = Fixtures.translate(all.toArray());
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.errors()).as("once, though four rules name it").singleElement().asString().startsWith(error);
        assertThat(r.resolvedRefs().reason()).isEqualTo(reason);
        assertThat(r.accepted().status()).isTrue();
        assertThat(actions(t, "site")).as("never unchecked").hasSize(4).containsOnly(LOCKED);
        assertThat(webUpstreams(t)).isEmpty();
    }

    /** ADR 0078: another namespace's Secret once it accepts the Ingress's namespace, not before. */
    @Test
    void aSecretOfAnotherNamespaceIsReadOnceItAccepts() {
        Secret shared = Fixtures.caSecret("pki", "backend-ca", CA);
        Ingress ing = annotated("site", 1, SITE, with(VERIFIED, "proxy-ssl-secret", "pki/backend-ca"));
        Translation t = translate(shared, ing);
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.errors()).containsExactly(SECRET + ": Secret \"backend-ca\" of namespace \"pki\" does not accept"
                + " references from namespace \"shop\": its annotation strait.dev/accept-references-from must list"
                + " \"shop\" (or be \"*\"); the Ingress's paths answer 503");
        assertThat(r.resolvedRefs().reason()).isEqualTo("RefNotPermitted");
        assertThat(actions(t, "site")).containsOnly(LOCKED);

        Secret accepting = Fixtures.caSecret("pki", "backend-ca", CERT);
        accepting.getMetadata().setAnnotations(Map.of(Consent.ANNOTATION, "shop"));
        t = translate(accepting, ing);
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(webUpstreams(t)).singleElement().extracting(Upstream::tls)
                .isEqualTo(new Upstream.Tls(CERT, NAME, null, null, true, 1));
    }

    /** A check asked for that cannot be made: the paths answer 503 rather than reach a backend nobody checked. */
    @Test
    void aCheckThatCannotBeMadeAnswers503() {
        String fail = "; the Ingress's paths answer 503 rather than reach backends whose certificates nobody checked";
        String[][] cases = {
            {"metadata.annotations[" + N + "proxy-ssl-verify]: \"on\" needs metadata.annotations[" + N + "backend-protocol]"
                + " HTTPS or GRPCS (the backends are spoken to in the clear); the Ingress's paths answer 503",
                "proxy-ssl-secret", "backend-ca", "proxy-ssl-verify", "on"},
            {"metadata.annotations[" + N + "proxy-ssl-verify]: \"on\" needs metadata.annotations[" + N + "backend-protocol]"
                + " HTTPS or GRPCS (the backends are spoken to in the clear); the Ingress's paths answer 503",
                "backend-protocol", "GRPC", "proxy-ssl-secret", "backend-ca", "proxy-ssl-verify", "on"},
            {"metadata.annotations[" + N + "proxy-ssl-verify]: \"yes\" is not on or off" + fail,
                "backend-protocol", "HTTPS", "proxy-ssl-secret", "backend-ca", "proxy-ssl-verify", "yes"},
            {"metadata.annotations[" + N + "proxy-ssl-verify]: \"on\" needs " + SECRET + " (its ca.crt: the CAs the"
                + " backends' certificates are checked against)" + fail,
                "backend-protocol", "HTTPS", "proxy-ssl-verify", "on", "proxy-ssl-name", NAME},
            {"metadata.annotations[" + N + "proxy-ssl-name]: \"$host\" is not a host name (nginx variables are not read)"
                + fail, "backend-protocol", "HTTPS", "proxy-ssl-secret", "backend-ca", "proxy-ssl-verify", "on",
                "proxy-ssl-name", "$host"},
            {SECRET + ": names no Secret; the Ingress's paths answer 503", "backend-protocol", "HTTPS", "proxy-ssl-secret", "shop/",
                "proxy-ssl-verify", "on"},
        };
        for (String[] c : cases) {
            Translation t = site(java.util.Arrays.copyOfRange(c, 1, c.length));
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[0]).containsExactly(c[0]);
            assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(actions(t, "site")).as(c[0]).hasSize(4).containsOnly(LOCKED);
        }
    }

    /** nginx's proxy_ssl_verify_depth: 1 unless given; a depth that cannot be read is no check at all: 503. */
    @Test
    void theChainsDepthIsNginxsUnlessGiven() {
        assertThat(webUpstreams(site(with(VERIFIED)))).singleElement().extracting(u -> u.tls().verifyDepth()).isEqualTo(1);
        assertThat(webUpstreams(site(with(VERIFIED, "proxy-ssl-verify-depth", "3")))).singleElement()
                .extracting(u -> u.tls().verifyDepth()).isEqualTo(3);
        for (String bad : new String[] {"0", "11", "two", "-1"}) {
            Translation t = site(with(VERIFIED, "proxy-ssl-verify-depth", bad));
            assertThat(ingressReport(t, "shop", "site").errors()).as(bad).containsExactly("metadata.annotations[" + N
                    + "proxy-ssl-verify-depth]: \"" + bad + "\" is not a whole number from 1 to 10; the Ingress's paths"
                    + " answer 503 rather than reach backends whose certificates nobody checked");
        }
    }

    /** Settings Strait does not apply but that weaken nothing are reported; the paths serve, checked as asked. */
    @Test
    void whatChangesNothingIsAWarning() {
        Translation t = site(with(VERIFIED, "proxy-ssl-verify-depth", "2", "proxy-ssl-protocols", "TLSv1.2 TLSv1.3",
                "proxy-ssl-ciphers", "HIGH:!aNULL", "proxy-ssl-server-name", "off"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(
                "metadata.annotations[" + N + "proxy-ssl-protocols]: is not applied: Strait speaks TLS 1.3 or 1.2 to"
                        + " backends",
                "metadata.annotations[" + N + "proxy-ssl-ciphers]: is not applied: Strait offers backends the ciphers of"
                        + " its own TLS 1.3 and 1.2",
                "metadata.annotations[" + N + "proxy-ssl-server-name]: \"off\" is not applied: the name metadata.annotations["
                        + N + "proxy-ssl-name] checks in the backends' certificates is sent as SNI too");
        assertThat(webUpstreams(t)).as("the depth applies").singleElement().extracting(Upstream::tls)
                .isEqualTo(new Upstream.Tls(CA, NAME, null, null, true, 2));

        // In the clear, as in nginx, they do nothing (proxy-ssl-verify: on aside, above).
        t = site("proxy-ssl-secret", "backend-ca", "proxy-ssl-name", NAME);
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(
                SECRET + ": applies with metadata.annotations[" + N + "backend-protocol] HTTPS or GRPCS; the backends"
                        + " are spoken to in the clear, so it has no effect",
                "metadata.annotations[" + N + "proxy-ssl-name]: applies with metadata.annotations[" + N
                        + "backend-protocol] HTTPS or GRPCS; the backends are spoken to in the clear, so it has no effect");
        assertThat(webUpstreams(t)).singleElement().extracting(Upstream::tls).isNull();
    }

    /** A Secret's change applies at the next translation, as a fresh translator would have it (ADR 0025). */
    @Test
    void aChangedSecretAppliesAtTheNextTranslation() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        Ingress ing = annotated("site", 1, SITE, with(VERIFIED, "proxy-ssl-secret", "pki/backend-ca"));
        Secret refused = Fixtures.caSecret("pki", "backend-ca", CA);
        Secret accepting = Fixtures.caSecret("pki", "backend-ca", CA);
        accepting.getMetadata().setAnnotations(Map.of(Consent.ANNOTATION, "*"));
        Secret renewed = Fixtures.caSecret("pki", "backend-ca", CERT);
        renewed.getMetadata().setAnnotations(Map.of(Consent.ANNOTATION, "*"));
        Object[][] steps = {{}, {refused}, {accepting}, {renewed}, {}, {renewed}};
        String[] reasons = {"SecretNotFound", "RefNotPermitted", null, null, "SecretNotFound", null};
        String[] cas = {null, null, CA, CERT, null, CERT};
        for (int i = 0; i < steps.length; i++) {
            List<Object> all = new ArrayList<>(List.of(world(ing)));
            all.addAll(List.of(steps[i]));
            Translation got = translator.translate(Fixtures.inputs(all.toArray()));
            Translation want = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(all.toArray()));
            assertThat(got.snapshot(STRAIT).json()).as("step " + i).isEqualTo(want.snapshot(STRAIT).json());
            assertThat(got.reports()).as("step " + i).isEqualTo(want.reports());
            ResourceReport r = ingressReport(got, "shop", "site");
            if (reasons[i] == null) {
                assertThat(r.errors()).as("step " + i).isEmpty();
                assertThat(webUpstreams(got)).as("step " + i).singleElement().extracting(u -> u.tls().ca())
                        .isEqualTo(cas[i]);
            } else {
                assertThat(r.resolvedRefs().reason()).as("step " + i).isEqualTo(reasons[i]);
                assertThat(actions(got, "site")).as("step " + i).containsOnly(LOCKED);
            }
        }
    }

    /**
     * A canary's share goes to its own backends, spoken to as its own backend-protocol and proxy-ssl-* say (Argo
     * Rollouts and Flagger copy them from the primary).
     */
    @Test
    void aCanarysOwnSettingsApplyToItsShare() {
        Ingress canary = annotated("site-canary", 2, SITE.replace("name: web,", "name: web-canary,"),
                with(VERIFIED, "canary", "true", "canary-weight", "10"));
        Translation t = translate(service("shop", "web-canary", "https:443"),
                slice("shop", "web-canary", "web-canary-1", "https", 8443, "10.0.0.2"),
                annotated("site", 1, SITE, VERIFIED), canary);
        assertThat(ingressReport(t, "shop", "site-canary").errors()).isEmpty();
        Map<String, Upstream> upstreams = new LinkedHashMap<>();
        t.snapshot(STRAIT).config().upstreams().forEach(u -> upstreams.put(u.name(), u));
        Route.Backends split = (Route.Backends) actions(t, "site").get(0);
        assertThat(split.backends()).hasSize(2).allSatisfy(b -> assertThat(upstreams.get(b.upstream()).tls())
                .isEqualTo(new Upstream.Tls(CA, NAME, null, null, true, 1)));
        assertThat(split.backends()).extracting(Route.Backend::weight).containsExactly(90, 10);
    }
}
