package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.ingressReport;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ingress-nginx's configuration-snippet: its header directives with fixed values apply; anything else, nothing. */
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
        assertThat(e.gzip()).isEqualTo(new ConfigurationSnippet.Gzip(true,
                List.of("text/html", "application/json", "text/css", "*/*"), 2048L, 5));
        assertThat(e.response().set).containsEntry("x-a", "1");
        dev.strait.operator.crd.RouteSpec.Compression on = e.gzip().applied(null);
        assertThat(on.types).containsExactly("text/html", "application/json", "text/css", "*/*");
        assertThat(on.minBytes).isEqualTo(2048L);
        assertThat(on.level).isEqualTo(5);

        dev.strait.operator.crd.RouteSpec.Compression controller = new dev.strait.operator.crd.RouteSpec.Compression();
        controller.level = 1;
        controller.minBytes = 256L;
        ConfigurationSnippet.Gzip off = ConfigurationSnippet.read("gzip off;", FIELD, warn).gzip();
        assertThat(off.applied(controller)).as("gzip off wins over the controller's").isNull();
        ConfigurationSnippet.Gzip level = ConfigurationSnippet.read("gzip_comp_level 9;", FIELD, warn).gzip();
        assertThat(level.applied(null)).as("settings without gzip on do nothing, as in nginx").isNull();
        assertThat(level.applied(controller).level).isEqualTo(9);
        assertThat(level.applied(controller).minBytes).isEqualTo(256L);
        assertThat(ConfigurationSnippet.read("gzip on;", FIELD, warn).gzip().applied(null).types)
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
}
