package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.parse;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.RouteSpec;
import dev.strait.operator.crd.Upstream;
import dev.strait.operator.crd.UpstreamSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;

/**
 * One model, learned once: every key the config file takes in a rule and an upstream is also a field
 * of the CRDs, and means the same thing after translation. The specs here use every key; a key missing
 * from the CRD model fails the strict read below.
 */
class ModelParityTest {
    /** Reads like the API server would not: unknown fields are an error, not dropped. */
    private static final YAMLMapper STRICT = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    private static final String UPSTREAM_SPEC = """
            protocol: http1
            loadBalancer: consistent-hash
            hashOn: { source: cookie, name: session }
            healthCheck: { path: /ready, interval: 2s, timeout: 500ms, unhealthyThreshold: 2, healthyThreshold: 3 }
            outlierDetection: { consecutiveFailures: 7, baseEjectionTime: 10s, maxEjectionTime: 2m }
            panicThreshold: 30
            pool: { maxIdlePerLoop: 8, idleTimeout: 30s, maxRequestsPerConnection: 500, connectTimeout: 2s }
            maxConnections: 64
            """;

    /** The config's {@code tls} keys, and the CRD's: the same keys, with Secrets in place of PEM. */
    private static final String CONFIG_TLS = "tls: { ca: %s, serverName: api.internal, cert: %s, key: %s, verifyDepth: 2 }\n";
    private static final String CRD_TLS = "tls: { caSecretName: api-ca, serverName: api.internal, "
            + "clientCertificateSecretName: api-client, verifyDepth: 2 }\n";

    private static final String PHP_SPEC = """
            protocol: fastcgi
            maxConnections: 4
            """;

    private static final String RULES = """
              - matches: [ { path: { type: Prefix, value: /api/ }, method: GET, headers: [ { name: x-canary, value: "1" } ] } ]
                backends: [ { upstream: %s, weight: 9 } ]
                cache: { enabled: true, maxBodySize: 4096, defaultTtl: 30s, ignoreCacheControl: true, cacheSetCookie: true, cacheAuthorization: true, xCacheHeader: true, staleWhileRevalidate: 5s, staleIfError: 1h, hitForPass: 0s, lockTimeout: 250ms }
                timeouts: { request: 15s, perTry: 3s, idle: 1m }
                retries: { attempts: 2, retryOn: [ connect-failure, "503" ], backoff: 50ms }
                hostRewrite: internal.example:8080
                pathRewrite: { replacePrefixMatch: /v2 }
                responseRewrite: { location: [ { from: "http://internal.example:8080/v2/", to: "{scheme}://{host}/api/" } ], cookiePath: [ { from: /v2, to: /api } ], cookieDomain: [ { from: internal.example, to: "{host}" } ] }
                requestBuffering: { maxBytes: 65536, memoryBytes: 16384 }
              - matches: [ { path: { type: Prefix, value: /old } } ]
                redirect: { scheme: https, hostname: www.example.com, port: 8443, path: { replaceFullPath: /new }, statusCode: 301 }
              - matches: [ { path: { type: Prefix, value: /docs } } ]
                redirect: { path: { replacePrefixMatch: /guide } }
              - matches: [ { path: { type: RegularExpression, value: "/v[0-9]+/.*" } } ]
                backends: [ { upstream: %1$s } ]
                pathRewrite: { replaceRegexMatch: { pattern: "^/v[0-9]+/(.*)", substitution: "/$1" } }
              - matches: [ { path: { type: RegularExpression, value: "^/.*\\\\.php$" } } ]
                backends: [ { upstream: %s } ]
                fastcgi: { root: /srv/app, index: index.php, splitPathInfo: "^(.+\\\\.php)(/.*)$", params: { APP_ENV: prod }, maxBufferedBody: 65536 }
              - matches: [ { path: { type: Exact, value: /healthz } } ]
                respond: { status: 200, body: "ok\\n", headers: { content-type: text/plain } }
              - files: { root: /srv/www, index: [ index.html ], followSymlinks: true }
            """;

