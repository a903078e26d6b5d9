package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Route the proxy would refuse is dropped, reported with the field's path, and the other Routes keep
 * serving. These are the checks the API server's schema cannot make (or that a cluster without the CRD's
 * validation let through).
 */
class ValidationTest {
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("bad host name", """
                        hosts: [ "exa mple.com" ]
                        rules: [ { respond: { status: 200 } } ]""",
                        "spec.hosts[0]: \"exa mple.com\" is not a host name (use example.com, *.example.com or *)"),
                Arguments.of("bad regular expression", """
                        hosts: [ example.com ]
                        rules: [ { matches: [ { path: { type: RegularExpression, value: "/(" } } ], respond: { status: 200 } } ]""",
                        "spec.rules[0].matches[0].path.value: not a valid regular expression: Unclosed group"),
                Arguments.of("two actions", """
                        hosts: [ example.com ]
                        rules:
                          - respond: { status: 200 }
                          - respond: { status: 200 }
                            files: { root: /srv }""",
                        "spec.rules[1]: has respond and files; a rule takes exactly one action"),
                Arguments.of("reserved response header", """
                        hosts: [ example.com ]
                        rules: [ { respond: { status: 200, headers: { content-length: "3" } } } ]""",
                        "spec.rules[0].respond.headers.content-length: is set by the proxy and cannot be configured"),
                Arguments.of("prefix without slash", """
                        hosts: [ example.com ]
                        rules: [ { matches: [ { path: { type: Prefix, value: api } } ], respond: { status: 200 } } ]""",
                        "spec.rules[0].matches[0].path.value: must start with /, got \"api\""),
                Arguments.of("bad duration", """
                        hosts: [ example.com ]
                        rules: [ { respond: { status: 200 }, timeouts: { request: soon } } ]""",
                        "spec.rules[0].timeouts.request: must be a duration such as 250ms, 5s, 1m or 2h, got \"soon\""),
                Arguments.of("replacePrefixMatch on an Exact match", """
                        hosts: [ example.com ]
                        rules:
                          - matches: [ { path: { type: Prefix, value: /a } }, { path: { type: Exact, value: /b } } ]
                            redirect: { scheme: https, path: { replacePrefixMatch: /c } }""",
                        "spec.rules[0].redirect.path.replacePrefixMatch: needs every match of the rule to be a Prefix "
                                + "match; matches[1] is Exact (use replaceFullPath, or a rule of its own)"),
                Arguments.of("regex rewrite naming a group the pattern lacks", """
                        hosts: [ example.com ]
                        rules:
                          - backends: [ { upstream: api } ]
                            pathRewrite: { replaceRegexMatch: { pattern: "^/api/(.*)", substitution: "/$2" } }""",
                        "spec.rules[0].pathRewrite.replaceRegexMatch.substitution: \"/$2\" refers to group 2, but the "
                                + "pattern has 1 group"),
                Arguments.of("regex rewrite that does not compile", """
                        hosts: [ example.com ]
                        rules:
                          - backends: [ { upstream: api } ]
                            pathRewrite: { replaceRegexMatch: { pattern: "^/api/(.*", substitution: "/$1" } }""",
                        "spec.rules[0].pathRewrite.replaceRegexMatch.pattern: not a valid regular expression: Unclosed "
                                + "group near index 9 of \"^/api/(.*\""),
                Arguments.of("client address that is a name", """
                        hosts: [ example.com ]
                        rules: [ { respond: { status: 200 }, clientAddresses: { allow: [ 10.0.0.0/8, office ] } } ]""",
                        "spec.rules[0].clientAddresses.allow[1]: \"office\" is not an IP address or CIDR block "
                                + "(10.0.0.0/8, 192.0.2.7, fd00::/8)"),
                Arguments.of("client address block with bits past its prefix", """
                        hosts: [ example.com ]
                        rules: [ { respond: { status: 200 }, clientAddresses: { deny: [ 10.1.2.3/8 ] } } ]""",
                        "spec.rules[0].clientAddresses.deny[0]: \"10.1.2.3/8\" has address bits past its /8 prefix; "
                                + "write the block's first address"),
                Arguments.of("request header edit of Host", """
                        hosts: [ example.com ]
                        rules: [ { respond: { status: 200 }, requestHeaders: { set: { Host: other } } } ]""",
                        "spec.rules[0].requestHeaders.set.Host: is the proxy's to set (Host: use hostRewrite)"),
                Arguments.of("header regex that does not compile", """
                        hosts: [ example.com ]
                        rules:
                          - matches: [ { headers: [ { name: x-a, value: "(a", type: RegularExpression } ] } ]
                            respond: { status: 200 }""",
                        "spec.rules[0].matches[0].headers[0].value: not a valid regular expression: Unclosed group near"
                                + " index 2 of \"(a\""),
                Arguments.of("redirect status", """
                        hosts: [ example.com ]
                        rules: [ { redirect: { statusCode: 200 } } ]""",
                        "spec.rules[0].redirect.statusCode: must be one of 301, 302, 303, 307, 308, got 200"),
                Arguments.of("no rules", """
                        hosts: [ example.com ]
                        rules: []""",
                        "spec.rules: must list at least one item"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void invalidRouteIsDroppedAndReportedWhileOthersServe(String name, String spec, String error) {
        Translation t = Fixtures.translate(
                route("shop", "good", 1, "hosts: [ good.example.com ]\nrules: [ { respond: { status: 204 } } ]"),
                route("shop", "bad", 2, spec));
        ResourceReport bad = Fixtures.routeReport(t, "shop", "bad");
        assertThat(bad.accepted().status()).isFalse();
        assertThat(bad.accepted().reason()).isEqualTo("Invalid");
        assertThat(bad.errors()).contains(error);
        assertThat(bad.accepted().message()).contains(error);
        assertThat(bad.scopes()).isEmpty();
        assertThat(Fixtures.routeNames(t)).containsExactly("shop.good");
        assertThat(Fixtures.routeReport(t, "shop", "good").accepted().status()).isTrue();
    }

    @org.junit.jupiter.api.Test
    void invalidUpstreamIsReportedAndItsBackendsAnswer503() {
        Translation t = Fixtures.translate(
                Fixtures.upstream("shop", "api", "service: { name: api, port: 80 }\nhealthCheck: { path: healthz }"),
                Fixtures.service("shop", "api", "http:80"),
                route("shop", "site", 1, "hosts: [ example.com ]\nrules: [ { backends: [ { upstream: api } ] } ]"));
        ResourceReport u = Fixtures.upstreamReport(t, "shop", "api");
        assertThat(u.accepted().status()).isFalse();
        assertThat(u.errors()).containsExactly("spec.healthCheck.path: must start with /");
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.resolvedRefs().reason()).isEqualTo("InvalidBackend");
        assertThat(r.errors()).containsExactly(
                "spec.rules[0].backends[0].upstream: Upstream \"api\" is not valid: spec.healthCheck.path: must start with /");
        assertThat(Fixtures.routeNames(t)).as("served, its backend by the empty stand-in").containsExactly("shop.site");
        assertThat(t.snapshot(Fixtures.STRAIT).config().upstreams()).extracting(dev.strait.model.Upstream::name)
                .containsExactly(Translator.UNRESOLVED);
    }
}
