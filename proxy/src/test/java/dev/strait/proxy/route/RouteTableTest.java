package dev.strait.proxy.route;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.ConfigParser;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Precedence as documented in docs/config.md, one row per case. */
class RouteTableTest {
    private static final String CONFIG = """
            listeners: [ { name: http, address: "127.0.0.1:0" } ]
            routes:
              - name: exact-host
                hosts: [ "example.com" ]
                rules:
                  - matches: [ { path: { type: Exact, value: /a } } ]
                    respond: { body: exact-a }
                  - matches: [ { path: { type: Prefix, value: /a } } ]
                    respond: { body: prefix-a }
                  - matches: [ { path: { type: Prefix, value: /a/b/ } } ]
                    respond: { body: prefix-ab }
                  - matches: [ { path: { type: Prefix, value: /api }, method: POST } ]
                    respond: { body: api-post }
                  - matches: [ { path: { type: Prefix, value: /api }, headers: [ { name: x-canary, value: "1" } ] } ]
                    respond: { body: api-canary }
                  - matches: [ { path: { type: Prefix, value: /api } } ]
                    respond: { body: api }
                  - matches: [ { path: { type: RegularExpression, value: "/img/.*\\\\.png" } } ]
                    respond: { body: regex-png }
                  - matches: [ { path: { type: RegularExpression, value: "/img/.*" } } ]
                    respond: { body: regex-img }
              - name: wildcard
                hosts: [ "*.example.com" ]
                rules:
                  - respond: { body: wildcard }
              - name: deeper-wildcard
                hosts: [ "*.deep.example.com" ]
                rules:
                  - respond: { body: deeper-wildcard }
              - name: merged
                hosts: [ "example.com" ]
                rules:
                  - matches: [ { path: { type: Exact, value: /merged } } ]
                    respond: { body: merged }
              - name: regex-first
                hosts: [ "rx.example" ]
                rules:
                  - matches: [ { path: { type: RegularExpression, value: "/a.*" } } ]
                    respond: { body: rx-a }
                  - matches: [ { path: { type: RegularExpression, value: "/a/b.*", priority: 4 } } ]
                    respond: { body: rx-ab }
              - name: regex-second
                hosts: [ "rx.example" ]
                rules:
                  - matches: [ { path: { type: RegularExpression, value: "/a/b/c.*", priority: 6 } } ]
                    respond: { body: rx-abc }
                  - matches: [ { path: { type: RegularExpression, value: "/a/b/cd.*", priority: 6 } } ]
                    respond: { body: rx-abcd }
                  - matches: [ { path: { type: RegularExpression, value: "/.*", priority: -1 } } ]
                    respond: { body: rx-last }
                  - matches: [ { path: { type: RegularExpression, value: "/z.*" } } ]
                    respond: { body: rx-z }
              - name: any
                hosts: [ "*" ]
                rules:
                  - matches: [ { path: { type: Prefix, value: /only } } ]
                    respond: { body: any }
            """;

    private static final RouteTable TABLE = table();

    private static RouteTable table() {
        try {
            return RouteTableBuilder.build(ConfigParser.parse(CONFIG, "test"),
                    (action, path) -> new Named(((dev.strait.model.Route.Respond) action).body()));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private record Named(String name) implements Handler {
        @Override
        public void handle(dev.strait.proxy.http.Exchange exchange) {
        }
    }

    @ParameterizedTest(name = "{0} {1} {2} [{3}] -> {4}")
    @CsvSource(nullValues = "-", value = {
            // host, method, path, header x-canary, expected
            "example.com, GET, /a, -, exact-a",
            "example.com, GET, /a/, -, prefix-a",
            "example.com, GET, /a/x, -, prefix-a",
            "example.com, GET, /a/b, -, prefix-ab",
            "example.com, GET, /a/b/c/d, -, prefix-ab",
            "example.com, GET, /ab, -, -",                    // prefixes match whole path elements
            "example.com, POST, /api/x, -, api-post",          // a method match outranks header matches
            "example.com, GET, /api/x, 1, api-canary",         // more header matches first
            "example.com, GET, /api/x, 2, api",
            "example.com, HEAD, /api, -, api",
            "example.com, GET, /img/cat.png, -, regex-png",    // regexes in config order
            "example.com, GET, /img/cat.gif, -, regex-img",
            "rx.example, GET, /a/b/cd, -, rx-abc",          // higher priority first, across routes; then in order
            "rx.example, GET, /a/b/x, -, rx-ab",
            "rx.example, GET, /a/x, -, rx-a",               // priority 0 before -1
            "rx.example, GET, /z, -, rx-z",
            "rx.example, GET, /y, -, rx-last",
            "example.com, GET, /merged, -, merged",            // routes with the same host merge
            "example.com, GET, /only, -, -",                   // the host chosen is final: no fallback to *
            "www.example.com, GET, /x, -, wildcard",
            "a.b.example.com, GET, /x, -, wildcard",           // wildcards cover deeper names
            "x.deep.example.com, GET, /x, -, deeper-wildcard", // the longest wildcard suffix wins
            "example.org, GET, /only/x, -, any",
            "example.org, GET, /other, -, -",
    })
    void picksTheDocumentedRule(String host, String method, String path, String canary, String expected) {
        HttpHeaders headers = new DefaultHttpHeaders();
        if (canary != null) {
            headers.set("x-canary", canary);
        }
        CompiledRule rule = TABLE.find(host, path, HttpMethod.valueOf(method), headers);
        assertThat(rule == null ? null : ((Named) rule.handler()).name()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "x-canary lines {0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "1     | api-canary",
            "1;0   | api",        // a second line cannot ride on a first that matches
            "0;1   | api",
            "1;1   | api",        // matched as "1,1", as Envoy joins them
    })
    void matchesRepeatedFieldsAsOneValue(String lines, String expected) {
        HttpHeaders headers = new DefaultHttpHeaders();
        for (String line : lines.split(";")) {
            headers.add("x-canary", line);
        }
        CompiledRule rule = TABLE.find("example.com", "/api", HttpMethod.GET, headers);
        assertThat(((Named) rule.handler()).name()).isEqualTo(expected);
    }

    @Test
    void joinsCookieCrumbsWithASemicolon() {
        HttpHeaders headers = new DefaultHttpHeaders().add("cookie", "a=1").add("cookie", "b=2");
        assertThat(Candidate.combined(headers, "cookie")).isEqualTo("a=1; b=2");
        assertThat(Candidate.combined(headers, "x-none")).isNull();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(nullValues = "-", value = {
            "example.com, example.com",
            "Example.COM, example.com",
            "example.com:8080, example.com",
            "example.com., example.com",
            "[::1]:80, [::1]",
            "'', ''",
            "exa mple.com, -",
            "example.com:80x, -",
            "ex/ample.com, -",
    })
    void normalizesHostHeaders(String in, String out) {
        assertThat(RouteTable.normalizeHost(in)).isEqualTo(out);
    }
}
