package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static dev.strait.operator.translate.IngressAnnotationsTest.annotated;
import static dev.strait.operator.translate.IngressAnnotationsTest.translate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.strait.model.ConfigParser;
import dev.strait.model.Route;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.route.CompiledRule;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's regex paths ({@code use-regex}, or any {@code rewrite-target}) and {@code $n} targets as
 * RegularExpression matches and {@code replaceRegexMatch} rewrites (ADR 0058): nginx's {@code ~* "^path"} and
 * {@code rewrite "(?i)path" target}, its longest-first order within the host, and what Java would read
 * otherwise, reported with a 503.
 */
class IngressRegexPathsTest {
    private static final String N = "nginx.ingress.kubernetes.io/";
    private static final Route.Backends WEB = new Route.Backends(List.of(new Route.Backend("service.shop.web.80", 1)));
    private static final Route.Backends UNRESOLVED =
            new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1)));

    /** An Ingress spec for app.example.com with these paths ({@code path, pathType, ...}) and maybe a defaultBackend. */
    private static String spec(boolean defaultBackend, String... pathAndType) {
        StringBuilder b = new StringBuilder("ingressClassName: strait\n");
        if (defaultBackend) {
            b.append("defaultBackend: { service: { name: web, port: { number: 80 } } }\n");
        }
        b.append("rules:\n  - host: app.example.com\n    http:\n      paths:\n");
        for (int i = 0; i < pathAndType.length; i += 2) {
            b.append("        - { path: \"").append(pathAndType[i].replace("\\", "\\\\")).append("\", pathType: ")
                    .append(pathAndType[i + 1]).append(", backend: { service: { name: web, port: { number: 80 } } } }\n");
        }
        return b.toString();
    }

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().get(0).rules();
    }

    private static Route.PathModifier regex(String pattern, String substitution) {
        return new Route.PathModifier(Route.PathModifierType.ReplaceRegexMatch, pattern, substitution);
    }

    /** The route and rule that answer {@code path} on app.example.com, or null for a 404. */
    private static String served(Translation t, String path) throws Exception {
        Snapshot s = SnapshotBuilder.build(ConfigParser.parse(t.snapshot(STRAIT).json(), "snapshot"), "snapshot");
        CompiledRule r = s.table("http").find("app.example.com", path, HttpMethod.GET, new DefaultHttpHeaders());
        return r == null ? null : r.route() + "#" + r.index();
    }

    @Test
    void aRegexPathWithATargetOfGroupsIsAMatchAndARewriteWithOnePattern() throws Exception {
        Translation t = translate(annotated("app", spec(false, "/api/v[0-9]+/(.*)", "ImplementationSpecific"),
                "use-regex", "true", "rewrite-target", "/$1"));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        String pattern = "(?i)^/api/v[0-9]+/(.*).*";
        assertThat(rules(t)).singleElement().satisfies(r -> {
            assertThat(r.matches()).extracting(m -> m.path().type(), m -> m.path().value())
                    .containsExactly(tuple(Route.PathType.RegularExpression, pattern));
            assertThat(r.pathRewrite()).isEqualTo(regex(pattern, "/$1"));
            assertThat(r.action()).isEqualTo(WEB);
        });
        // nginx's ~* "^path": case-insensitive, anchored at the start only.
        assertThat(served(t, "/API/V2/users")).isEqualTo("shop.app..ingress-0#0");
        assertThat(served(t, "/api/v2/")).isEqualTo("shop.app..ingress-0#0");
        assertThat(served(t, "/api/vx/users")).isNull();
        assertThat(served(t, "/x/api/v2/users")).isNull();
        // Another common form; rewrite-target alone makes the paths regexes too, as in ingress-nginx.
        t = translate(annotated("app", spec(false, "/(.*)/static/(.*)", "ImplementationSpecific"),
                "rewrite-target", "/static/$2"));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        assertThat(rules(t)).singleElement().extracting(Route.Rule::pathRewrite)
                .isEqualTo(regex("(?i)^/(.*)/static/(.*).*", "/static/$2"));
    }

    @Test
    void useRegexWithoutATargetMatchesWithoutRewriting() throws Exception {
        Translation t = translate(annotated("app", spec(false, "/docs", "Prefix", "/api/v[0-9]+", "ImplementationSpecific"),
                "use-regex", "true"));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        assertThat(rules(t)).extracting(r -> r.matches().get(0).path().value(), Route.Rule::pathRewrite, Route.Rule::action)
                .containsExactly(tuple("(?i)^/api/v[0-9]+.*", null, WEB), tuple("(?i)^/docs.*", null, WEB));
        assertThat(served(t, "/api/v12/x")).isEqualTo("shop.app..ingress-0#0");
        // Once the host's paths are nginx's regexes, a literal one matches any string prefix, ignoring case.
        assertThat(served(t, "/DOCSX")).isEqualTo("shop.app..ingress-0#1");
    }

    @Test
    void theHostsPathsAreTriedLongestFirstAsIngressNginxOrdersThem() throws Exception {
        Translation t = translate(annotated("app", spec(false, "/", "Prefix", "/api", "Prefix", "/healthz", "Exact",
                        "/api/v[0-9]+/(.*)", "ImplementationSpecific", "/aaa", "Prefix", "/zzz", "Prefix"),
                "use-regex", "true", "rewrite-target", "/$1"));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        // By length, then by path, both descending (ingress-nginx's sort); every path a regex, Exact too.
        assertThat(rules(t)).extracting(r -> r.matches().get(0).path().value(), Route.Rule::pathRewrite).containsExactly(
                tuple("(?i)^/api/v[0-9]+/(.*).*", regex("(?i)^/api/v[0-9]+/(.*).*", "/$1")),
                tuple("(?i)^/healthz.*", regex("(?i)^/healthz.*", "/")),
                tuple("(?i)^/zzz.*", regex("(?i)^/zzz.*", "/")),
                tuple("(?i)^/api.*", regex("(?i)^/api.*", "/")),
                tuple("(?i)^/aaa.*", regex("(?i)^/aaa.*", "/")),
                tuple("(?i)^/.*", regex("(?i)^/.*", "/")));
        // "/" and "/api" would have answered first as prefixes; the longer regex answers, as nginx's would.
        assertThat(served(t, "/api/v2/users")).isEqualTo("shop.app..ingress-0#0");
        assertThat(served(t, "/healthz/x")).isEqualTo("shop.app..ingress-0#1");
        assertThat(served(t, "/apiary")).isEqualTo("shop.app..ingress-0#3");
        assertThat(served(t, "/other")).isEqualTo("shop.app..ingress-0#5");
    }

    @Test
    void theDefaultBackendAnswersAfterTheRegexPaths() throws Exception {
        Translation t = translate(annotated("app", spec(true, "/api/v[0-9]+/(.*)", "ImplementationSpecific"),
                "use-regex", "true", "rewrite-target", "/$1"));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        // Its usual Prefix "/" would answer before any regex of the host.
        assertThat(t.snapshot(STRAIT).config().routes()).filteredOn(r -> r.name().equals("shop.app..ingress-0-default"))
                .singleElement().satisfies(r -> assertThat(r.rules().get(0).matches())
                        .extracting(m -> m.path().type(), m -> m.path().value())
                        .containsExactly(tuple(Route.PathType.RegularExpression, ".*")));
        assertThat(served(t, "/api/v1/x")).isEqualTo("shop.app..ingress-0#0");
        assertThat(served(t, "/other")).isEqualTo("shop.app..ingress-0-default#0");
        // Without regex paths it stays the rule without matches (Prefix "/") it was (ADR 0056).
        t = translate(annotated("app", spec(true, "/api", "Prefix"), "use-regex", "true"));
        assertThat(t.snapshot(STRAIT).config().routes()).filteredOn(r -> r.name().equals("shop.app..ingress-0-default"))
                .singleElement().satisfies(r -> assertThat(r.rules().get(0).matches())
                        .extracting(Route.Match::path).containsExactly((Route.PathMatch) null));
    }

    @Test
    void aPathWithoutTheGroupsTheTargetNamesGetsNothingForThemAsInNginx() {
        // rewrite "(?i)/(.*)" /$2 break; on a path with one group: $2 is empty.
        Translation t = translate(annotated("app", spec(false, "/api(/|$)(.*)", "Prefix", "/(.*)", "Prefix"),
                "rewrite-target", "/$2"));
        assertThat(ingressReport(t, "shop", "app").errors()).isEmpty();
        assertThat(rules(t)).extracting(Route.Rule::pathRewrite).containsExactly(
                regex("(?i)^/api(/|$)(.*).*", "/$2"), regex("(?i)^/(.*).*", "/"));
    }

    @Test
    void theIdiomAndLiteralTargetsStayPrefixesWhereNoPathNeedsARegex() {
        Translation t = translate(annotated("app", spec(false, "/a(/|$)(.*)", "ImplementationSpecific", "/b(/|$)(.*)",
                "ImplementationSpecific"), "use-regex", "true", "rewrite-target", "/$2"));
        assertThat(rules(t)).extracting(r -> r.matches().get(0).path().type(), r -> r.matches().get(0).path().value())
                .containsExactly(tuple(Route.PathType.Prefix, "/a"), tuple(Route.PathType.Prefix, "/b"));
    }

    @Test
    void aPathJavaReadsOtherwiseThanNginxIsReportedAndAnswers503WhileTheOthersServe() throws Exception {
        String[][] cases = {
            {"/a|/b", "has \"|\" outside a group, which nginx reads after \"^\" as \"starts with the first, or holds the "
                    + "second anywhere\"; put the choices in a group"},
            {"/[[:alpha:]]+", "has \"[\" inside a character class (a POSIX class or a nested one), which PCRE and Java "
                    + "read differently"},
            {"/x[a-z&&[^b]]", "has \"&&\" inside a character class: an intersection to Java, two characters to PCRE"},
            {"/(?x)a # b", "sets flags \"x\", which PCRE and Java read differently (i, m and s are alike)"},
            {"/(?U)a+", "sets flags \"U\", which PCRE and Java read differently (i, m and s are alike)"},
            {"/a\\\\.b", "has \"\\\\\", which nginx's configuration reads as one backslash"},
            {"/\\Qa.b", "has \"\\Q\" without \"\\E\""},
            {"/(?P<id>[0-9]+)", "is not a regular expression Java reads (Unknown inline modifier near index 3)"},
            {"/{id}", "is not a regular expression Java reads (Illegal repetition near index 2)"},
        };
        for (String[] c : cases) {
            Translation t = translate(annotated("app", spec(false, c[0], "ImplementationSpecific", "/ok/(.*)",
                    "ImplementationSpecific"), "use-regex", "true"));
            assertThat(ingressReport(t, "shop", "app").errors()).as(c[0]).containsExactly("metadata.annotations[" + N
                    + "use-regex]: spec.rules[0].http.paths[0].path \"" + c[0] + "\" " + c[1] + "; the path answers 503");
            assertThat(ingressReport(t, "shop", "app").resolvedRefs().reason()).isEqualTo(IngressRoutes.UNSUPPORTED_ANNOTATION);
            assertThat(rules(t)).as(c[0]).extracting(Route.Rule::action).contains(UNRESOLVED, WEB);
            assertThat(served(t, "/ok/x")).as(c[0]).isNotNull();
        }
        // Constructs both read alike pass: a "]" first in a class, escapes, groups with choices, i/m/s flags.
        for (String ok : List.of("/[]a]", "/[^]a]/x", "/(a|b)/\\d+", "/(?i:A)(?-i)b", "/\\Qa.b\\E/c", "/(?<id>[0-9]+)")) {
            assertThat(IngressAnnotations.javaReadsAsNginx(ok)).as(ok).isNull();
        }
    }

    @Test
    void aRegexPathWithATargetThatIsNoPathAnswers503WhereNginxWouldRoute() throws Exception {
        Translation t = translate(annotated("app", spec(false, "/api/(.*)", "ImplementationSpecific"),
                "rewrite-target", "/$1?page=1"));
        assertThat(ingressReport(t, "shop", "app").errors()).hasSize(1);
        assertThat(rules(t)).singleElement().satisfies(r -> {
            assertThat(r.matches().get(0).path().value()).isEqualTo("(?i)^/api/(.*).*");
            assertThat(r.action()).isEqualTo(UNRESOLVED);
        });
        assertThat(served(t, "/api/x")).isEqualTo("shop.app..ingress-0#0");
    }

    /** An Ingress of app.example.com made at {@code minute}, its paths ({@code path, pathType, ...}) to web. */
    private static io.fabric8.kubernetes.api.model.networking.v1.Ingress at(String name, int minute, String[] paths,
                                                                           String... annotations) {
        io.fabric8.kubernetes.api.model.networking.v1.Ingress ing = annotated(name, spec(false, paths), annotations);
        ing.getMetadata().setCreationTimestamp("2026-11-30T10:%02d:00Z".formatted(minute));
        return ing;
    }

    /** The route and rule that answer {@code path} on app.example.com with these request headers. */
    private static String served(Translation t, String path, String... headers) throws Exception {
        Snapshot s = SnapshotBuilder.build(ConfigParser.parse(t.snapshot(STRAIT).json(), "snapshot"), "snapshot");
        DefaultHttpHeaders h = new DefaultHttpHeaders();
        for (int i = 0; i < headers.length; i += 2) {
            h.add(headers[i], headers[i + 1]);
        }
        CompiledRule r = s.table("http").find("app.example.com", path, HttpMethod.GET, h);
        return r == null ? null : r.route() + "#" + r.index();
    }

    /**
     * ADR 0074: ingress-nginx makes every path of a host a regex once one Ingress of the host needs one, and sorts
     * the host's locations together, longest first, whichever Ingress they come from. An older Ingress's
     * {@code Prefix /} used to answer before a younger one's regex.
     */
    @Test
    void oneIngressesRegexMakesEveryIngressOfTheHostARegexTriedLongestFirst() throws Exception {
        var front = at("front", 1, new String[] {"/", "Prefix", "/healthz", "Exact", "/users/admin/settings", "Prefix"});
        var users = at("users", 2, new String[] {"/users/[0-9]+", "ImplementationSpecific", "/h.*", "ImplementationSpecific"},
                "use-regex", "true");
        Translation t = translate(front, users);
        assertThat(ingressReport(t, "shop", "front").errors()).isEmpty();
        assertThat(ingressReport(t, "shop", "users").errors()).isEmpty();
        // front's paths are nginx's regexes too, with the length of the Ingress path as their priority.
        Route frontRoute = t.snapshot(STRAIT).config().routes().stream()
                .filter(r -> r.name().equals("shop.front..ingress-0")).findFirst().orElseThrow();
        assertThat(frontRoute.rules()).extracting(r -> r.matches().get(0).path()).containsExactly(
                new Route.PathMatch(Route.PathType.RegularExpression, "(?i)^/users/admin/settings.*", 21),
                new Route.PathMatch(Route.PathType.RegularExpression, "(?i)^/healthz.*", 8),
                new Route.PathMatch(Route.PathType.RegularExpression, "(?i)^/.*", 1));
        // Interleaved by length across the two Ingresses: 21 front, 13 users, 8 front, 4 users, 1 front.
        assertThat(served(t, "/users/admin/settings/x")).isEqualTo("shop.front..ingress-0#0");
        assertThat(served(t, "/users/42")).isEqualTo("shop.users..ingress-0#0");
        assertThat(served(t, "/HEALTHZ/x")).isEqualTo("shop.front..ingress-0#1");
        assertThat(served(t, "/hello")).isEqualTo("shop.users..ingress-0#1");
        assertThat(served(t, "/other")).isEqualTo("shop.front..ingress-0#2");

        // Alone, front keeps its exact forms (ADR 0054): whole path elements, case-sensitive.
        t = translate(front);
        assertThat(rules(t)).extracting(r -> r.matches().get(0).path()).containsExactly(
                new Route.PathMatch(Route.PathType.Prefix, "/"), new Route.PathMatch(Route.PathType.Exact, "/healthz"),
                new Route.PathMatch(Route.PathType.Prefix, "/users/admin/settings"));
        // Another host is not touched.
        var other = annotated("other", spec(false, "/a", "Prefix").replace("app.example.com", "other.example.com"));
        t = translate(front, users, other);
        assertThat(t.snapshot(STRAIT).config().routes()).filteredOn(r -> r.name().equals("shop.other..ingress-0"))
                .singleElement().satisfies(r -> assertThat(r.rules().get(0).matches().get(0).path())
                        .isEqualTo(new Route.PathMatch(Route.PathType.Prefix, "/a")));
    }

    /** A host whose regex comes from another Ingress: its defaultBackend answers after every regex, a canary still splits. */
    @Test
    void aDefaultBackendAndACanaryFollowTheHostIntoRegexes() throws Exception {
        var front = annotated("front", "ingressClassName: strait\n"
                + "defaultBackend: { service: { name: web, port: { number: 80 } } }\n" + spec(false, "/about", "Exact")
                .substring("ingressClassName: strait\n".length()));
        var users = at("users", 2, new String[] {"/users/[0-9]+", "ImplementationSpecific"}, "use-regex", "true");
        var canary = at("front-canary", 3, new String[] {"/about", "Exact"}, "canary", "true", "canary-by-header",
                "X-Canary");
        canary.getSpec().getRules().get(0).getHttp().getPaths().get(0).getBackend().getService().setName("web-canary");
        Translation t = translate(front, users, canary, Fixtures.service("shop", "web-canary", "http:80"),
                Fixtures.slice("shop", "web-canary", "web-canary-1", "http", 8080, "10.0.0.2"));
        assertThat(ingressReport(t, "shop", "front-canary").errors()).isEmpty();
        assertThat(served(t, "/users/7")).isEqualTo("shop.users..ingress-0#0");
        assertThat(served(t, "/nothing")).isEqualTo("shop.front..ingress-0-default#0");
        // The canary's header rule answers before the split rule: regexes are tried in order, not by conditions.
        String always = served(t, "/about", "X-Canary", "always");
        String plain = served(t, "/about");
        assertThat(always).startsWith("shop.front..ingress-0#");
        assertThat(plain).startsWith("shop.front..ingress-0#");
        Route frontRoute = t.snapshot(STRAIT).config().routes().stream()
                .filter(r -> r.name().equals("shop.front..ingress-0")).findFirst().orElseThrow();
        assertThat(frontRoute.rules().get(Integer.parseInt(always.substring(always.indexOf('#') + 1))).action())
                .isEqualTo(new Route.Backends(List.of(new Route.Backend("service.shop.web-canary.80", 1))));
        assertThat(frontRoute.rules().get(Integer.parseInt(plain.substring(plain.indexOf('#') + 1))).action())
                .isEqualTo(WEB);
    }
}
