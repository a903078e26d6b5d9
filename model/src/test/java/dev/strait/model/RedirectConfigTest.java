package dev.strait.model;

import static dev.strait.model.TestConfigs.errors;
import static dev.strait.model.TestConfigs.parse;
import static dev.strait.model.TestConfigs.withRules;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The {@code redirect} action and the {@code pathRewrite} of backends rules: defaults, every error, write-back. */
class RedirectConfigTest {
    private static Route.Rule firstRule(String rule) throws InvalidConfigException {
        return parse(withRules(rule)).routes().get(0).rules().get(0);
    }

    @Test
    void redirectDefaultsAreTheRequestsPartsAnd302() throws Exception {
        assertThat(firstRule("{ redirect: {} }").action())
                .isEqualTo(new Route.Redirect(null, null, null, null, 302));
    }

    @Test
    void redirectWithEveryPart() throws Exception {
        assertThat(firstRule("""
                { matches: [ { path: { type: Prefix, value: /old/ } } ],
                  redirect: { scheme: https, hostname: www.example.com, port: 8443,
                              path: { replacePrefixMatch: /new }, statusCode: 301 } }""").action())
                .isEqualTo(new Route.Redirect("https", "www.example.com", 8443,
                        new Route.PathModifier(Route.PathModifierType.ReplacePrefixMatch, "/new"), 301));
    }

