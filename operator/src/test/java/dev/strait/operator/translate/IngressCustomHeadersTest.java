package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's {@code custom-headers} (ADR 0093): the named ConfigMap's keys and values are set on every answer of
 * the Ingress's backend paths; what cannot be sent is reported naming the key and left out, and a ConfigMap that cannot
 * be had is reported while the paths serve without its fields.
 */
class IngressCustomHeadersTest {
    private static final String FIELD = "metadata.annotations[nginx.ingress.kubernetes.io/custom-headers]";
    private static final String SITE = """
            ingressClassName: strait
            defaultBackend: { service: { name: web, port: { number: 80 } } }
            rules:
              - host: site.example.com
                http:
                  paths:
                    - { path: /shop, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
                    - { path: /about, pathType: Exact, backend: { service: { name: web, port: { number: 80 } } } }
            """;
    private static final Map<String, String> SECURITY = Map.of("X-Frame-Options", "DENY",
            "Strict-Transport-Security", "max-age=31536000; includeSubDomains");

    private static Ingress site(String... annotations) {
        return Fixtures.annotatedIngress("shop", "site", 1, SITE, annotations);
    }

    private static ConfigMap configMap(String ns, String name, Map<String, String> data, String... annotations) {
        ConfigMapBuilder b = new ConfigMapBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withData(data);
        for (int i = 0; i < annotations.length; i += 2) {
            b.editMetadata().addToAnnotations(annotations[i], annotations[i + 1]).endMetadata();
        }
        return b.build();
    }

    /** The web Service with one endpoint, and {@code more}. */
    private static Object[] world(Object... more) {
        List<Object> all = new ArrayList<>(List.of(service("shop", "web", "http:80"),
                slice("shop", "web", "web-1", "http", 8080, "10.0.0.1")));
        all.addAll(List.of(more));
        return all.toArray();
    }

    private static Translation translate(Translator translator, Object... more) {
        return translator.translate(Fixtures.inputs(world(more)));
    }

    private static Translation translate(Object... more) {
        return translate(new Translator(ProxyDefaults.STANDARD), more);
    }

