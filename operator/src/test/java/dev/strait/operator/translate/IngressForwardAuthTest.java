package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static dev.strait.operator.translate.IngressAnnotationsTest.annotated;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's external authentication ({@code auth-url}, {@code auth-signin}, {@code auth-response-headers},
 * {@code auth-method}) as the rules' {@code forwardAuth}: a URL naming a Service of the Ingress's namespace is
 * that Service's check; anything else is reported and the paths answer 503, never unauthenticated.
 */
class IngressForwardAuthTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final String URL = "metadata.annotations[" + N + "auth-url]";
    private static final String SIGNIN = "metadata.annotations[" + N + "auth-signin]";
    /** Two paths (one whose Service is missing) and a defaultBackend. */
    private static final String SITE = IngressAnnotationsTest.SITE;
    private static final String GONE = "spec.rules[0].http.paths[0].backend.service.name: Service \"gone\" not found";
    private static final Route.Backends LOCKED = new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1)));

    /** The Ingress with these annotations, and the Service auth (ports 80, 4180 and 8080) with one pod. */
    private static Translation translate(String... annotations) {
        return IngressAnnotationsTest.translate(service("shop", "auth", "http:80", "proxy:4180", "alt:8080"),
                slice("shop", "auth", "auth-1", "http", 9000, "10.0.0.7"),
                slice("shop", "auth", "auth-2", "proxy", 4180, "10.0.0.7"),
                slice("shop", "auth", "auth-3", "alt", 9080, "10.0.0.7"),
                annotated("site", SITE, annotations));
    }

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream()).toList();
    }

    /** The one forwardAuth every rule of the Ingress has (both paths and the defaultBackends). */
    private static Route.ForwardAuth check(Translation t) {
        List<Route.Rule> rules = rules(t);
        assertThat(rules).hasSize(4);
        assertThat(rules).extracting(Route.Rule::forwardAuth).allMatch(rules.get(0).forwardAuth()::equals);
        return rules.get(0).forwardAuth();
    }

    /** auth-always-set-cookie: the check's cookies go out with the app's errors too; anything but true/false warns. */
    @Test
    void alwaysSetCookieIsRead() {
        String url = "http://auth.shop.svc/verify";
        assertThat(check(translate("auth-url", url, "auth-always-set-cookie", "true")).alwaysSetCookie()).isTrue();
        assertThat(check(translate("auth-url", url, "auth-always-set-cookie", "false")).alwaysSetCookie()).isFalse();
        Translation t = translate("auth-url", url, "auth-always-set-cookie", "yes");
        assertThat(check(t).alwaysSetCookie()).isFalse();
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[nginx.ingress.kubernetes.io/"
                + "auth-always-set-cookie]: \"yes\" is neither true nor false; the check's cookies go out with answers"
                + " below 400 only");
    }

    /** auth-cache-key and auth-cache-duration: the fields and cookies a yes is kept for; what cannot be keyed keeps none. */
    @Test
    void authCacheKeyKeepsYesesForTheFieldsAndCookiesItNames() {
        String url = "http://auth.shop.svc/verify";
        Translation t = translate("auth-url", url, "auth-cache-key", "$remote_user$http_authorization$cookie__oauth2_proxy",
                "auth-cache-duration", "200 202 401 30m");
        assertThat(check(t).cache()).isEqualTo(new Route.AuthCache(List.of("authorization"), List.of("_oauth2_proxy"),
                java.time.Duration.ofMinutes(30)));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        // ingress-nginx's default duration is 5 minutes; ${http_x_api_key} is a field too.
        t = translate("auth-url", url, "auth-cache-key", "${http_x_api_key}");
        assertThat(check(t).cache()).isEqualTo(new Route.AuthCache(List.of("x-api-key"), List.of(),
                java.time.Duration.ofMinutes(5)));
        String[][] none = {
            {"$remote_user$request_uri", "", "$request_uri is not one Strait keys yeses by"},
            {"static", "", "names no request field or cookie"},
            {"$http_authorization", "401 5m", "keeps no 2xx, and Strait keeps yeses only"},
            {"$http_authorization", "200 2d", "\"2d\" is not a duration of 1ms to 24h"},
        };
        for (String[] c : none) {
            t = c[1].isEmpty() ? translate("auth-url", url, "auth-cache-key", c[0])
                    : translate("auth-url", url, "auth-cache-key", c[0], "auth-cache-duration", c[1]);
            assertThat(check(t).cache()).as(c[0]).isNull();
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[0]).anySatisfy(e -> assertThat(e).contains(c[2])
                    .endsWith("; no yes is kept, every request is asked"));
        }
    }

    @Test
    void theClusterNamesOfAServiceOfTheNamespaceAreItsCheck() {
        String[][] cases = {
            {"http://auth.shop.svc.cluster.local:4180/oauth2/auth?allowed_groups=staff", "service.shop.auth.4180",
                "/oauth2/auth?allowed_groups=staff"},
            {"http://auth.shop.svc/verify", "service.shop.auth.80", "/verify"},
            {"http://auth.shop:8080", "service.shop.auth.8080", "/"},
            {"http://auth/verify", "service.shop.auth.80", "/verify"},
            {" HTTP://Auth.Shop.SVC.cluster.local/Verify ", "service.shop.auth.80", "/Verify"},
            {"https://auth.shop.svc:4180/verify", "service.shop.auth.4180.https", "/verify"},
        };
        for (String[] c : cases) {
            Translation t = translate("auth-url", c[0]);
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[0]).containsExactly(GONE);
            assertThat(check(t)).as(c[0]).isEqualTo(new Route.ForwardAuth(c[1], c[2], List.of(), null));
            Fixtures.parse(t.snapshot(STRAIT).json());
        }
        // https: over TLS without checking the certificate, as ingress-nginx (proxy_ssl_verify off).
        dev.strait.model.Upstream tls = Fixtures.parse(translate("auth-url", "https://auth.shop.svc:4180/verify")
                .snapshot(STRAIT).json()).upstreams().stream()
                .filter(u -> u.name().equals("service.shop.auth.4180.https")).findFirst().orElseThrow();
        assertThat(tls.tls()).isNotNull();
        assertThat(tls.tls().verify()).isFalse();
        Translation t = translate("auth-url", "http://auth.shop.svc/verify");
        assertThat(rules(t)).extracting(Route.Rule::action).as("the paths keep their backends")
                .contains(new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1))));
    }

    /**
     * ingress-nginx's oauth2-proxy example asks {@code https://$host/oauth2/auth}: nginx goes out and back in to the
     * location another Ingress of the host routes. Strait routes the check itself: no backend, the path and query
     * asked of the request's host, whatever the scheme.
     */
    @Test
    void theRequestsOwnHostIsAskedThroughTheProxysRoutes() {
        String[][] cases = {
            {"https://$host/oauth2/auth", "/oauth2/auth"},
            {"http://$host/oauth2/auth?allowed_groups=ops", "/oauth2/auth?allowed_groups=ops"},
            {"$scheme://$http_host/verify", "/verify"},
            {" HTTPS://$best_http_host/ ", "/"},
            {"$pass_access_scheme://$host/a%20b", "/a%20b"},
        };
        for (String[] c : cases) {
            Translation t = translate("auth-url", c[0]);
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[0]).containsExactly(GONE);
            assertThat(check(t)).as(c[0]).isEqualTo(new Route.ForwardAuth(null, c[1], List.of(), null));
            Fixtures.parse(t.snapshot(STRAIT).json());
        }
        Translation t = translate("auth-url", "https://$host/oauth2/auth", "auth-response-headers", "X-Auth-Request-User");
        assertThat(check(t)).isEqualTo(new Route.ForwardAuth(null, "/oauth2/auth", List.of("x-auth-request-user"), null));
        // Nothing to resolve, so nothing locked: only /shop, whose Service is gone, answers 503.
        assertThat(rules(t)).extracting(Route.Rule::action).containsOnlyOnce(LOCKED)
                .contains(new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1))));
    }

    /** The example whole: the Ingress that routes /oauth2 to oauth2-proxy answers the other's checks and sign-in. */
    @Test
    void ingressNginxsOauth2ProxyExampleTranslatesWhole() {
        Translation t = IngressAnnotationsTest.translate(service("shop", "oauth2-proxy", "http:4180"),
                slice("shop", "oauth2-proxy", "oauth2-proxy-1", "http", 4180, "10.0.0.9"),
                annotated("application", """
                        ingressClassName: strait
                        rules:
                          - host: dash.example.com
                            http:
                              paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } } ]
                        """, "auth-url", "https://$host/oauth2/auth",
                        "auth-signin", "https://$host/oauth2/start?rd=$escaped_request_uri"),
                annotated("oauth2-proxy", """
                        ingressClassName: strait
                        rules:
                          - host: dash.example.com
                            http:
                              paths: [ { path: /oauth2, pathType: Prefix, backend: { service: { name: oauth2-proxy, port: { number: 4180 } } } } ]
                        """));
        assertThat(ingressReport(t, "shop", "application").errors()).isEmpty();
        assertThat(ingressReport(t, "shop", "oauth2-proxy").errors()).isEmpty();
        assertThat(rules(t)).filteredOn(r -> r.matches().get(0).path().value().equals("/")).singleElement()
                .satisfies(r -> {
                    assertThat(r.forwardAuth()).isEqualTo(new Route.ForwardAuth(null, "/oauth2/auth", List.of(),
                            "/oauth2/start?rd={uri}"));
                    assertThat(r.action()).isEqualTo(new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1))));
                });
        assertThat(rules(t)).filteredOn(r -> r.matches().get(0).path().value().equals("/oauth2")).singleElement()
                .satisfies(r -> {
                    assertThat(r.forwardAuth()).as("the sign-in itself is not guarded").isNull();
                    assertThat(r.action()).isEqualTo(new Route.Backends(List.of(
                            new Route.Backend("service.shop.oauth2-proxy.4180", 1))));
                });
        Fixtures.parse(t.snapshot(STRAIT).json());
    }

    @Test
    void aRedirectAnswersBeforeTheCheckAsNginxReturnDoes() {
        Translation t = translate("auth-url", "http://auth.shop.svc/verify", "permanent-redirect", "https://new.example.com/");
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.forwardAuth()).isNull());
    }

    @Test
    void responseHeadersAreTrimmedLowerCasedAndListedOnce() {
        Translation t = translate("auth-url", "http://auth.shop.svc/verify", "auth-response-headers",
                " X-Auth-Request-User ,x-auth-request-email,, X-AUTH-REQUEST-USER , X-Auth-Request-Groups");
        assertThat(check(t).responseHeaders())
                .containsExactly("x-auth-request-user", "x-auth-request-email", "x-auth-request-groups");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
    }

    /** ingress-nginx adds rd (the request's URL) unless the query has it; {url} is that URL. */
    @Test
    void signInAndItsWayBack() {
        String login = "https://login.example.com/oauth2/start";
        String[][] cases = {
            {login, null, login + "?rd={url}"},
            {login + "?", null, login + "?rd={url}"},
            {login + "?rd=$scheme://$host$escaped_request_uri", null, login + "?rd={url}"},
            {login + "?app=shop&rd=$pass_access_scheme://$http_host$request_uri", null, login + "?app=shop&rd={url}"},
            {login + "?app=shop", null, login + "?app=shop&rd={url}"},
            {"/oauth2/start", null, "/oauth2/start?rd={url}"},
            // On the request's own host: its path and query, a relative redirect keeping scheme and host.
            {"https://$host/oauth2/start", null, "/oauth2/start?rd={url}"},
            {"$scheme://$http_host/oauth2/start?rd=$scheme://$host$escaped_request_uri", null, "/oauth2/start?rd={url}"},
            {"http://$best_http_host/sign_in?app=shop", null, "/sign_in?app=shop&rd={url}"},
            {"https://$host", null, "/?rd={url}"},
            {"https://$host?app=shop", "redirect_to", "/?app=shop&redirect_to={url}"},
            {login, "redirect_to", login + "?redirect_to={url}"},
            {login + "?redirect_to=$scheme://$host$request_uri&rd=x", "redirect_to", login + "?redirect_to={url}&rd=x"},
        };
        for (String[] c : cases) {
            Translation t = c[1] == null ? translate("auth-url", "http://auth.shop.svc/verify", "auth-signin", c[0])
                    : translate("auth-url", "http://auth.shop.svc/verify", "auth-signin", c[0],
                            "auth-signin-redirect-param", c[1]);
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[0]).containsExactly(GONE);
            assertThat(check(t).signIn()).as(c[0]).isEqualTo(c[2]);
            Fixtures.parse(t.snapshot(STRAIT).json());
        }
        // The path alone is the proxy's {uri}: what oauth2-proxy takes back without a domain allow-list.
        Translation t = translate("auth-url", "http://auth.shop.svc/verify", "auth-signin",
                "/oauth2/start?rd=$escaped_request_uri");
        assertThat(check(t).signIn()).isEqualTo("/oauth2/start?rd={uri}");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
        t = translate("auth-url", "http://auth.shop.svc/verify", "auth-signin", "/oauth2/start?rd=$request_uri&x=1");
        assertThat(check(t).signIn()).isEqualTo("/oauth2/start?rd={uri}&x=1");
        // So on the request's own host, as ingress-nginx's oauth2-proxy example writes it.
        t = translate("auth-url", "http://auth.shop.svc/verify", "auth-signin",
                "https://$host/oauth2/start?rd=$escaped_request_uri");
        assertThat(check(t).signIn()).isEqualTo("/oauth2/start?rd={uri}");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(GONE);
    }

    /** A sign-in that cannot be kept as written is reported; the check still guards, its 401 going out as it is. */
    @Test
    void aSignInThatCannotBeReadIsReportedAndTheCheckStays() {
        String notApplied = "; it is not applied (the check's 401 goes to the client as it is)";
        String[][] cases = {
            {"https://$server_name/oauth2/start?rd=$escaped_request_uri", "uses nginx variables, which Strait does not"
                + " have"},
            {"https://$host:8443/oauth2/start", "uses nginx variables, which Strait does not have"},
            {"https://$host/$lang/start", "uses nginx variables, which Strait does not have"},
            {"https://$host//login.example.com/start", "is neither an http(s) URL nor a path starting with /"},
            {"https://login.example.com/start?rd=$scheme://$host$request_uri&user=$remote_user",
                "uses nginx variables, which Strait does not have"},
            {"https://login.example.com/start?rd=https://app.example.com/", "gives rd \"https://app.example.com/\","
                + " which Strait cannot send (it sends the request's URL, $scheme://$host$escaped_request_uri)"},
            {"https://login.example.com/start?rd=$host", "gives rd \"$host\", which Strait cannot send (it sends the"
                + " request's URL, $scheme://$host$escaped_request_uri)"},
            {"login.example.com/start", "is neither an http(s) URL nor a path starting with /"},
            {"https://login.example.com/start#top", "has spaces, a fragment or braces, or is longer than 2000"},
        };
        for (String[] c : cases) {
            Translation t = translate("auth-url", "http://auth.shop.svc/verify", "auth-signin", c[0]);
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[0])
                    .containsExactlyInAnyOrder(GONE, SIGNIN + ": \"" + c[0] + "\" " + c[1] + notApplied);
            assertThat(check(t)).as(c[0]).isEqualTo(new Route.ForwardAuth("service.shop.auth.80", "/verify", List.of(),
                    null));
        }
    }

    /** Asking nothing would open the paths to everyone: 503 until the annotation can be honoured. */
    @Test
    void whatCannotBeAskedIsReportedAndThePathsAnswer503() {
        String fail = "; the Ingress's paths answer 503 rather than serve them unauthenticated";
        String notAService = "is not a Service of the cluster (http(s)://NAME, NAME.NAMESPACE, NAME.NAMESPACE.svc or"
                + " NAME.NAMESPACE.svc.cluster.local, with an optional port)";
        String[][] cases = {
            {"auth-url", "http://auth.example.com/verify", "\"http://auth.example.com/verify\" " + notAService},
            {"auth-url", "http://10.0.0.5:4180/verify", "\"http://10.0.0.5:4180/verify\" " + notAService},
            {"auth-url", "https://$server_name/oauth2/auth", "\"https://$server_name/oauth2/auth\" uses nginx variables,"
                + " which Strait does not have"},
            {"auth-url", "https://$host:8443/oauth2/auth", "\"https://$host:8443/oauth2/auth\" uses nginx variables,"
                + " which Strait does not have"},
            {"auth-url", "https://$host/oauth2/auth?user=$remote_user", "\"https://$host/oauth2/auth?user=$remote_user\""
                + " uses nginx variables besides the request's host, which Strait does not have"},
            {"auth-url", "https://$host", "\"https://$host\" names no path on the request's host for the check to ask"},
            {"auth-url", "https://$host?x=1", "\"https://$host?x=1\" names no path on the request's host for the check"
                + " to ask"},
            {"auth-url", "https://$host/oauth2/auth#x", "\"https://$host/oauth2/auth#x\" has a fragment, which the check"
                + " cannot carry"},
            {"auth-url", "https://$host/a b", "\"https://$host/a b\" is not a URL (Illegal character in path)"},
            {"auth-url", "ftp://$host/auth", "\"ftp://$host/auth\" uses nginx variables, which Strait does not have"},
            {"auth-url", "http://auth.shop.svc/verify#x", "\"http://auth.shop.svc/verify#x\" has user information or a"
                + " fragment, which the check cannot carry"},
            {"auth-url", "ftp://auth/", "\"ftp://auth/\" is not an http URL"},
            {"auth-response-headers", "X-Auth-Request-User, X User", "\"X User\" is not a field the check's answer can"
                + " give the request"},
            {"auth-response-headers", "Content-Length", "\"Content-Length\" is not a field the check's answer can give"
                + " the request"},
        };
        for (String[] c : cases) {
            Translation t = c[0].equals("auth-url") ? translate("auth-url", c[1])
                    : translate("auth-url", "http://auth.shop.svc/verify", c[0], c[1]);
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(c[1]).containsExactly("metadata.annotations[" + N + c[0] + "]: " + c[2] + fail);
            assertThat(r.resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(rules(t)).as(c[1]).hasSize(4).allSatisfy(rule -> {
                assertThat(rule.action()).isEqualTo(LOCKED);
                assertThat(rule.forwardAuth()).isNull();
            });
        }
    }

    /**
     * oauth2-proxy in a namespace of its own, as it is usually installed: asked when its Service accepts the Ingress's
     * namespace (strait.dev/accept-references-from), else the paths answer 503 and the annotation says what to add.
     */
    @Test
    void aServiceOfAnotherNamespaceIsAskedWhenItAcceptsTheIngresssNamespace() {
        String url = "http://oauth2-proxy.identity.svc.cluster.local:4180/oauth2/auth";
        for (String accepts : new String[] {"shop", "team-a, shop", "*"}) {
            Translation t = IngressAnnotationsTest.translate(identity(accepts),
                    slice("identity", "oauth2-proxy", "op-1", "http", 4180, "10.1.0.9"),
                    annotated("site", SITE, "auth-url", url));
            assertThat(ingressReport(t, "shop", "site").errors()).as(accepts).containsExactly(GONE);
            assertThat(check(t)).as(accepts).isEqualTo(new Route.ForwardAuth("service.identity.oauth2-proxy.4180",
                    "/oauth2/auth", List.of(), null));
            assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).upstreams()).as(accepts)
                    .filteredOn(u -> u.name().equals("service.identity.oauth2-proxy.4180")).singleElement()
                    .extracting(dev.strait.model.Upstream::endpoints).asList()
                    .containsExactly(new dev.strait.model.HostPort("10.1.0.9", 4180));
        }
        for (String accepts : new String[] {null, "team-a", "", "shop-2"}) {
            Translation t = IngressAnnotationsTest.translate(identity(accepts),
                    slice("identity", "oauth2-proxy", "op-1", "http", 4180, "10.1.0.9"),
                    annotated("site", SITE, "auth-url", url));
            ResourceReport r = ingressReport(t, "shop", "site");
            assertThat(r.errors()).as(accepts).containsExactly(URL + ": Service \"oauth2-proxy\" of namespace"
                    + " \"identity\" does not accept references from namespace \"shop\": its annotation"
                    + " strait.dev/accept-references-from must list \"shop\" (or be \"*\"); the rule answers 503");
            assertThat(r.resolvedRefs().status()).isFalse();
            assertThat(rules(t)).as(accepts).hasSize(4).allSatisfy(rule -> {
                assertThat(rule.action()).isEqualTo(LOCKED);
                assertThat(rule.forwardAuth().upstream()).isEqualTo(Translator.UNRESOLVED);
            });
        }
        Translation t = IngressAnnotationsTest.translate(annotated("site", SITE, "auth-url", url));
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(URL + ": Service \"oauth2-proxy\" of"
                + " namespace \"identity\" not found; the rule answers 503");
    }

    /** oauth2-proxy's Service in namespace identity, accepting the namespaces {@code accepts} lists (null: none). */
    private static io.fabric8.kubernetes.api.model.Service identity(String accepts) {
        io.fabric8.kubernetes.api.model.Service s = service("identity", "oauth2-proxy", "http:4180");
        if (accepts != null) {
            s.getMetadata().setAnnotations(java.util.Map.of(Consent.ANNOTATION, accepts));
        }
        return s;
    }

    /** The Service or its port missing: the paths answer 503, the error said of the annotation. */
    @Test
    void aMissingServiceLocksThePathsAndNamesTheAnnotation() {
        Translation t = IngressAnnotationsTest.translate(annotated("site", SITE, "auth-url", "http://auth.shop.svc/verify"));
        ResourceReport r = ingressReport(t, "shop", "site");
        // A locked path's own backend is not looked up (nor reported) until it can be served.
        assertThat(r.errors()).containsExactly(URL + ": Service \"auth\" not found; the rule answers 503");
        assertThat(r.resolvedRefs().status()).isFalse();
        assertThat(rules(t)).hasSize(4).allSatisfy(rule -> {
            assertThat(rule.action()).isEqualTo(LOCKED);
            assertThat(rule.forwardAuth().upstream()).isEqualTo(Translator.UNRESOLVED);
        });
        Fixtures.parse(t.snapshot(STRAIT).json());

        t = translate("auth-url", "http://auth.shop.svc:9999/verify");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactly(
                URL + ": Service \"auth\" has no TCP port 9999; the rule answers 503");
        assertThat(rules(t)).extracting(Route.Rule::action).containsOnly(LOCKED);
    }

    @Test
    void aMethodOtherThanGetIsReportedAndTheCheckStays() {
        Translation t = translate("auth-url", "http://auth.shop.svc/verify", "auth-method", "POST");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(GONE, "metadata.annotations[" + N
                + "auth-method]: \"POST\" is not applied: Strait's check is a GET without body");
        assertThat(check(t).upstream()).isEqualTo("service.shop.auth.80");
        assertThat(ingressReport(translate("auth-url", "http://auth.shop.svc/verify", "auth-method", "GET"), "shop", "site")
                .errors()).containsExactly(GONE);
    }

    /** What Strait's check does not do is said, and the check guards as it is. */
    @Test
    void theOtherAuthAnnotationsAreReportedAsNotRead() {
        Translation t = translate("auth-url", "http://auth.shop.svc/verify", "auth-keepalive", "10", "auth-request-redirect",
                "https://app.example.com/", "auth-always-set-cookie", "true", "auth-tls-verify-depth", "2");
        // auth-keepalive is moot (Strait's connections to the service are kept alive anyway): no word of it.
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(GONE,
                "metadata.annotations[" + N + "auth-request-redirect]: is not read by Strait; it has no effect",
                "metadata.annotations[" + N + "auth-tls-verify-depth]: applies with metadata.annotations[" + N
                        + "auth-tls-secret], which is not set; it has no effect");
        assertThat(check(t).upstream()).isEqualTo("service.shop.auth.80");

        t = translate("auth-signin", "https://login.example.com/start", "auth-response-headers", "X-User");
        assertThat(ingressReport(t, "shop", "site").errors()).containsExactlyInAnyOrder(GONE,
                SIGNIN + ": applies with " + URL + ", which is not set; it has no effect",
                "metadata.annotations[" + N + "auth-response-headers]: applies with " + URL + ", which is not set; it has"
                        + " no effect");
        assertThat(rules(t)).allSatisfy(r -> assertThat(r.forwardAuth()).isNull());
    }

    /**
     * What narrows who passes beside auth-url (nginx directives around the check, fields sent with it such as
     * the group it must find) cannot be left out: without it more clients could pass, so the paths answer 503.
     */
    @Test
    void whatNarrowsTheCheckLocksThePaths() {
        for (String[] c : new String[][] {{"auth-snippet", "proxy_set_header X-Required-Group admins;"},
                {"auth-proxy-set-headers", "shop/auth-headers"}}) {
            Translation t = translate("auth-url", "http://auth.shop.svc/verify", c[0], c[1]);
            assertThat(ingressReport(t, "shop", "site").errors()).as(c[0]).containsExactly("metadata.annotations[" + N
                    + c[0] + "]: Strait cannot apply it to the check, which without it could let more clients through than"
                    + " asked; the Ingress's paths answer 503 rather than serve them so");
            assertThat(rules(t)).as(c[0]).hasSize(4).allSatisfy(rule -> assertThat(rule.action()).isEqualTo(LOCKED));
        }
        // Without auth-url they narrow nothing: said, and the paths serve.
        Translation t = translate("auth-snippet", "return 403;");
        assertThat(ingressReport(t, "shop", "site").errors()).contains("metadata.annotations[" + N + "auth-snippet]:"
                + " applies with " + URL + ", which is not set; it has no effect");
        assertThat(rules(t)).as("only /shop, whose Service is gone, answers 503").extracting(Route.Rule::action)
                .containsOnlyOnce(LOCKED);
    }

    /** A canary's share of a guarded path is checked as the primary's is (ADR 0063's split keeps the rule's guards). */
    @Test
    void aCanarysShareIsCheckedToo() {
        Translation t = IngressAnnotationsTest.withCanary(annotated("site", SITE, "auth-url", "http://auth/verify"),
                "canary-weight", "20", "canary-by-header", "X-Canary");
        List<Route.Rule> about = t.snapshot(STRAIT).config().routes().stream()
                .filter(r -> r.name().equals("shop.site..ingress-0")).flatMap(r -> r.rules().stream())
                .filter(r -> r.matches().get(0).path().value().equals("/about")).toList();
        assertThat(about).hasSize(3).allSatisfy(r -> assertThat(r.forwardAuth()).isNotNull()
                .extracting(Route.ForwardAuth::path).isEqualTo("/verify"));
    }

    /** A changed annotation is read afresh, though the Ingress's generation stays (annotations are metadata). */
    @Test
    void aChangedAuthAnnotationIsTranslatedAfresh() {
        Translator translator = new Translator(ProxyDefaults.STANDARD);
        for (String url : List.of("http://auth/verify", "http://auth:4180/check", "https://auth/verify")) {
            Object[] all = {service("shop", "web", "http:80"), slice("shop", "web", "web-1", "http", 8080, "10.0.0.1"),
                service("shop", "auth", "http:80", "proxy:4180"), annotated("site", SITE, "auth-url", url)};
            Translation got = translator.translate(Fixtures.inputs(all));
            Translation want = new Translator(ProxyDefaults.STANDARD).translate(Fixtures.inputs(all));
            assertThat(got.snapshot(STRAIT).json()).as(url).isEqualTo(want.snapshot(STRAIT).json());
        }
    }
}
