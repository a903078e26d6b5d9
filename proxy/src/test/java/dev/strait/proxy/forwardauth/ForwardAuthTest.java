package dev.strait.proxy.forwardauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code forwardAuth} on a real proxy, with a real authorization service on a socket: a request
 * reaches the action only after the service said 2xx, carrying the fields it granted; every other answer of
 * the service is the client's, a 401 the sign-in redirect where one is set; a body waits for the answer.
 */
class ForwardAuthTest {
    private final ProxyHarness h = new ProxyHarness();
    private TestUpstream app;
    private TestUpstream auth;
    private TestUpstream slowAuth;
    private int deadPort;

    @BeforeEach
    void start() throws Exception {
        // The app answers what reached it: method, target, the user it was told of, and the body's size.
        app = h.upstream("app", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200,
                "app " + req.method() + " " + req.uri() + " user=" + req.headers().getAll("x-auth-request-user")
                        + " body=" + req.content().readableBytes())));
        // The service decides by the request's Authorization, as oauth2-proxy's /oauth2/auth does by cookie.
        auth = h.upstream("auth", (ctx, req, up) -> {
            String credentials = req.headers().get(HttpHeaderNames.AUTHORIZATION, "");
            if (credentials.equals("Bearer good")) {
                ctx.writeAndFlush(TestUpstream.response(202, "x".repeat(10_000), "x-auth-request-user", "alice",
                        "x-auth-request-email", "alice@example.com", "x-not-granted", "secret"));
            } else if (credentials.equals("Bearer banned")) {
                ctx.writeAndFlush(TestUpstream.response(403, "no entry", "x-reason", "banned"));
            } else {
                ctx.writeAndFlush(TestUpstream.response(401, "who are you", "www-authenticate", "Bearer realm=\"x\"",
                        "set-cookie", "_session=; Max-Age=0"));
            }
        });
        slowAuth = h.upstream("slow", TestUpstream.stall());
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        h.start("""
                upstreams:
                  - { name: app, endpoints: [ "%s" ] }
                  - { name: auth, endpoints: [ "%s" ] }
                  - { name: slow, endpoints: [ "%s" ] }
                  - { name: dead, endpoints: [ "127.0.0.1:%d" ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /open } } ]
                        respond: { status: 200, body: "open" }
                      - matches: [ { path: { type: Prefix, value: /fixed } } ]
                        respond: { status: 200, body: "fixed" }
                        forwardAuth: { upstream: auth }
                      - matches: [ { path: { type: Prefix, value: /signin } } ]
                        backends: [ { upstream: app } ]
                        forwardAuth: { upstream: auth, signIn: "https://login.example.com/start?to={url}&x=1" }
                      - matches: [ { path: { type: Prefix, value: /login-here } } ]
                        backends: [ { upstream: app } ]
                        forwardAuth: { upstream: auth, signIn: "/oauth2/start" }
                      - matches: [ { path: { type: Prefix, value: /path-back } } ]
                        backends: [ { upstream: app } ]
                        forwardAuth: { upstream: auth, signIn: "/oauth2/start?rd={uri}" }
                      - matches: [ { path: { type: Prefix, value: /down } } ]
                        backends: [ { upstream: app } ]
                        forwardAuth: { upstream: dead }
                      - matches: [ { path: { type: Prefix, value: /slow } } ]
                        backends: [ { upstream: app } ]
                        forwardAuth: { upstream: slow }
                      - backends: [ { upstream: app } ]
                        forwardAuth:
                          upstream: auth
                          path: "/oauth2/auth?allowed_groups=ops"
                          responseHeaders: [ X-Auth-Request-User, X-Auth-Request-Email ]
                """.formatted(app.endpoint(), auth.endpoint(), slowAuth.endpoint(), deadPort));
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void anAllowedRequestReachesTheActionWithTheGrantedFieldsOnly() throws Exception {
        RawClient.Response r = h.get("/a/b?c=d", "Authorization: Bearer good", "X-Auth-Request-User: mallory");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("app GET /a/b?c=d user=[alice] body=0");
        assertThat(app.last().header("x-auth-request-email")).isEqualTo("alice@example.com");
        assertThat(app.last().header("x-not-granted")).as("not listed in responseHeaders").isNull();

        TestUpstream.Seen check = auth.last();
        assertThat(check.method()).isEqualTo("GET");
        assertThat(check.uri()).isEqualTo("/oauth2/auth?allowed_groups=ops");
        assertThat(check.header("authorization")).isEqualTo("Bearer good");
        assertThat(check.header("x-original-uri")).isEqualTo("/a/b?c=d");
        assertThat(check.header("x-forwarded-uri")).isEqualTo("/a/b?c=d");
        assertThat(check.header("x-original-method")).isEqualTo("GET");
        assertThat(check.header("x-forwarded-method")).isEqualTo("GET");
        assertThat(check.header("x-original-url")).isEqualTo("http://test/a/b?c=d");
        assertThat(check.header("x-auth-request-redirect")).isEqualTo("/a/b?c=d");
        assertThat(check.header("x-forwarded-host")).isEqualTo("test");
        assertThat(check.header("x-forwarded-proto")).isEqualTo("http");
        assertThat(check.header("x-forwarded-for")).isEqualTo("127.0.0.1");
    }

    @Test
    void anyOtherAnswerIsTheClientsAndTheActionNeverSeesTheRequest() throws Exception {
        RawClient c = h.client();
        RawClient.Response none = c.send("GET /private HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.header("www-authenticate")).isEqualTo("Bearer realm=\"x\"");
        assertThat(none.text()).isEqualTo("who are you");

        RawClient.Response banned = c.send("GET /private HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer banned\r\n\r\n")
                .read();
        assertThat(banned.status()).isEqualTo(403);
        assertThat(banned.header("x-reason")).isEqualTo("banned");
        assertThat(banned.text()).isEqualTo("no entry");

        // The same connection goes on, and an allowed request on it passes.
        RawClient.Response ok = c.send("GET /private HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer good\r\n\r\n").read();
        assertThat(ok.text()).startsWith("app GET /private user=[alice]");
        assertThat(app.requests()).as("only the allowed request reached the app").isEqualTo(1);
        assertThat(auth.connections()).as("the checks' answers were read to their end and the connection reused")
                .isEqualTo(1);
        c.close();
    }

    @Test
    void aFixedAnswerIsCheckedToo() throws Exception {
        assertThat(h.get("/fixed").status()).isEqualTo(401);
        RawClient.Response ok = h.get("/fixed", "Authorization: Bearer good");
        assertThat(ok.status()).isEqualTo(200);
        assertThat(ok.text()).isEqualTo("fixed");
        assertThat(h.get("/open").text()).as("a rule without forwardAuth asks nobody").isEqualTo("open");
        assertThat(auth.requests()).isEqualTo(2);
    }

    @Test
    void aBodyWaitsForTheAnswerAndReachesTheActionWhole() throws Exception {
        byte[] body = new byte[300_000];
        Arrays.fill(body, (byte) 'b');
        RawClient c = h.client();
        for (String credentials : new String[] {"Bearer good", "none", "Bearer good"}) {
            c.send(("POST /upload HTTP/1.1\r\nHost: a\r\nAuthorization: " + credentials
                    + "\r\nContent-Type: application/octet-stream\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            c.send(body);
            RawClient.Response r = c.read();
            if (credentials.equals("none")) {
                assertThat(r.status()).isEqualTo(401);
            } else {
                assertThat(r.text()).isEqualTo("app POST /upload user=[alice] body=300000");
            }
        }
        // The refused body was read and dropped, never sent: the app saw two uploads, whole; the checks none.
        assertThat(app.requests()).isEqualTo(2);
        assertThat(app.seen()).allSatisfy(s -> assertThat(s.body()).isEqualTo(body));
        assertThat(auth.seen()).allSatisfy(s -> {
            assertThat(s.body()).isEmpty();
            assertThat(s.header("content-length")).isNull();
            assertThat(s.header("content-type")).isNull();
        });
        c.close();
    }

    /**
     * A client that holds its upload back for {@code 100 Continue} is asked for it only once the check said yes
     * (the service has been asked by the time the 100 comes); a refused one never hears it, never sends the
     * body, and the connection ends with the answer, since the body might still follow it (RFC 9110 10.1.1).
     */
    @Test
    void aHeldBackUploadIsAskedForOnlyAfterTheCheckSaidYes() throws Exception {
        String upload = "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n";
        try (RawClient refused = h.client()) {
            RawClient.Response r = refused.send(upload + "\r\n").read();
            assertThat(r.status()).isEqualTo(401);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(refused.closedByServer()).isTrue();
        }
        try (RawClient c = h.client()) {
            c.send(upload + "Authorization: Bearer good\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(100);
            assertThat(auth.requests()).as("the check came first").isEqualTo(2);
            assertThat(c.send("hello").read().text()).isEqualTo("app POST /upload user=[alice] body=5");
        }
        assertThat(app.requests()).isEqualTo(1);
    }

    /** Pipelined requests behind checks, one with a body, one refused, are answered in order on one connection. */
    @Test
    void pipelinedRequestsWaitTheirTurn() throws Exception {
        RawClient c = h.client();
        c.send("POST /one HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer good\r\nContent-Length: 5\r\n\r\nhello"
                + "GET /two HTTP/1.1\r\nHost: a\r\n\r\n"
                + "GET /three HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer good\r\n\r\n");
        assertThat(c.read().text()).isEqualTo("app POST /one user=[alice] body=5");
        assertThat(c.read().status()).isEqualTo(401);
        assertThat(c.read().text()).isEqualTo("app GET /three user=[alice] body=0");
        c.close();
    }

    @Test
    void a401GoesToTheSignInPageWithTheWayBack() throws Exception {
        RawClient.Response r = h.get("/signin/x?y=z&w");
        assertThat(r.status()).isEqualTo(302);
        assertThat(r.header("location"))
                .isEqualTo("https://login.example.com/start?to=http%3A%2F%2Ftest%2Fsignin%2Fx%3Fy%3Dz%26w&x=1");
        assertThat(r.header("set-cookie")).isEqualTo("_session=; Max-Age=0");
        assertThat(r.header("cache-control")).isEqualTo("no-store");

        RawClient.Response here = h.get("/login-here/a");
        assertThat(here.status()).isEqualTo(302);
        assertThat(here.header("location")).isEqualTo("/oauth2/start?rd=http%3A%2F%2Ftest%2Flogin-here%2Fa");
        assertThat(h.get("/path-back/a?b=c").header("location")).as("the path and query alone")
                .isEqualTo("/oauth2/start?rd=%2Fpath-back%2Fa%3Fb%3Dc");

        // A 403 is not a question of signing in.
        assertThat(h.get("/signin/x", "Authorization: Bearer banned").status()).isEqualTo(403);
        assertThat(h.get("/signin/x", "Authorization: Bearer good").text()).startsWith("app GET /signin/x");
    }

    @Test
    void aServiceThatCannotBeAskedLetsNothingThrough() throws Exception {
        RawClient.Response r = h.get("/down/x", "Authorization: Bearer good");
        assertThat(r.status()).isEqualTo(502);
        assertThat(app.requests()).isZero();
    }

    /** Clients that leave while their check waits (with or without a body on its way) cost nothing. */
    @Test
    void aClientGoneWhileItsCheckWaitsLeavesNothingBehind() throws Exception {
        for (int i = 0; i < 10; i++) {
            RawClient c = h.client();
            c.send("GET /slow/" + i + " HTTP/1.1\r\nHost: a\r\n\r\n");
            RawClient p = h.client();
            p.send("POST /slow/" + i + " HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n" + "p".repeat(50_000));
            awaitRequests(slowAuth, 2 * (i + 1));
            c.close();
            p.close();
        }
        // The leak check of every test class fails it on a held part left behind; the proxy goes on.
        assertThat(h.get("/private", "Authorization: Bearer good").status()).isEqualTo(200);
        assertThat(app.requests()).isEqualTo(1);
    }

    @Test
    void http2() throws Exception {
        HttpClient c = h.h2cClient("/open");
        HttpResponse<String> ok = c.send(HttpRequest.newBuilder(h.uri("/h2?q=1")).header("Authorization", "Bearer good")
                .POST(HttpRequest.BodyPublishers.ofString("z".repeat(70_000))).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(ok.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(ok.body()).isEqualTo("app POST /h2?q=1 user=[alice] body=70000");

        HttpResponse<String> refused = c.send(HttpRequest.newBuilder(h.uri("/h2"))
                .POST(HttpRequest.BodyPublishers.ofString("z".repeat(70_000))).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.body()).isEqualTo("who are you");
        assertThat(app.requests()).isEqualTo(1);
    }

    /**
     * Where the check sits in a rule: a CORS preflight is answered without it, the request header edits come
     * before it (the service sees them), and error pages around it (a refusal gets its page).
     */
    @Test
    void preflightsPassHeaderEditsComeFirstAndRefusalsGetPages() throws Exception {
        TestUpstream pages = h.upstream("pages", (ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200,
                "page " + req.headers().get("x-code"))));
        serveRules("""
                      - backends: [ { upstream: app } ]
                        forwardAuth: { upstream: auth }
                        cors: { allowOrigins: [ "https://ui.example.com" ] }
                        requestHeaders: { set: { Authorization: "Bearer good" } }
                        errorPages: { statuses: [ 403 ], upstream: pages }
                """, pages);
        RawClient pc = h.client();
        RawClient.Response preflight = pc.send("OPTIONS /x HTTP/1.1\r\nHost: a\r\nOrigin: https://ui.example.com\r\n"
                + "Access-Control-Request-Method: PUT\r\n\r\n").read();
        pc.close();
        assertThat(preflight.status()).isEqualTo(204);
        assertThat(auth.requests()).as("a preflight asks no one").isZero();

        RawClient.Response edited = h.get("/x", "Authorization: Bearer banned");
        assertThat(edited.text()).as("allowed: the service saw the edited field").startsWith("app GET /x");
        assertThat(auth.last().header("authorization")).isEqualTo("Bearer good");

        serveRules("""
                      - backends: [ { upstream: app } ]
                        forwardAuth: { upstream: auth }
                        errorPages: { statuses: [ 403 ], upstream: pages }
                """, pages);
        RawClient.Response refused = h.get("/x", "Authorization: Bearer banned");
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.text()).isEqualTo("page 403");
    }

    /**
     * A kept yes (ingress-nginx's auth-cache-key): the same credentials pass without asking, with the fields granted
     * then; other credentials, refusals and yeses that set cookies are asked every time.
     */
    @Test
    void aYesIsKeptForTheCredentialsItWasGivenFor() throws Exception {
        serveRules("""
                      - backends: [ { upstream: app } ]
                        forwardAuth:
                          upstream: auth
                          responseHeaders: [ X-Auth-Request-User ]
                          cache: { headers: [ Authorization ], cookies: [ session ], duration: 1m }
                """, null);
        // One connection, so one event loop: each loop keeps its own (no lock between them).
        RawClient c = h.client();
        RawClient.Response first = c.send(request("/x", "Authorization: Bearer good", "Cookie: session=1; other=a")).read();
        assertThat(first.text()).isEqualTo("app GET /x user=[alice] body=0");
        int asked = auth.requests();
        RawClient.Response again = c.send(request("/y", "Authorization: Bearer good", "Cookie: other=b; session=1",
                "X-Auth-Request-User: mallory")).read();
        assertThat(again.text()).as("granted as before, the client's claim dropped").isEqualTo("app GET /y user=[alice] body=0");
        assertThat(auth.requests()).as("not asked again").isEqualTo(asked);
        // Another session cookie, no cookie, another token: asked.
        c.send(request("/x", "Authorization: Bearer good", "Cookie: session=2")).read();
        c.send(request("/x", "Authorization: Bearer good")).read();
        assertThat(auth.requests()).isEqualTo(asked + 2);
        assertThat(c.send(request("/x", "Authorization: Bearer bad", "Cookie: session=1")).read().status()).isEqualTo(401);
        assertThat(c.send(request("/x", "Authorization: Bearer bad", "Cookie: session=1")).read().status()).isEqualTo(401);
        assertThat(auth.requests()).as("refusals are asked every time").isEqualTo(asked + 4);

        // A yes that sets a cookie is one client's: not kept.
        auth.behave((ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, "", "set-cookie", "_s=new")));
        c.send(request("/x", "Authorization: Bearer fresh")).read();
        c.send(request("/x", "Authorization: Bearer fresh")).read();
        assertThat(auth.requests()).isEqualTo(asked + 6);
        c.close();

        // A kept yes ends with its duration: the credentials are asked about again.
        auth.behave((ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(204, "")));
        serveRules("""
                      - backends: [ { upstream: app } ]
                        forwardAuth: { upstream: auth, cache: { headers: [ Authorization ], duration: 300ms } }
                """, null);
        RawClient short1 = h.client();
        short1.send(request("/x", "Authorization: Bearer good")).read();
        int before = auth.requests();
        short1.send(request("/x", "Authorization: Bearer good")).read();
        assertThat(auth.requests()).isEqualTo(before);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> {
            short1.send(request("/x", "Authorization: Bearer good")).read();
            return auth.requests() > before;
        });
        short1.close();
    }

    private static String request(String target, String... headerLines) {
        StringBuilder sb = new StringBuilder("GET ").append(target).append(" HTTP/1.1\r\nHost: a\r\n");
        for (String line : headerLines) {
            sb.append(line).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    /** A session the service refreshes on a 2xx goes out with a success or a redirect, not with an error. */
    @Test
    void theChecksCookiesGoOutWithASuccessfulAnswer() throws Exception {
        auth.behave((ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(200, "", "set-cookie", "_s=new; Path=/",
                "set-cookie", "_csrf=1")));
        app.behave((ctx, req, up) -> ctx.writeAndFlush(TestUpstream.response(req.uri().contains("missing") ? 404 : 200,
                "app")));
        RawClient c = h.client();
        RawClient.Response proxied = c.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(proxied.status()).isEqualTo(200);
        RawClient.Response fixed = c.send("GET /fixed HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(fixed.text()).isEqualTo("fixed");
        RawClient.Response missing = c.send("GET /missing HTTP/1.1\r\nHost: a\r\n\r\n").read();
        assertThat(missing.status()).isEqualTo(404);
        c.close();
        // Two lines, which the raw client joins.
        assertThat(proxied.header("set-cookie")).isEqualTo("_s=new; Path=/, _csrf=1");
        assertThat(fixed.header("set-cookie")).isEqualTo("_s=new; Path=/, _csrf=1");
        assertThat(missing.header("set-cookie")).isNull();

        HttpClient h2 = h.h2cClient("/open");
        HttpResponse<String> r = h2.send(HttpRequest.newBuilder(h.uri("/fixed")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.body()).isEqualTo("fixed");
        assertThat(r.headers().allValues("set-cookie")).containsExactly("_s=new; Path=/", "_csrf=1");

        // alwaysSetCookie (ingress-nginx's auth-always-set-cookie): with the app's errors too.
        serveRules("""
                      - backends: [ { upstream: app } ]
                        forwardAuth: { upstream: auth, alwaysSetCookie: true }
                """, null);
        RawClient.Response always = h.get("/missing");
        assertThat(always.status()).isEqualTo(404);
        assertThat(always.header("set-cookie")).isEqualTo("_s=new; Path=/, _csrf=1");
    }

    /**
     * Without an upstream the check is routed like a request of the same host (nginx's auth_request to a
     * location; ingress-nginx's auth-url https://$host/oauth2/auth): the rule for its path answers it. A check
     * that would reach a rule asking for a check itself fails closed; one that no rule takes gets 404.
     */
    @Test
    void aCheckWithoutAnUpstreamIsRoutedOnTheSameHost() throws Exception {
        h.reload("""
                upstreams:
                  - { name: app, endpoints: [ "%s" ] }
                  - { name: auth, endpoints: [ "%s" ] }
                routes:
                  - name: site
                    hosts: [ app.example ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /oauth2 } } ]
                        backends: [ { upstream: auth } ]
                      - backends: [ { upstream: app } ]
                        forwardAuth: { path: /oauth2/auth, responseHeaders: [ X-Auth-Request-User ],
                                       signIn: "/oauth2/start?rd={url}" }
                  - name: loop
                    hosts: [ loop.example ]
                    rules:
                      - backends: [ { upstream: app } ]
                        forwardAuth: { path: /check }
                  - name: nowhere
                    hosts: [ nowhere.example ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /app } } ]
                        backends: [ { upstream: app } ]
                        forwardAuth: { path: /check }
                """.formatted(app.endpoint(), auth.endpoint()));
        RawClient.Response ok = get("app.example", "/x?y=1", "Authorization: Bearer good");
        assertThat(ok.text()).isEqualTo("app GET /x?y=1 user=[alice] body=0");
        assertThat(auth.last().uri()).isEqualTo("/oauth2/auth");
        assertThat(auth.last().header("x-original-uri")).isEqualTo("/x?y=1");
        assertThat(auth.last().header("host")).isEqualTo("app.example");

        RawClient.Response signIn = get("app.example", "/x");
        assertThat(signIn.status()).isEqualTo(302);
        assertThat(signIn.header("location")).isEqualTo("/oauth2/start?rd=http%3A%2F%2Fapp.example%2Fx");
        // The sign-in pages themselves are the service's, unchecked.
        assertThat(get("app.example", "/oauth2/start?rd=x").text()).isEqualTo("who are you");
        assertThat(auth.last().uri()).isEqualTo("/oauth2/start?rd=x");

        int before = app.requests();
        assertThat(get("loop.example", "/x", "Authorization: Bearer good").status()).as("checked by a checked rule")
                .isEqualTo(500);
        assertThat(get("nowhere.example", "/app", "Authorization: Bearer good").status()).as("no rule for /check")
                .isEqualTo(404);
        assertThat(app.requests()).as("neither reached the app").isEqualTo(before);

        // Over HTTP/2 the same (any host here: the JDK's client names the address).
        serveRules("""
                      - matches: [ { path: { type: Prefix, value: /oauth2 } } ]
                        backends: [ { upstream: auth } ]
                      - matches: [ { path: { type: Prefix, value: /open } } ]
                        respond: { body: "open" }
                      - backends: [ { upstream: app } ]
                        forwardAuth: { path: /oauth2/auth, responseHeaders: [ X-Auth-Request-User ] }
                """, null);
        HttpClient h2 = h.h2cClient("/open");
        HttpResponse<String> r = h2.send(HttpRequest.newBuilder(h.uri("/h2")).header("Authorization", "Bearer good")
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(r.body()).isEqualTo("app GET /h2 user=[alice] body=0");
        assertThat(h2.send(HttpRequest.newBuilder(h.uri("/h2")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
    }

    /**
     * A check routed to a rule with an in-flight limit holds a place of that rule while it runs; a client that
     * leaves mid-check gives it back, or the sign-in service would end up refusing everyone.
     */
    @Test
    void aClientGoneMidCheckGivesBackThePlaceItsCheckHeld() throws Exception {
        auth.behave(TestUpstream.stall());
        serveRules("""
                      - matches: [ { path: { type: Prefix, value: /oauth2 } } ]
                        backends: [ { upstream: auth } ]
                        inFlightLimit: { requests: 1 }
                      - backends: [ { upstream: app } ]
                        forwardAuth: { path: /oauth2/auth }
                """, null);
        RawClient c = h.client();
        c.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n");
        awaitRequests(auth, 1);
        c.close();
        auth.behave(TestUpstream.reply(204, ""));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(h.get("/y").status()).as("the gone client's place is given back").isEqualTo(200));
    }

    /** Serves {@code rules} (YAML list items) for every host, with the upstreams app, auth and, if given, pages. */
    private void serveRules(String rules, TestUpstream pages) {
        h.reload("upstreams:\n  - { name: app, endpoints: [ \"" + app.endpoint() + "\" ] }\n"
                + "  - { name: auth, endpoints: [ \"" + auth.endpoint() + "\" ] }\n"
                + (pages == null ? "" : "  - { name: pages, endpoints: [ \"" + pages.endpoint() + "\" ] }\n")
                + "routes:\n  - name: site\n    hosts: [ \"*\" ]\n    rules:\n" + rules);
    }

    private RawClient.Response get(String host, String target, String... headerLines) throws Exception {
        try (RawClient c = h.client()) {
            StringBuilder sb = new StringBuilder("GET ").append(target).append(" HTTP/1.1\r\nHost: ").append(host)
                    .append("\r\n");
            for (String line : headerLines) {
                sb.append(line).append("\r\n");
            }
            return c.send(sb.append("\r\n").toString()).read();
        }
    }

    private static void awaitRequests(TestUpstream u, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (u.requests() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(u.requests()).isGreaterThanOrEqualTo(n);
    }
}
