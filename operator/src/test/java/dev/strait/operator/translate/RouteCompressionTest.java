package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Route's {@code compression}: the config's shape, carried to the snapshot as it is ({@code {}} the defaults, on any
 * action but a redirect); what the proxies' parser refuses, the operator refuses, naming the field. The operator's
 * {@code --ingress-compression} is for Ingresses only: a Route states its own.
 */
class RouteCompressionTest {
    private static final String SPEC = """
            hosts: [ example.com ]
            rules:
              - matches: [ { path: { type: Prefix, value: /api } } ]
                backends: [ { service: { name: web, port: 80 } } ]
                compression: { types: [ application/json, "text/*" ], minBytes: 256, level: 5, codings: [ br, gzip ] }
              - matches: [ { path: { type: Prefix, value: /hello } } ]
                respond: { status: 200, body: hello }
                compression: {}
              - matches: [ { path: { type: Prefix, value: /old } } ]
                redirect: { path: { replaceFullPath: /new } }
              - backends: [ { service: { name: web, port: 80 } } ]
                compression: { level: 9 }
            """;
    private static final Object WEB = service("shop", "web", "http:80");
    private static final Object WEB_PODS = slice("shop", "web", "web-1", "http", 8080, "10.0.0.1");

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().get(0).rules();
    }

    @Test
    void theRulesCompressionIsCarriedAsItIs() {
        Translation t = Fixtures.translate(route("shop", "site", 1, SPEC), WEB, WEB_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t)).extracting(Route.Rule::compression).containsExactly(
                new Route.Compression(List.of("application/json", "text/*"), 256, 5, List.of("br", "gzip")),
                Route.Compression.DEFAULTS,
                null,
                new Route.Compression(Route.Compression.DEFAULT_TYPES, Route.Compression.DEFAULT_MIN_BYTES, 9));
        // What the proxies get reads back the same.
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes().get(0).rules()).extracting(Route.Rule::compression)
                .isEqualTo(rules(t).stream().map(Route.Rule::compression).toList());
    }

    /** Types are read as the parser reads them, in any case; the proxies get them in lower case. */
    @Test
    void typesAreLowerCased() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - backends: [ { service: { name: web, port: 80 } } ]
                    compression: { types: [ Text/HTML, "IMAGE/*" ], minBytes: 0 }
                """), WEB, WEB_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t).get(0).compression()).isEqualTo(new Route.Compression(List.of("text/html", "image/*"), 0,
                Route.Compression.DEFAULT_LEVEL));
    }

    /** What the API server's schema refuses, the operator refuses too, with the proxy's words and the field named. */
    @Test
    void badCompressionIsASpecErrorNamingIt() {
        String backends = "backends: [ { service: { name: web, port: 80 } } ]\n  ";
        String[][] cases = {
            {"redirect: { path: { replaceFullPath: /new } }\n  compression: {}",
                "spec.rules[0].compression: a redirect's answer has no body to compress"},
            {backends + "compression: { level: 0 }", "spec.rules[0].compression.level: must be a whole number 1..9, got 0"},
            {backends + "compression: { level: 10 }", "spec.rules[0].compression.level: must be a whole number 1..9, got 10"},
            {backends + "compression: { minBytes: -1 }",
                "spec.rules[0].compression.minBytes: must be a whole number of bytes, got -1"},
            {backends + "compression: { types: [] }", "spec.rules[0].compression.types: must list at least one item"},
            {backends + "compression: { types: [ text/html, text ] }", "spec.rules[0].compression.types[1]: must be a media"
                + " type such as text/html, or type/* such as text/*, got \"text\""},
            {backends + "compression: { types: [ \"*/*\" ] }", "spec.rules[0].compression.types[0]: must be a media type"},
            {backends + "compression: { codings: [] }", "spec.rules[0].compression.codings: must list at least one item"},
            {backends + "compression: { codings: [ gzip, zstd, gzip ] }",
                "spec.rules[0].compression.codings: names a coding twice"},
        };
        Fixtures.assertRulesRefused(cases, WEB, WEB_PODS);
    }

    /** A rule whose guard cannot be had answers 503 from a stand-in: nothing of its own is worth compressing. */
    @Test
    void aLockedRuleKeepsNoCompression() {
        String guarded = """
                hosts: [ example.com ]
                rules:
                  - backends: [ { service: { name: web, port: 80 } } ]
                    basicAuth: { secretName: users }
                    compression: {}
                """;
        Translation served = Fixtures.translate(route("shop", "site", 1, guarded), WEB, WEB_PODS,
                Fixtures.authSecret("shop", "users", "alice:{PLAIN}x\n"));
        assertThat(Fixtures.routeReport(served, "shop", "site").errors()).isEmpty();
        assertThat(rules(served).get(0).compression()).isEqualTo(Route.Compression.DEFAULTS);

        Translation t = Fixtures.translate(route("shop", "site", 1, guarded), WEB, WEB_PODS);
        assertThat(rules(t).get(0).action()).isEqualTo(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
        assertThat(rules(t).get(0).compression()).isNull();
    }

    /** The operator's compression for Ingresses is no Route's: a Route without compression stays without. */
    @Test
    void theIngressCompressionFlagLeavesRoutesAlone() {
        ProxyDefaults d = ProxyDefaults.STANDARD;
        Translator translator = new Translator(new ProxyDefaults(d.defaultClass(), d.sidecarClass(), d.http(), d.https(),
                d.admin(), d.limits(), d.accessLog(), d.forwardedHeaders(), d.proxyProtocol(), d.tracing(),
                d.clusterDomain(), Route.Compression.DEFAULTS));
        Translation t = translator.translate(Fixtures.inputs(route("shop", "site", 1, SPEC), WEB, WEB_PODS));
        assertThat(rules(t)).extracting(Route.Rule::compression).containsExactly(
                new Route.Compression(List.of("application/json", "text/*"), 256, 5, List.of("br", "gzip")),
                Route.Compression.DEFAULTS,
                null,
                new Route.Compression(Route.Compression.DEFAULT_TYPES, Route.Compression.DEFAULT_MIN_BYTES, 9));
    }

    /** A files rule's precompressed twins are the proxies' to look for: carried as they are. */
    @Test
    void aFilesRulesPrecompressedCodingsAreCarried() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - files: { root: /srv/www, precompressed: [ zstd, br, gzip ] }
                    compression: {}
                """));
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        Route.Rule rule = rules(t).get(0);
        assertThat(((Route.Files) rule.action()).precompressed()).containsExactly("zstd", "br", "gzip");
        assertThat(rule.compression()).isEqualTo(Route.Compression.DEFAULTS);
    }
}
