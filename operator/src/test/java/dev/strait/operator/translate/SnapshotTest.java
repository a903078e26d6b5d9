package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.parse;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static dev.strait.operator.translate.Fixtures.upstream;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Config;
import dev.strait.model.ConfigWriter;
import dev.strait.model.IpBlock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Resources become one snapshot in the config file's shape, the same whatever the input order. */
class SnapshotTest {
    private static final String SITE = """
            hosts: [ "example.com" ]
            rules:
              - matches: [ { path: { type: Exact, value: /healthz } } ]
                respond: { status: 200, body: "ok\\n" }
              - matches: [ { path: { type: Prefix, value: /api/ } } ]
                backends: [ { upstream: api, weight: 90 }, { service: { name: web, port: 80 }, weight: 10 } ]
                timeouts: { request: 15s }
            """;

    private static List<Object> shop() {
        return List.of(
                route("shop", "site", 1, SITE),
                upstream("shop", "api", "service: { name: api, port: 8080 }\nloadBalancer: least-request"),
                service("shop", "api", "http:8080"),
                slice("shop", "api", "api-1", "http", 3000, "10.0.0.2", "10.0.0.1"),
                service("shop", "web", ":80"),
                slice("shop", "web", "web-1", null, 8080, "10.0.1.1"));
    }

    @Test
    void resourcesBecomeTheConfigShape() {
        Translation t = Fixtures.translate(shop().toArray());
        assertThat(t.snapshot(STRAIT).config()).isEqualTo(parse("""
                accessLog: { enabled: true }
                listeners: [ { name: http, address: 0.0.0.0:8080 } ]
                admin: { address: 0.0.0.0:9901 }
                upstreams:
                  - name: service.shop.web.80
                    endpoints: [ 10.0.1.1:8080 ]
                  - name: upstream.shop.api
                    endpoints: [ 10.0.0.1:3000, 10.0.0.2:3000 ]
                    loadBalancer: least-request
                routes:
                  - name: shop.site
                    hosts: [ example.com ]
                    rules:
                      - matches: [ { path: { type: Exact, value: /healthz } } ]
                        respond: { status: 200, body: "ok\\n" }
                      - matches: [ { path: { type: Prefix, value: /api/ } } ]
                        backends: [ { upstream: upstream.shop.api, weight: 90 }, { upstream: service.shop.web.80, weight: 10 } ]
                        timeouts: { request: 15s }
                """));
        assertThat(t.snapshot(STRAIT).version()).isEqualTo(ConfigWriter.version(t.snapshot(STRAIT).config()));
    }

    /** --proxy-trusted-peers reaches the ingress proxies' snapshots (ADR 0057), not the sidecars'. */
    @Test
    void trustedPeersGoToIngressProxiesOnly() {
        ProxyDefaults d = ProxyDefaults.STANDARD;
        Config.ForwardedHeaders lb = new Config.ForwardedHeaders(List.of(IpBlock.parse("10.0.0.0/8")));
        Translator translator = new Translator(new ProxyDefaults(d.defaultClass(), d.sidecarClass(), d.http(), d.https(),
                d.admin(), d.limits(), d.accessLog(), lb));
        List<Object> resources = new ArrayList<>(shop());
        resources.add(route("shop", "side", 4, "ingressClassName: strait-sidecar\nhosts: [ \"*\" ]\nrules: [ { respond: { status: 200 } } ]"));
        Translation t = translator.translate(Fixtures.inputs(resources.toArray()));
        assertThat(t.snapshot(STRAIT).config().forwardedHeaders()).isEqualTo(lb);
        assertThat(t.snapshot(STRAIT).json()).contains("\"forwardedHeaders\":{\"trustedPeers\":[\"10.0.0.0/8\"]}");
        assertThat(t.snapshot(Scope.sidecar("strait-sidecar", "shop")).config().forwardedHeaders().trustedPeers()).isEmpty();
        // Without the flag nothing is written: snapshots keep the versions they had.
        assertThat(Fixtures.translate(shop().toArray()).snapshot(STRAIT).json()).doesNotContain("forwardedHeaders");
    }

