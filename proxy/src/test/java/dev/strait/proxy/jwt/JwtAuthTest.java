package dev.strait.proxy.jwt;

import static dev.strait.proxy.testing.TestJwt.in;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestJwt;
import dev.strait.proxy.testing.TestJwt.Kind;
import dev.strait.proxy.testing.TestUpstream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code jwtAuth} (ADR 0108) on a real proxy, with keys inline and from a JWKS endpoint on a socket: who is
 * let through, what the refused are told, what the app is told, and how keys are fetched, kept and fetched again.
 */
class JwtAuthTest {
    private final ProxyHarness h = new ProxyHarness();
    private HttpServer idp;
    private volatile String published = "{\"keys\":[]}";
    private volatile int status = 200;
    private volatile String discovery = "{}";
    private final AtomicInteger fetches = new AtomicInteger();
    private TestUpstream app;

    @BeforeEach
    void start() throws Exception {
        idp = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        idp.createContext("/jwks", exchange -> {
            try (exchange) {
                fetches.incrementAndGet();
                byte[] body = published.getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(status, body.length);
                try (OutputStream o = exchange.getResponseBody()) {
                    o.write(body);
                }
            }
        });
        idp.createContext("/realm/.well-known/openid-configuration", exchange -> {
            try (exchange) {
                byte[] body = discovery.getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream o = exchange.getResponseBody()) {
                    o.write(body);
                }
            }
        });
        idp.start();
        app = h.upstream("app", TestUpstream.reply(200, "app"));
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
        idp.stop(0);
    }

    private String jwksUri() {
        return "http://127.0.0.1:" + idp.getAddress().getPort() + "/jwks";
    }

    /** A rule for /api with {@code jwtAuth} as given (YAML flow mapping members), and a public one after it. */
    private String config(String jwtAuth) {
        return """
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /api } } ]
                        backends: [ { upstream: app } ]
                        jwtAuth: { %s }
                      - respond: { body: "public" }
                """.formatted(app.endpoint(), jwtAuth);
    }

    private static String quoted(String json) {
        return "\"" + json.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Test
    void aValidTokenIsServedAndTheAppToldWhoItIsAndNobodyElseIs() throws Exception {
        TestJwt idKey = new TestJwt(Kind.RS256, "k1");
        h.start(config("jwks: " + quoted(TestJwt.jwks(idKey)) + ", issuer: \"https://idp.example/\", audiences: [ api ],"
                + " realm: api, claimHeaders: { sub: X-User, realm_access.roles: X-Roles }"));
        String token = idKey.token("\"iss\":\"https://idp.example/\",\"aud\":\"api\",\"sub\":\"alice\",\"exp\":" + in(300)
                + ",\"realm_access\":{\"roles\":[\"admin\",\"dev\"]}");
        RawClient.Response ok = h.get("/api/x", "Authorization: Bearer " + token, "X-User: mallory");
        assertThat(ok.status()).isEqualTo(200);
        assertThat(app.last().header("x-user")).isEqualTo("alice");
        assertThat(app.last().headers().getAll("x-user")).hasSize(1);
        assertThat(app.last().header("x-roles")).isEqualTo("admin,dev");
        assertThat(app.last().header("authorization")).as("passed on, as nginx's auth_jwt does").isEqualTo("Bearer " + token);
        // Again: remembered, and still the app hears the claims, not the client.
        assertThat(h.get("/api/x", "authorization: bearer " + token, "X-User: mallory").status()).isEqualTo(200);
        assertThat(app.last().header("x-user")).isEqualTo("alice");

        int before = app.requests();
        RawClient.Response none = h.get("/api/x");
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.header("www-authenticate")).isEqualTo("Bearer realm=\"api\"");
        assertThat(none.text()).doesNotContain("public");
        RawClient.Response expired = h.get("/api/x", "Authorization: Bearer " + idKey.token(
                "\"iss\":\"https://idp.example/\",\"aud\":\"api\",\"exp\":" + in(-120)));
        assertThat(expired.status()).isEqualTo(401);
        assertThat(expired.header("www-authenticate")).isEqualTo("Bearer realm=\"api\", error=\"invalid_token\","
                + " error_description=\"the token expired\"");
        TestJwt stranger = new TestJwt(Kind.RS256, "k1");
        assertThat(h.get("/api/x", "Authorization: Bearer " + stranger.token("\"iss\":\"https://idp.example/\","
                + "\"aud\":\"api\"")).header("www-authenticate")).contains("the signature does not verify");
        assertThat(h.get("/api/x", "Authorization: Bearer " + idKey.token("\"iss\":\"https://idp.example/\","
                + "\"aud\":\"web\"")).status()).isEqualTo(401);
        assertThat(h.get("/api/x", "Authorization: Basic YWxpY2U6cHc=").status()).isEqualTo(401);
        assertThat(app.requests()).as("none of them reached the app").isEqualTo(before);
        assertThat(h.get("/other").text()).isEqualTo("public");
    }

    /**
     * Keys from the provider's jwks_uri: fetched by the first request that needs them (which waits, its body held),
     * kept, and fetched again when a token names a key they lack, the provider having rotated its keys.
     */
    @Test
    void keysAreFetchedWhenFirstNeededKeptAndFetchedAgainForANewKey() throws Exception {
        TestJwt k2025 = new TestJwt(Kind.ES256, "2025");
        published = TestJwt.jwks(k2025);
        h.start(config("jwksUri: \"" + jwksUri() + "\", claimHeaders: { sub: X-User }"));
        assertThat(fetches.get()).as("nothing fetched before a request needs the keys").isZero();

        try (RawClient c = h.client()) {
            String body = "x".repeat(5000);
            RawClient.Response r = c.send("POST /api/upload HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer "
                    + k2025.token("\"sub\":\"alice\"") + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body).read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(new String(app.last().body(), StandardCharsets.UTF_8)).isEqualTo(body);
        }
        assertThat(h.get("/api/x", "Authorization: Bearer " + k2025.token("\"sub\":\"bob\"")).status()).isEqualTo(200);
        assertThat(app.last().header("x-user")).isEqualTo("bob");
        assertThat(fetches.get()).isEqualTo(1);

        TestJwt k2026 = new TestJwt(Kind.ES256, "2026");
        published = TestJwt.jwks(k2025, k2026);
        assertThat(h.get("/api/x", "Authorization: Bearer " + k2026.token("\"sub\":\"carol\"")).status()).isEqualTo(200);
        assertThat(fetches.get()).isEqualTo(2);
        // A key nobody publishes: not fetched again so soon (a client cannot make the proxy hammer the provider).
        TestJwt forged = new TestJwt(Kind.ES256, "2027");
        assertThat(h.get("/api/x", "Authorization: Bearer " + forged.token("\"sub\":\"mallory\"")).status()).isEqualTo(401);
        assertThat(fetches.get()).isEqualTo(2);
    }

    @Test
    void withoutKeysNobodysTokenCanBeCheckedAndTheAnswerSaysSo() throws Exception {
        status = 500;
        h.start(config("jwksUri: \"" + jwksUri() + "\""));
        TestJwt k = new TestJwt(Kind.EdDSA, "k");
        RawClient.Response r = h.get("/api/x", "Authorization: Bearer " + k.token("\"sub\":\"alice\""));
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.header("retry-after")).isEqualTo("5");
        assertThat(app.requests()).isZero();
        // A request without a token is told what it lacks all the same.
        assertThat(h.get("/api/x").status()).isEqualTo(401);
        // Right after a failed fetch, requests are not let to ask the provider at their own rate.
        assertThat(h.get("/api/x", "Authorization: Bearer " + k.token("\"sub\":\"bob\"")).status()).isEqualTo(503);
        assertThat(fetches.get()).isEqualTo(1);
        // The provider back: the next request waits for a fetch and is served.
        status = 200;
        published = TestJwt.jwks(k);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                h.get("/api/x", "Authorization: Bearer " + k.token("\"sub\":\"alice\"")).status() == 200);
    }

    @Test
    void optionalLetsTheTokenlessThroughAndACookieCarriesOne() throws Exception {
        TestJwt k = new TestJwt(Kind.PS256, "k");
        h.start(config("jwks: " + quoted(TestJwt.jwks(k)) + ", optional: true, cookie: session,"
                + " claimHeaders: { email: X-Email }"));
        assertThat(h.get("/api/x", "X-Email: ceo@example.com").status()).isEqualTo(200);
        assertThat(app.last().header("x-email")).as("the client's own copy is dropped").isNull();
        assertThat(h.get("/api/x", "Cookie: theme=dark; session=" + k.token("\"email\":\"a@example.com\"")).status())
                .isEqualTo(200);
        assertThat(app.last().header("x-email")).isEqualTo("a@example.com");
        assertThat(h.get("/api/x", "Cookie: session=not.a.token").status()).as("a bad token is refused even so")
                .isEqualTo(401);
    }

    /** require: a valid token that lacks the scope or role the path asks for is 403, RFC 6750's insufficient_scope. */
    @Test
    void aValidTokenWithoutTheRequiredScopeOrRoleIsForbidden() throws Exception {
        TestJwt k = new TestJwt(Kind.ES256, "k");
        h.start(config("jwks: " + quoted(TestJwt.jwks(k)) + ", claimHeaders: { \"https://shop.example/tier\": X-Tier },"
                + " require: { scope: [ \"orders:read\" ], \"https://shop.example/roles\": [ staff, admin ] }"));
        String ns = "\"https://shop.example/roles\"";
        assertThat(h.get("/api/x", "Authorization: Bearer " + k.token("\"scope\":\"openid orders:read\"," + ns
                + ":[\"staff\"],\"https://shop.example/tier\":\"gold\"")).status()).isEqualTo(200);
        assertThat(app.last().header("x-tier")).as("a namespaced claim, found by its whole name").isEqualTo("gold");
        RawClient.Response noScope = h.get("/api/x", "Authorization: Bearer " + k.token("\"scope\":\"openid\"," + ns
                + ":[\"staff\"]"));
        assertThat(noScope.status()).isEqualTo(403);
        assertThat(noScope.header("www-authenticate")).isEqualTo("Bearer realm=\"strait\", error=\"insufficient_scope\","
                + " error_description=\"the token holds none of the values this path requires in scope\"");
        assertThat(h.get("/api/x", "Authorization: Bearer " + k.token("\"scope\":\"orders:read\"," + ns
                + ":\"customer\"")).status()).isEqualTo(403);
        assertThat(h.get("/api/x", "Authorization: Bearer " + k.token("\"scope\":\"orders:read\"")).status())
                .as("a required claim that is absent").isEqualTo(403);
        assertThat(h.get("/api/x", "Authorization: Bearer " + k.token("\"scope\":\"orders:readonly\"," + ns
                + ":[\"admin\"]")).status()).as("whole words only").isEqualTo(403);
    }

    /** Only the issuer given: its OpenID discovery document names the keys, and must name that very issuer. */
    @Test
    void theIssuersDiscoveryDocumentNamesTheKeys() throws Exception {
        String issuer = "http://127.0.0.1:" + idp.getAddress().getPort() + "/realm";
        TestJwt k = new TestJwt(Kind.RS256, "k");
        published = TestJwt.jwks(k);
        discovery = "{\"issuer\":\"" + issuer + "\",\"jwks_uri\":\"" + jwksUri() + "\"}";
        h.start(config("issuer: \"" + issuer + "\""));
        assertThat(h.get("/api/x", "Authorization: Bearer " + k.token("\"iss\":\"" + issuer + "\"")).status())
                .isEqualTo(200);
        assertThat(fetches.get()).isEqualTo(1);
        assertThat(h.get("/api/x", "Authorization: Bearer " + k.token("\"iss\":\"http://elsewhere/\"")).status())
                .as("the issuer is still checked").isEqualTo(401);
    }

    @Test
    void aDiscoveryDocumentOfAnotherIssuerIsNotFollowed() throws Exception {
        String issuer = "http://127.0.0.1:" + idp.getAddress().getPort() + "/realm";
        TestJwt k = new TestJwt(Kind.RS256, "k");
        published = TestJwt.jwks(k);
        discovery = "{\"issuer\":\"https://evil.example/\",\"jwks_uri\":\"" + jwksUri() + "\"}";
        h.start(config("issuer: \"" + issuer + "\""));
        assertThat(h.get("/api/x", "Authorization: Bearer " + k.token("\"iss\":\"" + issuer + "\"")).status())
                .isEqualTo(503);
        assertThat(fetches.get()).as("the keys it names are not fetched").isZero();
    }

    /**
     * A browser's CORS preflight carries no token: it is answered as for any guard, and the request it clears is
     * then checked; a refusal carries the CORS fields, so the page's script can read the 401.
     */
    @Test
    void aCorsPreflightPassesAndTheRefusalCarriesCorsFields() throws Exception {
        TestJwt k = new TestJwt(Kind.ES256, "k");
        h.start(config("jwks: " + quoted(TestJwt.jwks(k)) + " }\n        cors: { allowOrigins: ["
                + " \"https://app.example.com\" ]"));
        try (RawClient c = h.client()) {
            RawClient.Response r = c.send("OPTIONS /api/x HTTP/1.1\r\nHost: a\r\nOrigin: https://app.example.com\r\n"
                    + "Access-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: authorization\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(204);
            RawClient.Response refused = c.send("GET /api/x HTTP/1.1\r\nHost: a\r\nOrigin: https://app.example.com\r\n"
                    + "\r\n").read();
            assertThat(refused.status()).isEqualTo(401);
            assertThat(refused.header("access-control-allow-origin")).isEqualTo("https://app.example.com");
        }
        assertThat(app.requests()).isZero();
    }

    @Test
    void http2RequestsAreCheckedToo() throws Exception {
        TestJwt k = new TestJwt(Kind.ES256, "k");
        h.start(config("jwks: " + quoted(TestJwt.jwks(k))));
        HttpClient c = h.h2cClient("/");
        HttpResponse<String> ok = c.send(HttpRequest.newBuilder(h.uri("/api/x")).header("Authorization", "Bearer "
                + k.token("\"sub\":\"a\"")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ok.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(ok.statusCode()).isEqualTo(200);
        HttpResponse<String> refused = c.send(HttpRequest.newBuilder(h.uri("/api/x")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.headers().firstValue("www-authenticate")).hasValue("Bearer realm=\"strait\"");
    }
}
