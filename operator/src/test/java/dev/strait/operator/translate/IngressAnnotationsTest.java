package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.route.CompiledRule;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's annotations read into Routes (ADR 0054): the redirects, force-ssl-redirect and
 * rewrite-target; what cannot be expressed is reported naming the annotation and answers 503.
 */
class IngressAnnotationsTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    static final String SITE = """
            ingressClassName: strait
            defaultBackend: { service: { name: web, port: { number: 80 } } }
            rules:
              - host: old.example.com
                http:
                  paths:
                    - { path: /shop, pathType: Prefix, backend: { service: { name: gone, port: { number: 80 } } } }
                    - { path: /about, pathType: Exact, backend: { service: { name: web, port: { number: 80 } } } }
            """;

    /** An Ingress with these annotations ({@code name, value, ...}, names without ingress-nginx's prefix). */
    static Ingress annotated(String name, String spec, String... annotations) {
        Ingress ing = Fixtures.ingress("shop", name, 1, spec);
        Map<String, String> a = new LinkedHashMap<>();
        for (int i = 0; i < annotations.length; i += 2) {
            a.put(N + annotations[i], annotations[i + 1]);
        }
        ing.getMetadata().setAnnotations(a);
        return ing;
    }

    static Translation translate(Object... more) {
        Object[] base = {service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1")};
        Object[] all = new Object[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return Fixtures.translate(all);
    }

    private static List<Route.Action> actions(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream()
                .flatMap(r -> r.rules().stream()).map(Route.Rule::action).toList();
    }

    private static Route.Redirect redirectOf(String url, String... more) {
        String[] a = new String[more.length + 2];
        a[0] = "permanent-redirect";
        a[1] = url;
        System.arraycopy(more, 0, a, 2, more.length);
        Translation t = translate(annotated("site", SITE, a));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        List<Route.Action> actions = actions(t);
        assertThat(actions).hasSize(4).allMatch(actions.get(0)::equals);
        return (Route.Redirect) actions.get(0);
    }

    private static Route.PathModifier full(String path) {
        return new Route.PathModifier(Route.PathModifierType.ReplaceFullPath, path);
    }

    @Test
    void permanentRedirectAnswersEveryPathAndTheDefaultBackendWithTheUrlAsGiven() {
        // No "Service gone not found": a redirect never asks the backend, which redirect-only Ingresses often lack.
        assertThat(redirectOf("https://new.example.com/welcome"))
                .isEqualTo(new Route.Redirect("https", "new.example.com", 443, full("/welcome"), 301));
    }

    @Test
    void theFormsOfRedirectUrl() {
        // Without a path, the root (as browsers read it); a port is always named, so the request's never stays.
        assertThat(redirectOf("https://New.Example.com")).isEqualTo(
                new Route.Redirect("https", "new.example.com", 443, full("/"), 301));
        assertThat(redirectOf("http://new.example.com:8080/a%20b/")).isEqualTo(
                new Route.Redirect("http", "new.example.com", 8080, full("/a%20b/"), 301));
        // A path alone: the request's scheme, host and port.
        assertThat(redirectOf("/moved")).isEqualTo(new Route.Redirect(null, null, null, full("/moved"), 301));
        assertThat(redirectOf("https://new.example.com/", "permanent-redirect-code", "308").statusCode()).isEqualTo(308);
    }

    @Test
    void temporalRedirectIs302AndWinsOverPermanentRedirectAsInIngressNginx() {
        Translation t = translate(annotated("site", SITE, "permanent-redirect", "https://a.example.com/",
                "temporal-redirect", "https://b.example.com/"));
        assertThat(actions(t)).containsOnly(new Route.Redirect("https", "b.example.com", 443, full("/"), 302));
        t = translate(annotated("site", SITE, "temporal-redirect", "https://b.example.com/",
                "temporal-redirect-code", "307"));
        assertThat(actions(t)).containsOnly(new Route.Redirect("https", "b.example.com", 443, full("/"), 307));
    }

    @Test
    void aRedirectThatCannotBeExpressedIsReportedAndItsPathsAnswer503() {
        String[][] cases = {
            {"permanent-redirect", "https://new.example.com/?from=old",
                "\"https://new.example.com/?from=old\" has a query: a redirect keeps the request's query, so a fixed one cannot be expressed"},
            {"permanent-redirect", "https://new.example.com$request_uri",
                "\"https://new.example.com$request_uri\" uses nginx variables, which Strait does not have"},
            {"permanent-redirect", "ftp://files.example.com/", "\"ftp://files.example.com/\" is not an http or https URL"},
            {"permanent-redirect", "https://[::1]/", "\"https://[::1]/\" has no host name Strait can redirect to (IP literals in brackets are not supported)"},
            {"permanent-redirect", "https://new.example.com/#top", "\"https://new.example.com/#top\" has a fragment, which a redirect cannot carry"},
            {"temporal-redirect", "new.example.com/x", "\"new.example.com/x\" is neither an http(s) URL nor a path starting with /"},
        };
        for (String[] c : cases) {
            Translation t = translate(annotated("site", SITE, c[0], c[1]));
            ResourceReport r = ingressReport(t, "shop", "site");
            String want = "metadata.annotations[" + N + c[0] + "]: " + c[2] + "; every path of the Ingress answers 503";
            assertThat(r.errors()).as(c[1]).containsExactly(want);
            assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(r.accepted().status()).isTrue();
            assertThat(actions(t)).as(c[1]).hasSize(4)
                    .containsOnly(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
        }
        Translation t = translate(annotated("site", SITE, "permanent-redirect", "https://new.example.com/",
                "permanent-redirect-code", "300"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly("metadata.annotations[" + N
                + "permanent-redirect-code]: \"300\" is not a redirect status Strait sends (301, 302, 303, 307 or 308)"
                + "; every path of the Ingress answers 503");
    }

    /** Annotations change what an Ingress is translated into without a new generation: each change is seen. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "permanent-redirect | https://a.example.com/ | https://b.example.com/ | /x",
        "allowlist-source-range | 10.0.0.0/8 | 192.0.2.0/24 | office",
        "backend-protocol | HTTPS | GRPC | HTTP",
        "proxy-ssl-verify | on | off | on",
        "proxy-read-timeout | 30 | 3600 | soon",
        "canary | true | false | true",
        "limit-rps | 10 | 20 | x",
        "proxy-body-size | 1m | 0 | big",
        "affinity | cookie | none | cookie",
        "proxy-buffering | on | off | on",
    })
    void aChangedAnnotationIsTranslatedAfreshThoughTheGenerationStays(String annotation, String a, String b, String c) {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        for (String value : List.of(a, b, c)) {
            Object[] all = {service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                annotated("site", SITE, annotation, value)};
            Translation got = translator.translate(Fixtures.inputs(all));
            Translation want = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(all));
            assertThat(got.snapshot(STRAIT).json()).as(value).isEqualTo(want.snapshot(STRAIT).json());
        }
    }

    // source ranges and authentication (ADR 0060)

    private static List<Route.ClientAddresses> clientAddresses(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream())
                .map(Route.Rule::clientAddresses).toList();
    }

    private static List<String> texts(List<dev.strait.model.IpBlock> blocks) {
        return blocks.stream().map(dev.strait.model.IpBlock::text).toList();
    }

    @Test
    void sourceRangesGuardEveryBackendRuleAsNginxReadsThem() {
        Translation t = translate(annotated("site", SITE, "allowlist-source-range", " 10.1.2.3/8, 192.0.2.7 ,,2001:db8::/32",
                "denylist-source-range", "10.9.0.0/16"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(
                "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found");
        List<Route.ClientAddresses> guards = clientAddresses(t);
        assertThat(guards).as("both paths and the defaultBackend (of the host and of *)").hasSize(4)
                .allMatch(guards.get(0)::equals);
        // nginx masks bits past the prefix (with a warning); so does the translation.
        assertThat(texts(guards.get(0).allow())).containsExactly("10.0.0.0/8", "192.0.2.7", "2001:db8:0:0:0:0:0:0/32");
        assertThat(texts(guards.get(0).deny())).containsExactly("10.9.0.0/16");

        // The older name, and the newer one winning where both are given.
        t = translate(annotated("site", SITE, "whitelist-source-range", "192.0.2.0/24"));
        assertThat(clientAddresses(t)).allSatisfy(g -> assertThat(texts(g.allow())).containsExactly("192.0.2.0/24"));
        t = translate(annotated("site", SITE, "whitelist-source-range", "192.0.2.0/24", "allowlist-source-range", "198.51.100.0/24"));
        assertThat(clientAddresses(t)).allSatisfy(g -> assertThat(texts(g.allow())).containsExactly("198.51.100.0/24"));
        assertThat(clientAddresses(translate(annotated("site", SITE, "allowlist-source-range", " , ")))).containsOnlyNulls();
        assertThat(clientAddresses(translate(annotated("site", SITE)))).containsOnlyNulls();
    }

    @Test
    void aRedirectAnswersBeforeAnyGuardAsNginxReturnDoes() {
        Translation t = translate(annotated("site", SITE, "permanent-redirect", "https://new.example.com/",
                "allowlist-source-range", "10.0.0.0/8", "auth-type", "basic"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(actions(t)).containsOnly(new Route.Redirect("https", "new.example.com", 443, full("/"), 301));
        assertThat(clientAddresses(t)).containsOnlyNulls();
    }

    /** Serving these paths without the guard would open them to everyone: 503 until the annotation is removed. */
    @Test
    void aGuardThatCannotBeHonouredIsReportedAndItsPathsAnswer503() {
        String[][] cases = {
            {"allowlist-source-range", "10.0.0.0/8, office",
                "\"office\" is not an IP address or CIDR block (10.0.0.0/8, 192.0.2.7, fd00::/8); the Ingress's paths answer"
                    + " 503 rather than serve every client"},
            {"denylist-source-range", "10.0.0.0/40",
                "\"10.0.0.0/40\": the prefix length must be 0..32; the Ingress's paths answer 503 rather than serve every client"},
            {"auth-type", "digest",
                "\"digest\": Strait authenticates with basic only; the Ingress's paths answer 503 rather than serve them"
                    + " unauthenticated"},
            {"auth-type", "basic",
                "\"basic\" needs metadata.annotations[" + N + "auth-secret]; the Ingress's paths answer 503 rather than"
                    + " serve them unauthenticated"},
            {"auth-url", "https://auth.example.com/verify",
                "\"https://auth.example.com/verify\" is not a Service of the cluster (http(s)://NAME, NAME.NAMESPACE,"
                    + " NAME.NAMESPACE.svc or NAME.NAMESPACE.svc.cluster.local, with an optional port); the Ingress's"
                    + " paths answer 503 rather than serve them unauthenticated"},
        };
        for (String[] c : cases) {
            Translation t = translate(annotated("site", SITE, c[0], c[1]));
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[1]).containsExactly("metadata.annotations[" + N + c[0] + "]: " + c[2]);
            assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(actions(t)).as(c[1]).hasSize(4)
                    .containsOnly(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
        }
        // Client certificates not asked for ("off"): nothing to check (IngressClientValidationTest has the rest).
        Translation t = translate(annotated("site", SITE, "auth-tls-secret", "shop/ca", "auth-tls-verify-client", "off"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(
                "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found");
        assertThat(actions(t)).filteredOn(a -> !a.equals(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1)))))
                .as("/about and the defaultBackends serve").hasSize(3);
    }

    private static List<Route.BasicAuth> basicAuths(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream())
                .map(Route.Rule::basicAuth).toList();
    }

    @Test
    void basicAuthTakesTheSecretsUsersThatCanBeChecked() {
        String users = "alice:$apr1$x$12YdXEY0/hH4rDNkmZupO0\nbob:$2y$13$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a\n";
        Translation t = translate(Fixtures.authSecret("shop", "basic-auth", users), annotated("site", SITE,
                "auth-type", "basic", "auth-secret", "shop/basic-auth", "auth-realm", "Staff only"));
        assertThat(basicAuths(t)).as("both paths and the defaultBackends").hasSize(4)
                .containsOnly(new Route.BasicAuth("Staff only", "alice:$apr1$x$12YdXEY0/hH4rDNkmZupO0\n"));
        // bob's bcrypt line is too costly to check: reported, and bob left out; the rest serves.
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N
                + "auth-secret]: Secret \"basic-auth\" auth line 2: user \"bob\": has bcrypt cost 13; Strait checks costs"
                + " 4 to 12 (a check costs 2^cost key schedules; htpasswd -B uses 5); that user is left out");
    }

    /** auth-secret-type: auth-map reads a Secret with a key per user, the hash its value. */
    @Test
    void anAuthMapSecretIsOneKeyPerUser() {
        io.fabric8.kubernetes.api.model.Secret map = new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata().withNamespace("shop").withName("basic-auth").endMetadata().withType("Opaque")
                .addToData("alice", Fixtures.b64("{PLAIN}x\n")).addToData("bob", Fixtures.b64("abJnggxhB/yWI")).build();
        Translation t = translate(map, annotated("site", SITE, "auth-type", "basic", "auth-secret", "basic-auth",
                "auth-secret-type", "auth-map"));
        assertThat(basicAuths(t)).hasSize(4).containsOnly(new Route.BasicAuth("Restricted", "alice:{PLAIN}x\n"));
        assertThat(ingressReport(t, "shop", "site").errors()).anySatisfy(e -> assertThat(e).startsWith(
                "metadata.annotations[" + N + "auth-secret]: Secret \"basic-auth\" user \"bob\": DES crypt hashes are not"
                        + " checked").endsWith("; that user is left out"));
        t = translate(Fixtures.authSecret("shop", "basic-auth", "alice:{PLAIN}x"), annotated("site", SITE,
                "auth-type", "basic", "auth-secret", "basic-auth", "auth-secret-type", "auth-map"));
        assertThat(ingressReport(t, "shop", "site").errors()).as("an auth-file Secret read as a map: the key auth is"
                + " a user whose hash is the file").isNotEmpty();
        assertThat(actions(t)).containsOnly(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
    }

    @Test
    void basicAuthWithoutItsSecretAnswers503AndNamesTheAnnotation() {
        Translation t = translate(annotated("site", SITE, "auth-type", "basic", "auth-secret", "basic-auth"));
        assertThat(basicAuths(t)).containsOnlyNulls();
        assertThat(actions(t)).hasSize(4)
                .containsOnly(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.errors()).contains("metadata.annotations[" + N + "auth-secret]: Secret \"basic-auth\" not found;"
                + " the rule answers 503");
        for (String[] c : new String[][] {{"auth-secret", "other/basic-auth", "Secret \"basic-auth\" of namespace \"other\""
                        + " not found"},
                {"auth-secret-type", "auth-json", "only auth-file (htpasswd lines in the key auth) and auth-map (a key"
                        + " per user) are read"}}) {
            t = translate(Fixtures.authSecret("shop", "basic-auth", "alice:{PLAIN}x"), annotated("site", SITE,
                    "auth-type", "basic", "auth-secret", "basic-auth", c[0], c[1]));
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[1]).anySatisfy(e -> assertThat(e).contains(c[2]));
            assertThat(actions(t)).as(c[1]).containsOnly(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
        }
    }

    /** A shared htpasswd Secret of another namespace is read once it accepts the Ingress's namespace (ADR 0078). */
    @Test
    void basicAuthFromAnotherNamespacesSecretThatAcceptsIt() {
        io.fabric8.kubernetes.api.model.Secret shared = Fixtures.authSecret("users", "staff", "alice:{PLAIN}x");
        shared.getMetadata().setAnnotations(java.util.Map.of(Consent.ANNOTATION, "*"));
        Translation t = translate(shared, annotated("site", SITE, "auth-type", "basic", "auth-secret", "users/staff"));
        assertThat(basicAuths(t)).hasSize(4).allSatisfy(b -> assertThat(b.htpasswd()).isEqualTo("alice:{PLAIN}x\n"));

        t = translate(Fixtures.authSecret("users", "staff", "alice:{PLAIN}x"),
                annotated("site", SITE, "auth-type", "basic", "auth-secret", "users/staff"));
        assertThat(basicAuths(t)).containsOnlyNulls();
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.errors()).contains("metadata.annotations[" + N + "auth-secret]: Secret \"staff\" of namespace \"users\""
                + " does not accept references from namespace \"shop\": its annotation strait.dev/accept-references-from"
                + " must list \"shop\" (or be \"*\"); the rule answers 503");
        assertThat(r.resolvedRefs().reason()).isEqualTo("RefNotPermitted");
    }

    @Test
    void backendProtocolChoosesHowTheServiceIsSpokenTo() {
        Object[][] cases = {
            {"GRPC", "service.shop.web.80.h2c", dev.strait.model.Upstream.Protocol.H2C, null},
            {"grpcs", "service.shop.web.80.h2", dev.strait.model.Upstream.Protocol.H2, dev.strait.model.Upstream.Tls.UNVERIFIED},
            {"HTTPS", "service.shop.web.80.https", dev.strait.model.Upstream.Protocol.HTTP1, dev.strait.model.Upstream.Tls.UNVERIFIED},
            {"AUTO_HTTP", "service.shop.web.80", dev.strait.model.Upstream.Protocol.HTTP1, null},
        };
        for (Object[] c : cases) {
            Translation t = translate(annotated("site", SITE, "backend-protocol", (String) c[0]));
            var upstreams = t.snapshot(STRAIT).config().upstreams().stream()
                    .filter(u -> u.name().startsWith("service.shop.web.")).toList();
            assertThat(upstreams).as((String) c[0]).singleElement().satisfies(u -> {
                assertThat(u.name()).isEqualTo(c[1]);
                assertThat(u.protocol()).isEqualTo(c[2]);
                assertThat(u.tls()).isEqualTo(c[3]);
            });
        }
        for (String bad : new String[] {"FCGI", "SOAP"}) {
            Translation t = translate(annotated("site", SITE, "backend-protocol", bad));
            assertThat(ingressReport(t, "shop", "site").errors()).as(bad)
                    .anySatisfy(e -> assertThat(e).startsWith("metadata.annotations[" + N + "backend-protocol]: \"" + bad + "\""));
            assertThat(actions(t)).containsOnly(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
        }
    }

    @Test
    void upstreamVhostAndTimeoutsGoOnEveryBackendRule() {
        Translation t = translate(annotated("site", SITE, "upstream-vhost", "internal.example.com:8080",
                "proxy-read-timeout", "3600", "proxy-send-timeout", "120"));
        assertThat(rules(t)).hasSize(4).allSatisfy(r -> {
            assertThat(r.hostRewrite()).isEqualTo("internal.example.com:8080");
            assertThat(r.timeouts().idle()).isEqualTo(java.time.Duration.ofHours(1));
        });
        assertThat(ingressReport(t, "shop", "site").errors()).noneMatch(e -> e.contains("annotations"));

        // A timeout that is no number is reported and the default kept; the paths serve.
        t = translate(annotated("site", SITE, "proxy-read-timeout", "1h"));
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N
                + "proxy-read-timeout]: \"1h\" is not a number of seconds above 0; the default 60s applies");
        assertThat(ingressReport(t, "shop", "site").resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.timeouts()).isNull());
        assertThat(actions(t)).contains(new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1))));

        // A vhost with nginx variables cannot be expressed: 503.
        t = translate(annotated("site", SITE, "upstream-vhost", "$host"));
        assertThat(actions(t)).containsOnly(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
    }

    @Test
    void appRootRedirectsTheRootOnly() {
        Translation t = translate(annotated("site", SITE, "app-root", "/app1"));
        Route.Rule first = t.snapshot(STRAIT).config().routes().get(0).rules().get(0);
        assertThat(first.matches()).containsExactly(new Route.Match(new Route.PathMatch(Route.PathType.Exact, "/"), null, List.of()));
        assertThat(first.action()).isEqualTo(new Route.Redirect(null, null, null, full("/app1"), 302));
        assertThat(ingressReport(t, "shop", "site").errors()).noneMatch(e -> e.contains("annotations"));
        t = translate(annotated("site", SITE, "app-root", "app1"));
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N
                + "app-root]: \"app1\" is not a path starting with /; it is not applied");
        assertThat(actions(t)).noneMatch(a -> a instanceof Route.Redirect);
    }

    /** ADR 0064: ingress-nginx's request limits as every backend rule's rateLimit. */
    @Test
    void requestLimitsBecomeRateLimits() {
        Translation t = translate(annotated("site", SITE, "limit-rps", "10", "limit-whitelist", "10.0.0.0/8"));
        assertThat(rules(t)).hasSize(4).allSatisfy(r -> assertThat(r.rateLimit()).isEqualTo(new Route.RateLimit(10,
                java.time.Duration.ofSeconds(1), 50, List.of(dev.strait.model.IpBlock.parse("10.0.0.0/8")))));
        t = translate(annotated("site", SITE, "limit-rpm", "120", "limit-burst-multiplier", "2", "limit-connections", "5"));
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.rateLimit())
                .isEqualTo(new Route.RateLimit(120, java.time.Duration.ofMinutes(1), 240, List.of())));
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.inFlightLimit()).isEqualTo(new Route.InFlightLimit(5, List.of())));
        assertThat(ingressReport(t, "shop", "site").errors()).noneMatch(e -> e.contains("limit-connections"));
        t = translate(annotated("site", SITE, "limit-connections", "10", "limit-whitelist", "10.0.0.0/8"));
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.inFlightLimit()).isEqualTo(new Route.InFlightLimit(10,
                List.of(dev.strait.model.IpBlock.parse("10.0.0.0/8")))));
        t = translate(annotated("site", SITE, "limit-connections", "many"));
        assertThat(actions(t)).containsOnly(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
        // A limit that cannot be read is not dropped unseen: 503.
        t = translate(annotated("site", SITE, "limit-rps", "ten"));
        assertThat(actions(t)).containsOnly(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
    }

    /** proxy-body-size as every backend rule's maxBodyBytes, in nginx's units; 0 is no limit, as in nginx. */
    @Test
    void proxyBodySizeBecomesEachRulesBodyLimit() {
        assertThat(rules(translate(annotated("site", SITE, "proxy-body-size", "8m"))))
                .hasSize(4).allSatisfy(r -> assertThat(r.maxBodyBytes()).isEqualTo(8L << 20));
        assertThat(rules(translate(annotated("site", SITE, "proxy-body-size", "2G"))))
                .allSatisfy(r -> assertThat(r.maxBodyBytes()).isEqualTo(2L << 30));
        assertThat(rules(translate(annotated("site", SITE, "proxy-body-size", "1500"))))
                .allSatisfy(r -> assertThat(r.maxBodyBytes()).isEqualTo(1500L));
        assertThat(rules(translate(annotated("site", SITE, "proxy-body-size", "0"))))
                .allSatisfy(r -> assertThat(r.maxBodyBytes()).isEqualTo(Long.MAX_VALUE));
        assertThat(rules(translate(annotated("site", SITE, "proxy-body-size", "99999999999999999g"))))
                .as("past the largest long").allSatisfy(r -> assertThat(r.maxBodyBytes()).isEqualTo(Long.MAX_VALUE));
        assertThat(rules(translate(annotated("site", SITE)))).allSatisfy(r -> assertThat(r.maxBodyBytes()).isNull());
        Translation t = translate(annotated("site", SITE, "proxy-body-size", "10mb"));
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.maxBodyBytes()).isNull());
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N
                + "proxy-body-size]: \"10mb\" is not a size (bytes, or a number with k, m or g); the proxy's"
                + " limits.maxBodyBytes applies");
    }

    /** affinity: cookie as sticky Service upstreams: a consistent hash on the cookie, which the proxy sets. */
    @Test
    void cookieAffinityBecomesStickyServiceUpstreams() {
        String spec = """
                ingressClassName: strait
                defaultBackend: { service: { name: web, port: { number: 80 } } }
                rules:
                  - host: shop.example.com
                    http:
                      paths:
                        - { path: /shop, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
                        - { path: /about, pathType: Exact, backend: { service: { name: web, port: { number: 80 } } } }
                """;
        Translation t = translate(annotated("site", spec, "affinity", "cookie", "session-cookie-max-age", "172800"));
        List<dev.strait.model.Upstream> sticky = t.snapshot(STRAIT).config().upstreams().stream()
                .filter(u -> u.name().startsWith("service.shop.web.80.sticky-")).toList();
        java.time.Duration twoDays = java.time.Duration.ofHours(48);
        assertThat(sticky).extracting(dev.strait.model.Upstream::hashOn).as("the cookie's path is each path's own")
                .containsExactlyInAnyOrder(
                        new dev.strait.model.Upstream.HashOn(dev.strait.model.Upstream.HashSource.COOKIE, "INGRESSCOOKIE",
                                new dev.strait.model.Upstream.SetCookie("/shop", twoDays)),
                        new dev.strait.model.Upstream.HashOn(dev.strait.model.Upstream.HashSource.COOKIE, "INGRESSCOOKIE",
                                new dev.strait.model.Upstream.SetCookie("/about", twoDays)),
                        new dev.strait.model.Upstream.HashOn(dev.strait.model.Upstream.HashSource.COOKIE, "INGRESSCOOKIE",
                                new dev.strait.model.Upstream.SetCookie("/", twoDays)));
        assertThat(sticky).allSatisfy(u -> {
            assertThat(u.loadBalancer()).isEqualTo(dev.strait.model.Upstream.LoadBalancer.CONSISTENT_HASH);
            assertThat(u.endpoints()).containsExactly(new dev.strait.model.HostPort("10.0.0.1", 8080));
        });
        assertThat(actions(t)).allSatisfy(a -> assertThat(((Route.Backends) a).backends())
                .allSatisfy(b -> assertThat(b.upstream()).startsWith("service.shop.web.80.sticky-")));

        t = translate(annotated("site", spec, "affinity", "cookie", "session-cookie-name", "route",
                "session-cookie-path", "/", "affinity-mode", "persistent", "session-cookie-samesite", "strict",
                "session-cookie-change-on-failure", "true"));
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(dev.strait.model.Upstream::hashOn)
                .as("one cookie for every path").containsOnlyOnce(new dev.strait.model.Upstream.HashOn(
                        dev.strait.model.Upstream.HashSource.COOKIE, "route",
                        new dev.strait.model.Upstream.SetCookie("/", null, "Strict", true, null, false, true)));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        t = translate(annotated("site", spec, "affinity", "cookie", "session-cookie-samesite", "Sometimes"));
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N
                + "session-cookie-samesite]: \"Sometimes\" is not Strict, Lax or None; the cookie has no SameSite"
                + " (browsers treat it as Lax)");

        t = translate(annotated("site", spec, "affinity", "ip"));
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(dev.strait.model.Upstream::hashOn).containsOnlyNulls();
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N
                + "affinity]: \"ip\" is not an affinity Strait has (cookie); it is not applied");
    }

    /**
     * An Ingress with only a defaultBackend has no path of a host to carry its report: what its annotations say is
     * reported all the same (it was lost once), and the catch-all serves.
     */
    @Test
    void anIngressWithOnlyADefaultBackendReportsItsAnnotations() {
        String spec = """
                ingressClassName: strait
                defaultBackend: { service: { name: web, port: { number: 80 } } }
                """;
        Translation t = translate(annotated("site", spec, "limit-rate", "abc", "proxy-buffering", "on"));
        ResourceReport r = ingressReport(t, "shop", "site");
        assertThat(r.errors()).containsExactlyInAnyOrder(
                "metadata.annotations[" + N + "limit-rate]: \"abc\" is not a whole number of kilobytes; not applied",
                "metadata.annotations[" + N + "proxy-buffering]: \"on\" is not applied: Strait streams answers to clients as"
                        + " they come, as nginx with proxy_buffering off (a slow client pauses the backend)");
        assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
        assertThat(actions(t)).singleElement().isInstanceOf(Route.Backends.class);
    }

    /** One Ingress path, /shop on shop.example.com, to the Service web. */
    private static final String ONE_SHOP_PATH = """
            ingressClassName: strait
            rules:
              - host: shop.example.com
                http:
                  paths:
                    - { path: /shop, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
            """;

    /**
     * Without session-cookie-path each path's cookie has that path's Path: the cookie's other settings go with it
     * (SameSite and change-on-failure were dropped there once).
     */
    @Test
    void eachPathsCookieKeepsTheOtherCookieSettings() {
        String spec = ONE_SHOP_PATH;
        Translation t = translate(annotated("site", spec, "affinity", "cookie", "session-cookie-samesite", "None",
                "session-cookie-change-on-failure", "true"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(dev.strait.model.Upstream::hashOn)
                .containsOnlyOnce(new dev.strait.model.Upstream.HashOn(dev.strait.model.Upstream.HashSource.COOKIE,
                        "INGRESSCOOKIE", new dev.strait.model.Upstream.SetCookie("/shop", null, "None", true)));
    }

    /**
     * affinity-mode: persistent makes a cookie that names the endpoint, an upstream of its own; balanced (the default)
     * is what it was; another value is a warning and balanced is used, the path serving all the same.
     */
    @Test
    void affinityModePersistentNamesTheEndpoint() {
        java.util.function.Function<Translation, dev.strait.model.Upstream> sticky = t -> {
            List<dev.strait.model.Upstream> made = t.snapshot(STRAIT).config().upstreams().stream()
                    .filter(u -> u.name().startsWith("service.shop.web.80.sticky-")).toList();
            assertThat(made).hasSize(1);
            return made.get(0);
        };
        Translation t = translate(annotated("site", ONE_SHOP_PATH, "affinity", "cookie"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        dev.strait.model.Upstream absent = sticky.apply(t);
        assertThat(absent.hashOn().setCookie().persistent()).isFalse();

        t = translate(annotated("site", ONE_SHOP_PATH, "affinity", "cookie", "affinity-mode", "persistent"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        dev.strait.model.Upstream persistent = sticky.apply(t);
        assertThat(persistent.hashOn()).isEqualTo(new dev.strait.model.Upstream.HashOn(
                dev.strait.model.Upstream.HashSource.COOKIE, "INGRESSCOOKIE",
                new dev.strait.model.Upstream.SetCookie("/shop", null, null, false, null, false, true)));
        assertThat(persistent.name()).as("a ring of its own").isNotEqualTo(absent.name());
        assertThat(actions(t)).singleElement().satisfies(a -> assertThat(((Route.Backends) a).backends())
                .singleElement().satisfies(b -> assertThat(b.upstream()).isEqualTo(persistent.name())));

        t = translate(annotated("site", ONE_SHOP_PATH, "affinity", "cookie", "affinity-mode", " balanced "));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(sticky.apply(t)).as("balanced is the default, its upstream the same").isEqualTo(absent);

        t = translate(annotated("site", ONE_SHOP_PATH, "affinity", "cookie", "affinity-mode", "sticky"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly("metadata.annotations[" + N
                + "affinity-mode]: \"sticky\" is neither balanced nor persistent; balanced is used");
        assertThat(sticky.apply(t)).isEqualTo(absent);
        assertThat(actions(t)).singleElement().isInstanceOf(Route.Backends.class);
    }

    /**
     * session-cookie-domain and session-cookie-secure: the cookie's Domain, and Secure over plain http too; a value
     * that cannot be read is a warning and the default applies (no Domain; Secure on https only).
     */
    @Test
    void sessionCookieDomainAndSecureShapeTheCookie() {
        String spec = ONE_SHOP_PATH;
        java.util.function.Function<Translation, dev.strait.model.Upstream.SetCookie> cookie = t -> {
            List<dev.strait.model.Upstream> sticky = t.snapshot(STRAIT).config().upstreams().stream()
                    .filter(u -> u.name().startsWith("service.shop.web.80.sticky-")).toList();
            assertThat(sticky).hasSize(1);
            return sticky.get(0).hashOn().setCookie();
        };
        Translation t = translate(annotated("site", spec, "affinity", "cookie", "session-cookie-domain", " .example.com ",
                "session-cookie-secure", "true"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(cookie.apply(t)).as("each path's cookie, its Path that path's")
                .isEqualTo(new dev.strait.model.Upstream.SetCookie("/shop", null, null, false, ".example.com", true));
        String both = t.snapshot(STRAIT).config().upstreams().stream().map(dev.strait.model.Upstream::name)
                .filter(n -> n.contains(".sticky-")).findFirst().orElseThrow();

        t = translate(annotated("site", spec, "affinity", "cookie", "session-cookie-path", "/",
                "session-cookie-domain", "example.com", "session-cookie-secure", "false"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(cookie.apply(t)).as("false: Secure on https only, ingress-nginx's default")
                .isEqualTo(new dev.strait.model.Upstream.SetCookie("/", null, null, false, "example.com", false));

        t = translate(annotated("site", spec, "affinity", "cookie", "session-cookie-domain", "10.0.0.1",
                "session-cookie-secure", "always"));
        assertThat(cookie.apply(t)).isEqualTo(new dev.strait.model.Upstream.SetCookie("/shop", null));
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(dev.strait.model.Upstream::name)
                .as("other settings, another upstream").doesNotContain(both);
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(
                "metadata.annotations[" + N + "session-cookie-domain]: \"10.0.0.1\" is an IP address; browsers ignore"
                        + " Domain for addresses (leave it out: the cookie then goes back to the address that set it);"
                        + " the cookie has no Domain",
                "metadata.annotations[" + N + "session-cookie-secure]: \"always\" is neither true nor false; it has no"
                        + " effect");
        t = translate(annotated("site", spec, "affinity", "cookie", "session-cookie-domain", "example.com; Secure"));
        assertThat(cookie.apply(t).domain()).isNull();
        assertThat(ingressReport(t, "shop", "site").errors()).singleElement().asString()
                .startsWith("metadata.annotations[" + N + "session-cookie-domain]: \"example.com; Secure\" is not a"
                        + " domain");
    }

    /** load-balance, upstream-hash-by and proxy-connect-timeout choose the upstream made for each Service backend. */
    @Test
    void balancingAnnotationsShapeTheServiceUpstreams() {
        String spec = """
                ingressClassName: strait
                rules:
                  - host: shop.example.com
                    http:
                      paths:
                        - { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
                """;
        java.util.function.Function<Translation, dev.strait.model.Upstream> web = t -> {
            List<dev.strait.model.Upstream> made = t.snapshot(STRAIT).config().upstreams().stream()
                    .filter(u -> u.name().startsWith("service.shop.web.80")).toList();
            assertThat(made).hasSize(1);
            return made.get(0);
        };
        Translation t = translate(annotated("site", spec, "load-balance", "ewma", "proxy-connect-timeout", "2"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(web.apply(t).loadBalancer()).isEqualTo(dev.strait.model.Upstream.LoadBalancer.LEAST_REQUEST);
        assertThat(web.apply(t).pool().connectTimeout()).isEqualTo(java.time.Duration.ofSeconds(2));
        String balanced = web.apply(t).name();
        assertThat(balanced).startsWith("service.shop.web.80.balanced-");
        assertThat(actions(t)).allSatisfy(a -> assertThat(((Route.Backends) a).backends())
                .allSatisfy(b -> assertThat(b.upstream()).isEqualTo(balanced)));

        assertThat(web.apply(translate(annotated("site", spec, "upstream-hash-by", "$http_x_user_id"))).hashOn())
                .isEqualTo(new dev.strait.model.Upstream.HashOn(dev.strait.model.Upstream.HashSource.HEADER, "x-user-id"));
        assertThat(web.apply(translate(annotated("site", spec, "upstream-hash-by", "$cookie_sid", "load-balance",
                "round_robin"))).hashOn()).as("the hash wins over load-balance, as in ingress-nginx")
                .isEqualTo(new dev.strait.model.Upstream.HashOn(dev.strait.model.Upstream.HashSource.COOKIE, "sid"));
        dev.strait.model.Upstream byClient = web.apply(translate(annotated("site", spec, "upstream-hash-by", "$binary_remote_addr")));
        assertThat(byClient.loadBalancer()).isEqualTo(dev.strait.model.Upstream.LoadBalancer.CONSISTENT_HASH);
        assertThat(byClient.hashOn()).isEqualTo(dev.strait.model.Upstream.HashOn.CLIENT_ADDRESS);

        assertThat(web.apply(translate(annotated("site", spec, "upstream-hash-by", "$request_uri"))).hashOn())
                .isEqualTo(new dev.strait.model.Upstream.HashOn(dev.strait.model.Upstream.HashSource.URI, null));
        assertThat(web.apply(translate(annotated("site", spec, "upstream-hash-by", "${uri}"))).hashOn())
                .isEqualTo(new dev.strait.model.Upstream.HashOn(dev.strait.model.Upstream.HashSource.PATH, null));
        assertThat(web.apply(translate(annotated("site", spec, "upstream-hash-by", "$arg_tenant"))).hashOn())
                .isEqualTo(new dev.strait.model.Upstream.HashOn(dev.strait.model.Upstream.HashSource.QUERY, "tenant"));

        // Several variables: each a part of the key, in order; text around them is not hashed.
        t = translate(annotated("site", spec, "upstream-hash-by", "$host$request_uri"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(web.apply(t).hashOn()).isEqualTo(new dev.strait.model.Upstream.HashOn(
                dev.strait.model.Upstream.HashSource.HEADER, "host", null, List.of(new dev.strait.model.Upstream.HashPart(
                        dev.strait.model.Upstream.HashSource.URI, null))));
        String hostAndUri = web.apply(t).name();
        dev.strait.model.Upstream spaced = web.apply(translate(annotated("site", spec, "upstream-hash-by",
                "${remote_addr}-$http_x_tenant:$arg_page")));
        assertThat(spaced.hashOn()).isEqualTo(new dev.strait.model.Upstream.HashOn(
                dev.strait.model.Upstream.HashSource.CLIENT_ADDRESS, null, null, List.of(
                        new dev.strait.model.Upstream.HashPart(dev.strait.model.Upstream.HashSource.HEADER, "x-tenant"),
                        new dev.strait.model.Upstream.HashPart(dev.strait.model.Upstream.HashSource.QUERY, "page"))));
        assertThat(spaced.name()).as("an upstream per key").isNotEqualTo(hostAndUri)
                .isNotEqualTo(web.apply(translate(annotated("site", spec, "upstream-hash-by", "$host"))).name());

        t = translate(annotated("site", spec, "upstream-hash-by", "$request_uri$server_name", "load-balance", "random",
                "proxy-connect-timeout", "5s"));
        assertThat(web.apply(t).name()).as("nothing applied: the plain upstream").isEqualTo("service.shop.web.80");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(
                "metadata.annotations[" + N + "upstream-hash-by]: \"$request_uri$server_name\" has $server_name, not one"
                        + " of the variables Strait can hash on ($remote_addr, $host, $http_NAME, $cookie_NAME, $arg_NAME,"
                        + " $request_uri, $uri); it is not applied",
                "metadata.annotations[" + N + "load-balance]: \"random\" is not round_robin or ewma; round robin applies",
                "metadata.annotations[" + N + "proxy-connect-timeout]: \"5s\" is not a number of seconds above 0; the"
                        + " default 5s applies");

        io.fabric8.kubernetes.api.model.Service web2 = service("shop", "web", "http:80");
        web2.getSpec().setClusterIP("10.96.0.9");
        t = Fixtures.translate(web2, slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                annotated("site", spec, "service-upstream", "true"));
        assertThat(ingressReport(t, "shop", "site").errors()).isEmpty();
        assertThat(web.apply(t).endpoints()).containsExactly(new dev.strait.model.HostPort("10.96.0.9", 80));

        t = translate(annotated("site", spec, "upstream-hash-by", "route"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly("metadata.annotations[" + N
                + "upstream-hash-by]: \"route\" names no variable (every request would go to one endpoint); it is not"
                + " applied");

        t = translate(annotated("site", spec, "affinity", "cookie", "upstream-hash-by", "$remote_addr"));
        assertThat(web.apply(t).name()).startsWith("service.shop.web.80.sticky-");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly("metadata.annotations[" + N
                + "upstream-hash-by]: not applied: affinity: cookie decides where requests go, as in ingress-nginx");
    }

    /** enable-access-log: "false" keeps every request of the Ingress out of the access log. */
    @Test
    void enableAccessLogFalseTurnsTheIngresssRulesOff() {
        assertThat(rules(translate(annotated("site", SITE, "enable-access-log", "false", "force-ssl-redirect", "true"))))
                .hasSizeGreaterThan(3).allSatisfy(r -> assertThat(r.accessLog()).isFalse());
        assertThat(rules(translate(annotated("site", SITE, "enable-access-log", "true"))))
                .allSatisfy(r -> assertThat(r.accessLog()).isTrue());
    }

    /** satisfy: any with a source range and basic auth: either admits. */
    @Test
    void satisfyAnyJoinsTheSourceRangeAndBasicAuth() {
        Object secret = Fixtures.authSecret("shop", "basic-auth", "alice:{PLAIN}x");
        Translation t = translate(secret, annotated("site", SITE, "whitelist-source-range", "10.0.0.0/8",
                "auth-type", "basic", "auth-secret", "basic-auth", "satisfy", "any"));
        assertThat(rules(t)).filteredOn(r -> r.basicAuth() != null).hasSize(4)
                .allSatisfy(r -> assertThat(r.satisfy()).isEqualTo(Route.Satisfy.ANY));
        t = translate(annotated("site", SITE, "whitelist-source-range", "10.0.0.0/8", "satisfy", "any"));
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.satisfy()).isEqualTo(Route.Satisfy.ALL));
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N + "satisfy]: \"any\""
                + " chooses between a source range and auth-type: basic; the Ingress has not both, so it changes nothing");
    }

    /** default-backend serves the paths whose Service is missing or has no ready endpoint. */
    @Test
    void theDefaultBackendAnnotationServesPathsWithoutEndpoints() {
        Object errorsSvc = service("shop", "errors", "http:8080");
        Object errorsSlice = slice("shop", "errors", "errors-1", "http", 9000, "10.0.0.9");
        java.util.function.Function<Translation, List<String>> upstreams = t -> t.snapshot(STRAIT).config().routes()
                .stream().flatMap(r -> r.rules().stream()).map(r -> ((Route.Backends) r.action()).backends().get(0).upstream())
                .toList();
        Translation t = translate(errorsSvc, errorsSlice, annotated("site", SITE, "default-backend", "errors"));
        assertThat(upstreams.apply(t)).as("/shop's Service is missing; /about and both defaultBackend Routes have web's pod")
                .containsExactly("service.shop.errors.8080", "service.shop.web.80", "service.shop.web.80", "service.shop.web.80");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly("spec.rules[0].http.paths[0].backend"
                + ".service.name: Service \"gone\" not found; metadata.annotations[" + N + "default-backend] serves the path");

        t = Fixtures.translate(service("shop", "web", "http:80"), errorsSvc, errorsSlice,
                annotated("site", SITE, "default-backend", "errors"));
        assertThat(upstreams.apply(t)).as("web has no ready endpoint").containsOnly("service.shop.errors.8080");
        t = Fixtures.translate(service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                errorsSvc, errorsSlice, annotated("site", SITE, "default-backend", "errors"));
        assertThat(upstreams.apply(t)).as("back once it has one").endsWith("service.shop.web.80", "service.shop.web.80");

        t = translate(errorsSvc, errorsSlice, annotated("site", SITE, "default-backend", "errors", "custom-http-errors",
                "503, 404,abc,302"));
        assertThat(rules(t)).filteredOn(r -> r.action() instanceof Route.Backends).allSatisfy(r -> assertThat(r.errorPages())
                .isEqualTo(new Route.ErrorPages(List.of(404, 503), "service.shop.errors.8080", "/")));
        assertThat(ingressReport(t, "shop", "site").errors()).contains(
                "metadata.annotations[" + N + "custom-http-errors]: \"abc\" is not a status from 400 to 599; it is left out",
                "metadata.annotations[" + N + "custom-http-errors]: \"302\" is not a status from 400 to 599; it is left out");
        t = translate(annotated("site", SITE, "custom-http-errors", "404"));
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.errorPages()).isNull());
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N + "custom-http-errors]:"
                + " needs metadata.annotations[" + N + "default-backend] to serve the pages (Strait has no cluster-wide"
                + " default backend); it is not applied");

        t = translate(annotated("site", SITE, "default-backend", "nope"));
        assertThat(upstreams.apply(t)).first().isEqualTo(Translator.UNRESOLVED);
        assertThat(ingressReport(t, "shop", "site").errors()).contains(
                "metadata.annotations[" + N + "default-backend]: Service \"nope\" not found");
    }

    /** An ingress-nginx annotation Strait does not read is said, so a migration sees what has no effect. */
    @Test
    void annotationsNotReadAreReportedAndThePathsServe() {
        Translation t = translate(annotated("site", SITE, "proxy-buffering", "on", "server-snippet",
                "more_set_headers \"X-A: b\";", "ssl-redirect", "false"));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(
                "metadata.annotations[" + N + "server-snippet]: nginx configuration is never read by Strait; it is"
                        + " not applied (rules take requestHeaders, responseHeaders and the other settings of docs/config.md)",
                "metadata.annotations[" + N + "proxy-buffering]: \"on\" is not applied: Strait streams answers to clients as"
                        + " they come, as nginx with proxy_buffering off (a slow client pauses the backend)",
                "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found");
        assertThat(actions(t)).contains(new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1))));
    }

    /**
     * nginx tuning Strait's proxying makes moot, as manifests for ingress-nginx often set it: no warning for what Strait
     * does anyway, a warning naming what it does for anything else.
     */
    @Test
    void mootTuningIsQuietWhereStraitDoesItAnywayAndSaidOtherwise() {
        Translation quiet = translate(annotated("site", SITE, "proxy-http-version", "1.1", "proxy-buffering", "off",
                "proxy-buffer-size", "16k", "proxy-buffers-number", "8", "proxy-max-temp-file-size", "0",
                "auth-keepalive", "10", "auth-keepalive-requests", "1000", "auth-keepalive-timeout", "60"));
        assertThat(ingressReport(quiet, "shop", "site").errors()).containsExactly(
                "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found");
        Translation said = translate(annotated("site", SITE, "proxy-http-version", "1.0", "proxy-buffer-size", "128k"));
        assertThat(ingressReport(said, "shop", "site").errors()).containsExactlyInAnyOrder(
                "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found",
                "metadata.annotations[" + N + "proxy-http-version]: \"1.0\" is not applied: Strait speaks HTTP/1.1 to"
                        + " backends (HTTP/2 with backend-protocol GRPC or GRPCS), keeping connections alive",
                "metadata.annotations[" + N + "proxy-buffer-size]: \"128k\" is not applied: Strait takes answer heads of"
                        + " up to 64k from backends (larger ones are a 502), whatever this says");
        assertThat(actions(said)).contains(new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1))));
    }

    /** proxy-next-upstream and its tries as every backend rule's retries; tries count the first one. */
    @Test
    void nextUpstreamBecomesRetries() {
        assertThat(rules(translate(annotated("site", SITE, "proxy-next-upstream", "error timeout http_503"))))
                .hasSize(4).allSatisfy(r -> assertThat(r.retries()).isEqualTo(new Route.Retries(2,
                        List.of("connect-failure", "refused-stream", "reset", "timeout", "503"), null)));
        assertThat(rules(translate(annotated("site", SITE, "proxy-next-upstream-tries", "1"))))
                .allSatisfy(r -> assertThat(r.retries()).isEqualTo(new Route.Retries(0,
                        List.of("connect-failure", "refused-stream", "reset", "timeout"), null)));
        assertThat(rules(translate(annotated("site", SITE, "proxy-next-upstream", "off"))))
                .allSatisfy(r -> assertThat(r.retries().attempts()).isZero());
        Translation t = translate(annotated("site", SITE, "proxy-next-upstream", "error non_idempotent"));
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.retries().retryOn())
                .containsExactly("connect-failure", "refused-stream", "reset"));
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N
                + "proxy-next-upstream]: \"non_idempotent\" is not applied (Strait retries idempotent requests only, and a"
                + " bad header is a 502)");
        assertThat(rules(translate(annotated("site", SITE)))).allSatisfy(r -> assertThat(r.retries()).isNull());
    }

    /** x-forwarded-prefix as every backend rule's requestHeaders. */
    @Test
    void xForwardedPrefixIsSetUpstream() {
        assertThat(rules(translate(annotated("site", SITE, "x-forwarded-prefix", "/shop")))).hasSize(4)
                .allSatisfy(r -> assertThat(r.requestHeaders()).isEqualTo(new Route.HeaderEdits(
                        Map.of("x-forwarded-prefix", "/shop"), Map.of(), List.of())));
        Translation t = translate(annotated("site", SITE, "x-forwarded-prefix", "/a\nb"));
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.requestHeaders()).isNull());
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N
                + "x-forwarded-prefix]: holds control characters or is longer than 1024; it is not applied");
    }

    /** ADR 0065: enable-cors and its settings as every backend rule's cors. */
    @Test
    void enableCorsBecomesCors() {
        Translation t = translate(annotated("site", SITE, "enable-cors", "true"));
        assertThat(rules(t)).hasSize(4).allSatisfy(r -> assertThat(r.cors()).isEqualTo(new Route.Cors(List.of("*"),
                Route.Cors.DEFAULT_METHODS, Route.Cors.DEFAULT_HEADERS, List.of(), true, Route.Cors.DEFAULT_MAX_AGE)));
        t = translate(annotated("site", SITE, "enable-cors", "true", "cors-allow-origin",
                "https://App.example.com, https://*.example.org, not an origin", "cors-allow-methods", "GET, POST",
                "cors-allow-headers", "X-Token", "cors-expose-headers", "X-Total", "cors-allow-credentials", "false",
                "cors-max-age", "600"));
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.cors()).isEqualTo(new Route.Cors(
                List.of("https://app.example.com", "https://*.example.org"), List.of("GET", "POST"), List.of("X-Token"),
                List.of("X-Total"), false, java.time.Duration.ofMinutes(10))));
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N
                + "cors-allow-origin]: \"not an origin\" is not an origin; it is left out");
        // Nothing left of the origins asked for: no CORS rather than every origin.
        t = translate(annotated("site", SITE, "enable-cors", "true", "cors-allow-origin", "nope"));
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.cors()).isNull());
        assertThat(rules(translate(annotated("site", SITE, "cors-allow-origin", "https://a.example.com"))))
                .as("without enable-cors").allSatisfy(r -> assertThat(r.cors()).isNull());
    }

    /**
     * {@code primary} and a canary Ingress (annotated {@code canary: "true"} and {@code annotations}) of its
     * {@code /about} and of {@code /nowhere}, which no Ingress serves, to the Service web-canary.
     */
    static Translation withCanary(Ingress primary, String... annotations) {
        Ingress canary = Fixtures.ingress("shop", "site-canary", 0, """
                ingressClassName: strait
                rules:
                  - host: old.example.com
                    http:
                      paths:
                        - { path: /about, pathType: Exact, backend: { service: { name: web-canary, port: { number: 80 } } } }
                        - { path: /nowhere, pathType: Prefix, backend: { service: { name: web-canary, port: { number: 80 } } } }
                """);
        Map<String, String> a = new LinkedHashMap<>();
        a.put(N + "canary", "true");
        for (int i = 0; i < annotations.length; i += 2) {
            a.put(N + annotations[i], annotations[i + 1]);
        }
        canary.getMetadata().setAnnotations(a);
        return translate(primary, canary, service("shop", "web-canary", "http:80"),
                slice("shop", "web-canary", "web-canary-1", "http", 8080, "10.0.0.2"));
    }

    /** ADR 0063: a canary's paths split the same host and path of the Ingress that serves them. */
    @Test
    void aCanaryIngressSplitsItsPrimarysPathsByWeightAndHeader() {
        Translation t = withCanary(annotated("site", SITE), "canary-weight", "20", "canary-by-header", "X-Canary",
                "canary-by-cookie", "use_canary");
        Route primary = t.snapshot(STRAIT).config().routes().stream()
                .filter(r -> r.name().equals("shop.site..ingress-0")).findFirst().orElseThrow();
        Route.Match about = new Route.Match(new Route.PathMatch(Route.PathType.Exact, "/about"), null, List.of());
        Route.Backends web = new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1)));
        Route.Backends webCanary = new Route.Backends(List.of(new Route.Backend("service.shop.web-canary.80", 1)));
        assertThat(primary.rules()).extracting(Route.Rule::matches, Route.Rule::action).contains(
                tuple(List.of(about), new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 80),
                        new Route.Backend("service.shop.web-canary.80", 20)))),
                tuple(List.of(new Route.Match(about.path(), null, List.of(new Route.HeaderMatch("X-Canary", "always")))), webCanary),
                tuple(List.of(new Route.Match(about.path(), null, List.of(new Route.HeaderMatch("X-Canary", "never")))), web),
                tuple(List.of(new Route.Match(about.path(), null, List.of(), List.of(new Route.CookieMatch("use_canary", "always")))),
                        webCanary),
                tuple(List.of(new Route.Match(about.path(), null, List.of(), List.of(new Route.CookieMatch("use_canary", "never")))),
                        web));
        assertThat(t.snapshot(STRAIT).config().upstreams()).extracting(dev.strait.model.Upstream::name)
                .contains("service.shop.web-canary.80");
        assertThat(t.snapshot(STRAIT).config().routes()).extracting(Route::name).noneMatch(n -> n.contains("site-canary"));

        ResourceReport r = ingressReport(t, "shop", "site-canary");
        assertThat(r.errors()).containsExactly("no Ingress of its class serves old.example.com /nowhere (Prefix): nothing to split");
        assertThat(r.resolvedRefs().reason()).isEqualTo("NoPrimary");
        assertThat(r.inSnapshot()).as("it split /about").isTrue();
        assertThat(ingressReport(t, "shop", "site").errors()).noneMatch(e -> e.contains("conflict"));

        // All of it: the primary's backend gets none.
        t = withCanary(annotated("site", SITE), "canary-weight", "100");
        assertThat(t.snapshot(STRAIT).config().routes().stream().flatMap(x -> x.rules().stream())
                .filter(x -> x.matches().equals(List.of(about))).map(Route.Rule::action)).containsExactly(
                        new Route.Backends(List.of(new Route.Backend("service.shop.web-canary.80", 100))));
    }


    /** canary-by-header-pattern: ingress-nginx searches the field's value; Strait matches it whole, so it is wrapped. */
    @Test
    void aCanaryByHeaderPatternBecomesARegularExpressionHeaderRule() {
        Translation t = withCanary(annotated("site", SITE, "proxy-body-size", "5m"), "canary-by-header", "X-Region",
                "canary-by-header-pattern", "^(eu|us)-west");
        Route.Match about = new Route.Match(new Route.PathMatch(Route.PathType.Exact, "/about"), null, List.of());
        assertThat(t.snapshot(STRAIT).config().routes().stream().flatMap(x -> x.rules().stream())
                .filter(x -> about.path().equals(x.matches().get(0).path()))).as("split rules keep the primary's settings")
                .hasSize(2).allSatisfy(x -> assertThat(x.maxBodyBytes()).isEqualTo(5L << 20));
        assertThat(t.snapshot(STRAIT).config().routes().stream().flatMap(x -> x.rules().stream()))
                .extracting(Route.Rule::matches, Route.Rule::action).contains(tuple(
                        List.of(new Route.Match(about.path(), null, List.of(new Route.HeaderMatch("X-Region",
                                ".*(?:^(eu|us)-west).*", Route.HeaderMatchType.RegularExpression)))),
                        new Route.Backends(List.of(new Route.Backend("service.shop.web-canary.80", 1)))));
        assertThat(ingressReport(t, "shop", "site-canary").errors()).noneMatch(e -> e.contains("pattern"));

        t = withCanary(annotated("site", SITE), "canary-by-header", "X-Region", "canary-by-header-pattern", "(eu");
        assertThat(ingressReport(t, "shop", "site-canary").errors()).anySatisfy(e -> assertThat(e)
                .startsWith("metadata.annotations[" + N + "canary-by-header-pattern]: \"(eu\" not a valid regular expression")
                .endsWith("; it is not applied"));
        assertThat(t.snapshot(STRAIT).config().routes().stream().flatMap(x -> x.rules().stream())
                .flatMap(x -> x.matches().stream()).flatMap(m -> m.headers().stream()))
                .as("nor always/never rules in its place").isEmpty();
    }

    // force-ssl-redirect

    private static final String PLAIN = """
            ingressClassName: strait
            rules:
              - host: app.example.com
                http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
            """;

    /** Another Ingress with a certificate, so the snapshot has an https listener. */
    private static Object[] withTls(Object... more) {
        Object[] base = {Fixtures.tlsSecret("shop", "other-tls", Fixtures.CERT, Fixtures.KEY), Fixtures.ingress("shop", "other", 2, """
                ingressClassName: strait
                tls: [ { hosts: [ other.example.com ], secretName: other-tls } ]
                rules:
                  - host: other.example.com
                    http: { paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ] }
                """)};
        Object[] all = new Object[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    private static String served(Translation t, String listener, String host, String path) throws Exception {
        Snapshot s = SnapshotBuilder.build(ConfigParser.parse(t.snapshot(STRAIT).json(), "snapshot"), "snapshot");
        CompiledRule r = s.table(listener).find(host, path, HttpMethod.GET, new DefaultHttpHeaders());
        return r == null ? null : r.route();
    }

    @Test
    void forceSslRedirectRedirectsAHostWithoutTls() throws Exception {
        Translation t = translate(withTls(annotated("app", PLAIN, "force-ssl-redirect", "true")));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        assertThat(t.snapshot(STRAIT).config().routes()).filteredOn(r -> r.name().startsWith("shop.app."))
                .extracting(Route::name, Route::listeners).containsExactly(
                        tuple("shop.app..ingress-0", List.of("https")),
                        tuple("shop.app..ingress-0-to-https", List.of("http")));
        assertThat(served(t, "http", "app.example.com", "/x")).isEqualTo("shop.app..ingress-0-to-https");
        assertThat(served(t, "https", "app.example.com", "/x")).isEqualTo("shop.app..ingress-0");
        // It wins over ssl-redirect "false", as in ingress-nginx; "false" and other values change nothing.
        t = translate(withTls(annotated("app", PLAIN, "force-ssl-redirect", "true", "ssl-redirect", "false")));
        assertThat(served(t, "http", "app.example.com", "/x")).isEqualTo("shop.app..ingress-0-to-https");
        t = translate(withTls(annotated("app", PLAIN, "force-ssl-redirect", "false")));
        assertThat(served(t, "http", "app.example.com", "/x")).isEqualTo("shop.app..ingress-0");
    }

    @Test
    void forceSslRedirectWithoutAnyHttpsListenerKeepsServingOverHttp() throws Exception {
        // As for a TLS host whose certificate is missing (ADR 0053): no listener to redirect to.
        Translation t = translate(annotated("app", PLAIN, "force-ssl-redirect", "true"));
        assertThat(t.snapshot(STRAIT).config().routes()).extracting(Route::name, Route::listeners)
                .containsExactly(tuple("shop.app..ingress-0", null));
        assertThat(served(t, "http", "app.example.com", "/x")).isEqualTo("shop.app..ingress-0");
    }

    // rewrite-target

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream()).toList();
    }

    private static String paths(String... pathAndType) {
        StringBuilder b = new StringBuilder("""
                ingressClassName: strait
                rules:
                  - host: app.example.com
                    http:
                      paths:
                """);
        for (int i = 0; i < pathAndType.length; i += 2) {
            b.append("        - { path: \"").append(pathAndType[i]).append("\", pathType: ").append(pathAndType[i + 1])
                    .append(", backend: { service: { name: web, port: { number: 80 } } } }\n");
        }
        return b.toString();
    }

    @Test
    void theDocumentedCaptureIdiomIsThePrefixStripped() {
        Translation t = translate(annotated("app", paths("/something(/|$)(.*)", "ImplementationSpecific"),
                "use-regex", "true", "rewrite-target", "/$2"));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        assertThat(rules(t)).singleElement().satisfies(r -> {
            assertThat(r.matches()).extracting(m -> m.path().type().name(), m -> m.path().value())
                    .containsExactly(tuple("Prefix", "/something"));
            assertThat(r.pathRewrite()).isEqualTo(new Route.PathModifier(Route.PathModifierType.ReplacePrefixMatch, "/"));
            assertThat(r.action()).isEqualTo(new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1))));
        });
    }

    @Test
    void aLiteralTargetReplacesTheWholePathAsIngressNginxDoesSince022() {
        // rewrite "(?i)/app" / break; sends every request of the path to "/", not "/app/x" to "/x".
        Translation t = translate(annotated("app", paths("/app", "Prefix", "/page", "Exact"), "rewrite-target", "/"));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        assertThat(rules(t)).extracting(Route.Rule::pathRewrite).containsExactly(full("/"), full("/"));
        // A target equal to the path is no rewrite, as in ingress-nginx.
        t = translate(annotated("app", paths("/", "Prefix"), "rewrite-target", "/"));
        assertThat(rules(t)).extracting(Route.Rule::pathRewrite).containsExactly((Route.PathModifier) null);
        // So is an empty one (ingress-nginx rewrites only with a target).
        t = translate(annotated("app", paths("/app", "Prefix"), "rewrite-target", ""));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        assertThat(rules(t)).extracting(Route.Rule::pathRewrite).containsExactly((Route.PathModifier) null);
    }

    @Test
    void aTargetThatIsNoPathIsReportedAndItsPathAnswers503() {
        String[][] cases = {
            {"https://other.example.com/", "/api"},
            {"/x?y=1", "/api"},
            {"/$1?page=$2", "/api/(.*)/(.*)"},
            {"$scheme://example.com/$1", "/api/(.*)"},
            {"/$request_uri", "/api"},
            {"/${1}", "/api/(.*)"},
            {"/$0", "/api/(.*)"},
            {"/a b/$1", "/api/(.*)"},
        };
        for (String[] c : cases) {
            Translation t = translate(annotated("app", paths(c[1], "ImplementationSpecific"), "rewrite-target", c[0]));
            ResourceReport r = ingressReport(t, "shop", "app");
            assertThat(r.errors()).as(c[0] + " " + c[1]).singleElement().asString()
                    .startsWith("metadata.annotations[" + N + "rewrite-target]: \"" + c[0]
                            + "\" with spec.rules[0].http.paths[0].path \"" + c[1] + "\" cannot be expressed (")
                    .endsWith("); the path answers 503");
            assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(rules(t)).singleElement().satisfies(rule -> {
                assertThat(rule.action()).isEqualTo(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
                assertThat(rule.pathRewrite()).isNull();
            });
        }
    }

    @Test
    void aRedirectWinsOverARewrite() {
        Translation t = translate(annotated("app", paths("/app", "Prefix"), "rewrite-target", "/$1",
                "permanent-redirect", "https://new.example.com/"));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        assertThat(rules(t)).singleElement().extracting(Route.Rule::action)
                .isEqualTo(new Route.Redirect("https", "new.example.com", 443, full("/"), 301));
    }
}
