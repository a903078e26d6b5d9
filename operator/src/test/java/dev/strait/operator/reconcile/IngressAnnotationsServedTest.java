package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.WAIT;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.strait.operator.publish.TestProxy;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx annotations on an Ingress (ADR 0054), end to end: the operator translates, a real proxy on
 * the channel serves the snapshot, and a real upstream says which path it was sent.
 */
@EnableKubernetesMockClient(crud = true)
class IngressAnnotationsServedTest {
    static KubernetesClient client;

    private OperatorHarness.Served served;
    private OperatorApp app;
    private TestProxy proxy;
    private HttpServer upstream;

    @BeforeEach
    void start() throws Exception {
        served = OperatorHarness.Served.start(client);
        upstream = served.upstream();
        app = served.app();
        proxy = served.proxy();
    }

    @AfterEach
    void stop() {
        served.close();
    }

    private static Ingress ingress(String name, String annotations, String paths) {
        return ingress(name, name + ".example.com", annotations, paths);
    }

    private static Ingress ingress(String name, String host, String annotations, String paths) {
        return yaml("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata:
                  namespace: shop
                  name: %s
                  annotations: { %s }
                spec:
                  ingressClassName: strait
                  rules:
                    - host: %s
                      http:
                        paths:
                %s""".formatted(name, annotations, host, paths.indent(10)), Ingress.class);
    }

    private static String web(String path, String type) {
        return "- { path: \"" + path + "\", pathType: " + type
                + ", backend: { service: { name: web, port: { name: http } } } }";
    }

    @Test
    void permanentRedirectSendsEveryPathToTheUrlAsGiven() throws Exception {
        create(client, ingress("old", "nginx.ingress.kubernetes.io/permanent-redirect: \"https://new.example.com/welcome\"",
                web("/", "Prefix") + "\n" + web("/shop", "Prefix")));
        await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("old.example.com:8080", "/shop/cart"))
                .startsWith("HTTP/1.1 301 Moved Permanently\r\n")
                .containsIgnoringCase("\r\nLocation: https://new.example.com/welcome\r\n"));
        // The request's query is kept (Strait's redirect; ingress-nginx would drop it).
        assertThat(proxy.exchange("old.example.com", "/?a=1"))
                .containsIgnoringCase("\r\nLocation: https://new.example.com/welcome?a=1\r\n");
    }

    @Test
    void rewriteTargetSendsTheAppTheRewrittenPath() throws Exception {
        create(client, ingress("idiom", "nginx.ingress.kubernetes.io/use-regex: \"true\", "
                + "nginx.ingress.kubernetes.io/rewrite-target: \"/$2\"", web("/something(/|$)(.*)", "ImplementationSpecific")));
        create(client, ingress("plain", "nginx.ingress.kubernetes.io/rewrite-target: /", web("/app", "Prefix")));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("idiom.example.com", "/something/new?q=1")).isEqualTo("200 OK app saw /new?q=1"));
        // ingress-nginx's documented results for the idiom.
        assertThat(proxy.get("idiom.example.com", "/something")).isEqualTo("200 OK app saw /");
        assertThat(proxy.get("idiom.example.com", "/something/")).isEqualTo("200 OK app saw /");
        assertThat(proxy.get("idiom.example.com", "/somethingelse").split(" ")[0]).isEqualTo("404");
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("plain.example.com", "/app/x/y")).isEqualTo("200 OK app saw /"));
    }

    @Test
    void aRegexPathWithUseRegexSendsTheAppTheGroupsTheTargetNames() throws Exception {
        create(client, ingress("regex", "nginx.ingress.kubernetes.io/use-regex: \"true\", "
                + "nginx.ingress.kubernetes.io/rewrite-target: \"/$1\"", web("/api/v[0-9]+/(.*)", "ImplementationSpecific")));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("regex.example.com", "/api/v2/users")).isEqualTo("200 OK app saw /users"));
        // The query is kept; nginx's ~* ignores case; what the regex does not match is not this path's.
        assertThat(proxy.get("regex.example.com", "/api/v10/users/7?page=2")).isEqualTo("200 OK app saw /users/7?page=2");
        assertThat(proxy.get("regex.example.com", "/API/V3/x")).isEqualTo("200 OK app saw /x");
        assertThat(proxy.get("regex.example.com", "/api/vx/users").split(" ")[0]).isEqualTo("404");
    }

    /** ADR 0074: the older Ingress's path "/" becomes a regex too, tried after the younger one's longer regex. */
    @Test
    void anotherIngresssRegexOnTheHostAnswersBeforeAnOlderPrefixSlash() throws Exception {
        create(client, ingress("front", "shared.example.com", "nginx.ingress.kubernetes.io/rewrite-target: /front",
                web("/", "Prefix")));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("shared.example.com", "/users/42")).isEqualTo("200 OK app saw /front"));
        create(client, ingress("users", "shared.example.com", "nginx.ingress.kubernetes.io/use-regex: \"true\", "
                + "nginx.ingress.kubernetes.io/rewrite-target: \"/users-app/$1\"", web("/users/([0-9]+)", "ImplementationSpecific")));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("shared.example.com", "/users/42")).isEqualTo("200 OK app saw /users-app/42"));
        assertThat(proxy.get("shared.example.com", "/other")).isEqualTo("200 OK app saw /front");
        assertThat(proxy.get("shared.example.com", "/users/me")).isEqualTo("200 OK app saw /front");
    }

    @Test
    void aPathTheModelRefusesIsLeftOutAndTheOtherPathsServe() throws Exception {
        // Before, the whole Ingress was refused (Accepted=False) and "/shop" never served.
        create(client, ingress("bad", "", web("/shop", "Prefix") + "\n" + web("/api v2", "Prefix")));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("bad.example.com", "/shop/cart")).isEqualTo("200 OK app saw /shop/cart"));
        assertThat(proxy.get("bad.example.com", "/api%20v2").split(" ")[0]).isEqualTo("404");
        await().atMost(WAIT).untilAsserted(() -> assertThat(client.v1().events().inNamespace("shop").list().getItems())
                .anySatisfy(e -> {
                    assertThat(e.getReason()).isEqualTo("InvalidPath");
                    assertThat(e.getMessage()).startsWith("spec.rules[0].http.paths[1].path: \"/api v2\"");
                }));
    }

    /** ADR 0060: the proxy, whose client here is 127.0.0.1, enforces the ranges; an auth it lacks answers 503. */
    @Test
    void sourceRangesAreEnforcedAndAnAuthStraitLacksAnswers503() throws Exception {
        create(client, ingress("office", "nginx.ingress.kubernetes.io/allowlist-source-range: \"10.0.0.0/8\"",
                web("/", "Prefix")));
        create(client, ingress("local", "nginx.ingress.kubernetes.io/whitelist-source-range: \"10.0.0.0/8, 127.1.2.3/8\"",
                web("/", "Prefix")));
        create(client, ingress("denied", "nginx.ingress.kubernetes.io/denylist-source-range: \"127.0.0.1\"",
                web("/", "Prefix")));
        create(client, ingress("login", "nginx.ingress.kubernetes.io/auth-url: \"https://auth.example.com/verify\"",
                web("/", "Prefix")));
        create(client, ingress("nobody", "nginx.ingress.kubernetes.io/auth-url: \"http://auth.shop.svc/verify\"",
                web("/", "Prefix")));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("local.example.com", "/x")).isEqualTo("200 OK app saw /x"));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("office.example.com", "/x").split(" ")[0]).isEqualTo("403"));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("denied.example.com", "/x").split(" ")[0]).isEqualTo("403"));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("login.example.com", "/x").split(" ")[0]).isEqualTo("503"));
        // The check's Service does not exist: 503, not the app.
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("nobody.example.com", "/x").split(" ")[0]).isEqualTo("503"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(client.v1().events().inNamespace("shop").list().getItems())
                .anySatisfy(e -> {
                    assertThat(e.getReason()).isEqualTo("UnsupportedAnnotation");
                    assertThat(e.getMessage()).startsWith(
                            "metadata.annotations[nginx.ingress.kubernetes.io/auth-url]: \"https://auth.example.com/verify\" is"
                                    + " not a Service of the cluster");
                }).anySatisfy(e -> assertThat(e.getMessage()).startsWith(
                        "metadata.annotations[nginx.ingress.kubernetes.io/auth-url]: Service \"auth\" not found")));
    }

    /**
     * auth-url naming a Service of the namespace (oauth2-proxy's usual setup): its 2xx lets the request through
     * with the user it names, whatever the client claimed; its 401 sends the client to sign in with the way back.
     */
    @Test
    void authUrlAsksTheServiceWhetherARequestMayPass() throws Exception {
        HttpServer auth = oauth2Proxy("/oauth2/auth?allowed_groups=staff");
        HttpServer whoami = whoami();
        try {
            OperatorHarness.serviceBackend(client, "auth", "http", 4180, auth);
            OperatorHarness.serviceBackend(client, "whoami", "http", 80, whoami);
            create(client, ingress("secure", "nginx.ingress.kubernetes.io/auth-url: "
                    + "\"http://auth.shop.svc.cluster.local:4180/oauth2/auth?allowed_groups=staff\", "
                    + "nginx.ingress.kubernetes.io/auth-signin: "
                    + "\"https://login.example.com/oauth2/start?rd=$scheme://$host$escaped_request_uri\", "
                    + "nginx.ingress.kubernetes.io/auth-response-headers: \"X-Auth-Request-User\"",
                    "- { path: /, pathType: Prefix, backend: { service: { name: whoami, port: { name: http } } } }"));
            await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("secure.example.com", "/x?a=1"))
                    .startsWith("HTTP/1.1 302 ")
                    .containsIgnoringCase("\r\nLocation: https://login.example.com/oauth2/start?rd=http"));
            assertThat(proxy.exchange("secure.example.com", "/x", "Cookie: session=alice",
                    "X-Auth-Request-User: mallory")).startsWith("HTTP/1.1 200 ").endsWith("\r\n\r\nuser alice");
        } finally {
            auth.stop(0);
            whoami.stop(0);
        }
    }

    /**
     * auth-url naming oauth2-proxy in a namespace of its own (ADR 0078): the paths answer 503 until its Service accepts
     * the Ingress's namespace, then the check is asked; taking the consent back locks the paths again.
     */
    @Test
    void authUrlAsksAServiceOfAnotherNamespaceOnceItAccepts() throws Exception {
        HttpServer auth = oauth2Proxy("/oauth2/auth");
        HttpServer whoami = whoami();
        try {
            create(client, dev.strait.operator.translate.Fixtures.service("identity", "oauth2-proxy", "http:4180"));
            create(client, dev.strait.operator.translate.Fixtures.slice("identity", "oauth2-proxy", "op-1", "http",
                    auth.getAddress().getPort(), "127.0.0.1"));
            OperatorHarness.serviceBackend(client, "whoami", "http", 80, whoami);
            create(client, ingress("team", "nginx.ingress.kubernetes.io/auth-url: "
                    + "\"http://oauth2-proxy.identity.svc.cluster.local:4180/oauth2/auth\", "
                    + "nginx.ingress.kubernetes.io/auth-response-headers: \"X-Auth-Request-User\"",
                    "- { path: /, pathType: Prefix, backend: { service: { name: whoami, port: { name: http } } } }"));
            await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("team.example.com", "/x",
                    "Cookie: session=alice")).startsWith("HTTP/1.1 503 "));

            accept("shop");
            await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("team.example.com", "/x",
                    "Cookie: session=alice")).startsWith("HTTP/1.1 200 ").endsWith("\r\n\r\nuser alice"));
            assertThat(proxy.exchange("team.example.com", "/x")).startsWith("HTTP/1.1 401 ");

            accept(null);
            await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("team.example.com", "/x",
                    "Cookie: session=alice")).startsWith("HTTP/1.1 503 "));
        } finally {
            auth.stop(0);
            whoami.stop(0);
        }
    }

    /** An oauth2-proxy stand-in: 202 naming alice for her session cookie at {@code uri}, else 401. */
    private static HttpServer oauth2Proxy(String uri) throws java.io.IOException {
        HttpServer auth = HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        auth.createContext("/", x -> {
            boolean alice = "session=alice".equals(x.getRequestHeaders().getFirst("Cookie"))
                    && uri.equals(x.getRequestURI().toString());
            if (alice) {
                x.getResponseHeaders().add("X-Auth-Request-User", "alice");
            }
            x.sendResponseHeaders(alice ? 202 : 401, -1);
            x.close();
        });
        auth.start();
        return auth;
    }

    /** Sets (or, with null, removes) oauth2-proxy's consent to be named from {@code namespaces}. */
    private static void accept(String namespaces) {
        client.services().inNamespace("identity").withName("oauth2-proxy").edit(s -> {
            s.getMetadata().setAnnotations(namespaces == null ? null
                    : java.util.Map.of("strait.dev/accept-references-from", namespaces));
            return s;
        });
    }

    /**
     * ingress-nginx's oauth2-proxy example: the check asks the request's own host, where a second Ingress routes
     * /oauth2 to oauth2-proxy. Until that Ingress exists the check lands on the guarded path itself, which fails
     * closed (500), never the app; then a 401 signs in on the same host and a 2xx reaches the app with the user.
     */
    @Test
    void authUrlOnTheRequestsOwnHostIsAnsweredByTheIngressRoutingOauth2() throws Exception {
        java.util.List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpServer oauth2 = HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        oauth2.createContext("/oauth2/auth", x -> {
            asked.add(x.getRequestHeaders().getFirst("Host") + " " + x.getRequestURI());
            boolean alice = "session=alice".equals(x.getRequestHeaders().getFirst("Cookie"));
            if (alice) {
                x.getResponseHeaders().add("X-Auth-Request-User", "alice");
            }
            x.sendResponseHeaders(alice ? 202 : 401, -1);
            x.close();
        });
        oauth2.createContext("/oauth2/start", x -> {
            byte[] body = "sign in".getBytes();
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        oauth2.start();
        HttpServer whoami = whoami();
        try {
            OperatorHarness.serviceBackend(client, "oauth2-proxy", "http", 4180, oauth2);
            OperatorHarness.serviceBackend(client, "whoami", "http", 80, whoami);
            create(client, ingress("dash", "dash.example.com", "nginx.ingress.kubernetes.io/auth-url: "
                    + "\"https://$host/oauth2/auth\", nginx.ingress.kubernetes.io/auth-signin: "
                    + "\"https://$host/oauth2/start?rd=$escaped_request_uri\", "
                    + "nginx.ingress.kubernetes.io/auth-response-headers: \"X-Auth-Request-User\"",
                    "- { path: /, pathType: Prefix, backend: { service: { name: whoami, port: { name: http } } } }"));
            await().atMost(WAIT).untilAsserted(() ->
                    assertThat(proxy.get("dash.example.com", "/x").split(" ")[0]).isEqualTo("500"));
            create(client, ingress("dash-oauth2", "dash.example.com", "", "- { path: /oauth2, pathType: Prefix,"
                    + " backend: { service: { name: oauth2-proxy, port: { name: http } } } }"));
            // A relative sign-in: the client stays on its scheme and host; rd is its path and query ({uri}).
            await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("dash.example.com", "/x?a=1"))
                    .startsWith("HTTP/1.1 302 ")
                    .containsIgnoringCase("\r\nLocation: /oauth2/start?rd=%2Fx%3Fa%3D1\r\n"));
            assertThat(proxy.get("dash.example.com", "/oauth2/start?rd=x")).isEqualTo("200 OK sign in");
            assertThat(proxy.exchange("dash.example.com", "/x", "Cookie: session=alice",
                    "X-Auth-Request-User: mallory")).startsWith("HTTP/1.1 200 ").endsWith("\r\n\r\nuser alice");
            assertThat(asked).as("asked of the request's host").contains("dash.example.com /oauth2/auth");
        } finally {
            oauth2.stop(0);
            whoami.stop(0);
        }
    }

    /** ADR 0061: 503 until the Secret is there, then 401 until alice logs in; a changed Secret applies. */
    @Test
    void basicAuthFromItsSecret() throws Exception {
        create(client, ingress("login", "nginx.ingress.kubernetes.io/auth-type: basic, "
                + "nginx.ingress.kubernetes.io/auth-secret: basic-auth, nginx.ingress.kubernetes.io/auth-realm: Staff",
                web("/", "Prefix")));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("login.example.com", "/x").split(" ")[0]).isEqualTo("503"));
        client.secrets().resource(dev.strait.operator.translate.Fixtures.authSecret("shop", "basic-auth",
                "alice:$apr1$x$12YdXEY0/hH4rDNkmZupO0\n")).create();
        await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("login.example.com", "/x"))
                .startsWith("HTTP/1.1 401 ").contains("\r\nwww-authenticate: Basic realm=\"Staff\", charset=\"UTF-8\"\r\n"));
        String alice = "Basic " + java.util.Base64.getEncoder().encodeToString("alice:secret".getBytes());
        assertThat(proxy.exchange("login.example.com", "/x", "Authorization: " + alice)).startsWith("HTTP/1.1 200 ");
        client.secrets().resource(dev.strait.operator.translate.Fixtures.authSecret("shop", "basic-auth",
                "bob:{PLAIN}other\n")).update();
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.exchange("login.example.com", "/x", "Authorization: " + alice)).startsWith("HTTP/1.1 401 "));
    }

    /** ADR 0062: backend-protocol HTTPS speaks TLS to the Service, whose certificate nobody here can check. */
    @Test
    void backendProtocolHttpsSpeaksTlsToTheService() throws Exception {
        HttpServer secure = OperatorHarness.echoUpstreamTls("secure");
        try {
            OperatorHarness.serviceBackend(client, "secure", "https", 443, secure);
            create(client, ingress("dashboard", "nginx.ingress.kubernetes.io/backend-protocol: HTTPS",
                    "- { path: /, pathType: Prefix, backend: { service: { name: secure, port: { number: 443 } } } }"));
            await().atMost(WAIT).untilAsserted(() ->
                    assertThat(proxy.get("dashboard.example.com", "/ui")).isEqualTo("200 OK secure saw /ui over TLS"));
        } finally {
            secure.stop(0);
        }
    }

    /**
     * proxy-ssl-verify: the backend's certificate is checked against the Secret's CAs and the name proxy-ssl-name, and
     * the Secret's client certificate is presented to a backend that asks for one (mutual TLS). Without the name, the
     * endpoint's address is checked; with another CA in the Secret, nothing reaches the backend: 502.
     */
    @Test
    void proxySslVerifyChecksTheBackendAndPresentsTheClientCertificate() throws Exception {
        java.time.Instant now = java.time.Instant.now();
        java.time.Duration day = java.time.Duration.ofDays(1);
        var backendCa = dev.strait.operator.publish.tls.ChannelPki.newCa("backend", now, day);
        var clientCa = dev.strait.operator.publish.tls.ChannelPki.newCa("clients", now, day);
        var presented = dev.strait.operator.publish.tls.ChannelPki.clientCertificate(clientCa, "strait", now, day);
        HttpServer secure = OperatorHarness.echoUpstreamTls("secure", backendCa, clientCa);
        try {
            OperatorHarness.serviceBackend(client, "secure", "https", 443, secure);
            io.fabric8.kubernetes.api.model.Secret secret = new io.fabric8.kubernetes.api.model.SecretBuilder()
                    .withNewMetadata().withNamespace("shop").withName("backend-tls").endMetadata()
                    .withType("kubernetes.io/tls").withData(new java.util.HashMap<>(java.util.Map.of(
                            "ca.crt", dev.strait.operator.translate.Fixtures.b64(backendCa.certificatePem()),
                            "tls.crt", dev.strait.operator.translate.Fixtures.b64(presented.certificatePem()),
                            "tls.key", dev.strait.operator.translate.Fixtures.b64(presented.keyPem())))).build();
            client.secrets().resource(secret).create();
            String tls = "nginx.ingress.kubernetes.io/backend-protocol: HTTPS, "
                    + "nginx.ingress.kubernetes.io/proxy-ssl-secret: shop/backend-tls, "
                    + "nginx.ingress.kubernetes.io/proxy-ssl-verify: \"on\"";
            String path = "- { path: /, pathType: Prefix, backend: { service: { name: secure, port: { number: 443 } } } }";
            create(client, ingress("verified", tls + ", nginx.ingress.kubernetes.io/proxy-ssl-name: web.shop.svc", path));
            create(client, ingress("by-address", tls, path));
            await().atMost(WAIT).untilAsserted(() ->
                    assertThat(proxy.get("verified.example.com", "/ui")).isEqualTo("200 OK secure saw /ui over TLS"));
            assertThat(proxy.get("by-address.example.com", "/ui").split(" ")[0]).as("127.0.0.1 is not web.shop.svc")
                    .isEqualTo("502");

            var otherCa = dev.strait.operator.publish.tls.ChannelPki.newCa("backend", now, day);
            secret.getData().put("ca.crt", dev.strait.operator.translate.Fixtures.b64(otherCa.certificatePem()));
            client.secrets().resource(secret).update();
            await().atMost(WAIT).untilAsserted(() ->
                    assertThat(proxy.get("verified.example.com", "/ui").split(" ")[0]).isEqualTo("502"));
        } finally {
            secure.stop(0);
        }
    }

    /** ADR 0063: a canary Ingress takes its share of its primary's path; X-Canary: always pins it. */
    @Test
    void aCanaryTakesItsShareOfThePrimarysPath() throws Exception {
        HttpServer canaryApp = OperatorHarness.echoUpstream("canary");
        try {
            OperatorHarness.serviceBackend(client, "web-canary", "http", 80, canaryApp);
            create(client, ingress("shop", "", web("/", "Prefix")));
            Ingress canary = ingress("shop", "nginx.ingress.kubernetes.io/canary: \"true\", "
                    + "nginx.ingress.kubernetes.io/canary-by-header: X-Canary, "
                    + "nginx.ingress.kubernetes.io/canary-by-cookie: canary",
                    "- { path: /, pathType: Prefix, backend: { service: { name: web-canary, port: { name: http } } } }");
            canary.getMetadata().setName("shop-canary");
            create(client, canary);
            await().atMost(WAIT).untilAsserted(() -> assertThat(
                    proxy.exchange("shop.example.com", "/cart", "X-Canary: always")).endsWith("canary saw /cart"));
            assertThat(proxy.get("shop.example.com", "/cart")).as("weight 0: the primary").isEqualTo("200 OK app saw /cart");
            assertThat(proxy.exchange("shop.example.com", "/cart", "X-Canary: never")).endsWith("app saw /cart");
            assertThat(proxy.exchange("shop.example.com", "/cart", "Cookie: sid=1; canary=always")).endsWith("canary saw /cart");
            assertThat(proxy.exchange("shop.example.com", "/cart", "Cookie: canary=always", "X-Canary: never"))
                    .as("the header wins over the cookie, as in ingress-nginx").endsWith("app saw /cart");

            canary.getMetadata().setAnnotations(java.util.Map.of("nginx.ingress.kubernetes.io/canary", "true",
                    "nginx.ingress.kubernetes.io/canary-weight", "100"));
            client.resource(canary).update();
            await().atMost(WAIT).untilAsserted(() ->
                    assertThat(proxy.get("shop.example.com", "/cart")).isEqualTo("200 OK canary saw /cart"));
        } finally {
            canaryApp.stop(0);
        }
    }

    /** ADR 0064: a request limit from the annotations; the proxy answers 429 past the burst. */
    @Test
    void requestLimitsAnswer429PastTheBurst() throws Exception {
        create(client, ingress("limited", "nginx.ingress.kubernetes.io/limit-rpm: \"1\", "
                + "nginx.ingress.kubernetes.io/limit-burst-multiplier: \"1\"", web("/", "Prefix")));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("limited.example.com", "/a")).isEqualTo("200 OK app saw /a"));
        assertThat(proxy.get("limited.example.com", "/b")).as("the burst").isEqualTo("200 OK app saw /b");
        assertThat(proxy.exchange("limited.example.com", "/c")).startsWith("HTTP/1.1 429 ").contains("\r\nretry-after: ");
    }

    /** An app on a real socket that answers which user the proxy told it of ({@code X-Auth-Request-User}). */
    private static HttpServer whoami() throws java.io.IOException {
        HttpServer whoami = HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        whoami.createContext("/", x -> {
            byte[] body = ("user " + x.getRequestHeaders().getFirst("X-Auth-Request-User")).getBytes();
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        whoami.start();
        return whoami;
    }
}
