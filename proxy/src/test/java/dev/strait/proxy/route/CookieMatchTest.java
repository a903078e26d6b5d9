package dev.strait.proxy.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A match's {@code cookies} on a real proxy: the exact value of one cookie among others, in one Cookie line
 * or several; a cookie sent twice matches nothing; a cookie condition counts as a header condition in the
 * precedence of equal paths.
 */
class CookieMatchTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void theCookiesExactValue() throws Exception {
        h.start("""
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - respond: { body: "stable" }
                      - matches: [ { cookies: [ { name: canary, value: always } ] } ]
                        respond: { body: "canary" }
                """);
        assertThat(h.get("/", "Cookie: canary=always").text()).isEqualTo("canary");
        assertThat(h.get("/", "Cookie: theme=dark; canary=always; sid=1").text()).isEqualTo("canary");
        assertThat(h.get("/", "Cookie: theme=dark", "Cookie: canary=always").text()).as("two lines").isEqualTo("canary");
        assertThat(h.get("/", "Cookie: canary=never").text()).isEqualTo("stable");
        assertThat(h.get("/", "Cookie: xcanary=always").text()).as("another cookie's name ending so").isEqualTo("stable");
        assertThat(h.get("/", "Cookie: canary=alwaysx").text()).isEqualTo("stable");
        assertThat(h.get("/", "Cookie: canary=always; canary=never").text()).as("sent twice").isEqualTo("stable");
        assertThat(h.get("/").text()).isEqualTo("stable");
        assertThat(h.get("/", "X-Canary: canary=always").text()).as("only the Cookie field").isEqualTo("stable");
    }

    @Test
    void aHeaderByRegularExpressionMatchesTheWholeValue() throws Exception {
        h.start("""
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - respond: { body: "stable" }
                      - matches: [ { headers: [ { name: X-Region, value: "(eu|us)-west-[0-9]+", type: RegularExpression } ] } ]
                        respond: { body: "canary" }
                """);
        assertThat(h.get("/", "X-Region: eu-west-1").text()).isEqualTo("canary");
        assertThat(h.get("/", "X-Region: us-west-22").text()).isEqualTo("canary");
        assertThat(h.get("/", "X-Region: eu-west-1b").text()).as("the whole value").isEqualTo("stable");
        assertThat(h.get("/", "X-Region: ap-eu-west-1").text()).isEqualTo("stable");
        assertThat(h.get("/", "X-Region: eu-west-1", "X-Region: us-west-2").text()).as("two lines are one value")
                .isEqualTo("stable");
        assertThat(h.get("/").text()).as("absent").isEqualTo("stable");
    }
}