    /**
     * --proxy-tracing-*: every proxy the operator programs traces, ingress proxies and sidecars alike (a trace
     * crosses both); without the flags nothing is written, so snapshots keep the versions they had.
     */
    @Test
    void tracingGoesToIngressProxiesAndSidecars() {
        ProxyDefaults d = ProxyDefaults.STANDARD;
        Config.Tracing tracing = new Config.Tracing("http://otel-collector.monitoring:4318/v1/traces", 12.5, "edge",
                true, List.of(IpBlock.parse("10.0.0.0/8")), Config.Tracing.DEFAULT_FLUSH_INTERVAL);
        Translator translator = new Translator(new ProxyDefaults(d.defaultClass(), d.sidecarClass(), d.http(), d.https(),
                d.admin(), d.limits(), d.accessLog(), d.forwardedHeaders(), d.proxyProtocol(), tracing));
        List<Object> resources = new ArrayList<>(shop());
        resources.add(route("shop", "side", 4, "ingressClassName: strait-sidecar\nhosts: [ \"*\" ]\nrules: [ { respond: { status: 200 } } ]"));
        Translation t = translator.translate(Fixtures.inputs(resources.toArray()));
        Scope sidecar = Scope.sidecar("strait-sidecar", "shop");
        for (Scope scope : List.of(STRAIT, sidecar)) {
            assertThat(t.snapshot(scope).config().tracing()).as(scope.toString()).isEqualTo(tracing);
            // As a proxy reads the snapshot.
            assertThat(Fixtures.parse(t.snapshot(scope).json()).tracing()).as(scope.toString()).isEqualTo(tracing);
        }
        assertThat(t.snapshot(STRAIT).json()).contains("\"tracing\":{\"endpoint\":"
                + "\"http://otel-collector.monitoring:4318/v1/traces\",\"percent\":12.5,\"serviceName\":\"edge\","
                + "\"trustIncoming\":[\"10.0.0.0/8\"],\"flushInterval\":\"5s\"}");

        Translation without = Fixtures.translate(resources.toArray());
        for (Scope scope : List.of(STRAIT, sidecar)) {
            assertThat(without.snapshot(scope).config().tracing()).as(scope.toString()).isNull();
            assertThat(without.snapshot(scope).json()).as(scope.toString()).doesNotContain("tracing");
            // Tracing is the only difference: the same resources without it give another version.
            assertThat(without.snapshot(scope).version()).as(scope.toString()).isNotEqualTo(t.snapshot(scope).version());
        }
    }

    /**
     * --proxy-request-body-files-max-bytes: every proxy the operator programs gets the budget, ingress proxies and
     * sidecars alike (each has its own /tmp, sized from the same number), in their own directory. The default is not
     * written, so snapshots keep the versions they had before the flag.
     */
    @Test
    void requestBodyFilesGoToIngressProxiesAndSidecars() {
        List<Object> resources = new ArrayList<>(shop());
        resources.add(route("shop", "side", 4, "ingressClassName: strait-sidecar\nhosts: [ \"*\" ]\nrules: [ { respond: { status: 200 } } ]"));
        Scope sidecar = Scope.sidecar("strait-sidecar", "shop");
        Translation without = Fixtures.translate(resources.toArray());
        for (long budget : new long[] {0, 1L << 30}) {
            Config.RequestBodyFiles files = new Config.RequestBodyFiles(null, budget);
            Translation t = new Translator(ProxyDefaults.STANDARD.withRequestBodyFiles(files))
                    .translate(Fixtures.inputs(resources.toArray()));
            for (Scope scope : List.of(STRAIT, sidecar)) {
                assertThat(t.snapshot(scope).config().requestBodyFiles()).as("%s %d", scope, budget).isEqualTo(files);
                // As a proxy reads the snapshot: the budget, and no directory (the proxy's own /tmp).
                assertThat(Fixtures.parse(t.snapshot(scope).json()).requestBodyFiles()).as("%s %d", scope, budget)
                        .isEqualTo(files);
                assertThat(t.snapshot(scope).json()).as("%s %d", scope, budget)
                        .contains("\"requestBodyFiles\":{\"maxBytes\":" + budget + "}");
                assertThat(t.snapshot(scope).version()).as("%s %d", scope, budget)
                        .isNotEqualTo(without.snapshot(scope).version());
            }
        }
        // The default, given or not: nothing written, the same JSON and version as before the flag existed.
        Translation given = new Translator(ProxyDefaults.STANDARD.withRequestBodyFiles(Config.RequestBodyFiles.DEFAULTS))
                .translate(Fixtures.inputs(resources.toArray()));
        for (Scope scope : List.of(STRAIT, sidecar)) {
            assertThat(without.snapshot(scope).config().requestBodyFiles()).isEqualTo(Config.RequestBodyFiles.DEFAULTS);
            assertThat(without.snapshot(scope).json()).as(scope.toString()).doesNotContain("requestBodyFiles");
            assertThat(given.snapshot(scope).json()).as(scope.toString()).isEqualTo(without.snapshot(scope).json());
            assertThat(given.snapshot(scope).version()).as(scope.toString()).isEqualTo(without.snapshot(scope).version());
        }
    }

