package dev.strait.operator.translate;

import static dev.strait.operator.crd.RouteSpec.Coding.BR;
import static dev.strait.operator.crd.RouteSpec.Coding.GZIP;
import static dev.strait.operator.crd.RouteSpec.Coding.ZSTD;
import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import dev.strait.operator.crd.RouteSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's configuration-snippet: its header directives with fixed values and its gzip and brotli lines apply;
 * anything else, nothing.
 */
class ConfigurationSnippetTest {
    private static final String FIELD = "metadata.annotations[nginx.ingress.kubernetes.io/configuration-snippet]";

    /** What most such snippets hold: security headers, a cleared Server, a field for the app, and no-op lines. */
    static final String USUAL = """
            more_set_headers "X-Frame-Options: DENY";
            more_set_headers "X-Content-Type-Options: nosniff" 'Referrer-Policy: no-referrer';
            add_header Strict-Transport-Security "max-age=31536000; includeSubDomains" always;
            more_clear_headers Server;   # hide what serves it
            proxy_set_header X-Tenant "blue";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Real-IP $remote_addr;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "upgrade";
            """;

    @Test
    void headerDirectivesWithFixedValuesAreRead() {
        List<String> warn = new ArrayList<>();
        ConfigurationSnippet.Edits e = ConfigurationSnippet.read(USUAL, FIELD, warn);
        assertThat(warn).isEmpty();
        assertThat(e.response().set).containsExactlyInAnyOrderEntriesOf(Map.of("x-frame-options", "DENY",
                "x-content-type-options", "nosniff", "referrer-policy", "no-referrer"));
        assertThat(e.response().add).containsExactlyEntriesOf(Map.of("strict-transport-security",
                "max-age=31536000; includeSubDomains"));
        assertThat(e.response().remove).containsExactly("server");
        assertThat(e.request().set).containsExactlyEntriesOf(Map.of("x-tenant", "blue"));
        assertThat(e.request().remove).isNull();

        e = ConfigurationSnippet.read("more_set_headers \"X-A: 1\";\nmore_clear_headers X-A;\nproxy_set_header X-B \"\";\n",
                FIELD, warn);
        assertThat(e.response().set).as("a later line wins").isNull();
        assertThat(e.response().remove).containsExactly("x-a");
        assertThat(e.request().remove).as("an empty value clears it, as in nginx").containsExactly("x-b");
    }

    @Test
    void anythingElseLeavesTheWholeSnippetOut() {
        Map<String, String> refused = Map.of(
                "more_set_headers \"X-A: 1\";\ndeny all;\n", "\"deny all\" is nginx configuration Strait does not read",
                "proxy_set_header X-Client $remote_addr;\n", "\"proxy_set_header X-Client $remote_addr\" holds an nginx variable",
                "more_set_headers -s 404 \"X-A: 1\";\n", "has an option (-s) Strait does not read",
                "if ($host = a) { return 403; }\n", "holds a block ({ }), which is nginx configuration Strait does not read",
                "add_header X-A 1\n", "does not end its last statement with ;",
                "proxy_set_header Content-Length 5;\n", "changes Content-Length, which is the proxy's to set",
                "more_set_headers \"X-A: 1;\n", "a quote is not closed",
                "more_clear_headers X-*;\n", "names \"X-*\", which is not a header name");
        refused.forEach((snippet, why) -> {
            List<String> warn = new ArrayList<>();
            assertThat(ConfigurationSnippet.read(snippet, FIELD, warn)).as(snippet).isNull();
            assertThat(warn).as(snippet).singleElement().asString().startsWith(FIELD + ": ").contains(why)
                    .contains("the snippet is not applied");
        });
    }