    @Test
    void everyConfigKeyIsACrdFieldWithTheSameMeaning() throws Exception {
        UpstreamSpec api = STRICT.readValue(UPSTREAM_SPEC + CRD_TLS + "service: { name: api, port: 80 }",
                UpstreamSpec.class);
        UpstreamSpec php = STRICT.readValue(PHP_SPEC + "service: { name: php, port: 9000 }", UpstreamSpec.class);
        RouteSpec site = STRICT.readValue("hosts: [ example.com ]\nlisteners: [ http ]\nrules:\n" + RULES.formatted("api", "php"),
                RouteSpec.class);

        Translation t = Fixtures.translate(
                resource(new Route(), site), resource(new Upstream(), api), resource(new Upstream(), php),
                service("shop", "api", "http:80"), slice("shop", "api", "api-1", "http", 3000, "10.0.0.1"),
                service("shop", "php", "fcgi:9000"), slice("shop", "php", "php-1", "fcgi", 9000, "10.0.0.2"),
                Fixtures.caSecret("shop", "api-ca", Fixtures.CERT),
                Fixtures.tlsSecret("shop", "api-client", Fixtures.CERT, Fixtures.KEY));

        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(Fixtures.routeReport(t, "shop", "site").inSnapshot()).isTrue();
        assertThat(t.snapshot(STRAIT).config().upstreams()).isEqualTo(parse("""
                listeners: [ { name: http, address: 0.0.0.0:8080 } ]
                upstreams:
                  - name: upstream.shop.api
                    endpoints: [ 10.0.0.1:3000 ]
                %s
                  - name: upstream.shop.php
                    endpoints: [ 10.0.0.2:9000 ]
                %s
                """.formatted((UPSTREAM_SPEC + CONFIG_TLS.formatted(json(Fixtures.CERT), json(Fixtures.CERT),
                json(Fixtures.KEY))).indent(4), PHP_SPEC.indent(4))).upstreams());
        assertThat(t.snapshot(STRAIT).config().routes()).isEqualTo(parse("""
                listeners: [ { name: http, address: 0.0.0.0:8080 } ]
                upstreams:
                  - { name: upstream.shop.api, endpoints: [ 10.0.0.1:3000 ] }
                  - { name: upstream.shop.php, endpoints: [ 10.0.0.2:9000 ], protocol: fastcgi }
                routes:
                  - name: shop.site
                    hosts: [ example.com ]
                    listeners: [ http ]
                    rules:
                %s""".formatted(RULES.formatted("upstream.shop.api", "upstream.shop.php").indent(4))).routes());
    }

    /** A route's {@code tlsPassthrough} is the CRD's too, an Upstream's name in place of the model's. */
    @Test
    void tlsPassthroughIsACrdFieldWithTheSameMeaning() throws Exception {
        UpstreamSpec argocd = STRICT.readValue("service: { name: argocd, port: 443 }", UpstreamSpec.class);
        RouteSpec site = STRICT.readValue("hosts: [ argocd.example.com ]\ntlsPassthrough: { upstream: argocd }",
                RouteSpec.class);
        Translation t = Fixtures.translate(resource(new Route(), site), resource(new Upstream(), argocd),
                service("shop", "argocd", "https:443"), slice("shop", "argocd", "argocd-1", "https", 8080, "10.0.0.7"),
                Fixtures.route("shop", "shop", 1, "hosts: [ shop.example.com ]\ntls: { secretName: shop-tls }\n"
                        + "rules: [ { respond: { status: 200 } } ]"),
                Fixtures.tlsSecret("shop", "shop-tls", Fixtures.CERT, Fixtures.KEY));

        assertThat(Fixtures.routeReport(t, "shop", "site").errors()).isEmpty();
        assertThat(t.snapshot(STRAIT).config().routes()).contains(parse("""
                listeners: [ { name: http, address: 0.0.0.0:8080 } ]
                upstreams: [ { name: upstream.shop.argocd, endpoints: [ 10.0.0.7:8080 ] } ]
                routes:
                  - name: shop.site
                    hosts: [ argocd.example.com ]
                    tlsPassthrough: { upstream: upstream.shop.argocd }
                """).routes().get(0));
    }

    @Test
    void aFastCgiRuleWithAMissingUpstreamReportsOnlyTheMissingUpstream() {
        Translation t = Fixtures.translate(Fixtures.route("shop", "php", 1, """
                hosts: [ example.com ]
                rules:
                  - backends: [ { upstream: php } ]
                    fastcgi: { root: /srv/app }
                """));
        assertThat(Fixtures.routeReport(t, "shop", "php").errors())
                .containsExactly("spec.rules[0].backends[0].upstream: Upstream \"php\" not found");
    }

    @Test
    void theStrictReadCatchesAKeyTheCrdLacks() {
        assertThatThrownBy(() -> STRICT.readValue("service: { name: a, port: 1 }\nnoSuchKey: 1", UpstreamSpec.class))
                .isInstanceOf(UnrecognizedPropertyException.class);
    }

    /** PEM as a one-line YAML (JSON) string. */
    private static String json(String text) {
        return com.fasterxml.jackson.databind.node.TextNode.valueOf(text).toString();
    }

    private static <T extends io.fabric8.kubernetes.client.CustomResource<S, ?>, S> T resource(T r, S spec) {
        String name = spec instanceof RouteSpec ? "site"
                : ((UpstreamSpec) spec).service.name;
        r.setMetadata(new ObjectMetaBuilder().withNamespace("shop").withName(name).withGeneration(1L)
                .withCreationTimestamp("2026-11-30T10:00:00Z").build());
        r.setSpec(spec);
        return r;
    }
}
