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
 * A Route's {@code requestBuffering}: the config's shape, carried to the snapshot as it is (1 MiB when
 * {@code maxBytes} is absent, all in memory up to 1 MiB when {@code memoryBytes} is); what the proxies' parser
 * refuses, the operator refuses, naming the field.
 */
class RouteRequestBufferingTest {
    private static final String SPEC = """
            hosts: [ example.com ]
            rules:
              - matches: [ { path: { type: Prefix, value: /upload } } ]
                backends: [ { service: { name: web, port: 80 } } ]
                requestBuffering: { maxBytes: 8388608 }
              - matches: [ { path: { type: Prefix, value: /form } } ]
                backends: [ { service: { name: web, port: 80 } } ]
                requestBuffering: {}
              - matches: [ { path: { type: Prefix, value: /video } } ]
                backends: [ { service: { name: web, port: 80 } } ]
                requestBuffering: { maxBytes: 1099511627776, memoryBytes: 65536 }
              - matches: [ { path: { type: Prefix, value: /small } } ]
                backends: [ { service: { name: web, port: 80 } } ]
                requestBuffering: { maxBytes: 4096, memoryBytes: 0 }
              - backends: [ { service: { name: web, port: 80 } } ]
            """;
    private static final Object WEB = service("shop", "web", "http:80");
    private static final Object WEB_PODS = slice("shop", "web", "web-1", "http", 8080, "10.0.0.1");

    private static List<Route.Rule> rules(Translation t) {
        return t.snapshot(STRAIT).config().routes().get(0).rules();
    }

    @Test
    void theRulesRequestBufferingIsCarriedAsItIs() {
        Translation t = Fixtures.translate(route("shop", "site", 1, SPEC), WEB, WEB_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(rules(t)).extracting(Route.Rule::requestBuffering).containsExactly(
                new Route.RequestBuffering(8L << 20, 1L << 20), new Route.RequestBuffering(1L << 20, 1L << 20),
                new Route.RequestBuffering(1L << 40, 64L << 10), new Route.RequestBuffering(4096, 0), null);
        // What the proxies get reads back the same.
        assertThat(Fixtures.parse(t.snapshot(STRAIT).json()).routes().get(0).rules())
                .extracting(Route.Rule::requestBuffering)
                .isEqualTo(rules(t).stream().map(Route.Rule::requestBuffering).toList());
    }

    /** What the API server's schema refuses, the operator refuses too, with the proxy's words and the field named. */
    @Test
    void badRequestBufferingIsASpecErrorNamingIt() {
        String backends = "backends: [ { service: { name: web, port: 80 } } ]\n  ";
        String[][] cases = {
            {"respond: { status: 200 }\n  requestBuffering: { maxBytes: 1024 }",
                "spec.rules[0].requestBuffering: only applies to a rule with backends"},
            {backends + "requestBuffering: { maxBytes: 0 }",
                "spec.rules[0].requestBuffering.maxBytes: must be 1 to 1099511627776 bytes, got 0"},
            {backends + "requestBuffering: { maxBytes: 1099511627777 }",
                "spec.rules[0].requestBuffering.maxBytes: must be 1 to 1099511627776 bytes, got 1099511627777"},
            {backends + "requestBuffering: { maxBytes: 134217728, memoryBytes: -1 }",
                "spec.rules[0].requestBuffering.memoryBytes: must be a whole number of bytes, got -1"},
            {backends + "requestBuffering: { maxBytes: 134217728, memoryBytes: 67108865 }",
                "spec.rules[0].requestBuffering.memoryBytes: must be 0 to 67108864 bytes, got 67108865"},
            // The schema's rule too: the part held in memory is a part of what is read.
            {backends + "requestBuffering: { maxBytes: 4096, memoryBytes: 4097 }",
                "spec.rules[0].requestBuffering.memoryBytes: must not be more than maxBytes (4096), got 4097"},
            {backends + "requestBuffering: { memoryBytes: 1048577 }",
                "spec.rules[0].requestBuffering.memoryBytes: must not be more than maxBytes (1048576), got 1048577"},
        };
        Fixtures.assertRulesRefused(cases, WEB, WEB_PODS);
    }

    /** FastCGI bodies are read first anyway, up to fastcgi.maxBufferedBody: the parser refuses both on one rule. */
    @Test
    void aFastCgiRuleTakesNone() {
        Translation t = Fixtures.translate(route("shop", "site", 1, """
                hosts: [ example.com ]
                rules:
                  - backends: [ { upstream: php } ]
                    fastcgi: { root: /srv/app }
                    requestBuffering: { maxBytes: 1024 }
                """), Fixtures.upstream("shop", "php", "protocol: fastcgi\nservice: { name: php, port: 9000 }"),
                service("shop", "php", "fcgi:9000"), slice("shop", "php", "php-1", "fcgi", 9000, "10.0.0.2"));
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.errors()).singleElement().asString()
                .startsWith("spec.rules[0].requestBuffering: FastCGI bodies are always read first");
        assertThat(Fixtures.routeNames(t)).isEmpty();
    }

    /** A rule whose guard cannot be had answers 503 from a stand-in: no body is worth reading for it. */
    @Test
    void aLockedRuleKeepsNoBuffering() {
        String guarded = """
                hosts: [ example.com ]
                rules:
                  - backends: [ { service: { name: web, port: 80 } } ]
                    basicAuth: { secretName: users }
                    requestBuffering: { maxBytes: 1024 }
                """;
        Translation served = Fixtures.translate(route("shop", "site", 1, guarded), WEB, WEB_PODS,
                Fixtures.authSecret("shop", "users", "alice:{PLAIN}x\n"));
        assertThat(Fixtures.routeReport(served, "shop", "site").errors()).isEmpty();
        assertThat(rules(served).get(0).requestBuffering()).isEqualTo(new Route.RequestBuffering(1024));

        Translation t = Fixtures.translate(route("shop", "site", 1, guarded), WEB, WEB_PODS);
        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).containsExactly(
                "spec.rules[0].basicAuth.secretName: Secret \"users\" not found; the rule answers 503");
        assertThat(rules(t).get(0).action()).isEqualTo(new Route.Backends(List.of(new Route.Backend(Translator.UNRESOLVED, 1))));
        assertThat(rules(t).get(0).requestBuffering()).isNull();
    }
}