    @Test
    void pathRewriteOfBackends() throws Exception {
        assertThat(firstRule("{ backends: [ { upstream: app } ], pathRewrite: { replaceFullPath: /index } }")
                .pathRewrite()).isEqualTo(new Route.PathModifier(Route.PathModifierType.ReplaceFullPath, "/index"));
        // A rule without matches is Prefix /, so it may replace the prefix.
        assertThat(firstRule("{ backends: [ { upstream: app } ], pathRewrite: { replacePrefixMatch: /v2 } }")
                .pathRewrite()).isEqualTo(new Route.PathModifier(Route.PathModifierType.ReplacePrefixMatch, "/v2"));
        assertThat(firstRule("{ backends: [ { upstream: app } ] }").pathRewrite()).isNull();
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                arguments("{ redirect: {}, respond: {} }", "routes[0].rules[0]",
                        "has respond and redirect; a rule takes exactly one action"),
                arguments("{ redirect: {}, backends: [ { upstream: app } ] }", "routes[0].rules[0]",
                        "has backends and redirect; a rule takes exactly one action"),
                arguments("{ redirect: { scheme: ftp } }", "routes[0].rules[0].redirect.scheme",
                        "must be http or https, got \"ftp\""),
                arguments("{ redirect: { hostname: \"example.com:8443\" } }", "routes[0].rules[0].redirect.hostname",
                        "\"example.com:8443\" is not a host name in lower case (without port; the port is redirect.port)"),
                arguments("{ redirect: { hostname: Example.com } }", "routes[0].rules[0].redirect.hostname",
                        "\"Example.com\" is not a host name in lower case (without port; the port is redirect.port)"),
                arguments("{ redirect: { port: 0 } }", "routes[0].rules[0].redirect.port",
                        "must be a whole number 1..65535, got 0"),
                arguments("{ redirect: { port: 70000 } }", "routes[0].rules[0].redirect.port",
                        "must be a whole number 1..65535, got 70000"),
                arguments("{ redirect: { statusCode: 200 } }", "routes[0].rules[0].redirect.statusCode",
                        "must be one of 301, 302, 303, 307, 308, got 200"),
                arguments("{ redirect: { statusCode: \"301\" } }", "routes[0].rules[0].redirect.statusCode",
                        "must be one of 301, 302, 303, 307, 308, got \"301\""),
                arguments("{ redirect: { to: /x } }", "routes[0].rules[0].redirect.to",
                        "unknown field (expected one of scheme, hostname, port, path, statusCode)"),
                arguments("{ redirect: { path: {} } }", "routes[0].rules[0].redirect.path",
                        "takes exactly one of replaceFullPath and replacePrefixMatch"),
                arguments("{ redirect: { path: { replaceFullPath: /a, replacePrefixMatch: /b } } }",
                        "routes[0].rules[0].redirect.path", "takes exactly one of replaceFullPath and replacePrefixMatch"),
                arguments("{ redirect: { path: { replaceFullPath: a } } }", "routes[0].rules[0].redirect.path.replaceFullPath",
                        "must start with /, got \"a\""),
                arguments("{ redirect: { path: { replaceFullPath: \"/a?b=1\" } } }",
                        "routes[0].rules[0].redirect.path.replaceFullPath",
                        "\"/a?b=1\" holds a query or fragment: the request's query is kept"),
                arguments("{ redirect: { path: { replaceFullPath: \"/a b\" } } }",
                        "routes[0].rules[0].redirect.path.replaceFullPath",
                        "\"/a b\" is not a request path (spaces, control or non-ASCII characters, a broken escape, "
                                + "or .. above /): write it percent-encoded"),
                arguments("{ redirect: { path: { replacePrefixMatch: \"\" } } }",
                        "routes[0].rules[0].redirect.path.replacePrefixMatch", "must not be empty"),
                arguments("""
                        { matches: [ { path: { type: Prefix, value: /a } }, { path: { type: Exact, value: /b } } ],
                          redirect: { path: { replacePrefixMatch: /c } } }""",
                        "routes[0].rules[0].redirect.path.replacePrefixMatch",
                        "needs every match of the rule to be a Prefix match; matches[1] is Exact "
                                + "(use replaceFullPath, or a rule of its own)"),
                arguments("""
                        { matches: [ { path: { type: RegularExpression, value: "/a.*" } } ],
                          backends: [ { upstream: app } ], pathRewrite: { replacePrefixMatch: / } }""",
                        "routes[0].rules[0].pathRewrite.replacePrefixMatch",
                        "needs every match of the rule to be a Prefix match; matches[0] is "
                                + "RegularExpression (use replaceFullPath, or a rule of its own)"),
                arguments("{ respond: {}, pathRewrite: { replaceFullPath: /x } }", "routes[0].rules[0].pathRewrite",
                        "only applies to a rule with backends"),
                arguments("{ redirect: {}, pathRewrite: { replaceFullPath: /x } }", "routes[0].rules[0].pathRewrite",
                        "only applies to a rule with backends"),
                arguments("{ backends: [ { upstream: app } ], pathRewrite: /x }", "routes[0].rules[0].pathRewrite",
                        "must be a mapping (key: value), got \"/x\""),
                arguments("{ backends: [ { upstream: app } ], pathRewrite: { replacePrefix: /x } }",
                        "routes[0].rules[0].pathRewrite.replacePrefix",
                        "unknown field (expected one of replaceFullPath, replacePrefixMatch, replaceRegexMatch)"),
                arguments("{ backends: [ { upstream: app } ], hostRewrite: a, redirect: {} }", "routes[0].rules[0]",
                        "has backends and redirect; a rule takes exactly one action"),
                arguments("{ redirect: {}, hostRewrite: a }", "routes[0].rules[0].hostRewrite",
                        "only applies to a rule with backends"),
                arguments("{ redirect: {}, cache: {} }", "routes[0].rules[0].cache",
                        "only applies to a rule with backends (respond and files answers are not cached)"));
    }

    @ParameterizedTest
    @MethodSource
    void refused(String rule, String field, String message) {
        assertThat(errors(withRules(rule))).contains(new ConfigError(field, message));
    }

    @Test
    void noActionNamesRedirectAmongTheChoices() {
        assertThat(errors(withRules("{ matches: [ {} ] }")))
                .contains(new ConfigError("routes[0].rules[0]", "needs one action: respond, files, backends or redirect"));
    }

    @Test
    void fastcgiRulesTakeNoPathRewrite() {
        assertThat(errors(FastCgiConfigTest.php(
                "{ backends: [ { upstream: php } ], fastcgi: { root: /srv }, pathRewrite: { replaceFullPath: /x } }")))
                .containsExactly(new ConfigError("routes[0].rules[0].pathRewrite",
                        "does not apply to fastcgi upstreams (\"php\"): their scripts are chosen by the request path;"
                                + " use fastcgi.splitPathInfo or params"));
    }

    @Test
    void writtenAndReadBack() throws Exception {
        Config c = parse(withRules("""
                { matches: [ { path: { type: Prefix, value: /a } }, { path: { value: /b/ } } ],
                  backends: [ { upstream: app } ], pathRewrite: { replacePrefixMatch: / } }""",
                "{ redirect: { scheme: https } }",
                "{ redirect: { hostname: b.example, port: 81, path: { replaceFullPath: /x }, statusCode: 307 } }"));
        String json = ConfigWriter.toJson(c, false);
        assertThat(json).contains("\"pathRewrite\":{\"replacePrefixMatch\":\"/\"}")
                .contains("\"redirect\":{\"scheme\":\"https\",\"statusCode\":302}")
                .contains("\"redirect\":{\"hostname\":\"b.example\",\"port\":81,\"path\":{\"replaceFullPath\":\"/x\"},"
                        + "\"statusCode\":307}");
        assertThat(parse(json)).isEqualTo(c);
    }
}