    @Test
    void inputOrderDoesNotChangeTheSnapshotOrItsVersion() {
        List<Object> resources = new ArrayList<>(shop());
        resources.add(route("shop", "b", 5, "hosts: [ b.example.com ]\nrules: [ { respond: { status: 204 } } ]"));
        resources.add(route("other", "a", 5, "hosts: [ a.example.com ]\nrules: [ { respond: { status: 204 } } ]"));
        String first = Fixtures.translate(resources.toArray()).snapshot(STRAIT).version();
        Random random = new Random(5);
        for (int i = 0; i < 10; i++) {
            Collections.shuffle(resources, random);
            Translation t = Fixtures.translate(resources.toArray());
            assertThat(t.snapshot(STRAIT).version()).isEqualTo(first);
            assertThat(Fixtures.routeNames(t)).containsExactly("shop.site", "other.a", "shop.b");
        }
    }

    @Test
    void anEndpointChangeChangesTheVersion() {
        Translation before = Fixtures.translate(shop().toArray());
        List<Object> changed = new ArrayList<>(shop());
        changed.set(3, slice("shop", "api", "api-1", "http", 3000, "10.0.0.1"));
        Translation after = Fixtures.translate(changed.toArray());
        assertThat(after.snapshot(STRAIT).version()).isNotEqualTo(before.snapshot(STRAIT).version());
        assertThat(after.snapshot(STRAIT).config().upstreams().get(1).endpoints()).hasSize(1);
    }

    @Test
    void aScopeWithoutRoutesStillGetsAServableSnapshot() {
        Translation t = Fixtures.translate();
        assertThat(t.snapshot(STRAIT).config().routes()).isEmpty();
        assertThat(t.snapshot(STRAIT).config().listeners()).hasSize(1);
    }

    @Test
    void everyResourceGetsAReport() {
        Translation t = Fixtures.translate(shop().toArray());
        ResourceReport r = Fixtures.routeReport(t, "shop", "site");
        assertThat(r.accepted().status()).isTrue();
        assertThat(r.resolvedRefs().status()).isTrue();
        assertThat(r.scopes()).containsExactly(STRAIT);
        assertThat(r.generation()).isEqualTo(Fixtures.generation(SITE));
        ResourceReport u = Fixtures.upstreamReport(t, "shop", "api");
        assertThat(u.resolvedRefs().message()).isEqualTo("2 ready endpoint(s)");
        assertThat(u.scopes()).containsExactly(STRAIT);
    }

    @Test
    void fastcgiRulesHostRewriteAndMaxConnectionsPassThrough() {
        Translation t = Fixtures.translate(
                service("shop", "php", "fcgi:9000"), slice("shop", "php", "php-1", "fcgi", 9000, "10.0.2.1"),
                upstream("shop", "php", "service: { name: php, port: 9000 }\nprotocol: fastcgi\nmaxConnections: 4"),
                route("shop", "app", 1, """
                        hosts: [ php.example.com ]
                        rules:
                          - backends: [ { upstream: php } ]
                            fastcgi: { root: /var/www/html, index: index.php, params: { APP_ENV: prod } }
                          - matches: [ { path: { type: Prefix, value: /api } } ]
                            backends: [ { service: { name: php, port: 9000 } } ]
                            hostRewrite: api.internal
                        """));
        assertThat(Fixtures.routeReport(t, "shop", "app").errors()).isEmpty();
        var config = t.snapshot(STRAIT).config();
        assertThat(config.upstreams()).filteredOn(u -> u.name().equals("upstream.shop.php")).singleElement()
                .satisfies(u -> assertThat(u.toString()).contains("FASTCGI").contains("maxConnections=4"));
        var rules = config.routes().get(0).rules();
        assertThat(rules.get(0).fastcgi().root()).isEqualTo("/var/www/html");
        assertThat(rules.get(0).fastcgi().params()).containsEntry("APP_ENV", "prod");
        assertThat(rules.get(1).hostRewrite()).isEqualTo("api.internal");
    }
}