    /** Every rule of the snapshot: the Ingress's two paths and its defaultBackend, each proxied to web. */
    private static List<Route.Rule> rules(Translation t) {
        Fixtures.parse(t.snapshot(STRAIT).json()); // what a proxy is sent, it takes
        List<Route.Rule> rules = t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream()).toList();
        assertThat(rules).hasSizeGreaterThanOrEqualTo(3).allSatisfy(r -> assertThat(r.action()).isInstanceOfSatisfying(Route.Backends.class,
                b -> assertThat(b.backends()).noneMatch(x -> x.upstream().equals(Translator.UNRESOLVED))));
        return rules;
    }

    private static Map<String, String> lower(Map<String, String> m) {
        Map<String, String> out = new java.util.HashMap<>();
        m.forEach((k, v) -> out.put(k.toLowerCase(java.util.Locale.ROOT), v));
        return out;
    }

    @Test
    void theConfigMapsFieldsAreSetOnEveryAnswerOfTheIngresssPaths() {
        for (String value : List.of("security", "shop/security", " security ")) {
            Translation t = translate(site("custom-headers", value), configMap("shop", "security", SECURITY));
            assertThat(ingressReport(t, "shop", "site").errors()).as(value).isEmpty();
            assertThat(ingressReport(t, "shop", "site").resolvedRefs().status()).isTrue();
            assertThat(rules(t)).as(value).allSatisfy(r -> {
                assertThat(r.responseHeaders().set()).containsExactlyInAnyOrderEntriesOf(lower(SECURITY));
                assertThat(r.responseHeaders().add()).isEmpty();
                assertThat(r.responseHeaders().remove()).isEmpty();
            });
        }
        // Without the annotation, nothing: the ConfigMap alone changes no answer.
        assertThat(rules(translate(site(), configMap("shop", "security", SECURITY))))
                .allSatisfy(r -> assertThat(r.responseHeaders()).isNull());
    }

    @Test
    void aMissingConfigMapIsReportedAndThePathsServeWithoutItsFieldsUntilItExists() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        Ingress ing = site("custom-headers", "security");
        Translation t = translate(translator, ing);
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.resolvedRefs().status()).isFalse();
        assertThat(r.resolvedRefs().reason()).isEqualTo("ConfigMapNotFound");
        assertThat(r.errors()).containsExactly(FIELD + ": ConfigMap \"security\" not found; the paths serve without its"
                + " fields until it exists");
        assertThat(r.inSnapshot()).isTrue();
        assertThat(rules(t)).allSatisfy(rule -> assertThat(rule.responseHeaders()).isNull());

        // The same Ingress object (same generation): the ConfigMap's arrival alone applies it, and so does each edit.
        t = translate(translator, ing, configMap("shop", "security", SECURITY));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t)).allSatisfy(rule -> assertThat(rule.responseHeaders().set())
                .containsExactlyInAnyOrderEntriesOf(lower(SECURITY)));
        t = translate(translator, ing, configMap("shop", "security", Map.of("X-Frame-Options", "SAMEORIGIN")));
        assertThat(rules(t)).allSatisfy(rule -> assertThat(rule.responseHeaders().set())
                .containsExactlyEntriesOf(Map.of("x-frame-options", "SAMEORIGIN")));
        t = translate(translator, ing);
        assertThat(ingressReport(t, "shop", "site").resolvedRefs().reason()).isEqualTo("ConfigMapNotFound");
        assertThat(rules(t)).as("deleted: gone from the answers").allSatisfy(rule -> assertThat(rule.responseHeaders()).isNull());
    }

    @Test
    void aConfigMapOfAnotherNamespaceIsReadOnceItAcceptsTheIngresssNamespace() {
        Ingress ing = site("custom-headers", "platform/security");
        Translation t = translate(ing, configMap("platform", "security", SECURITY));
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.resolvedRefs().reason()).isEqualTo("RefNotPermitted");
        assertThat(r.errors()).singleElement().asString().startsWith(FIELD + ": ConfigMap \"security\" of namespace"
                + " \"platform\" does not accept references from namespace \"shop\": its annotation"
                + " strait.dev/accept-references-from must list \"shop\"").endsWith("until it does");
        assertThat(rules(t)).allSatisfy(rule -> assertThat(rule.responseHeaders()).isNull());

        t = translate(ing, configMap("platform", "security", SECURITY, Consent.ANNOTATION, "blog"));
        assertThat(ingressReport(t, "shop", "site").resolvedRefs().reason()).as("another namespace's consent")
                .isEqualTo("RefNotPermitted");

        for (String consent : List.of("shop", "blog, shop", "*")) {
            t = translate(ing, configMap("platform", "security", SECURITY, Consent.ANNOTATION, consent));
            assertThat(ingressReport(t, "shop", "site").errors()).as(consent).isEmpty();
            assertThat(rules(t)).as(consent).allSatisfy(rule -> assertThat(rule.responseHeaders().set())
                    .containsExactlyInAnyOrderEntriesOf(lower(SECURITY)));
        }

        t = translate(ing, configMap("shop", "security", SECURITY));
        assertThat(ingressReport(t, "shop", "site").resolvedRefs().reason()).as("not the Ingress's own namespace's")
                .isEqualTo("ConfigMapNotFound");
        assertThat(ingressReport(t, "shop", "site").errors()).singleElement().asString()
                .contains("ConfigMap \"platform/security\" not found");
    }

    @Test
    void keysThatCannotBeFieldsAreReportedNamingThemAndTheRestApplies() {
        ConfigMap cm = configMap("shop", "security", new java.util.TreeMap<>(Map.of(
                "X-Frame-Options", "DENY",
                "Content-Length", "5",
                "connection", "close",
                "Bad Key", "x",
                "X-Multi", "a\r\nSet-Cookie: admin=1",
                "X-Var", "$host",
                "X-Empty", " ",
                "X-Dup", "1",
                "x-dup", "2",
                "X-Dollar", "5 $ each")));
        cm.setBinaryData(Map.of("logo.png", "iVBORw0KGgo="));
        Translation t = translate(site("custom-headers", "security"), cm);
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.resolvedRefs().reason()).isEqualTo("UnsupportedAnnotation");
        String of = FIELD + ": ConfigMap \"security\"";
        assertThat(r.errors()).containsExactlyInAnyOrder(
                of + " key \"Bad Key\" is not a header field name; it is left out",
                of + " key \"Content-Length\" is a field the proxy sets itself; it is left out",
                of + " key \"connection\" is a field the proxy sets itself; it is left out",
                of + " key \"X-Empty\" has no value; it is left out",
                of + " key \"X-Multi\" has a value with control characters, or longer than 8192; it is left out",
                of + " key \"X-Var\" holds an nginx variable, which Strait does not have (it would send the text); it is"
                        + " left out",
                of + " keys \"X-Dup\", \"x-dup\" name the same field; they are left out",
                of + " binaryData (logo.png) is not read; only data holds fields");
        assertThat(r.inSnapshot()).as("the paths serve").isTrue();
        assertThat(rules(t)).allSatisfy(rule -> assertThat(rule.responseHeaders().set())
                .containsExactlyInAnyOrderEntriesOf(Map.of("x-frame-options", "DENY", "x-dollar", "5 $ each")));
    }

    /** Both apply; where both name a field, the snippet's line wins: it is the Ingress's own, the ConfigMap may be shared. */
    @Test
    void withConfigurationSnippetBothApplyAndTheSnippetWinsForAFieldBothName() {
        String snippet = """
                more_set_headers "X-Frame-Options: SAMEORIGIN";
                more_clear_headers X-Powered-By;
                add_header X-Tag snippet;
                proxy_set_header X-Tenant blue;
                """;
        ConfigMap cm = configMap("shop", "security", Map.of("X-Frame-Options", "DENY", "X-Powered-By", "me",
                "X-Tag", "configmap", "Referrer-Policy", "no-referrer"));
        Translation t = translate(site("custom-headers", "security", "configuration-snippet", snippet), cm);
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t)).allSatisfy(rule -> {
            assertThat(rule.responseHeaders().set()).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "x-frame-options", "SAMEORIGIN", "referrer-policy", "no-referrer"));
            assertThat(rule.responseHeaders().remove()).containsExactly("x-powered-by");
            assertThat(rule.responseHeaders().add()).containsExactlyEntriesOf(Map.of("x-tag", "snippet"));
            assertThat(rule.requestHeaders().set()).containsExactlyEntriesOf(Map.of("x-tenant", "blue"));
        });

        // A snippet that is not applied leaves the ConfigMap's fields alone.
        t = translate(site("custom-headers", "security", "configuration-snippet", "deny all;"), cm);
        assertThat(rules(t)).allSatisfy(rule -> assertThat(rule.responseHeaders().set()).containsEntry(
                "x-frame-options", "DENY"));
    }

    @Test
    void aValueThatNamesNoConfigMapOrACanarysIsReportedAndNotRead() {
        for (String value : List.of("a/b/c", "Security", "shop/", "/security")) {
            Translation t = translate(site("custom-headers", value), configMap("shop", "security", SECURITY));
            assertThat(ingressReport(t, "shop", "site").errors()).as(value).containsExactly(FIELD + ": \"" + value
                    + "\" is not a ConfigMap (NAME or NAMESPACE/NAME); it is not applied");
            assertThat(rules(t)).allSatisfy(rule -> assertThat(rule.responseHeaders()).isNull());
        }
        List<String> warn = new ArrayList<>();
        assertThat(CustomHeaders.ref("security", "shop", true, warn)).isNull();
        assertThat(warn).containsExactly(FIELD + ": not read on a canary: its share is answered with the fields of the"
                + " Ingress it splits");
    }

    /** What the operator watches: the ConfigMaps that Ingresses of its classes name, and no other. */
    @Test
    void theConfigMapsToWatchAreThoseIngressesOfTheClassName() {
        Ingress own = site("custom-headers", "security");
        Ingress other = Fixtures.annotatedIngress("blog", "other", 1, SITE.replace("strait", "nginx"),
                "custom-headers", "elsewhere");
        Ingress named = Fixtures.annotatedIngress("blog", "named", 1, SITE, "custom-headers", "platform/shared");
        Ingress canary = Fixtures.annotatedIngress("blog", "canary", 1, SITE, "custom-headers", "canary-headers",
                "canary", "true");
        Ingress passthrough = Fixtures.annotatedIngress("blog", "tls", 1, SITE, "custom-headers", "tls-headers",
                "ssl-passthrough", "true");
        Ingress bad = Fixtures.annotatedIngress("blog", "bad", 1, SITE, "custom-headers", "a/b/c");
        Ingress none = Fixtures.annotatedIngress("blog", "none", 1, SITE);
        assertThat(CustomHeaders.named(List.of(own, other, named, canary, passthrough, bad, none), List.of(), "strait"))
                .containsExactly("platform/shared", "shop/security");
    }
}