    @Test
    void everyBackendRuleOfTheIngressGetsTheEdits() {
        Translation t = IngressAnnotationsTest.translate(IngressAnnotationsTest.annotated("site", IngressAnnotationsTest.SITE,
                "configuration-snippet", USUAL, "x-forwarded-prefix", "/shop"));
        assertThat(ingressReport(t, "shop", "site").errors()).noneMatch(e -> e.contains("configuration-snippet"));
        Fixtures.parse(t.snapshot(STRAIT).json()); // what a proxy is sent, it takes
        List<Route.Rule> backends = t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream())
                .filter(r -> r.action() instanceof Route.Backends b && b.backends().stream()
                        .noneMatch(x -> x.upstream().equals(Translator.UNRESOLVED))).toList();
        assertThat(backends).isNotEmpty().allSatisfy(r -> {
            assertThat(r.responseHeaders().set()).containsEntry("x-frame-options", "DENY");
            assertThat(r.responseHeaders().remove()).containsExactly("server");
            assertThat(r.requestHeaders().set()).containsExactlyInAnyOrderEntriesOf(Map.of("x-tenant", "blue",
                    "x-forwarded-prefix", "/shop"));
        });

        t = IngressAnnotationsTest.translate(IngressAnnotationsTest.annotated("site", IngressAnnotationsTest.SITE,
                "configuration-snippet", "deny all;"));
        assertThat(ingressReport(t, "shop", "site").errors()).anyMatch(e -> e.startsWith(FIELD));
        assertThat(t.snapshot(STRAIT).config().routes().stream().flatMap(r -> r.rules().stream()))
                .as("the paths serve, without the snippet").isNotEmpty()
                .allSatisfy(r -> assertThat(r.responseHeaders()).isNull());
    }

    @Test
    void gzipDirectivesTurnTheIngresssCompressionOnOffOrChangeIt() {
        List<String> warn = new ArrayList<>();
        ConfigurationSnippet.Edits e = ConfigurationSnippet.read("""
                gzip on;
                gzip_types application/JSON text/css *;
                gzip_comp_level 5;
                gzip_min_length 2k;
                gzip_vary on;
                gzip_proxied any;
                more_set_headers "X-A: 1";
                """, FIELD, warn);
        assertThat(warn).isEmpty();
        assertThat(e.compression()).isEqualTo(new ConfigurationSnippet.Compression(true, null,
                List.of("text/html", "application/json", "text/css", "*/*"), 2048L, 5));
        assertThat(e.response().set).containsEntry("x-a", "1");
        dev.strait.operator.crd.RouteSpec.Compression on = e.compression().applied(null);
        assertThat(on.types).containsExactly("text/html", "application/json", "text/css", "*/*");
        assertThat(on.minBytes).isEqualTo(2048L);
        assertThat(on.level).isEqualTo(5);

        dev.strait.operator.crd.RouteSpec.Compression controller = new dev.strait.operator.crd.RouteSpec.Compression();
        controller.level = 1;
        controller.minBytes = 256L;
        ConfigurationSnippet.Compression off = ConfigurationSnippet.read("gzip off;", FIELD, warn).compression();
        assertThat(off.applied(controller)).as("gzip off wins over the controller's").isNull();
        ConfigurationSnippet.Compression level = ConfigurationSnippet.read("gzip_comp_level 9;", FIELD, warn).compression();
        assertThat(level.applied(null)).as("settings without gzip on do nothing, as in nginx").isNull();
        assertThat(level.applied(controller).level).isEqualTo(9);
        assertThat(level.applied(controller).minBytes).isEqualTo(256L);
        assertThat(ConfigurationSnippet.read("gzip on;", FIELD, warn).compression().applied(null).types)
                .as("Strait's default types").isNull();
        assertThat(warn).isEmpty();

        Map<String, String> refused = Map.of(
                "gzip yes;\n", "is not \"gzip on\" or \"gzip off\"",
                "gzip_comp_level 10;\n", "is not a level from 1 to 9",
                "gzip_min_length 1g;\n", "is not a size",
                "gzip_types *.js;\n", "which is not a media type",
                "gzip_vary off;\n", "asks for what Strait does not do",
                "gzip_proxied expired;\n", "asks for what Strait does not do",
                "gzip_disable msie6;\n", "is nginx configuration Strait does not read");
        refused.forEach((snippet, why) -> {
            List<String> w = new ArrayList<>();
            assertThat(ConfigurationSnippet.read(snippet, FIELD, w)).as(snippet).isNull();
            assertThat(w).singleElement().asString().contains(why);
        });
    }

    /** The codings a snippet gives an Ingress over the controller's (null: off), or null for no compression. */
    private static List<RouteSpec.Coding> codings(String snippet, RouteSpec.Coding... controller) {
        RouteSpec.Compression c = null;
        if (controller.length > 0) {
            c = new RouteSpec.Compression();
            c.codings = List.of(controller);
        }
        List<String> warn = new ArrayList<>();
        RouteSpec.Compression applied = ConfigurationSnippet.read(snippet, FIELD, warn).compression().applied(c);
        assertThat(warn).as(snippet).isEmpty();
        return applied == null ? null : applied.codings;
    }

    /**
     * nginx's brotli switch is br, its gzip switch the other codings (zstd goes with gzip); br goes first when on, as
     * ngx_brotli's filter runs before gzip's and wins with a client that takes both.
     */
    @Test
    void brotliOnPutsBrFirstAndOffTakesItOut() {
        assertThat(codings("brotli on;")).as("brotli alone, as nginx with gzip off").containsExactly(BR);
        assertThat(codings("brotli on;", ZSTD, GZIP)).containsExactly(BR, ZSTD, GZIP);
        assertThat(codings("brotli on;", ZSTD, BR, GZIP)).containsExactly(BR, ZSTD, GZIP);
        assertThat(codings("gzip on;\nbrotli on;")).containsExactly(BR, ZSTD, GZIP);
        assertThat(codings("gzip off;\nbrotli on;", ZSTD, GZIP)).containsExactly(BR);
        assertThat(codings("brotli off;", ZSTD, BR, GZIP)).containsExactly(ZSTD, GZIP);
        assertThat(codings("brotli off;", BR)).as("no coding left: none").isNull();
        assertThat(codings("brotli off;\ngzip off;", ZSTD, BR, GZIP)).isNull();
        assertThat(codings("gzip off;", ZSTD, BR, GZIP)).as("brotli is a switch of its own").containsExactly(BR);
        assertThat(codings("gzip off;", ZSTD, GZIP)).isNull();
        assertThat(codings("gzip on;", BR, GZIP)).as("the controller's order kept").containsExactly(BR, GZIP);
        assertThat(codings("brotli off;")).isNull();
        assertThat(codings("brotli_comp_level 5;")).as("settings without a switch on do nothing, as in nginx").isNull();
        assertThat(codings("brotli_comp_level 5;", GZIP)).containsExactly(GZIP);
    }

    @Test
    void brotliSettingsAreReadAsGzipsAreWhereGzipSaysNothing() {
        List<String> warn = new ArrayList<>();
        ConfigurationSnippet.Edits e = ConfigurationSnippet.read("""
                brotli on;
                brotli_types application/JSON "text/*";
                brotli_comp_level 6;
                brotli_min_length 512;
                brotli_static off;
                """, FIELD, warn);
        assertThat(warn).isEmpty();
        assertThat(e.compression()).isEqualTo(new ConfigurationSnippet.Compression(null, true,
                List.of("text/html", "application/json", "text/*"), 512L, 6));
        RouteSpec.Compression on = e.compression().applied(null);
        assertThat(on.codings).containsExactly(BR);
        assertThat(on.types).containsExactly("text/html", "application/json", "text/*");

        // The same values in both modules are no disagreement; the order of types does not matter.
        ConfigurationSnippet.Compression same = ConfigurationSnippet.read("""
                gzip_types text/css application/json; brotli_types application/json text/css;
                gzip_comp_level 4; brotli_comp_level 4; gzip_min_length 1k; brotli_min_length 1024;
                """, FIELD, warn).compression();
        assertThat(warn).isEmpty();
        assertThat(same).isEqualTo(new ConfigurationSnippet.Compression(null, null,
                List.of("text/html", "text/css", "application/json"), 1024L, 4));
    }

    /**
     * Strait has one types list, minimum length and level for every coding where nginx has them per module: the
     * snippet still applies, with both lists' types (none nginx compressed goes uncompressed) and gzip's length and
     * level, each difference reported naming both lines; brotli's levels beyond Strait's 1 to 9 are brought within.
     */
    @Test
    void brotliSettingsThatDifferFromGzipsAreReportedAndOneApplies() {
        List<String> warn = new ArrayList<>();
        ConfigurationSnippet.Edits e = ConfigurationSnippet.read("""
                gzip on; brotli on;
                gzip_types text/css;
                brotli_types application/json text/css;
                gzip_comp_level 5;
                brotli_comp_level 7;
                gzip_min_length 256;
                brotli_min_length 2k;
                more_set_headers "X-A: 1";
                """, FIELD, warn);
        assertThat(e.response().set).containsEntry("x-a", "1");
        assertThat(e.compression()).isEqualTo(new ConfigurationSnippet.Compression(true, true,
                List.of("text/html", "text/css", "application/json"), 256L, 5));
        assertThat(warn).containsExactly(
                FIELD + ": \"gzip_types text/css\" and \"brotli_types application/json text/css\" differ; Strait has"
                        + " one list of types for every coding, and compresses those of both",
                FIELD + ": \"gzip_min_length 256\" and \"brotli_min_length 2k\" differ; Strait has one for every"
                        + " coding, and gzip's applies",
                FIELD + ": \"gzip_comp_level 5\" and \"brotli_comp_level 7\" differ; Strait has one for every coding,"
                        + " and gzip's applies");

        for (String[] c : new String[][] {{"11", "9"}, {"10", "9"}, {"0", "1"}}) {
            List<String> w = new ArrayList<>();
            assertThat(ConfigurationSnippet.read("brotli on; brotli_comp_level " + c[0] + ";", FIELD, w).compression()
                    .level()).isEqualTo(Integer.parseInt(c[1]));
            assertThat(w).containsExactly(FIELD + ": \"brotli_comp_level " + c[0] + "\" is applied as level " + c[1]
                    + ": Strait's levels go from 1 to 9");
        }

        List<String> refused = new ArrayList<>();
        assertThat(ConfigurationSnippet.read("gzip_comp_level 5; brotli_comp_level 7; brotli_window 512k;", FIELD,
                refused)).isNull();
        assertThat(refused).as("a snippet not applied says only why").singleElement().asString()
                .contains("\"brotli_window 512k\"");
    }

    @Test
    void brotliLinesStraitCannotHonourLeaveTheSnippetOut() {
        Map<String, String> refused = Map.of(
                "brotli yes;\n", "is not \"brotli on\" or \"brotli off\"",
                "brotli_comp_level 12;\n", "is not a level from 0 to 11",
                "brotli_min_length 1g;\n", "is not a size",
                "brotli_types *.js;\n", "which is not a media type",
                "brotli_static on;\n", "\"brotli_static on\" does not apply: precompressed twins beside files"
                        + " (app.js.br) are a Route's files rule's (precompressed), and an Ingress's backends are upstreams",
                "brotli_static always;\n", "\"brotli_static always\" does not apply",
                "gzip_static on;\n", "\"gzip_static on\" does not apply",
                "brotli_vary on;\n", "is nginx configuration Strait does not read",
                "brotli_window 512k;\n", "is nginx configuration Strait does not read");
        refused.forEach((snippet, why) -> {
            List<String> w = new ArrayList<>();
            assertThat(ConfigurationSnippet.read(snippet, FIELD, w)).as(snippet).isNull();
            assertThat(w).as(snippet).singleElement().asString().startsWith(FIELD + ": ").contains(why)
                    .contains("the snippet is not applied");
        });
        List<String> warn = new ArrayList<>();
        assertThat(ConfigurationSnippet.read("brotli_static off;\ngzip_static off;\n", FIELD, warn))
                .as("off is what an Ingress gets anyway").isNull();
        assertThat(warn).isEmpty();
    }
}
