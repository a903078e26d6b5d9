package dev.strait.model;

import static dev.strait.model.TestConfigs.errors;
import static dev.strait.model.TestConfigs.parse;
import static dev.strait.model.TestConfigs.withRules;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code pathRewrite: { replaceRegexMatch: { pattern, substitution } }} (ADR 0058): what is read, what is
 * refused and at which field, the substitution's syntax, and the write-back.
 */
class RegexRewriteConfigTest {
    private static Route.Rule firstRule(String rule) throws InvalidConfigException {
        return parse(withRules(rule)).routes().get(0).rules().get(0);
    }

    private static String rewrite(String pattern, String substitution) {
        return "{ backends: [ { upstream: app } ], pathRewrite: { replaceRegexMatch: { pattern: '" + pattern
                + "', substitution: '" + substitution + "' } } }";
    }

    @Test
    void readWithAnyMatchType() throws Exception {
        assertThat(firstRule(rewrite("^/api/v[0-9]+/(.*)", "/$1")).pathRewrite()).isEqualTo(
                new Route.PathModifier(Route.PathModifierType.ReplaceRegexMatch, "^/api/v[0-9]+/(.*)", "/$1"));
        // Unlike replacePrefixMatch it needs no Prefix match; an empty substitution removes each match.
        assertThat(firstRule("""
                { matches: [ { path: { type: Exact, value: /a } }, { path: { type: RegularExpression, value: "/b.*" } } ],
                  backends: [ { upstream: app } ], pathRewrite: { replaceRegexMatch: { pattern: "/old", substitution: "" } } }""")
                .pathRewrite().substitution()).isEmpty();
    }

    static Stream<Arguments> refused() {
        String f = "routes[0].rules[0].pathRewrite";
        return Stream.of(
                arguments(rewrite("/(a", "/"), f + ".replaceRegexMatch.pattern",
                        "not a valid regular expression: Unclosed group near index 3 of \"/(a\""),
                arguments(rewrite("/(a)/(b)", "/$3"), f + ".replaceRegexMatch.substitution",
                        "\"/$3\" refers to group 3, but the pattern has 2 groups"),
                arguments(rewrite("/a", "/$1"), f + ".replaceRegexMatch.substitution",
                        "\"/$1\" refers to group 1, but the pattern has no groups"),
                arguments(rewrite("/(a)", "/${12}"), f + ".replaceRegexMatch.substitution",
                        "\"/${12}\" refers to group 12, but the pattern has 1 group"),
                arguments(rewrite("/(a)", "/$x"), f + ".replaceRegexMatch.substitution",
                        "\"/$x\" has \"$\" without a group number at index 1 (write $1 to $9 or ${12} for a group, "
                                + "$$ for a dollar sign)"),
                arguments(rewrite("/(a)", "/${a}"), f + ".replaceRegexMatch.substitution",
                        "\"/${a}\" has \"${\" without a group number and \"}\" at index 1 (write ${12}, or $$ for a dollar sign)"),
                arguments(rewrite("/(a)", "/$1?x=1"), f + ".replaceRegexMatch.substitution",
                        "\"/$1?x=1\" holds a query or fragment: the request's query is kept"),
                arguments(rewrite("/(a)", "/a b"), f + ".replaceRegexMatch.substitution",
                        "\"/a b\" holds a space, control or non-ASCII character at index 2: write it percent-encoded"),
                arguments(rewrite("/(a)", "/100%"), f + ".replaceRegexMatch.substitution",
                        "\"/100%\" has a \"%\" that starts no escape at index 4 (write %25 for a percent sign)"),
                arguments("{ backends: [ { upstream: app } ], pathRewrite: { replaceRegexMatch: { pattern: /a } } }",
                        f + ".replaceRegexMatch.substitution", "is required (\"\" removes each match)"),
                arguments("{ backends: [ { upstream: app } ], pathRewrite: { replaceRegexMatch: { substitution: /a } } }",
                        f + ".replaceRegexMatch.pattern", "is required"),
                arguments("{ backends: [ { upstream: app } ], pathRewrite: { replaceRegexMatch: { pattern: /a, "
                        + "substitution: [ /b ] } } }", f + ".replaceRegexMatch.substitution", "must be a string, got a list"),
                arguments("{ backends: [ { upstream: app } ], pathRewrite: { replaceRegexMatch: { regex: /a } } }",
                        f + ".replaceRegexMatch.regex", "unknown field (expected one of pattern, substitution)"),
                arguments("{ backends: [ { upstream: app } ], pathRewrite: { replaceRegexMatch: /a } }",
                        f + ".replaceRegexMatch", "must be a mapping (key: value), got \"/a\""),
                arguments("{ backends: [ { upstream: app } ], pathRewrite: { replaceFullPath: /a, "
                        + "replaceRegexMatch: { pattern: /a, substitution: /b } } }", f,
                        "takes exactly one of replaceFullPath, replacePrefixMatch and replaceRegexMatch"),
                arguments("{ backends: [ { upstream: app } ], pathRewrite: {} }", f,
                        "takes exactly one of replaceFullPath, replacePrefixMatch and replaceRegexMatch"),
                arguments("{ redirect: { path: { replaceRegexMatch: { pattern: /a, substitution: /b } } } }",
                        "routes[0].rules[0].redirect.path.replaceRegexMatch",
                        "applies to a rule's pathRewrite only; a redirect's path takes replaceFullPath or replacePrefixMatch"));
    }

