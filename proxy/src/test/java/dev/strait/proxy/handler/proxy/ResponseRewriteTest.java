package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.H2cPathRecorder;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rule's {@code responseRewrite} as a client sees an upstream's answers: an app served under {@code /shop} that
 * believes it is at {@code http://shop.internal:8080/} redirects and sets cookies for the URL the client used, over
 * HTTP/1.1 and h2c upstreams; a rule without it passes them on as the app sent them.
 */
class ResponseRewriteTest {
    private final ProxyHarness h = new ProxyHarness();

    /** What the app answers: a redirect, a refresh and three cookies, as an app that knows only its own URL. */
    private static final String[] ANSWER = {
        "location", "http://shop.internal:8080/login?next=%2Fcart",
        "refresh", "5; URL='/cart'",
        "set-cookie", "sid=abc; Path=/; Domain=.shop.internal; HttpOnly",
        "set-cookie", "theme=dark; path=/prefs; SameSite=Lax",
        "set-cookie", "other=1; Path=/elsewhere-kept; Domain=example.org",
    };

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String protocol, String endpoint) {
        return """
                upstreams: [ { name: app, protocol: %s, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { value: /shop } } ]
                        backends: [ { upstream: app } ]
                        pathRewrite: { replacePrefixMatch: / }
                        responseRewrite:
                          location:
                            - { from: "http://shop.internal:8080/", to: "{scheme}://{host}/shop/" }
                            - { from: /, to: /shop/ }
                          cookiePath: [ { from: /prefs, to: /shop/prefs }, { from: /, to: /shop/ } ]
                          cookieDomain: [ { from: shop.internal, to: "{host}" } ]
                      - backends: [ { upstream: app } ]
                """.formatted(protocol, endpoint);
    }

    private RawClient.Response get(String path) throws Exception {
        try (RawClient c = new RawClient(h.address())) {
            return c.send("GET " + path + " HTTP/1.1\r\nHost: Example.COM:8443\r\n\r\n").read();
        }
    }

    private static void assertRewritten(RawClient.Response r) {
        assertThat(r.header("location")).isEqualTo("http://example.com/shop/login?next=%2Fcart");
        assertThat(r.header("refresh")).isEqualTo("5; URL='/shop/cart'");
    }

    @Test
    void http1AnswersGetTheClientsUrls() throws Exception {
        TestUpstream up = h.upstream(TestUpstream.reply(302, "", ANSWER));
        h.start(config("http1", up.endpoint()));

        RawClient.Response r = get("/shop/cart");
        assertThat(r.status()).isEqualTo(302);
        assertRewritten(r);
        assertThat(cookies(r)).containsExactly(
                "sid=abc; Path=/shop/; Domain=example.com; HttpOnly",
                "theme=dark; path=/shop/prefs; SameSite=Lax",
                "other=1; Path=/shop/elsewhere-kept; Domain=example.org");

        RawClient.Response kept = get("/elsewhere");
        assertThat(kept.header("location")).as("a rule without responseRewrite").isEqualTo(ANSWER[1]);
        assertThat(cookies(kept)).containsExactly(ANSWER[5], ANSWER[7], ANSWER[9]);
    }

    @Test
    void h2cAnswersGetTheClientsUrlsToo() throws Exception {
        H2cPathRecorder up = h.add(new H2cPathRecorder(ANSWER));
        h.start(config("h2c", up.endpoint()));

        RawClient.Response r = get("/shop/cart");
        assertRewritten(r);
        assertThat(cookies(r)).contains("sid=abc; Path=/shop/; Domain=example.com; HttpOnly");
        assertThat(up.paths()).containsExactly("/cart");
    }

    /** Every Set-Cookie of the answer, in order (the client joins the lines with ", "; these cookies have none). */
    private static List<String> cookies(RawClient.Response r) {
        return List.of(r.header("set-cookie").split(", "));
    }
}
