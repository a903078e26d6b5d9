package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.IngressAnnotationsTest.annotated;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's {@code proxy-redirect-from} and {@code -to}, {@code proxy-cookie-path} and {@code proxy-cookie-domain}
 * (nginx's {@code proxy_redirect}, {@code proxy_cookie_path}, {@code proxy_cookie_domain}) as every backend rule's
 * {@code responseRewrite}, {@code $host} and {@code $scheme} as the proxy's {@code {host}} and {@code {scheme}}. What
 * cannot be done as nginx would is reported and not applied; the paths serve, the answers as the app sends them.
 */
class IngressResponseRewriteTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String FROM = "metadata.annotations[" + N + "proxy-redirect-from]";
    private static final String TO = "metadata.annotations[" + N + "proxy-redirect-to]";
    private static final String COOKIE_PATH = "metadata.annotations[" + N + "proxy-cookie-path]";
    private static final String COOKIE_DOMAIN = "metadata.annotations[" + N + "proxy-cookie-domain]";
    /** Two paths (one whose Service is missing) and a defaultBackend. */
    private static final String SITE = IngressAnnotationsTest.SITE;
    private static final String GONE = "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found";
    private static final String LOCATION_NOT_APPLIED = "; it is not applied (Location and Refresh pass as the app sends"
            + " them)";
    private static final Route.Backends WEB = new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1)));

    private static Translation translate(String... annotations) {
        return IngressAnnotationsTest.translate(annotated("site", SITE, annotations));
    }

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream()).toList();
    }

    /** The one responseRewrite every rule of the Ingress has (both paths and the defaultBackends), or null for none. */
    private static Route.ResponseRewrite rewrite(Translation t) {
        List<Route.Rule> rules = rules(t);
        assertThat(rules).hasSize(4);
        assertThat(rules).extracting(Route.Rule::responseRewrite).allMatch(r -> java.util.Objects.equals(r,
                rules.get(0).responseRewrite()));
        Fixtures.parse(t.snapshot(STRAIT).json());
        return rules.get(0).responseRewrite();
    }

    private static Route.ResponseRewrite location(String from, String to) {
        return new Route.ResponseRewrite(List.of(new Route.Replace(from, to)), List.of(), List.of());
    }

    @Test
    void theRedirectPairIsALocationEntryOnEveryBackendRule() {
        String[][] cases = {
            {"http://web.internal:8080/", "/shop/", "/shop/"},
            {"http://web.internal:8080/", "$scheme://$host/shop/", "{scheme}://{host}/shop/"},
            {"http://web.internal:8080/", "${scheme}://${host}/shop/", "{scheme}://{host}/shop/"},
            {" / ", " https://$host/shop/ ", "https://{host}/shop/"},
        };
        for (String[] c : cases) {
            Translation t = translate("proxy-redirect-from", c[0], "proxy-redirect-to", c[1]);
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[1]).containsExactly(GONE);
            assertThat(rewrite(t)).as(c[1]).isEqualTo(location(c[0].trim(), c[2]));
            assertThat(rules(t)).extracting(Route.Rule::action).as("the paths keep their backends").contains(WEB);
        }
    }

    @Test
    void cookiePathAndCookieDomainAreEntriesOfTheirLists() {
        Translation t = translate("proxy-cookie-path", "/ /shop/");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        assertThat(rewrite(t)).isEqualTo(new Route.ResponseRewrite(List.of(), List.of(new Route.Replace("/", "/shop/")),
                List.of()));

        t = translate("proxy-cookie-domain", "web.internal $host");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        assertThat(rewrite(t)).isEqualTo(new Route.ResponseRewrite(List.of(), List.of(),
                List.of(new Route.Replace("web.internal", "{host}"))));

        t = translate("proxy-redirect-from", "/", "proxy-redirect-to", "/shop/", "proxy-cookie-path", "  /   /shop/ ",
                "proxy-cookie-domain", ".web.internal old.example.com");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        assertThat(rewrite(t)).isEqualTo(new Route.ResponseRewrite(List.of(new Route.Replace("/", "/shop/")),
                List.of(new Route.Replace("/", "/shop/")), List.of(new Route.Replace(".web.internal", "old.example.com"))));
    }

    /**
     * {@code off} is ingress-nginx's default; {@code default} writes nginx's {@code proxy_redirect default}, which with
     * ingress-nginx's {@code proxy_pass http://upstream_balancer} rewrites nothing an app sends: neither is a rewrite,
     * and neither is reported. A FROM without a TO writes nothing in ingress-nginx, and a TO without a FROM neither:
     * reported, since the one set does nothing.
     */
    @Test
    void offDefaultAndAPairHalfSetRewriteNothing() {
        for (String[] annotations : new String[][] {
            {"proxy-redirect-from", "off"}, {"proxy-redirect-from", "default"}, {"proxy-redirect-to", "off"},
            {"proxy-redirect-from", "off", "proxy-redirect-to", "off"}, {"proxy-cookie-path", "off"},
            {"proxy-cookie-domain", "off"}}) {
            Translation t = translate(annotations);
            assertThat(ingressReport(t, "shop", "site").errors()).as(annotations[1]).containsExactly(GONE);
            assertThat(rewrite(t)).as(annotations[1]).isNull();
        }
        String[][] cases = {
            {"proxy-redirect-from", "/", "proxy-redirect-to", "off",
                FROM + ": \"/\" applies with " + TO + ", which is \"off\"; it has no effect (as in ingress-nginx)"},
            {"proxy-redirect-from", "/", "proxy-redirect-to", "",
                FROM + ": \"/\" applies with " + TO + ", which is not set; it has no effect (as in ingress-nginx)"},
            {"proxy-redirect-to", "/shop/", "proxy-redirect-from", " ",
                TO + ": applies with " + FROM + ", which is not set; it has no effect"},
            {"proxy-redirect-to", "/shop/", "proxy-redirect-from", "default",
                TO + ": applies with " + FROM + ", which is \"default\"; it has no effect"},
        };
        for (String[] c : cases) {
            Translation t = translate(c[0], c[1], c[2], c[3]);
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[4]).containsExactlyInAnyOrder(GONE, c[4]);
            assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(rewrite(t)).as(c[4]).isNull();
            assertThat(rules(t)).extracting(Route.Rule::action).contains(WEB);
        }
    }

    /**
     * nginx's regular expressions, variables other than {@code $host} and {@code $scheme}, a cookie annotation that is
     * not two words, quoting, and text the config refuses: reported, naming the annotation and its value; the
     * annotation is not applied, the others are, and the paths serve.
     */
    @Test
    void whatCannotBeRewrittenAsNginxWouldIsReportedAndNotApplied() {
        String cookiePathNotApplied = "; it is not applied (the cookies' Path passes as the app sets it)";
        String cookieDomainNotApplied = "; it is not applied (the cookies' Domain passes as the app sets it)";
        String[][] cases = {
            {"proxy-redirect-from", "~^http://web\\.internal(:[0-9]+)?/", FROM + ": \"~^http://web\\.internal(:[0-9]+)?/\""
                + " is a regular expression (~, ~*), which Strait does not read" + LOCATION_NOT_APPLIED},
            {"proxy-redirect-from", "$scheme://web.internal/", FROM + ": \"$scheme://web.internal/\" uses nginx variables"
                + " in what is replaced, which Strait does not read" + LOCATION_NOT_APPLIED},
            {"proxy-redirect-from", "/ /shop/", FROM + ": \"/ /shop/\" holds spaces: it is one word of the nginx"
                + " directive" + LOCATION_NOT_APPLIED},
            {"proxy-redirect-from", "http://caf\u00e9.example/", FROM + ": \"http://caf\u00e9.example/\" holds characters"
                + " other than visible ASCII" + LOCATION_NOT_APPLIED},
            {"proxy-redirect-to", "$http_host/shop/", TO + ": \"$http_host/shop/\" uses nginx variables besides $host and"
                + " $scheme, which Strait does not have" + LOCATION_NOT_APPLIED},
            {"proxy-redirect-to", "https://$hostname/", TO + ": \"https://$hostname/\" uses nginx variables besides $host"
                + " and $scheme, which Strait does not have" + LOCATION_NOT_APPLIED},
            {"proxy-redirect-to", "/shop/$1", TO + ": \"/shop/$1\" uses nginx variables besides $host and $scheme, which"
                + " Strait does not have" + LOCATION_NOT_APPLIED},
            {"proxy-redirect-to", "https://{host}/", TO + ": \"https://{host}/\" holds {host} or {scheme} as text, which"
                + " Strait would read as the request's host or scheme" + LOCATION_NOT_APPLIED},
            {"proxy-cookie-path", "~*^/app(.*) /shop$1", COOKIE_PATH + ": \"~*^/app(.*) /shop$1\" is a regular expression"
                + " (~, ~*), which Strait does not read" + cookiePathNotApplied},
            {"proxy-cookie-path", "/ /shop/ /other/", COOKIE_PATH + ": \"/ /shop/ /other/\" is not FROM TO (two words) or"
                + " off" + cookiePathNotApplied},
            {"proxy-cookie-path", "/shop/", COOKIE_PATH + ": \"/shop/\" is not FROM TO (two words) or off"
                + cookiePathNotApplied},
            {"proxy-cookie-path", "/ $request_uri", COOKIE_PATH + ": \"/ $request_uri\" uses nginx variables besides $host"
                + " and $scheme, which Strait does not have" + cookiePathNotApplied},
            {"proxy-cookie-path", "/ /shop;Secure", COOKIE_PATH + ": \"/ /shop;Secure\" holds characters other than"
                + " visible ASCII but ';'" + cookiePathNotApplied},
            {"proxy-cookie-path", "\"/\" \"/shop/\"", COOKIE_PATH + ": \"\"/\" \"/shop/\"\" holds quotes or backslashes,"
                + " nginx's quoting, which Strait does not read" + cookiePathNotApplied},
            {"proxy-cookie-domain", "~\\.internal$ $host", COOKIE_DOMAIN + ": \"~\\.internal$ $host\" is a regular"
                + " expression (~, ~*), which Strait does not read" + cookieDomainNotApplied},
            {"proxy-cookie-domain", "web.internal $server_name", COOKIE_DOMAIN + ": \"web.internal $server_name\" uses"
                + " nginx variables besides $host and $scheme, which Strait does not have" + cookieDomainNotApplied},
            {"proxy-cookie-domain", "default", COOKIE_DOMAIN + ": \"default\" is not FROM TO (two words) or off"
                + cookieDomainNotApplied},
        };
        for (String[] c : cases) {
            // The pair's other half, where the case is about one of them; a cookie path beside, which still applies.
            String[] annotations = c[0].equals("proxy-redirect-from") ? new String[] {c[0], c[1], "proxy-redirect-to", "/s/"}
                    : c[0].equals("proxy-redirect-to") ? new String[] {c[0], c[1], "proxy-redirect-from", "/"}
                    : new String[] {c[0], c[1]};
            Translation t = translate(annotations);
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[1]).containsExactlyInAnyOrder(GONE, c[2]);
            assertThat(r.resolvedRefs().reason()).as(c[1]).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(r.accepted().status()).as(c[1]).isTrue();
            assertThat(rewrite(t)).as(c[1]).isNull();
            assertThat(rules(t)).extracting(Route.Rule::action).as(c[1]).contains(WEB);

            // One annotation not applied leaves the others applied.
            String other = c[0].equals("proxy-cookie-domain") ? "proxy-cookie-path" : "proxy-cookie-domain";
            String[] more = java.util.Arrays.copyOf(annotations, annotations.length + 2);
            more[annotations.length] = other;
            more[annotations.length + 1] = "web.internal old.example.com";
            Route.ResponseRewrite kept = rewrite(translate(more));
            assertThat(kept).as(c[1]).isNotNull();
            assertThat(kept.location()).as(c[1]).isEmpty();
            assertThat(other.equals("proxy-cookie-path") ? kept.cookiePath() : kept.cookieDomain()).as(c[1])
                    .containsExactly(new Route.Replace("web.internal", "old.example.com"));
        }
    }

    /**
     * A canary's share is served by its primary's rule (ADR 0063), rewrites and all, as ingress-nginx serves it from
     * the primary's location; the canary's own, as its {@code upstream-vhost} and timeouts, do not reach it.
     */
    @Test
    void aCanarysShareIsRewrittenAsItsPrimarys() {
        Translation t = IngressAnnotationsTest.withCanary(annotated("site", SITE, "proxy-cookie-path", "/ /shop/"),
                "canary-weight", "20", "proxy-cookie-path", "/ /canary/");
        assertThat(ingressReport(t, "shop", "site-canary").errors()).noneMatch(e -> e.contains("proxy-cookie-path"));
        Route.Rule about = rules(t).stream().filter(r -> r.matches().get(0).path() != null
                && r.matches().get(0).path().value().equals("/about")).findFirst().orElseThrow();
        assertThat(((Route.Backends) about.action()).backends()).extracting(Route.Backend::upstream)
                .contains("service.shop.web-canary.80");
        assertThat(about.responseRewrite()).isEqualTo(new Route.ResponseRewrite(List.of(),
                List.of(new Route.Replace("/", "/shop/")), List.of()));
        assertThat(t.snapshot(STRAIT).json()).doesNotContain("/canary/");
    }

    /** Annotations change without a new generation: each change is seen. */
    @Test
    void aChangedAnnotationIsTranslatedAfresh() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        for (String to : List.of("/shop/", "https://$host/shop/", "off", "/v2/")) {
            Object[] all = {Fixtures.service("shop", "web", "http:80"),
                Fixtures.slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                annotated("site", SITE, "proxy-redirect-from", "/", "proxy-redirect-to", to)};
            Translation got = translator.translate(Fixtures.inputs(all));
            Translation want = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(all));
            assertThat(got.snapshot(STRAIT).json()).as(to).isEqualTo(want.snapshot(STRAIT).json());
            assertThat(rewrite(got)).as(to).isEqualTo(to.equals("off") ? null : location("/", to.replace("$host", "{host}")));
        }
    }
}