    @ParameterizedTest
    @MethodSource
    void refused(String rule, String field, String message) {
        assertThat(errors(withRules(rule))).contains(new ConfigError(field, message));
    }

    @Test
    void fastcgiRulesTakeNoRegexRewriteEither() {
        assertThat(errors(FastCgiConfigTest.php("{ backends: [ { upstream: php } ], fastcgi: { root: /srv }, "
                + "pathRewrite: { replaceRegexMatch: { pattern: /a, substitution: /b } } }")))
                .extracting(ConfigError::path).containsExactly("routes[0].rules[0].pathRewrite");
    }

    @Test
    void writtenAndReadBack() throws Exception {
        Config c = parse(withRules(rewrite("^/(.*)/static/(.*)", "/static/$2")));
        String json = ConfigWriter.toJson(c, false);
        assertThat(json).contains("\"pathRewrite\":{\"replaceRegexMatch\":{\"pattern\":\"^/(.*)/static/(.*)\","
                + "\"substitution\":\"/static/$2\"}}");
        assertThat(parse(json)).isEqualTo(c);
    }

    private static String substitute(String pattern, String substitution, String input) {
        Matcher m = Pattern.compile(pattern).matcher(input);
        StringBuilder out = new StringBuilder();
        assertThat(m.find()).isTrue();
        PathSubstitution.parse(substitution).appendTo(out, m, input);
        return out.toString();
    }

    @Test
    void theSubstitutionsSyntax() {
        assertThat(substitute("/(a)(b)", "/$2/$1", "/ab")).isEqualTo("/b/a");
        // One digit, as nginx reads $10; braces for more; $0 is the whole match; $$ a dollar sign.
        assertThat(substitute("/(a)", "/$10", "/a")).isEqualTo("/a0");
        assertThat(substitute("(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)(.)", "/${11}${1}", "abcdefghijk")).isEqualTo("/ka");
        assertThat(substitute("/a+", "[$0]", "/aaa")).isEqualTo("[/aaa]");
        assertThat(substitute("/(a)", "/$$1", "/a")).isEqualTo("/$1");
        // A group that took no part gives nothing; backslashes and escapes are plain text.
        assertThat(substitute("/(a)|/(b)", "/x$2y", "/a")).isEqualTo("/xy");
        assertThat(substitute("/(a)", "/\\1%2F$1", "/a")).isEqualTo("/\\1%2Fa");
        assertThat(PathSubstitution.parse("/$1/${12}/$3").maxGroup()).isEqualTo(12);
        assertThatThrownBy(() -> PathSubstitution.parse("/$")).hasMessageContaining("without a group number");
        assertThatThrownBy(() -> PathSubstitution.parse("/${1")).hasMessageContaining("without a group number and \"}\"");
        assertThatThrownBy(() -> PathSubstitution.parse("/a#b")).hasMessageContaining("query or fragment");
        assertThatThrownBy(() -> PathSubstitution.parse("/%4")).hasMessageContaining("starts no escape");
        assertThatThrownBy(() -> PathSubstitution.parse("/é")).hasMessageContaining("non-ASCII");
    }
}
