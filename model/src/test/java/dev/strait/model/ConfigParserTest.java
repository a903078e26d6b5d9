package dev.strait.model;

import static dev.strait.model.TestConfigs.CONTRACT_EXAMPLE;
import static dev.strait.model.TestConfigs.LISTENER;
import static dev.strait.model.TestConfigs.MINIMAL;
import static dev.strait.model.TestConfigs.OK_RULE;
import static dev.strait.model.TestConfigs.UPSTREAM;
import static dev.strait.model.TestConfigs.errors;
import static dev.strait.model.TestConfigs.parse;
import static dev.strait.model.TestConfigs.withRules;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigParserTest {

    /** Control-channel documents are validated as trees: every message must be the one their JSON text gets. */
    @ParameterizedTest
    @ValueSource(strings = {
        "{\"listeners\":[{\"name\":\"http\",\"address\":\"0.0.0.0:8080\"}],\"routes\":[{\"name\":\"Bad_Name\",\"hosts\":[\"*\"],\"rules\":[{\"respond\":{\"status\":999}}]}]}",
        "{\"listeners\":[{\"name\":\"http\",\"address\":\"0.0.0.0:8080\"}],\"routes\":[{\"name\":\"r\",\"hosts\":[\"*\"],\"rules\":[{\"backends\":[{\"upstream\":\"none\"}],\"timeouts\":{\"request\":\"soon\"}}]}],\"workers\":\"two\"}",
        "{\"listeners\":[],\"upstreams\":[{\"name\":\"u\",\"endpoints\":[\"nohost\"],\"balance\":\"random-ish\"}],\"routes\":\"none\"}",
        "{\"routes\":[{\"name\":\"r\",\"hosts\":[\"*\"],\"rules\":[" + OK_RULE_JSON + "]}],\"extra\":1}"
    })
    void aTreeGetsTheSameMessagesAsItsText(String json) throws Exception {
        var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
        List<ConfigError> fromText = errors(json);
        assertThatThrownBy(() -> ConfigParser.parse(tree, "test.yaml"))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.errors()).isEqualTo(fromText));
    }

    private static final String OK_RULE_JSON = "{\"respond\":{\"status\":200}}";


    @Nested
    class ContractExample {
        private final Config c;

        ContractExample() throws InvalidConfigException {
            c = parse(CONTRACT_EXAMPLE);
        }

        @Test
        void topLevel() {
            assertThat(c.workers()).isEqualTo(2);
            assertThat(c.transport()).isEqualTo(Config.Transport.AUTO);
            assertThat(c.accessLog()).isEqualTo(new Config.AccessLog(true));
            assertThat(c.limits()).isEqualTo(Limits.DEFAULTS);
            assertThat(c.admin()).isEqualTo(new Config.Admin(new HostPort("127.0.0.1", 9901)));
        }

        @Test
        void listeners() {
            assertThat(c.listeners()).containsExactly(
                    new Config.Listener("http", new HostPort("0.0.0.0", 8080), null),
                    new Config.Listener("https", new HostPort("0.0.0.0", 8443), new Config.Tls(List.of(
                            new Config.Certificate("/etc/strait/site.crt", "/etc/strait/site.key")))));
        }

        @Test
        void upstreams() {
            assertThat(c.upstreams()).containsExactly(
                    new Upstream("app", List.of(new HostPort("127.0.0.1", 3000)), Upstream.Protocol.HTTP1,
                            Upstream.LoadBalancer.ROUND_ROBIN,
                            new Upstream.HealthCheck("/healthz", Duration.ofSeconds(5))),
                    new Upstream("app-v2", List.of(new HostPort("127.0.0.1", 3001), new HostPort("::1", 3002)),
                            Upstream.Protocol.HTTP1, Upstream.LoadBalancer.ROUND_ROBIN, null));
        }

        @Test
        void route() {
            assertThat(c.routes()).hasSize(1);
            Route r = c.routes().get(0);
            assertThat(r.name()).isEqualTo("site");
            assertThat(r.hosts()).containsExactly("example.com", "*.example.com");
            assertThat(r.rules()).hasSize(3);
        }

        @Test
        void respondRule() {
            Route.Rule rule = c.routes().get(0).rules().get(0);
            assertThat(rule.matches()).containsExactly(
                    new Route.Match(new Route.PathMatch(Route.PathType.Exact, "/healthz"), null, List.of()));
            assertThat(rule.action()).isEqualTo(new Route.Respond(200, "ok\n", Map.of("content-type", "text/plain")));
            assertThat(rule.cache()).isNull();
            assertThat(rule.timeouts()).isNull();
            assertThat(rule.retries()).isNull();
        }

        @Test
        void filesRule() {
            Route.Rule rule = c.routes().get(0).rules().get(1);
            assertThat(rule.matches()).containsExactly(
                    new Route.Match(new Route.PathMatch(Route.PathType.Prefix, "/static/"), null, List.of()));
            assertThat(rule.action()).isEqualTo(new Route.Files("/srv/www", List.of("index.html"), false));
        }

        @Test
        void backendsRule() {
            Route.Rule rule = c.routes().get(0).rules().get(2);
            assertThat(rule.matches()).containsExactly(new Route.Match(
                    new Route.PathMatch(Route.PathType.Prefix, "/api/"), "GET",
                    List.of(new Route.HeaderMatch("x-canary", "1"))));
            assertThat(rule.action()).isEqualTo(new Route.Backends(List.of(
                    new Route.Backend("app", 90), new Route.Backend("app-v2", 10))));
            assertThat(rule.cache()).isEqualTo(new Route.Cache(true));
            assertThat(rule.timeouts()).isEqualTo(new Route.Timeouts(Duration.ofSeconds(15)));
            assertThat(rule.retries()).isEqualTo(
                    new Route.Retries(2, List.of("connect-failure", "refused-stream", "503")));
        }

        @Test
        void modelIsImmutable() {
            assertThatThrownBy(() -> c.listeners().add(null)).isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> c.routes().get(0).hosts().clear())
                    .isInstanceOf(UnsupportedOperationException.class);
            Route.Respond respond = (Route.Respond) c.routes().get(0).rules().get(0).action();
            assertThatThrownBy(() -> respond.headers().put("x", "y"))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    class Defaults {
        @Test
        void minimalConfig() throws Exception {
            Config c = parse(MINIMAL);
            assertThat(c.workers()).isZero();
            assertThat(c.transport()).isEqualTo(Config.Transport.AUTO);
            assertThat(c.accessLog().enabled()).isTrue();
            assertThat(c.limits()).isEqualTo(Limits.DEFAULTS);
            assertThat(c.listeners()).containsExactly(new Config.Listener("http", new HostPort("0.0.0.0", 8080), null));
            assertThat(c.admin()).isNull();
            assertThat(c.upstreams()).isEmpty();
            assertThat(c.routes()).isEmpty();
        }

        @Test
        void limitsDefaultsAreTheDocumentedOnes() {
            assertThat(Limits.DEFAULTS).isEqualTo(new Limits(8192, 32768, 100, 1L << 30,
                    Duration.ofSeconds(60), Duration.ofSeconds(75), Duration.ofSeconds(30)));
        }

        @Test
        void partialLimitsKeepTheOtherDefaults() throws Exception {
            Config c = parse(LISTENER + "limits: { maxHeaderCount: 50, keepAliveTimeout: 500ms }\n");
            assertThat(c.limits()).isEqualTo(new Limits(8192, 32768, 50, 1L << 30,
                    Duration.ofSeconds(60), Duration.ofMillis(500), Duration.ofSeconds(30)));
        }

        @Test
        void allLimitsSet() throws Exception {
            Config c = parse(LISTENER + """
                    limits:
                      maxRequestLine: 256
                      maxHeaderBytes: 16777216
                      maxHeaderCount: 10000
                      maxBodyBytes: 0
                      headerTimeout: 1m
                      keepAliveTimeout: 2h
                      drainTimeout: 0s
                    """);
            assertThat(c.limits()).isEqualTo(new Limits(256, 1 << 24, 10_000, 0,
                    Duration.ofMinutes(1), Duration.ofHours(2), Duration.ZERO));
        }

        @Test
        void nullSectionsMeanDefaults() throws Exception {
            Config c = parse(LISTENER + "workers: null\nlimits: null\nadmin: null\nupstreams: null\nroutes: null\n");
            assertThat(c.workers()).isZero();
            assertThat(c.limits()).isEqualTo(Limits.DEFAULTS);
            assertThat(c.admin()).isNull();
            assertThat(c.upstreams()).isEmpty();
            assertThat(c.routes()).isEmpty();
        }

        @Test
        void accessLogWithoutEnabledIsEnabled() throws Exception {
            assertThat(parse(LISTENER + "accessLog: {}\n").accessLog().enabled()).isTrue();
            assertThat(parse(LISTENER + "accessLog: { enabled: false }\n").accessLog().enabled()).isFalse();
        }

        @Test
        void upstreamDefaults() throws Exception {
            Config c = parse(LISTENER + "upstreams: [ { name: app, healthCheck: {} } ]\n");
            assertThat(c.upstreams()).containsExactly(new Upstream("app", List.of(), Upstream.Protocol.HTTP1,
                    Upstream.LoadBalancer.ROUND_ROBIN, new Upstream.HealthCheck("/healthz", Duration.ofSeconds(5))));
        }

        @Test
        void ruleWithoutMatchesMatchesEverything() throws Exception {
            Route.Rule rule = parse(withRules(OK_RULE)).routes().get(0).rules().get(0);
            assertThat(rule.matches()).containsExactly(new Route.Match(null, null, List.of()));
        }

        @Test
        void pathTypeDefaultsToPrefix() throws Exception {
            Route.Rule rule = parse(withRules("{ matches: [ { path: { value: /a } } ], respond: {} }"))
                    .routes().get(0).rules().get(0);
            assertThat(rule.matches().get(0).path()).isEqualTo(new Route.PathMatch(Route.PathType.Prefix, "/a"));
        }

        @Test
        void respondDefaults() throws Exception {
            Route.Rule rule = parse(withRules("{ respond: {} }")).routes().get(0).rules().get(0);
            assertThat(rule.action()).isEqualTo(new Route.Respond(200, "", Map.of()));
        }

        @Test
        void filesDefaults() throws Exception {
            Route.Rule rule = parse(withRules("{ files: { root: /srv } }")).routes().get(0).rules().get(0);
            assertThat(rule.action()).isEqualTo(new Route.Files("/srv", List.of("index.html"), false));
        }

        @Test
        void filesWithEmptyIndexListsNoIndexFiles() throws Exception {
            Route.Rule rule = parse(withRules("{ files: { root: /srv, index: [], followSymlinks: true } }"))
                    .routes().get(0).rules().get(0);
            assertThat(rule.action()).isEqualTo(new Route.Files("/srv", List.of(), true));
            Route.Rule allow = parse(withRules("{ files: { root: /srv, dotfiles: allow } }")).routes().get(0).rules().get(0);
            assertThat(((Route.Files) allow.action()).dotfiles()).isEqualTo(Route.Dotfiles.ALLOW);
        }

        @Test
        void backendWeightDefaultsToOne() throws Exception {
            Route.Rule rule = parse(withRules("{ backends: [ { upstream: app } ] }")).routes().get(0).rules().get(0);
            assertThat(rule.action()).isEqualTo(new Route.Backends(List.of(new Route.Backend("app", 1))));
        }

        @Test
        void cacheAndRetriesDefaults() throws Exception {
            Route.Rule rule = parse(withRules("{ backends: [ { upstream: app } ], cache: {}, retries: {} }"))
                    .routes().get(0).rules().get(0);
            assertThat(rule.cache()).isEqualTo(new Route.Cache(true));
            assertThat(rule.retries()).isEqualTo(new Route.Retries(1, List.of()));
        }
    }

    @Nested
    class CacheKeys {
        @Test
        void ruleCacheWithEverySetting() throws Exception {
            Route.Cache c = parse(withRules("""
                    { backends: [ { upstream: app } ],
                      cache: { enabled: true, maxBodySize: 65536, defaultTtl: 30s, ignoreCacheControl: true,
                               cacheSetCookie: true, cacheAuthorization: true, xCacheHeader: true,
                               staleWhileRevalidate: 10s, staleIfError: 1h, hitForPass: 2m, lockTimeout: 500ms } }"""))
                    .routes().get(0).rules().get(0).cache();
            assertThat(c).isEqualTo(new Route.Cache(true, 65536, Duration.ofSeconds(30), true, true, true, true,
                    Duration.ofSeconds(10), Duration.ofHours(1), Duration.ofMinutes(2), Duration.ofMillis(500)));
        }

        @Test
        void ruleCacheDefaults() throws Exception {
            Route.Cache c = parse(withRules("{ backends: [ { upstream: app } ], cache: {} }"))
                    .routes().get(0).rules().get(0).cache();
            assertThat(c.maxBodySize()).isEqualTo(1024 * 1024);
            assertThat(c.defaultTtl()).isZero();
            assertThat(c.staleWhileRevalidate()).isZero();
            assertThat(c.staleIfError()).isZero();
            assertThat(c.hitForPass()).isEqualTo(Duration.ofSeconds(60));
            assertThat(c.lockTimeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(c.xCacheHeader() || c.cacheSetCookie() || c.cacheAuthorization() || c.ignoreCacheControl())
                    .isFalse();
        }

        @Test
        void storeSizeIsTopLevel() throws Exception {
            assertThat(parse(MINIMAL).cache()).isEqualTo(Config.CacheStore.DEFAULTS);
            assertThat(parse(MINIMAL + "cache: { maxBytes: 1048576 }\n").cache())
                    .isEqualTo(new Config.CacheStore(1048576));
        }
    }

    @Nested
    class ProxyingKeys {
        @Test
        void upstreamWithEverySetting() throws Exception {
            Upstream u = parse(LISTENER + """
                    upstreams:
                      - name: app
                        endpoints: [ "10.0.0.1:80", { address: "10.0.0.2:80", weight: 3 }, { address: "10.0.0.3:80" } ]
                        loadBalancer: consistent-hash
                        hashOn: { source: cookie, name: session }
                        healthCheck: { path: /ready, interval: 2s, timeout: 500ms, unhealthyThreshold: 2, healthyThreshold: 4 }
                        outlierDetection: { consecutiveFailures: 3, baseEjectionTime: 10s, maxEjectionTime: 2m }
                        panicThreshold: 0
                        pool: { maxIdlePerLoop: 8, idleTimeout: 30s, maxRequestsPerConnection: 1000, connectTimeout: 250ms }
                    """).upstreams().get(0);
            assertThat(u.endpoints()).containsExactly(new HostPort("10.0.0.1", 80), new HostPort("10.0.0.2", 80),
                    new HostPort("10.0.0.3", 80));
            assertThat(u.weights()).isEqualTo(Map.of(new HostPort("10.0.0.2", 80), 3));
            assertThat(u.weight(new HostPort("10.0.0.1", 80))).isEqualTo(1);
            assertThat(u.hashOn()).isEqualTo(new Upstream.HashOn(Upstream.HashSource.COOKIE, "session"));
            assertThat(u.healthCheck()).isEqualTo(new Upstream.HealthCheck("/ready", Duration.ofSeconds(2),
                    Duration.ofMillis(500), 2, 4));
            assertThat(u.outlierDetection()).isEqualTo(new Upstream.OutlierDetection(3, Duration.ofSeconds(10),
                    Duration.ofMinutes(2)));
            assertThat(u.panicThreshold()).isZero();
            assertThat(u.pool()).isEqualTo(new Upstream.Pool(8, Duration.ofSeconds(30), 1000, Duration.ofMillis(250)));
        }

        @Test
        void upstreamDefaultsForProxying() throws Exception {
            Upstream u = parse(LISTENER + "upstreams: [ { name: app, endpoints: [ \"127.0.0.1:1\" ] } ]\n")
                    .upstreams().get(0);
            assertThat(u.pool()).isEqualTo(Upstream.Pool.DEFAULTS);
            assertThat(u.pool()).isEqualTo(new Upstream.Pool(128, Duration.ofSeconds(60), 0, Duration.ofSeconds(5)));
            assertThat(u.outlierDetection()).isEqualTo(new Upstream.OutlierDetection(5, Duration.ofSeconds(30),
                    Duration.ofMinutes(5)));
            assertThat(u.panicThreshold()).isEqualTo(50);
            assertThat(u.hashOn()).isNull();
            assertThat(u.weights()).isEmpty();
        }

        @Test
        void consistentHashDefaultsToTheClientAddress() throws Exception {
            Upstream u = parse(LISTENER + "upstreams: [ { name: app, loadBalancer: consistent-hash } ]\n")
                    .upstreams().get(0);
            assertThat(u.hashOn()).isEqualTo(Upstream.HashOn.CLIENT_ADDRESS);
            Upstream h = parse(LISTENER + "upstreams: [ { name: app, loadBalancer: consistent-hash,"
                    + " hashOn: { source: header, name: X-User } } ]\n").upstreams().get(0);
            assertThat(h.hashOn()).isEqualTo(new Upstream.HashOn(Upstream.HashSource.HEADER, "X-User"));
        }

        @Test
        void aRouteMayPassTlsThroughToAnUpstream() throws Exception {
            Config c = parse(LISTENER + "upstreams: [ { name: argocd, endpoints: [ \"10.0.0.1:8443\" ] } ]\n"
                    + "routes: [ { name: argocd, hosts: [ argocd.example.com ], tlsPassthrough: { upstream: argocd } } ]\n");
            Route r = c.routes().get(0);
            assertThat(r.tlsPassthrough()).isEqualTo(new Route.TlsPassthrough("argocd"));
            assertThat(r.rules()).isEmpty();
            Config only = parse("listeners: [ { name: https, address: \"0.0.0.0:8443\", tls: { certificates: [] } } ]\n"
                    + "upstreams: [ { name: argocd } ]\n"
                    + "routes: [ { name: argocd, hosts: [ argocd.example.com ], tlsPassthrough: { upstream: argocd } } ]\n");
            assertThat(only.listeners().get(0).tls().certificates()).as("a listener that only passes TLS through").isEmpty();
        }

        @Test
        void aRouteMayAskBrowsersForHttpsOnly() throws Exception {
            Config c = parse(LISTENER + "routes: [ { name: a, hosts: [ a.example.com ], hsts: {}, rules: [ { respond: {} } ] },\n"
                    + " { name: b, hosts: [ b.example.com ], rules: [ { respond: {} } ],\n"
                    + "   hsts: { maxAgeSeconds: 63072000, includeSubDomains: true, preload: true } },\n"
                    + " { name: c, hosts: [ c.example.com ], hsts: { maxAgeSeconds: 0 }, rules: [ { respond: {} } ] },\n"
                    + " { name: d, hosts: [ d.example.com ], rules: [ { respond: {} } ] } ]\n");
            assertThat(c.routes()).extracting(Route::hsts).containsExactly(new Route.Hsts(31_536_000, false, false),
                    new Route.Hsts(63_072_000, true, true), new Route.Hsts(0, false, false), null);
            assertThat(c.routes().get(1).hsts().value()).isEqualTo("max-age=63072000; includeSubDomains; preload");
            assertThat(c.routes().get(2).hsts().value()).isEqualTo("max-age=0");
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void theRequestTargetAndAQueryParameterCanBeHashed() throws Exception {
            Config c = parse(LISTENER + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: uri } },\n"
                    + " { name: b, loadBalancer: consistent-hash, hashOn: { source: path } },\n"
                    + " { name: c, loadBalancer: consistent-hash, hashOn: { source: query, name: tenant } } ]\n");
            assertThat(c.upstreams()).extracting(Upstream::hashOn).containsExactly(
                    new Upstream.HashOn(Upstream.HashSource.URI, null),
                    new Upstream.HashOn(Upstream.HashSource.PATH, null),
                    new Upstream.HashOn(Upstream.HashSource.QUERY, "tenant"));
        }

        @Test
        void aCookieHashMaySetItsCookie() throws Exception {
            Config c = parse(LISTENER + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: cookie,"
                    + " name: route, setCookie: { path: /shop, maxAge: 48h, sameSite: None, changeOnFailure: true } } },"
                    + " { name: b, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route, setCookie: {} } } ]\n");
            assertThat(c.upstreams().get(0).hashOn()).isEqualTo(new Upstream.HashOn(Upstream.HashSource.COOKIE, "route",
                    new Upstream.SetCookie("/shop", Duration.ofHours(48), "None", true)));
            assertThat(c.upstreams().get(1).hashOn().setCookie()).isEqualTo(Upstream.SetCookie.SESSION);
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void anAffinityCookieMayNameItsDomainAndAlwaysBeSecure() throws Exception {
            Config c = parse(LISTENER + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: cookie,"
                    + " name: route, setCookie: { domain: .Example.com, secure: true } } },"
                    + " { name: b, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route,"
                    + " setCookie: { domain: shop.example.com, secure: false } } } ]\n");
            assertThat(c.upstreams().get(0).hashOn().setCookie())
                    .isEqualTo(new Upstream.SetCookie("/", null, null, false, ".Example.com", true));
            assertThat(c.upstreams().get(1).hashOn().setCookie())
                    .isEqualTo(new Upstream.SetCookie("/", null, null, false, "shop.example.com", false));
            assertThat(Upstream.SetCookie.SESSION.domain()).isNull();
            assertThat(Upstream.SetCookie.SESSION.secure()).as("Secure on https only unless asked").isFalse();
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void aHashMayReadSeveralPartsOfTheRequest() throws Exception {
            Config c = parse(LISTENER + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: uri,"
                    + " also: [ { source: header, name: host }, { source: client-address } ] } } ]\n");
            assertThat(c.upstreams().get(0).hashOn()).isEqualTo(new Upstream.HashOn(Upstream.HashSource.URI, null, null,
                    List.of(new Upstream.HashPart(Upstream.HashSource.HEADER, "host"),
                            new Upstream.HashPart(Upstream.HashSource.CLIENT_ADDRESS, null))));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            Config one = parse(LISTENER + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: uri } } ]\n");
            assertThat(one.upstreams().get(0).hashOn().also()).isEmpty();
            assertThat(ConfigWriter.toJson(one, false)).as("written only when used").doesNotContain("also");
        }

        @Test
        void anAffinityCookieIsBalancedUnlessPersistent() throws Exception {
            Config c = parse(LISTENER + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: cookie,"
                    + " name: route, setCookie: { mode: persistent, changeOnFailure: true } } },"
                    + " { name: b, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route,"
                    + " setCookie: { mode: balanced } } } ]\n");
            assertThat(c.upstreams().get(0).hashOn().setCookie())
                    .isEqualTo(new Upstream.SetCookie("/", null, null, true, null, false, true));
            assertThat(c.upstreams().get(1).hashOn().setCookie()).isEqualTo(Upstream.SetCookie.SESSION);
            assertThat(Upstream.SetCookie.SESSION.persistent()).isFalse();
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            assertThat(ConfigWriter.toJson(c, false)).as("balanced, the default, is not written")
                    .containsOnlyOnce("persistent").doesNotContain("balanced");
        }

        @Test
        void weightOneIsTheDefaultAndZeroDrains() throws Exception {
            Upstream u = parse(LISTENER + "upstreams: [ { name: app, endpoints: [ { address: \"127.0.0.1:1\", weight: 1 },"
                    + " { address: \"127.0.0.1:2\", weight: 0 } ] } ]\n").upstreams().get(0);
            assertThat(u.weights()).isEqualTo(Map.of(new HostPort("127.0.0.1", 2), 0));
        }

        @Test
        void ruleProxySettings() throws Exception {
            Route.Rule rule = parse(withRules("""
                    { backends: [ { upstream: app } ], hostRewrite: "api.internal:8080",
                      timeouts: { request: 10s, perTry: 2s, idle: 30s },
                      retries: { attempts: 3, retryOn: [ connect-failure, reset, timeout, 5xx, gateway-error, "429" ], backoff: 50ms } }
                    """)).routes().get(0).rules().get(0);
            assertThat(rule.hostRewrite()).isEqualTo("api.internal:8080");
            assertThat(rule.timeouts()).isEqualTo(new Route.Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(2),
                    Duration.ofSeconds(30)));
            assertThat(rule.retries()).isEqualTo(new Route.Retries(3,
                    List.of("connect-failure", "reset", "timeout", "5xx", "gateway-error", "429"), Duration.ofMillis(50)));
        }

        @Test
        void matchCookies() throws Exception {
            Config c = parse(withRules("{ matches: [ { path: { value: /a }, cookies: [ { name: canary, value: always } ] } ], respond: {} }"));
            assertThat(c.routes().get(0).rules().get(0).matches().get(0).cookies())
                    .containsExactly(new Route.CookieMatch("canary", "always"));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            assertThat(errors(withRules("{ matches: [ { cookies: [ { name: \"a b\", value: x } ] } ], respond: {} }")))
                    .extracting(ConfigError::path).containsExactly("routes[0].rules[0].matches[0].cookies[0].name");
            assertThat(errors(withRules("{ matches: [ { cookies: [ { name: a, value: \"x;y\" } ] } ], respond: {} }")))
                    .extracting(ConfigError::path).containsExactly("routes[0].rules[0].matches[0].cookies[0].value");
            assertThat(errors(withRules("{ matches: [ { cookies: [ { name: a } ] } ], respond: {} }")))
                    .extracting(ConfigError::path).containsExactly("routes[0].rules[0].matches[0].cookies[0].value");
        }

        @Test
        void ruleCors() throws Exception {
            Config c = parse(withRules("{ respond: {}, cors: {} }", "{ respond: {}, cors: { allowOrigins: [ \"https://*.example.com\","
                    + " \"http://localhost:3000\" ], allowMethods: [ GET ], allowHeaders: [], exposeHeaders: [ X-Total ],"
                    + " allowCredentials: false, maxAge: 1h } }"));
            assertThat(c.routes().get(0).rules().get(0).cors()).isEqualTo(new Route.Cors(List.of("*"),
                    Route.Cors.DEFAULT_METHODS, Route.Cors.DEFAULT_HEADERS, List.of(), true, Route.Cors.DEFAULT_MAX_AGE));
            assertThat(c.routes().get(0).rules().get(1).cors()).isEqualTo(new Route.Cors(
                    List.of("https://*.example.com", "http://localhost:3000"), List.of("GET"), List.of(), List.of("X-Total"),
                    false, Duration.ofHours(1)));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void headerMatchesExactOrByRegularExpression() throws Exception {
            Config c = parse(withRules("{ matches: [ { headers: [ { name: X-Region, value: \"(eu|us)-.*\", type: RegularExpression },"
                    + " { name: X-Env, value: prod, type: Exact }, { name: X-A, value: b } ] } ], respond: {} }"));
            assertThat(c.routes().get(0).rules().get(0).matches().get(0).headers()).containsExactly(
                    new Route.HeaderMatch("X-Region", "(eu|us)-.*", Route.HeaderMatchType.RegularExpression),
                    new Route.HeaderMatch("X-Env", "prod"), new Route.HeaderMatch("X-A", "b"));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            assertThat(ConfigWriter.toJson(parse(withRules("{ matches: [ { headers: [ { name: X-A, value: b } ] } ], respond: {} }")), false))
                    .as("an exact match is written as before").contains("{\"name\":\"X-A\",\"value\":\"b\"}");
        }

        @Test
        void ruleHeaderEdits() throws Exception {
            Config c = parse(withRules("{ respond: {}, requestHeaders: { set: { X-Env: prod }, add: { X-Tag: b },"
                    + " remove: [ X-Secret, x-b ] }, responseHeaders: { add: { X-Frame-Options: DENY } } }"));
            Route.Rule rule = c.routes().get(0).rules().get(0);
            assertThat(rule.requestHeaders()).isEqualTo(new Route.HeaderEdits(Map.of("x-env", "prod"), Map.of("x-tag", "b"),
                    List.of("x-b", "x-secret")));
            assertThat(rule.responseHeaders()).isEqualTo(new Route.HeaderEdits(Map.of(), Map.of("x-frame-options", "DENY"),
                    List.of()));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleInFlightLimit() throws Exception {
            Config c = parse(withRules("{ respond: {}, inFlightLimit: { requests: 10, exempt: [ 10.0.0.0/8 ] } }",
                    "{ respond: {}, inFlightLimit: { requests: 2 } }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::inFlightLimit).containsExactly(
                    new Route.InFlightLimit(10, List.of(IpBlock.parse("10.0.0.0/8"))), new Route.InFlightLimit(2, List.of()));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleErrorPages() throws Exception {
            Config c = parse(withRules("{ backends: [ { upstream: app } ], errorPages: { statuses: [ 503, 404, 404 ],"
                    + " upstream: app, path: \"/errors/{status}.html\" } }", "{ respond: {}, errorPages: { statuses:"
                    + " [ 410 ], upstream: app } }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::errorPages).containsExactly(
                    new Route.ErrorPages(List.of(404, 503), "app", "/errors/{status}.html"),
                    new Route.ErrorPages(List.of(410), "app", "/"));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleForwardAuth() throws Exception {
            Config c = parse(withRules("{ backends: [ { upstream: app } ], forwardAuth: { upstream: app, path:"
                    + " \"/oauth2/auth?allowed_groups=ops\", responseHeaders: [ X-Auth-Request-User, x-auth-request-user,"
                    + " X-Auth-Request-Email ], signIn: \"https://auth.example.com/oauth2/start?rd={url}\" } }",
                    "{ respond: {}, forwardAuth: { upstream: app } }", "{ respond: {}, forwardAuth: { path: /oauth2/auth, alwaysSetCookie: true, cache: { headers: [ Authorization ],"
                    + " cookies: [ _oauth2_proxy ], duration: 5m } } }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::forwardAuth).containsExactly(
                    new Route.ForwardAuth("app", "/oauth2/auth?allowed_groups=ops",
                            List.of("x-auth-request-user", "x-auth-request-email"),
                            "https://auth.example.com/oauth2/start?rd={url}"),
                    new Route.ForwardAuth("app", "/", List.of(), null),
                    new Route.ForwardAuth(null, "/oauth2/auth", List.of(), null, true, new Route.AuthCache(
                            List.of("authorization"), List.of("_oauth2_proxy"), java.time.Duration.ofMinutes(5))));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleMirrors() throws Exception {
            Config c = parse(withRules("{ backends: [ { upstream: app } ], mirrors: [ { upstream: app },"
                    + " { upstream: app, percent: 12.5, hostRewrite: \"shadow.internal:8080\", body: false } ] }",
                    "{ respond: {} }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::mirrors).containsExactly(
                    List.of(new Route.Mirror("app"), new Route.Mirror("app", 12.5, "shadow.internal:8080", false)),
                    List.of());
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleResponseRewrite() throws Exception {
            Config c = parse(withRules("{ backends: [ { upstream: app } ], responseRewrite: { location: [ { from:"
                    + " \"http://app.internal:8080/\", to: \"{scheme}://{host}/app/\" }, { from: /, to: /app/ } ],"
                    + " cookiePath: [ { from: /, to: /app/ } ], cookieDomain: [ { from: app.internal, to: \"{host}\" } ] } }",
                    "{ backends: [ { upstream: app } ], responseRewrite: { cookiePath: [ { from: /, to: /x/ } ] } }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::responseRewrite).containsExactly(
                    new Route.ResponseRewrite(List.of(new Route.Replace("http://app.internal:8080/", "{scheme}://{host}/app/"),
                            new Route.Replace("/", "/app/")), List.of(new Route.Replace("/", "/app/")),
                            List.of(new Route.Replace("app.internal", "{host}"))),
                    new Route.ResponseRewrite(List.of(), List.of(new Route.Replace("/", "/x/")), List.of()));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleRequestBuffering() throws Exception {
            Config c = parse(withRules("{ backends: [ { upstream: app } ], requestBuffering: {} }",
                    "{ backends: [ { upstream: app } ], requestBuffering: { maxBytes: 65536 } }", "{ backends: [ { upstream: app } ] }",
                    "{ backends: [ { upstream: app } ], requestBuffering: { maxBytes: 104857600 } }",
                    "{ backends: [ { upstream: app } ], requestBuffering: { maxBytes: 104857600, memoryBytes: 0 } }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::requestBuffering).containsExactly(
                    new Route.RequestBuffering(1 << 20, 1 << 20), new Route.RequestBuffering(65536, 65536), null,
                    new Route.RequestBuffering(100 << 20, 1 << 20), new Route.RequestBuffering(100 << 20, 0));
            assertThat(c.requestBodyFiles()).isEqualTo(new Config.RequestBodyFiles(null, 256L << 20));
            assertThat(parse(MINIMAL + "requestBodyFiles: { directory: /spool, maxBytes: 0 }\n").requestBodyFiles())
                    .isEqualTo(new Config.RequestBodyFiles("/spool", 0));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleResponseRate() throws Exception {
            Config c = parse(withRules("{ backends: [ { upstream: app } ], responseRate: { bytesPerSecond: 102400 } }",
                    "{ backends: [ { upstream: app } ], responseRate: { bytesPerSecond: 1, afterBytes: 1048576 } }",
                    "{ backends: [ { upstream: app } ] }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::responseRate).containsExactly(
                    new Route.ResponseRate(102400, 0), new Route.ResponseRate(1, 1 << 20), null);
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void filesPrecompressed() throws Exception {
            Config c = parse(withRules("{ files: { root: /srv, precompressed: [ zstd, br, gzip ] } }",
                    "{ files: { root: /srv } }"));
            assertThat(c.routes().get(0).rules()).extracting(r -> ((Route.Files) r.action()).precompressed())
                    .containsExactly(List.of("zstd", "br", "gzip"), List.of());
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleCompression() throws Exception {
            Config c = parse(withRules("{ respond: {}, compression: {} }",
                    "{ files: { root: /srv }, compression: { types: [ Text/*, application/json ], minBytes: 0, level: 9 } }",
                    "{ backends: [ { upstream: app } ], compression: { codings: [ br, gzip ] } }",
                    "{ backends: [ { upstream: app } ] }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::compression).containsExactly(
                    Route.Compression.DEFAULTS, new Route.Compression(List.of("text/*", "application/json"), 0, 9),
                    new Route.Compression(Route.Compression.DEFAULT_TYPES, 1024, 1, List.of("br", "gzip")), null);
            assertThat(Route.Compression.DEFAULTS.codings()).containsExactly("zstd", "gzip");
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleTracing() throws Exception {
            Config c = parse(withRules("{ backends: [ { upstream: app } ], tracing: false }", "{ backends: [ { upstream: app } ] }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::tracing).containsExactly(false, true);
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            assertThat(ConfigWriter.toJson(parse(withRules("{ backends: [ { upstream: app } ] }")), false))
                    .as("written only when off").doesNotContain("tracing");
        }

        @Test
        void ruleAccessLog() throws Exception {
            Config c = parse(withRules("{ respond: {}, accessLog: false }", "{ respond: {}, accessLog: true }", "{ respond: {} }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::accessLog).containsExactly(false, true, true);
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleSatisfy() throws Exception {
            String guards = "clientAddresses: { allow: [ 10.0.0.0/8 ] }, basicAuth: { htpasswd: \"a:{PLAIN}x\" }";
            Config c = parse(withRules("{ respond: {}, " + guards + ", satisfy: any }",
                    "{ respond: {}, " + guards + ", satisfy: all }", "{ respond: {}, " + guards + " }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::satisfy)
                    .containsExactly(Route.Satisfy.ANY, Route.Satisfy.ALL, Route.Satisfy.ALL);
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleMaxBodyBytes() throws Exception {
            Config c = parse(withRules("{ respond: {}, maxBodyBytes: 52428800 }", "{ respond: {}, maxBodyBytes: 0 }",
                    "{ respond: {} }"));
            assertThat(c.routes().get(0).rules()).extracting(Route.Rule::maxBodyBytes).containsExactly(52428800L, 0L, null);
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleRateLimit() throws Exception {
            Config c = parse(withRules("{ respond: {}, rateLimit: { requests: 100, per: 1m, burst: 20, exempt: [ 10.0.0.0/8 ] } }",
                    "{ respond: {}, rateLimit: { requests: 5 } }"));
            Route.RateLimit full = c.routes().get(0).rules().get(0).rateLimit();
            assertThat(full.requests()).isEqualTo(100);
            assertThat(full.per()).isEqualTo(Duration.ofMinutes(1));
            assertThat(full.burst()).isEqualTo(20);
            assertThat(full.exempt()).extracting(IpBlock::text).containsExactly("10.0.0.0/8");
            assertThat(c.routes().get(0).rules().get(1).rateLimit())
                    .isEqualTo(new Route.RateLimit(5, Duration.ofSeconds(1), 0, List.of()));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleBasicAuth() throws Exception {
            Config c = parse(withRules(OK_RULE, """
                    { respond: {}, basicAuth: { realm: Staff, htpasswd: "# staff\\nalice:$apr1$x$12YdXEY0/hH4rDNkmZupO0\\n\\nbob:{SHA}kniYfDOveJALlwGbJH1veyGzBwU=\\n" } }
                    """, "{ respond: {}, basicAuth: { htpasswd: \"carol:$6$saltsalt$gER3pXfriHQvEHjjIlDUl8LkovRnMQ/1MCiShHAap/WwdJ9r7jtswquRuG9eejykFx.SIW01TW5fRYgDTG/6s.\" } }"));
            Route.BasicAuth staff = c.routes().get(0).rules().get(1).basicAuth();
            assertThat(staff.realm()).isEqualTo("Staff");
            assertThat(Htpasswd.parse(staff.htpasswd(), (l, w) -> { })).containsOnlyKeys("alice", "bob");
            assertThat(c.routes().get(0).rules().get(2).basicAuth().realm()).isEqualTo(Route.BasicAuth.DEFAULT_REALM);
            assertThat(c.routes().get(0).rules().get(0).basicAuth()).isNull();
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @Test
        void ruleClientAddresses() throws Exception {
            Config c = parse(withRules(OK_RULE, """
                    { respond: {}, clientAddresses: { allow: [ 10.0.0.0/8, "2001:db8::/32" ], deny: [ 10.9.0.0/16 ] } }
                    """, "{ respond: {}, clientAddresses: { deny: [ 192.0.2.7 ] } }"));
            assertThat(c.routes().get(0).rules().get(0).clientAddresses()).as("absent: everyone").isNull();
            Route.ClientAddresses both = c.routes().get(0).rules().get(1).clientAddresses();
            assertThat(both.allow()).extracting(IpBlock::text).containsExactly("10.0.0.0/8", "2001:db8::/32");
            assertThat(both.allows(InetAddress.getByName("10.1.2.3"))).isTrue();
            assertThat(both.allows(InetAddress.getByName("10.9.2.3"))).as("deny wins").isFalse();
            assertThat(both.allows(InetAddress.getByName("2001:db8::1"))).isTrue();
            assertThat(both.allows(InetAddress.getByName("192.0.2.1"))).as("not in allow").isFalse();
            assertThat(both.allows(null)).as("no address, an allow list").isFalse();
            Route.ClientAddresses denyOnly = c.routes().get(0).rules().get(2).clientAddresses();
            assertThat(denyOnly.allows(InetAddress.getByName("192.0.2.7"))).isFalse();
            assertThat(denyOnly.allows(InetAddress.getByName("192.0.2.8"))).isTrue();
            assertThat(denyOnly.allows(null)).isTrue();
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
        }

        @ParameterizedTest
        @ValueSource(strings = {"example.com", "example.com:8080", "10.0.0.1", "[::1]:80", "localhost"})
        void hostRewriteValues(String host) throws Exception {
            Route.Rule rule = parse(withRules("{ backends: [ { upstream: app } ], hostRewrite: \"" + host + "\" }"))
                    .routes().get(0).rules().get(0);
            assertThat(rule.hostRewrite()).isEqualTo(host);
        }

        @Test
        void requestIdTrust() throws Exception {
            assertThat(parse(MINIMAL).requestId()).isEqualTo(new Config.RequestId(true));
            assertThat(parse(LISTENER + "requestId: { trustIncoming: false }\n").requestId())
                    .isEqualTo(new Config.RequestId(false));
            Config peers = parse(LISTENER + "requestId: { trustIncoming: [ 10.0.0.0/8, \"fd00::/8\" ] }\n");
            assertThat(peers.requestId().trustedPeers()).extracting(IpBlock::text).containsExactly("10.0.0.0/8", "fd00::/8");
            assertThat(peers.requestId().trusts(java.net.InetAddress.getByName("10.1.2.3"))).isTrue();
            assertThat(peers.requestId().trusts(java.net.InetAddress.getByName("192.0.2.1"))).isFalse();
            assertThat(peers.requestId().trusts(null)).isFalse();
            assertThat(ConfigParser.parse(ConfigWriter.toJson(peers, false), "written")).isEqualTo(peers);
        }

        @Test
        void tracingIsOffUnlessAnEndpointIsGiven() throws Exception {
            assertThat(parse(MINIMAL).tracing()).isNull();
            assertThat(ConfigWriter.toJson(parse(MINIMAL), false)).as("written only when set").doesNotContain("tracing");
            Config c = parse(LISTENER + "tracing: { endpoint: \"http://otel-collector.monitoring:4318/v1/traces\" }\n");
            assertThat(c.tracing()).isEqualTo(new Config.Tracing("http://otel-collector.monitoring:4318/v1/traces"));
            assertThat(c.tracing().trusts(null)).isTrue();
            assertThat(parse(LISTENER + "tracing: { endpoint: \"https://collector:4318\" }\n").tracing().endpoint())
                    .as("a URL without a path gets OTLP's").isEqualTo("https://collector:4318/v1/traces");
            assertThat(parse(LISTENER + "tracing: { endpoint: \"http://collector/\" }\n").tracing().endpoint())
                    .isEqualTo("http://collector/v1/traces");
        }

        @Test
        void tracingSettings() throws Exception {
            Config c = parse(LISTENER + "tracing: { endpoint: \"http://c:4318/v1/traces\", percent: 2.5, "
                    + "serviceName: edge-proxy, trustIncoming: [ 10.0.0.0/8 ], flushInterval: 200ms,"
                    + " headers: { x-honeycomb-team: \"key 1\", Authorization: \"Bearer abc\" } }\n");
            Config.Tracing t = c.tracing();
            assertThat(t.headers()).containsExactlyInAnyOrderEntriesOf(java.util.Map.of("x-honeycomb-team", "key 1",
                    "Authorization", "Bearer abc"));
            assertThat(t.percent()).isEqualTo(2.5);
            assertThat(t.serviceName()).isEqualTo("edge-proxy");
            assertThat(t.flushInterval()).isEqualTo(Duration.ofMillis(200));
            assertThat(t.protocol()).as("OpenTelemetry's default").isEqualTo("http/protobuf");
            assertThat(parse(LISTENER + "tracing: { endpoint: \"http://c:4318\", protocol: http/json }\n").tracing().protocol())
                    .isEqualTo("http/json");
            Config grpc = parse(LISTENER + "tracing: { endpoint: \"https://c:4317/\", protocol: grpc }\n");
            assertThat(grpc.tracing().protocol()).isEqualTo("grpc");
            assertThat(grpc.tracing().endpoint()).as("no OTLP/HTTP path over gRPC").isEqualTo("https://c:4317");
            assertThat(ConfigParser.parse(ConfigWriter.toJson(grpc, false), "written")).isEqualTo(grpc);
            assertThat(t.upstreamSpans()).as("off unless asked").isFalse();
            Config spans = parse(LISTENER + "tracing: { endpoint: \"http://c:4318\", upstreamSpans: true }\n");
            assertThat(spans.tracing().upstreamSpans()).isTrue();
            assertThat(ConfigParser.parse(ConfigWriter.toJson(spans, false), "written")).isEqualTo(spans);
            assertThat(ConfigWriter.toJson(c, false)).as("written only when on").doesNotContain("upstreamSpans");
            assertThat(t.trusts(java.net.InetAddress.getByName("10.1.2.3"))).isTrue();
            assertThat(t.trusts(java.net.InetAddress.getByName("192.0.2.1"))).isFalse();
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            Config off = parse(LISTENER + "tracing: { endpoint: \"http://c:4318/v1/traces\", percent: 0, trustIncoming: false }\n");
            assertThat(off.tracing().trusts(java.net.InetAddress.getByName("10.1.2.3"))).isFalse();
            assertThat(ConfigParser.parse(ConfigWriter.toJson(off, false), "written")).isEqualTo(off);
        }

        @Test
        void forwardedHeadersTrustNoPeerUnlessListed() throws Exception {
            assertThat(parse(MINIMAL).forwardedHeaders().trustedPeers()).isEmpty();
            Config c = parse(LISTENER + "forwardedHeaders: { trustedPeers: [ 10.0.0.0/8, 192.0.2.7, \"fd00::/8\" ] }\n");
            assertThat(c.forwardedHeaders().trustedPeers()).extracting(IpBlock::text)
                    .containsExactly("10.0.0.0/8", "192.0.2.7", "fd00::/8");
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            assertThat(ConfigWriter.toJson(parse(MINIMAL), false)).as("written only when set").doesNotContain("forwardedHeaders");
        }

        @Test
        void theResolverAsksTheSystemsServersUnlessGivenAddresses() throws Exception {
            assertThat(parse(MINIMAL).resolver()).isEqualTo(Config.Resolver.DEFAULTS);
            Config c = parse(LISTENER + "resolver: { nameservers: [ \"10.96.0.10:53\", \"[fd00::a]:5353\" ], timeout: 2s }\n");
            assertThat(c.resolver()).isEqualTo(new Config.Resolver(
                    List.of(new HostPort("10.96.0.10", 53), new HostPort("fd00::a", 5353)), Duration.ofSeconds(2)));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            assertThat(ConfigWriter.toJson(parse(MINIMAL), false)).as("written only when set").doesNotContain("resolver");
            assertThat(errors(LISTENER + "resolver: { nameservers: [ \"dns.example:53\" ], timeout: 0s, ttl: 5s }\n"))
                    .containsExactlyInAnyOrder(
                            new ConfigError("resolver.ttl", "unknown field (expected one of nameservers, timeout)"),
                            new ConfigError("resolver.nameservers[0]",
                                    "\"dns.example\" is not an IP address (a name server is not looked up by name)"),
                            new ConfigError("resolver.timeout", "must be longer than 0"));
        }

        @Test
        void anUpstreamMayRefuseLocalAddresses() throws Exception {
            Config c = parse(LISTENER + "upstreams: [ { name: a, endpoints: [ \"db.example:80\" ], refuseLocalAddresses: true },"
                    + " { name: b, endpoints: [ \"db.example:80\" ] } ]\n");
            assertThat(c.upstreams().get(0).refuseLocalAddresses()).isTrue();
            assertThat(c.upstreams().get(1).refuseLocalAddresses()).isFalse();
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            assertThat(errors(LISTENER + "upstreams: [ { name: a, refuseLocalAddresses: 1 } ]\n"))
                    .containsExactly(new ConfigError("upstreams[0].refuseLocalAddresses", "must be true or false, got 1"));
        }
    }

    @Nested
    class AcceptedValues {
        @Test
        void jsonIsAccepted() throws Exception {
            Config c = parse("""
                    {"workers": 4, "transport": "io_uring",
                     "listeners": [{"name": "http", "address": "[::]:8080"}],
                     "routes": [{"name": "r", "hosts": ["*"], "rules": [{"respond": {"status": 204}}]}]}
                    """);
            assertThat(c.workers()).isEqualTo(4);
            assertThat(c.transport()).isEqualTo(Config.Transport.IO_URING);
            assertThat(c.listeners().get(0).address()).isEqualTo(new HostPort("::", 8080));
            assertThat(c.routes().get(0).rules().get(0).action()).isEqualTo(new Route.Respond(204, "", Map.of()));
        }

        @ParameterizedTest
        @ValueSource(strings = {"auto", "io_uring", "epoll", "nio"})
        void transports(String name) throws Exception {
            Config.Transport t = parse(LISTENER + "transport: " + name + "\n").transport();
            assertThat(ConfigParser.configName(t)).isEqualTo(name);
        }

        @ParameterizedTest
        @ValueSource(strings = {"http1", "h2c", "h2", "fastcgi"})
        void protocols(String name) throws Exception {
            Upstream u = parse(LISTENER + "upstreams: [ { name: u, protocol: " + name + " } ]\n").upstreams().get(0);
            assertThat(ConfigParser.configName(u.protocol())).isEqualTo(name);
        }

        @ParameterizedTest
        @ValueSource(strings = {"round-robin", "least-request", "consistent-hash"})
        void loadBalancers(String name) throws Exception {
            Upstream u = parse(LISTENER + "upstreams: [ { name: u, loadBalancer: " + name + " } ]\n")
                    .upstreams().get(0);
            assertThat(ConfigParser.configName(u.loadBalancer())).isEqualTo(name);
        }

        @Test
        void configNames() {
            assertThat(ConfigParser.configName(Config.Transport.IO_URING)).isEqualTo("io_uring");
            assertThat(ConfigParser.configName(Upstream.LoadBalancer.LEAST_REQUEST)).isEqualTo("least-request");
            assertThat(ConfigParser.configName(Upstream.Protocol.H2C)).isEqualTo("h2c");
        }

        @Test
        void hostsAreLowerCased() throws Exception {
            Config c = parse(LISTENER + "routes: [ { name: r, hosts: [ Example.COM, \"*.Foo.Example.com\" ], rules: [ "
                    + OK_RULE + " ] } ]\n");
            assertThat(c.routes().get(0).hosts()).containsExactly("example.com", "*.foo.example.com");
        }

        @ParameterizedTest
        @ValueSource(strings = {"*", "localhost", "example.com", "*.example.com", "a-b.c0.example", "127.0.0.1",
                "xn--bcher-kva.example", "a"})
        void goodHostNames(String host) throws Exception {
            Config c = parse(LISTENER + "routes: [ { name: r, hosts: [ \"" + host + "\" ], rules: [ " + OK_RULE
                    + " ] } ]\n");
            assertThat(c.routes().get(0).hosts()).containsExactly(host);
        }

        @Test
        void regularExpressionPathNeedNotStartWithSlash() throws Exception {
            Route.Rule rule = parse(withRules(
                    "{ matches: [ { path: { type: RegularExpression, value: \"^/v[0-9]+/.*$\" } } ], respond: {} }"))
                    .routes().get(0).rules().get(0);
            assertThat(rule.matches().get(0).path())
                    .isEqualTo(new Route.PathMatch(Route.PathType.RegularExpression, "^/v[0-9]+/.*$"));
        }

        @Test
        void clientValidationDefaultsToRequireAndDepthOne() throws Exception {
            Config c = parse("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                    + " clientValidation: [ { hosts: [ API.example.com, \"*\" ], ca: /ca.pem },"
                    + " { hosts: [ \"*.b.example\" ], mode: optional-no-ca, forwardCertificate: true } ] } } ]\nroutes: []\n");
            assertThat(c.listeners().get(0).tls().clientValidation()).containsExactly(
                    new Config.ClientValidation(List.of("api.example.com", "*"), "/ca.pem", Config.ClientValidationMode.REQUIRE,
                            1, null, false),
                    new Config.ClientValidation(List.of("*.b.example"), null, Config.ClientValidationMode.OPTIONAL_NO_CA,
                            1, null, true));
            assertThat(c.listeners().get(0).tls().clientValidation().get(0).ocsp()).isEqualTo(Config.ClientOcsp.OFF);
            Config o = parse("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                    + " clientValidation: [ { hosts: [ a.example ], ca: /ca.pem, ocsp: leaf, ocspResponder: \"http://ocsp.example/\" },"
                    + " { hosts: [ b.example ], ca: /ca.pem, ocsp: off } ] } } ]\nroutes: []\n");
            assertThat(o.listeners().get(0).tls().clientValidation()).extracting(Config.ClientValidation::ocsp,
                    Config.ClientValidation::ocspResponder).containsExactly(
                            org.assertj.core.groups.Tuple.tuple(Config.ClientOcsp.LEAF, "http://ocsp.example/"),
                            org.assertj.core.groups.Tuple.tuple(Config.ClientOcsp.OFF, null));
        }

        /** nginx's ssl_protocols and ssl_ciphers, in the forms nginx and ingress-nginx users have them. */
        @Test
        void tlsVersionsAndCiphersAreReadInNginxsAndIanasNames() throws Exception {
            String listener = "listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ]%s } } ]\nroutes: []\n";
            Config.Tls dflt = parse(listener.formatted("")).listeners().get(0).tls();
            assertThat(dflt.minVersion()).isEqualTo(Config.TlsVersion.TLS_1_2);
            assertThat(dflt.ciphers()).isEmpty();
            for (String v : new String[] {"1.3", "\"1.3\"", "TLSv1.3"}) {
                assertThat(parse(listener.formatted(", minVersion: " + v)).listeners().get(0).tls().minVersion()).as(v)
                        .isEqualTo(Config.TlsVersion.TLS_1_3);
            }
            Config.Tls colon = parse(listener.formatted(", ciphers: \"ECDHE-RSA-AES256-GCM-SHA384:ecdhe-rsa-aes128-sha:"
                    + "ECDHE-RSA-AES256-GCM-SHA384\"")).listeners().get(0).tls();
            assertThat(colon.ciphers()).containsExactly("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
                    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA");
            Config.Tls list = parse(listener.formatted(", minVersion: 1.2, ciphers: [ TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,"
                    + " ECDHE-ECDSA-AES128-GCM-SHA256 ]")).listeners().get(0).tls();
            assertThat(list.ciphers()).containsExactly("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
                    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
            Config c = parse(listener.formatted(", minVersion: 1.3"));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            String[][] bad = {
                    {", minVersion: 1.1", "listeners[0].tls.minVersion: TLS 1.1 is not spoken (RFC 8996 retired it)"},
                    {", minVersion: 2", "listeners[0].tls.minVersion: must be 1.2 or 1.3, got 2"},
                    {", ciphers: [ ECDHE-RSA-AES128-GCM-SHA256, DHE-RSA-AES128-GCM-SHA256 ]",
                            "listeners[0].tls.ciphers[1]: \"DHE-RSA-AES128-GCM-SHA256\" is not a suite Strait speaks"},
                    {", ciphers: \"AES128-SHA:ECDHE-RSA-AES128-GCM-SHA256\"",
                            "listeners[0].tls.ciphers: \"AES128-SHA\" is not a suite Strait speaks"},
                    {", ciphers: \"ECDHE-RSA-AES128-SHA\"", "listeners[0].tls.ciphers: has no AEAD suite"},
                    {", ciphers: \"\"", "listeners[0].tls.ciphers: names no suite"},
                    {", minVersion: 1.3, ciphers: [ ECDHE-RSA-AES128-GCM-SHA256 ]",
                            "listeners[0].tls.ciphers: choose TLS 1.2's suites, and minVersion 1.3 speaks no TLS 1.2"},
            };
            for (String[] b : bad) {
                assertThatThrownBy(() -> parse(listener.formatted(b[0]))).as(b[0]).hasMessageContaining(b[1]);
            }
        }

        @Test
        void ocspStaplingIsOffUnlessAskedAndSurvivesTheWriter() throws Exception {
            Config c = parse("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                    + " ocspStapling: true } },\n { name: t, address: \"127.0.0.1:2\", tls: { certificates: [ { cert: /a,"
                    + " key: /b } ] } } ]\nroutes: []\n");
            assertThat(c.listeners()).extracting(l -> l.tls().ocspStapling()).containsExactly(true, false);
            Config withFile = parse("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a,"
                    + " key: /b, ocspResponse: /a.ocsp } ] } } ]\nroutes: []\n");
            assertThat(withFile.listeners().get(0).tls().certificates().get(0))
                    .isEqualTo(new Config.Certificate("/a", "/b", "/a.ocsp"));
            assertThat(ConfigParser.parse(ConfigWriter.toJson(withFile, false), "written")).isEqualTo(withFile);
            assertThat(ConfigParser.parse(ConfigWriter.toJson(c, false), "written")).isEqualTo(c);
            assertThat(ConfigWriter.toJson(c, false)).containsOnlyOnce("ocspStapling");
            assertThatThrownBy(() -> parse("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a,"
                    + " key: /b } ], ocspStapling: sometimes } } ]\nroutes: []\n"))
                    .hasMessageContaining("listeners[0].tls.ocspStapling");
        }

        @Test
        void regularExpressionPathTakesAPriority() throws Exception {
            Config c = parse(withRules(
                    "{ matches: [ { path: { type: RegularExpression, value: \"/v[0-9]+/.*\", priority: -7 } } ], respond: {} }",
                    "{ matches: [ { path: { type: RegularExpression, value: \"/w\" } } ], respond: {} }"));
            assertThat(c.routes().get(0).rules().get(0).matches().get(0).path())
                    .isEqualTo(new Route.PathMatch(Route.PathType.RegularExpression, "/v[0-9]+/.*", -7));
            assertThat(c.routes().get(0).rules().get(1).matches().get(0).path().priority()).isZero();
        }

        @Test
        void severalMatchesAndHeaders() throws Exception {
            Route.Rule rule = parse(withRules("""
                    { matches: [ { method: POST, headers: [ { name: X-A, value: a }, { name: x-b, value: 2 } ] },
                                 { path: { type: Exact, value: / } } ],
                      respond: { status: 404, body: 42, headers: { X-Reason: nope, x-num: 7 } } }""")).routes().get(0)
                    .rules().get(0);
            assertThat(rule.matches()).containsExactly(
                    new Route.Match(null, "POST", List.of(new Route.HeaderMatch("X-A", "a"),
                            new Route.HeaderMatch("x-b", "2"))),
                    new Route.Match(new Route.PathMatch(Route.PathType.Exact, "/"), null, List.of()));
            assertThat(rule.action()).isEqualTo(
                    new Route.Respond(404, "42", Map.of("X-Reason", "nope", "x-num", "7")));
        }

        @Test
        void tabInHeaderValueIsAllowed() throws Exception {
            Route.Rule rule = parse(withRules("{ respond: { headers: { x-a: \"a\\tb\" } } }")).routes().get(0)
                    .rules().get(0);
            assertThat(((Route.Respond) rule.action()).headers()).containsEntry("x-a", "a\tb");
        }

        @Test
        void portZeroListenersMayShareAnAddress() throws Exception {
            Config c = parse("listeners: [ { name: a, address: \"127.0.0.1:0\" }, { name: b, address: \"127.0.0.1:0\" } ]\n");
            assertThat(c.listeners()).extracting(Config.Listener::name).containsExactly("a", "b");
        }

        @Test
        void listenersMayUseTheSamePortOnDifferentHosts() throws Exception {
            Config c = parse("listeners: [ { name: a, address: \"127.0.0.1:80\" }, { name: b, address: \"[::1]:80\" } ]\n");
            assertThat(c.listeners()).hasSize(2);
        }

        @Test
        void boundaryValues() throws Exception {
            Config c = parse(LISTENER + UPSTREAM + "workers: 1024\n" + """
                    routes: [ { name: r, hosts: ["*"], rules: [
                      { respond: { status: 599 } },
                      { backends: [ { upstream: app, weight: 0 }, { upstream: app, weight: 1000000 } ],
                        retries: { attempts: 10 } },
                      { backends: [ { upstream: app } ], retries: { attempts: 0 } } ] } ]
                    """);
            assertThat(c.workers()).isEqualTo(1024);
            List<Route.Rule> rules = c.routes().get(0).rules();
            assertThat(((Route.Respond) rules.get(0).action()).status()).isEqualTo(599);
            assertThat(((Route.Backends) rules.get(1).action()).backends())
                    .extracting(Route.Backend::weight).containsExactly(0, 1_000_000);
            assertThat(rules.get(1).retries().attempts()).isEqualTo(10);
            assertThat(rules.get(2).retries().attempts()).isZero();
        }

        @Test
        void longestKubernetesNameIsAccepted() throws Exception {
            String name = "a".repeat(253);
            Config c = parse("listeners: [ { name: " + name + ", address: \"0.0.0.0:1\" } ]\n");
            assertThat(c.listeners().get(0).name()).isEqualTo(name);
        }

        @Test
        void retryOnAcceptsNumbers() throws Exception {
            Route.Rule rule = parse(withRules("{ backends: [ { upstream: app } ], retries: { retryOn: [ 503, \"502\" ] } }"))
                    .routes().get(0).rules().get(0);
            assertThat(rule.retries().retryOn()).containsExactly("503", "502");
        }
    }

    // ---- refused configs: each names its field ----

    static Stream<Arguments> invalidConfigs() {
        String l = LISTENER;
        String u = UPSTREAM;
        return Stream.of(
                // top level
                arguments("unknown top-level field", l + "bogus: 1\n", "bogus", "unknown field (expected one of workers,"),
                arguments("config is a list", "- a\n- b\n", "", "must be a mapping (key: value), got a list"),
                arguments("config is a scalar", "hello\n", "", "must be a mapping (key: value), got \"hello\""),
                arguments("workers negative", l + "workers: -1\n", "workers", "must be a whole number 0..1024, got -1"),
                arguments("workers too many", l + "workers: 1025\n", "workers", "0..1024"),
                arguments("workers fractional", l + "workers: 2.5\n", "workers", "got 2.5"),
                arguments("workers a string", l + "workers: two\n", "workers", "got \"two\""),
                arguments("workers beyond long", l + "workers: 18446744073709551616\n", "workers", "0..1024"),
                arguments("transport unknown", l + "transport: fast\n", "transport",
                        "must be one of auto, epoll, io_uring, nio, got \"fast\""),
                arguments("transport in upper case", l + "transport: EPOLL\n", "transport", "must be one of"),
                arguments("transport io-uring with a dash", l + "transport: io-uring\n", "transport", "must be one of"),
                arguments("accessLog not a mapping", l + "accessLog: true\n", "accessLog", "must be a mapping"),
                arguments("accessLog.enabled not a boolean", l + "accessLog: { enabled: maybe }\n", "accessLog.enabled",
                        "must be true or false, got \"maybe\""),
                arguments("accessLog unknown field", l + "accessLog: { format: json }\n", "accessLog.format",
                        "unknown field (expected one of enabled)"),

                // limits
                arguments("limits not a mapping", l + "limits: 5\n", "limits", "must be a mapping"),
                arguments("limits unknown field", l + "limits: { maxHeaders: 5 }\n", "limits.maxHeaders", "unknown field"),
                arguments("maxRequestLine too small", l + "limits: { maxRequestLine: 10 }\n", "limits.maxRequestLine",
                        "must be a whole number 256..1048576, got 10"),
                arguments("maxHeaderBytes too large", l + "limits: { maxHeaderBytes: 16777217 }\n",
                        "limits.maxHeaderBytes", "1024..16777216"),
                arguments("maxHeaderCount zero", l + "limits: { maxHeaderCount: 0 }\n", "limits.maxHeaderCount",
                        "1..10000"),
                arguments("header regex that does not compile",
                        withRules("{ matches: [ { headers: [ { name: x, value: \"(a\", type: RegularExpression } ] } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].headers[0].value", "not a valid regular expression"),
                arguments("header match type unknown",
                        withRules("{ matches: [ { headers: [ { name: x, value: a, type: Prefix } ] } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].headers[0].type", "must be Exact or RegularExpression, got \"Prefix\""),
                arguments("requestHeaders sets Host", withRules("{ respond: {}, requestHeaders: { set: { Host: a } } }"),
                        "routes[0].rules[0].requestHeaders.set.Host", "is the proxy's to set (Host: use hostRewrite)"),
                arguments("requestHeaders sets X-Real-IP", withRules("{ respond: {}, requestHeaders: { set: { X-Real-IP: a } } }"),
                        "routes[0].rules[0].requestHeaders.set.X-Real-IP", "is the proxy's to set"),
                arguments("requestHeaders removes Content-Length",
                        withRules("{ respond: {}, requestHeaders: { remove: [ content-length ] } }"),
                        "routes[0].rules[0].requestHeaders.remove[0]", "is the proxy's to set"),
                arguments("responseHeaders sets Date", withRules("{ respond: {}, responseHeaders: { add: { date: x } } }"),
                        "routes[0].rules[0].responseHeaders.add.date", "is set by the proxy and cannot be configured"),
                arguments("responseHeaders value with CR LF",
                        withRules("{ respond: {}, responseHeaders: { set: { x-a: \"a\\r\\nSet-Cookie: b\" } } }"),
                        "routes[0].rules[0].responseHeaders.set.x-a", "contains control characters"),
                arguments("responseHeaders names a field twice",
                        withRules("{ respond: {}, responseHeaders: { set: { x-a: a, X-A: b } } }"),
                        "routes[0].rules[0].responseHeaders.set.X-A", "is named twice"),
                arguments("requestHeaders unknown key", withRules("{ respond: {}, requestHeaders: { append: {} } }"),
                        "routes[0].rules[0].requestHeaders.append", "unknown field"),
                arguments("errorPages of a success", withRules("{ respond: {}, errorPages: { statuses: [ 200 ],"
                        + " upstream: app } }"), "routes[0].rules[0].errorPages.statuses[0]", "must be a whole number 400..599"),
                arguments("errorPages without upstream", withRules("{ respond: {}, errorPages: { statuses: [ 404 ] } }"),
                        "routes[0].rules[0].errorPages.upstream", "is required"),
                arguments("errorPages from nowhere", withRules("{ respond: {}, errorPages: { statuses: [ 404 ],"
                        + " upstream: nope } }"), "routes[0].rules[0].errorPages.upstream",
                        "upstream \"nope\" is not defined in upstreams"),
                arguments("errorPages path", withRules("{ respond: {}, errorPages: { statuses: [ 404 ], upstream: app,"
                        + " path: errors } }"), "routes[0].rules[0].errorPages.path", "must be a path starting with /"),
                arguments("responseRate on files", withRules("{ files: { root: /srv }, responseRate: { bytesPerSecond: 10 } }"),
                        "routes[0].rules[0].responseRate", "only applies to a rule with backends"),
                arguments("responseRate without a rate", withRules("{ backends: [ { upstream: app } ], responseRate:"
                        + " { afterBytes: 10 } }"), "routes[0].rules[0].responseRate.bytesPerSecond", "is required"),
                arguments("responseRate of nothing", withRules("{ backends: [ { upstream: app } ], responseRate:"
                        + " { bytesPerSecond: 0 } }"), "routes[0].rules[0].responseRate.bytesPerSecond", "must be at least 1"),
                arguments("hsts preload without subdomains", LISTENER + "routes: [ { name: a, hosts: [ a.example.com ],"
                        + " hsts: { preload: true }, rules: [ { respond: {} } ] } ]\n", "routes[0].hsts.preload",
                        "needs includeSubDomains: true and maxAgeSeconds of at least 31536000"),
                arguments("hsts preload for a day", LISTENER + "routes: [ { name: a, hosts: [ a.example.com ], hsts:"
                        + " { maxAgeSeconds: 86400, includeSubDomains: true, preload: true }, rules: [ { respond: {} } ] } ]\n",
                        "routes[0].hsts.preload", "needs includeSubDomains: true"),
                arguments("hsts max-age as a duration", LISTENER + "routes: [ { name: a, hosts: [ a.example.com ],"
                        + " hsts: { maxAgeSeconds: 1y }, rules: [ { respond: {} } ] } ]\n", "routes[0].hsts.maxAgeSeconds",
                        "must be a whole number of seconds"),
                arguments("hsts on a passthrough", LISTENER + "upstreams: [ { name: a } ]\nroutes: [ { name: a, hosts:"
                        + " [ a.example.com ], hsts: {}, tlsPassthrough: { upstream: a } } ]\n", "routes[0].hsts",
                        "a route with tlsPassthrough gives no answers"),
                arguments("precompressed deflate", withRules("{ files: { root: /srv, precompressed: [ br, deflate ] } }"),
                        "routes[0].rules[0].files.precompressed[1]", "must be br, zstd or gzip, got \"deflate\""),
                arguments("precompressed twice", withRules("{ files: { root: /srv, precompressed: [ br, br ] } }"),
                        "routes[0].rules[0].files.precompressed", "names a coding twice"),
                arguments("compression on a redirect", withRules("{ redirect: { scheme: https }, compression: {} }"),
                        "routes[0].rules[0].compression", "a redirect's answer has no body to compress"),
                arguments("compression of no types", withRules("{ respond: {}, compression: { types: [] } }"),
                        "routes[0].rules[0].compression.types", "must list at least one item"),
                arguments("compression of a file name", withRules("{ respond: {}, compression: { types: [ \"*.js\" ] } }"),
                        "routes[0].rules[0].compression.types[0]", "must be a media type such as text/html"),
                arguments("compression of a type with parameters", withRules("{ respond: {}, compression: { types:"
                        + " [ \"text/html; charset=utf-8\" ] } }"), "routes[0].rules[0].compression.types[0]",
                        "must be a media type"),
                arguments("compression level 0", withRules("{ respond: {}, compression: { level: 0 } }"),
                        "routes[0].rules[0].compression.level", "must be a whole number 1..9"),
                arguments("compression in no coding", withRules("{ respond: {}, compression: { codings: [] } }"),
                        "routes[0].rules[0].compression.codings", "must list at least one item"),
                arguments("compression in deflate", withRules("{ respond: {}, compression: { codings: [ deflate ] } }"),
                        "routes[0].rules[0].compression.codings[0]", "must be zstd, br or gzip, got \"deflate\""),
                arguments("compression in a coding twice", withRules("{ respond: {}, compression: { codings: [ gzip, gzip ] } }"),
                        "routes[0].rules[0].compression.codings", "names a coding twice"),
                arguments("compression of a negative size", withRules("{ respond: {}, compression: { minBytes: -1 } }"),
                        "routes[0].rules[0].compression.minBytes", "must be a whole number of bytes"),
                arguments("responseRate in words", withRules("{ backends: [ { upstream: app } ], responseRate:"
                        + " { bytesPerSecond: 100k } }"), "routes[0].rules[0].responseRate.bytesPerSecond", "must be a whole number"),
                arguments("requestBuffering on respond", withRules("{ respond: {}, requestBuffering: {} }"),
                        "routes[0].rules[0].requestBuffering", "only applies to a rule with backends"),
                arguments("requestBuffering of nothing", withRules("{ backends: [ { upstream: app } ], requestBuffering:"
                        + " { maxBytes: 0 } }"), "routes[0].rules[0].requestBuffering.maxBytes", "must be 1 to 1099511627776 bytes"),
                arguments("requestBuffering of too much", withRules("{ backends: [ { upstream: app } ], requestBuffering:"
                        + " { maxBytes: 2000000000000 } }"), "routes[0].rules[0].requestBuffering.maxBytes", "must be 1 to"),
                arguments("requestBuffering with more memory than bytes", withRules("{ backends: [ { upstream: app } ],"
                        + " requestBuffering: { maxBytes: 1000, memoryBytes: 2000 } }"),
                        "routes[0].rules[0].requestBuffering.memoryBytes", "must not be more than maxBytes (1000), got 2000"),
                arguments("requestBuffering with too much memory", withRules("{ backends: [ { upstream: app } ],"
                        + " requestBuffering: { maxBytes: 1000000000, memoryBytes: 100000000 } }"),
                        "routes[0].rules[0].requestBuffering.memoryBytes", "must be 0 to 67108864 bytes"),
                arguments("requestBodyFiles relative", MINIMAL + "requestBodyFiles: { directory: tmp }\n",
                        "requestBodyFiles.directory", "must be an absolute path, got \"tmp\""),
                arguments("requestBodyFiles negative", MINIMAL + "requestBodyFiles: { maxBytes: -1 }\n",
                        "requestBodyFiles.maxBytes", "must be a whole number of bytes, got -1"),
                arguments("requestBodyFiles unknown field", MINIMAL + "requestBodyFiles: { path: /tmp }\n",
                        "requestBodyFiles.path", "unknown field (expected one of directory, maxBytes)"),
                arguments("responseRewrite on respond", withRules("{ respond: {}, responseRewrite: { cookiePath: [ { from:"
                        + " /, to: /a/ } ] } }"), "routes[0].rules[0].responseRewrite", "only applies to a rule with backends"),
                arguments("responseRewrite empty", withRules("{ backends: [ { upstream: app } ], responseRewrite: {} }"),
                        "routes[0].rules[0].responseRewrite", "needs location, cookiePath or cookieDomain"),
                arguments("responseRewrite without to", withRules("{ backends: [ { upstream: app } ], responseRewrite:"
                        + " { location: [ { from: / } ] } }"), "routes[0].rules[0].responseRewrite.location[0].to", "is required"),
                arguments("responseRewrite cookie path with ;", withRules("{ backends: [ { upstream: app } ],"
                        + " responseRewrite: { cookiePath: [ { from: /, to: \"/a; Secure\" } ] } }"),
                        "routes[0].rules[0].responseRewrite.cookiePath[0].to", "must be visible ASCII without spaces or ';'"),
                arguments("responseRewrite location with a space", withRules("{ backends: [ { upstream: app } ],"
                        + " responseRewrite: { location: [ { from: \"http://a b/\", to: / } ] } }"),
                        "routes[0].rules[0].responseRewrite.location[0].from", "must be visible ASCII without spaces"),
                arguments("mirror to nowhere", withRules("{ respond: {}, mirrors: [ { upstream: nope } ] }"),
                        "routes[0].rules[0].mirrors[0].upstream", "upstream \"nope\" is not defined in upstreams"),
                arguments("mirror without upstream", withRules("{ respond: {}, mirrors: [ { percent: 5 } ] }"),
                        "routes[0].rules[0].mirrors[0].upstream", "is required"),
                arguments("mirror of no requests", withRules("{ respond: {}, mirrors: [ { upstream: app, percent: 0 } ] }"),
                        "routes[0].rules[0].mirrors[0].percent", "must be a number over 0 and at most 100"),
                arguments("mirror of more than all", withRules("{ respond: {}, mirrors: [ { upstream: app,"
                        + " percent: 150 } ] }"), "routes[0].rules[0].mirrors[0].percent", "must be a number over 0"),
                arguments("mirror share as text", withRules("{ respond: {}, mirrors: [ { upstream: app,"
                        + " percent: \"10%\" } ] }"), "routes[0].rules[0].mirrors[0].percent", "must be a number"),
                arguments("mirror Host", withRules("{ respond: {}, mirrors: [ { upstream: app, hostRewrite: \"a b\" } ] }"),
                        "routes[0].rules[0].mirrors[0].hostRewrite", "is not a host"),
                arguments("mirror field", withRules("{ respond: {}, mirrors: [ { upstream: app, timeout: 1s } ] }"),
                        "routes[0].rules[0].mirrors[0].timeout", "unknown"),
                arguments("forwardAuth without upstream or path", withRules("{ respond: {}, forwardAuth: {} }"),
                        "routes[0].rules[0].forwardAuth.path", "is required without an upstream"),
                arguments("forwardAuth to nowhere", withRules("{ respond: {}, forwardAuth: { upstream: nope } }"),
                        "routes[0].rules[0].forwardAuth.upstream", "upstream \"nope\" is not defined in upstreams"),
                arguments("forwardAuth path", withRules("{ respond: {}, forwardAuth: { upstream: app, path: auth } }"),
                        "routes[0].rules[0].forwardAuth.path", "must be a path starting with /"),
                arguments("forwardAuth copies Host", withRules("{ respond: {}, forwardAuth: { upstream: app,"
                        + " responseHeaders: [ Host ] } }"), "routes[0].rules[0].forwardAuth.responseHeaders[0]",
                        "is the proxy's to set"),
                arguments("forwardAuth copies a non-name", withRules("{ respond: {}, forwardAuth: { upstream: app,"
                        + " responseHeaders: [ \"X User\" ] } }"), "routes[0].rules[0].forwardAuth.responseHeaders[0]",
                        "is not a header name"),
                arguments("forwardAuth signIn relative", withRules("{ respond: {}, forwardAuth: { upstream: app,"
                        + " signIn: start } }"), "routes[0].rules[0].forwardAuth.signIn", "must be an http(s) URL or a path"),
                arguments("forwardAuth signIn protocol-relative", withRules("{ respond: {}, forwardAuth: { upstream: app,"
                        + " signIn: \"//evil.example\" } }"), "routes[0].rules[0].forwardAuth.signIn", "must be an http(s) URL"),
                arguments("forwardAuth unknown key", withRules("{ respond: {}, forwardAuth: { upstream: app, url: x } }"),
                        "routes[0].rules[0].forwardAuth.url", "unknown field"),
                arguments("satisfy any without both guards", withRules("{ respond: {}, satisfy: any,"
                        + " clientAddresses: { allow: [ 10.0.0.0/8 ] } }"), "routes[0].rules[0].satisfy",
                        "\"any\" chooses between clientAddresses and basicAuth; the rule needs both"),
                arguments("satisfy neither", withRules("{ respond: {}, satisfy: some }"), "routes[0].rules[0].satisfy",
                        "must be all or any, got \"some\""),
                arguments("inFlightLimit without requests", withRules("{ respond: {}, inFlightLimit: { exempt: [] } }"),
                        "routes[0].rules[0].inFlightLimit.requests", "is required"),
                arguments("inFlightLimit of none", withRules("{ respond: {}, inFlightLimit: { requests: 0 } }"),
                        "routes[0].rules[0].inFlightLimit.requests", "must be"),
                arguments("maxBodyBytes negative", l + "limits: { maxBodyBytes: -1 }\n", "limits.maxBodyBytes",
                        "must be a whole number of bytes, got -1"),
                arguments("maxBodyBytes a string", l + "limits: { maxBodyBytes: 1MB }\n", "limits.maxBodyBytes",
                        "whole number of bytes"),
                arguments("maxBodyBytes beyond long", l + "limits: { maxBodyBytes: 18446744073709551616 }\n",
                        "limits.maxBodyBytes", "whole number of bytes"),
                arguments("headerTimeout without unit", l + "limits: { headerTimeout: 5 }\n", "limits.headerTimeout",
                        "must be a duration such as 250ms, 5s, 1m or 2h, got \"5\""),
                arguments("keepAliveTimeout fractional", l + "limits: { keepAliveTimeout: 1.5s }\n",
                        "limits.keepAliveTimeout", "got \"1.5s\""),
                arguments("drainTimeout in words", l + "limits: { drainTimeout: 5 seconds }\n", "limits.drainTimeout",
                        "must be a duration"),
                arguments("drainTimeout in days", l + "limits: { drainTimeout: 1d }\n", "limits.drainTimeout",
                        "must be a duration"),

                // listeners
                arguments("listeners missing", u, "listeners", "is required and must list at least one item"),
                arguments("listeners empty", "listeners: []\n", "listeners", "must list at least one item"),
                arguments("listeners not a list", "listeners: http\n", "listeners", "must be a list, got \"http\""),
                arguments("listener not a mapping", "listeners: [ \"0.0.0.0:80\" ]\n", "listeners[0]",
                        "must be a mapping (key: value), got \"0.0.0.0:80\""),
                arguments("listener without name", "listeners: [ { address: \"0.0.0.0:80\" } ]\n", "listeners[0].name",
                        "is required"),
                arguments("listener name empty", "listeners: [ { name: \"\", address: \"0.0.0.0:80\" } ]\n",
                        "listeners[0].name", "must not be empty"),
                arguments("listener name upper case", "listeners: [ { name: HTTP, address: \"0.0.0.0:80\" } ]\n",
                        "listeners[0].name", "\"HTTP\" must be lower case letters, digits, '-' and '.'"),
                arguments("listener name ends with dash", "listeners: [ { name: a-, address: \"0.0.0.0:80\" } ]\n",
                        "listeners[0].name", "(a Kubernetes name)"),
                arguments("listener name too long",
                        "listeners: [ { name: " + "a".repeat(254) + ", address: \"0.0.0.0:80\" } ]\n",
                        "listeners[0].name", "a Kubernetes name"),
                arguments("listener name a list", "listeners: [ { name: [a], address: \"0.0.0.0:80\" } ]\n",
                        "listeners[0].name", "must be a string, got a list"),
                arguments("listener without address", "listeners: [ { name: http } ]\n", "listeners[0].address",
                        "is required"),
                arguments("listener address without port", "listeners: [ { name: http, address: localhost } ]\n",
                        "listeners[0].address", "must be host:port, got \"localhost\""),
                arguments("listener port too large", "listeners: [ { name: http, address: \"0.0.0.0:70000\" } ]\n",
                        "listeners[0].address", "port must be 0..65535, got 70000"),
                arguments("listener port not a number", "listeners: [ { name: http, address: \"0.0.0.0:http\" } ]\n",
                        "listeners[0].address", "port must be a number 0..65535, got \"http\""),
                arguments("listener ipv6 without brackets", "listeners: [ { name: http, address: \"::1:80\" } ]\n",
                        "listeners[0].address", "must be host:port"),
                arguments("listener unknown field",
                        "listeners: [ { name: http, address: \"0.0.0.0:80\", port: 80 } ]\n", "listeners[0].port",
                        "unknown field (expected one of name, address, tls, maxConnections, proxyProtocol)"),
                arguments("listener proxyProtocol not a boolean",
                        "listeners: [ { name: http, address: \"0.0.0.0:80\", proxyProtocol: v2 } ]\n",
                        "listeners[0].proxyProtocol", "must be true or false"),
                arguments("listener maxConnections negative",
                        "listeners: [ { name: http, address: \"0.0.0.0:80\", maxConnections: -1 } ]\n",
                        "listeners[0].maxConnections", ""),
                arguments("duplicate listener name",
                        "listeners: [ { name: http, address: \"0.0.0.0:80\" }, { name: http, address: \"0.0.0.0:81\" } ]\n",
                        "listeners[1].name", "duplicate listener name \"http\""),
                arguments("a wildcard listener taking another's port",
                        "listeners: [ { name: a, address: \"127.0.0.1:80\" }, { name: b, address: \"0.0.0.0:80\" } ]\n",
                        "listeners[1].address", "address 0.0.0.0:80 takes the port of listener a (127.0.0.1:80)"),
                arguments("admin on a listener's port",
                        "listeners: [ { name: a, address: \"127.0.0.1:80\" } ]\nadmin: { address: \"127.0.0.1:80\" }\n",
                        "admin.address", "address 127.0.0.1:80 takes the port of listener a (127.0.0.1:80)"),
                arguments("an upstream endpoint on port 0",
                        LISTENER + "upstreams: [ { name: app, endpoints: [ \"10.0.0.1:0\" ] } ]\n",
                        "upstreams[0].endpoints[0]", "port 0 is no port to connect to"),
                arguments("a listener host that is no host",
                        "listeners: [ { name: a, address: \"exa mple:80\" } ]\n",
                        "listeners[0].address", "\"exa mple\" is not a host name or IP address"),
                arguments("duplicate listener address",
                        "listeners: [ { name: a, address: \"0.0.0.0:80\" }, { name: b, address: \"0.0.0.0:80\" } ]\n",
                        "listeners[1].address", "address 0.0.0.0:80 is used by another listener"),
                arguments("tls not a mapping", "listeners: [ { name: h, address: \"0.0.0.0:443\", tls: true } ]\n",
                        "listeners[0].tls", "must be a mapping"),
                arguments("tls without certificates", "listeners: [ { name: h, address: \"0.0.0.0:443\", tls: {} } ]\n",
                        "listeners[0].tls.certificates", "must list at least one certificate (a TLS listener without"
                                + " one only passes TLS through, and no route passes it through here)"),
                arguments("tls with empty certificates",
                        "listeners: [ { name: h, address: \"0.0.0.0:443\", tls: { certificates: [] } } ]\n",
                        "listeners[0].tls.certificates", "must list at least one certificate"),
                arguments("tls without certificates where the passthrough is on another listener",
                        "listeners: [ { name: h, address: \"0.0.0.0:443\", tls: { certificates: [] } },"
                                + " { name: g, address: \"0.0.0.0:8443\", tls: { certificates: [] } } ]\n"
                                + "upstreams: [ { name: a } ]\nroutes: [ { name: r, hosts: [ a.example.com ], listeners: [ h ],"
                                + " tlsPassthrough: { upstream: a } } ]\n",
                        "listeners[1].tls.certificates", "must list at least one certificate"),
                arguments("client certificates asked for without a certificate",
                        "listeners: [ { name: h, address: \"0.0.0.0:443\", tls: { certificates: [],"
                                + " clientValidation: [ { hosts: [ b.example.com ], ca: /ca.crt } ] } } ]\n"
                                + "upstreams: [ { name: a } ]\nroutes: [ { name: r, hosts: [ a.example.com ],"
                                + " tlsPassthrough: { upstream: a } } ]\n",
                        "listeners[0].tls.clientValidation", "needs a certificate of the listener's own"),
                arguments("certificate without key",
                        "listeners: [ { name: h, address: \"0.0.0.0:443\", tls: { certificates: [ { cert: /c } ] } } ]\n",
                        "listeners[0].tls.certificates[0].key", "is required"),
                arguments("certificate unknown field",
                        "listeners: [ { name: h, address: \"0.0.0.0:443\", tls: { certificates: "
                                + "[ { cert: /c, key: /k, ca: /ca } ] } } ]\n",
                        "listeners[0].tls.certificates[0].ca", "unknown field (expected one of cert, key, ocspResponse)"),
                arguments("tls unknown field",
                        "listeners: [ { name: h, address: \"0.0.0.0:443\", tls: { secretName: s, "
                                + "certificates: [ { cert: /c, key: /k } ] } } ]\n",
                        "listeners[0].tls.secretName", "unknown field"),

                // admin
                arguments("admin not a mapping", l + "admin: 9901\n", "admin", "must be a mapping (key: value), got 9901"),
                arguments("admin without address", l + "admin: {}\n", "admin.address", "is required"),
                arguments("admin bad address", l + "admin: { address: \"127.0.0.1\" }\n", "admin.address",
                        "must be host:port"),
                arguments("admin unknown field", l + "admin: { address: \"127.0.0.1:9901\", enabled: true }\n",
                        "admin.enabled", "unknown field (expected one of address)"),

                // upstreams
                arguments("upstreams not a list", l + "upstreams: { app: {} }\n", "upstreams",
                        "must be a list, got a mapping"),
                arguments("upstream not a mapping", l + "upstreams: [ app ]\n", "upstreams[0]", "must be a mapping"),
                arguments("upstream without name", l + "upstreams: [ { endpoints: [] } ]\n", "upstreams[0].name",
                        "is required"),
                arguments("upstream bad name", l + "upstreams: [ { name: My_App } ]\n", "upstreams[0].name",
                        "\"My_App\" must be lower case"),
                arguments("duplicate upstream name", l + "upstreams: [ { name: app }, { name: app } ]\n",
                        "upstreams[1].name", "duplicate upstream name \"app\""),
                arguments("endpoints not a list", l + "upstreams: [ { name: app, endpoints: \"127.0.0.1:1\" } ]\n",
                        "upstreams[0].endpoints", "must be a list"),
                arguments("bad endpoint",
                        l + "upstreams: [ { name: app, endpoints: [ \"127.0.0.1:1\", \"127.0.0.1\" ] } ]\n",
                        "upstreams[0].endpoints[1]", "must be host:port, got \"127.0.0.1\""),
                arguments("endpoint bad port", l + "upstreams: [ { name: app, endpoints: [ \"h:65536\" ] } ]\n",
                        "upstreams[0].endpoints[0]", "port must be 0..65535"),
                arguments("protocol unknown", l + "upstreams: [ { name: app, protocol: http2 } ]\n",
                        "upstreams[0].protocol", "must be one of fastcgi, h2, h2c, http1, got \"http2\""),
                arguments("protocol not a string", l + "upstreams: [ { name: app, protocol: 2 } ]\n",
                        "upstreams[0].protocol", "got 2"),
                arguments("loadBalancer with underscore", l + "upstreams: [ { name: app, loadBalancer: round_robin } ]\n",
                        "upstreams[0].loadBalancer",
                        "must be one of consistent-hash, least-request, round-robin, got \"round_robin\""),
                arguments("healthCheck path without slash",
                        l + "upstreams: [ { name: app, healthCheck: { path: healthz } } ]\n",
                        "upstreams[0].healthCheck.path", "must start with /"),
                arguments("healthCheck bad interval",
                        l + "upstreams: [ { name: app, healthCheck: { interval: often } } ]\n",
                        "upstreams[0].healthCheck.interval", "must be a duration"),
                arguments("healthCheck not a mapping", l + "upstreams: [ { name: app, healthCheck: /healthz } ]\n",
                        "upstreams[0].healthCheck", "must be a mapping"),
                arguments("healthCheck unknown field",
                        l + "upstreams: [ { name: app, healthCheck: { port: 81 } } ]\n",
                        "upstreams[0].healthCheck.port",
                        "unknown field (expected one of path, interval, timeout, unhealthyThreshold, healthyThreshold)"),
                arguments("healthCheck zero interval",
                        l + "upstreams: [ { name: app, healthCheck: { interval: 0s } } ]\n",
                        "upstreams[0].healthCheck.interval", "must be longer than 0"),
                arguments("healthCheck threshold zero",
                        l + "upstreams: [ { name: app, healthCheck: { unhealthyThreshold: 0 } } ]\n",
                        "upstreams[0].healthCheck.unhealthyThreshold", "must be a whole number 1..100, got 0"),
                arguments("healthCheck path with a space",
                        l + "upstreams: [ { name: app, healthCheck: { path: \"/a b\" } } ]\n",
                        "upstreams[0].healthCheck.path", "must not contain spaces"),
                arguments("endpoint weight too high",
                        l + "upstreams: [ { name: app, endpoints: [ { address: \"127.0.0.1:1\", weight: 1001 } ] } ]\n",
                        "upstreams[0].endpoints[0].weight", "must be a whole number 0..1000, got 1001"),
                arguments("endpoint mapping without address",
                        l + "upstreams: [ { name: app, endpoints: [ { weight: 2 } ] } ]\n",
                        "upstreams[0].endpoints[0].address", "is required"),
                arguments("endpoint mapping unknown field",
                        l + "upstreams: [ { name: app, endpoints: [ { address: \"127.0.0.1:1\", zone: a } ] } ]\n",
                        "upstreams[0].endpoints[0].zone", "unknown field (expected one of address, weight)"),
                arguments("duplicate endpoint",
                        l + "upstreams: [ { name: app, endpoints: [ \"127.0.0.1:1\", { address: \"127.0.0.1:1\" } ] } ]\n",
                        "upstreams[0].endpoints[1]", "duplicate endpoint 127.0.0.1:1"),
                arguments("hashOn without consistent-hash",
                        l + "upstreams: [ { name: app, hashOn: { source: header, name: x-user } } ]\n",
                        "upstreams[0].hashOn", "is only used with loadBalancer: consistent-hash"),
                arguments("hashOn unknown source",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: body } } ]\n",
                        "upstreams[0].hashOn.source",
                        "must be one of client-address, cookie, header, path, query, uri, got \"body\""),
                arguments("tlsPassthrough with rules",
                        l + "upstreams: [ { name: a } ]\nroutes: [ { name: r, hosts: [ a.example.com ],"
                                + " tlsPassthrough: { upstream: a }, rules: [ { respond: {} } ] } ]\n",
                        "routes[0].rules", "a route with tlsPassthrough has no rules"),
                arguments("tlsPassthrough on every host",
                        l + "upstreams: [ { name: a } ]\nroutes: [ { name: r, hosts: [ a.example.com, \"*\" ],"
                                + " tlsPassthrough: { upstream: a } } ]\n",
                        "routes[0].hosts[1]", "tlsPassthrough needs host names"),
                arguments("tlsPassthrough to no upstream",
                        l + "routes: [ { name: r, hosts: [ a.example.com ], tlsPassthrough: { upstream: a } } ]\n",
                        "routes[0].tlsPassthrough.upstream", "upstream \"a\" is not defined in upstreams"),
                arguments("tlsPassthrough to an upstream that speaks HTTP",
                        l + "upstreams: [ { name: a, healthCheck: { path: /h } } ]\nroutes: [ { name: r,"
                                + " hosts: [ a.example.com ], tlsPassthrough: { upstream: a } } ]\n",
                        "routes[0].tlsPassthrough.upstream", "it takes no protocol, tls or healthCheck"),
                arguments("one host passed through twice",
                        l + "upstreams: [ { name: a }, { name: b } ]\nroutes: [ { name: r, hosts: [ a.example.com ],"
                                + " tlsPassthrough: { upstream: a } }, { name: s, hosts: [ b.example.com, a.example.com ],"
                                + " tlsPassthrough: { upstream: b } } ]\n",
                        "routes[1].hosts[1]", "\"a.example.com\" is passed through by route r already"),
                arguments("tlsPassthrough with a PROXY protocol version that does not exist",
                        l + "upstreams: [ { name: a } ]\nroutes: [ { name: r, hosts: [ a.example.com ],"
                                + " tlsPassthrough: { upstream: a, proxyProtocol: 3 } } ]\n",
                        "routes[0].tlsPassthrough.proxyProtocol", ""),
                arguments("tlsPassthrough without upstream",
                        l + "routes: [ { name: r, hosts: [ a.example.com ], tlsPassthrough: {} } ]\n",
                        "routes[0].tlsPassthrough.upstream", "is required"),
                arguments("hashOn query without name",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: query } } ]\n",
                        "upstreams[0].hashOn.name", "is required"),
                arguments("hashOn query bad name",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: query, name: \"a=b\" } } ]\n",
                        "upstreams[0].hashOn.name", "\"a=b\" is not a query parameter name"),
                arguments("hashOn uri with a name",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: uri, name: x } } ]\n",
                        "upstreams[0].hashOn.name", "is only used with source header, cookie or query"),
                arguments("hashOn header without name",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: header } } ]\n",
                        "upstreams[0].hashOn.name", "is required"),
                arguments("hashOn cookie bad name",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: \"a b\" } } ]\n",
                        "upstreams[0].hashOn.name", "is not a cookie name"),
                arguments("hashOn.also without a name",
                        l + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: uri,"
                                + " also: [ { source: path }, { source: header } ] } } ]\n",
                        "upstreams[0].hashOn.also[1].name", "required"),
                arguments("hashOn.also with an unknown source",
                        l + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: uri,"
                                + " also: [ { source: host } ] } } ]\n",
                        "upstreams[0].hashOn.also[0].source", "must be one of"),
                arguments("hashOn.also with a cookie to set",
                        l + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: {}, also: [ { source: uri } ] } } ]\n",
                        "upstreams[0].hashOn.also", "is not used with setCookie"),
                arguments("hashOn.also empty",
                        l + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: uri, also: [] } } ]\n",
                        "upstreams[0].hashOn.also", "must list at least one item"),
                arguments("setCookie with an unknown mode",
                        l + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: { mode: sticky } } } ]\n",
                        "upstreams[0].hashOn.setCookie.mode", "must be balanced or persistent, got \"sticky\""),
                arguments("setCookie with an unknown SameSite",
                        LISTENER + "upstreams: [ { name: a, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: { sameSite: strict } } } ]\n",
                        "upstreams[0].hashOn.setCookie.sameSite", "must be Strict, Lax or None, got \"strict\""),
                arguments("setCookie with a domain and a port",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: { domain: \"example.com:8443\" } } } ]\n",
                        "upstreams[0].hashOn.setCookie.domain", "\"example.com:8443\" is not a domain"),
                arguments("setCookie with a domain that would add an attribute",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: { domain: \"example.com; Secure\" } } } ]\n",
                        "upstreams[0].hashOn.setCookie.domain", "is not a domain"),
                arguments("setCookie with a URL for a domain",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: { domain: \"https://example.com/\" } } } ]\n",
                        "upstreams[0].hashOn.setCookie.domain", "is not a domain"),
                arguments("setCookie with an IPv4 address for a domain",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: { domain: 10.0.0.1 } } } ]\n",
                        "upstreams[0].hashOn.setCookie.domain", "\"10.0.0.1\" is an IP address"),
                arguments("setCookie with an IPv6 address for a domain",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: { domain: \"[::1]\" } } } ]\n",
                        "upstreams[0].hashOn.setCookie.domain", "is not a domain"),
                arguments("setCookie with an empty domain",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: { domain: \"\" } } } ]\n",
                        "upstreams[0].hashOn.setCookie.domain", "must not be empty"),
                arguments("setCookie secure not a boolean",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: { secure: always } } } ]\n",
                        "upstreams[0].hashOn.setCookie.secure", "must be true or false"),
                arguments("setCookie on a header hash",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: header, name: x,"
                                + " setCookie: {} } } ]\n",
                        "upstreams[0].hashOn.setCookie", "is only used with source cookie"),
                arguments("setCookie with a bad path",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: r,"
                                + " setCookie: { path: \"/a; Domain=evil\" } } } ]\n",
                        "upstreams[0].hashOn.setCookie.path", "is not a cookie path"),
                arguments("hashOn client address with a name",
                        l + "upstreams: [ { name: app, loadBalancer: consistent-hash, hashOn: { source: client-address, name: x } } ]\n",
                        "upstreams[0].hashOn.name", "is only used with source header, cookie or query"),
                arguments("panicThreshold over 100",
                        l + "upstreams: [ { name: app, panicThreshold: 101 } ]\n",
                        "upstreams[0].panicThreshold", "must be a whole number 0..100, got 101"),
                arguments("pool unknown field",
                        l + "upstreams: [ { name: app, pool: { maxConnections: 5 } } ]\n",
                        "upstreams[0].pool.maxConnections",
                        "unknown field (expected one of maxIdlePerLoop, idleTimeout, maxRequestsPerConnection, connectTimeout)"),
                arguments("pool negative idle",
                        l + "upstreams: [ { name: app, pool: { maxIdlePerLoop: -1 } } ]\n",
                        "upstreams[0].pool.maxIdlePerLoop", "must be a whole number 0..100000, got -1"),
                arguments("pool zero connect timeout",
                        l + "upstreams: [ { name: app, pool: { connectTimeout: 0ms } } ]\n",
                        "upstreams[0].pool.connectTimeout", "must be longer than 0"),
                arguments("pool bad idle timeout",
                        l + "upstreams: [ { name: app, pool: { idleTimeout: forever } } ]\n",
                        "upstreams[0].pool.idleTimeout", "must be a duration"),
                arguments("outlierDetection max below base",
                        l + "upstreams: [ { name: app, outlierDetection: { baseEjectionTime: 1m, maxEjectionTime: 30s } } ]\n",
                        "upstreams[0].outlierDetection.maxEjectionTime", "must not be shorter than baseEjectionTime"),
                arguments("outlierDetection unknown field",
                        l + "upstreams: [ { name: app, outlierDetection: { interval: 1s } } ]\n",
                        "upstreams[0].outlierDetection.interval", "unknown field"),
                arguments("requestId not a mapping", l + "requestId: keep\n", "requestId", "must be a mapping"),
                arguments("requestId trustIncoming not a boolean", l + "requestId: { trustIncoming: maybe }\n",
                        "requestId.trustIncoming", "must be true, false or a list of addresses and CIDR blocks"),
                arguments("requestId trustIncoming an empty list", l + "requestId: { trustIncoming: [] }\n",
                        "requestId.trustIncoming", "must list at least one item"),
                arguments("requestId trustIncoming a name", l + "requestId: { trustIncoming: [ lb.internal ] }\n",
                        "requestId.trustIncoming[0]", "\"lb.internal\" is not an IP address or CIDR block"),
                arguments("tracing without an endpoint", l + "tracing: { percent: 10 }\n",
                        "tracing.endpoint", "required"),
                arguments("tracing over another protocol", l + "tracing: { endpoint: \"http://c:4317\", protocol: grpc/json }\n",
                        "tracing.protocol", "must be http/protobuf, http/json or grpc, got \"grpc/json\""),
                arguments("tracing over gRPC to a path", l + "tracing: { endpoint: \"http://c:4317/v1/traces\", protocol: grpc }\n",
                        "tracing.endpoint", "must have no path over gRPC (its service's path is fixed)"),
                arguments("tracing over gRPC without a URL", l + "tracing: { endpoint: \"c:4317\", protocol: grpc }\n",
                        "tracing.endpoint", "must be an http:// or https:// URL (as http://otel-collector:4317)"),
                arguments("tracing endpoint over gRPC", l + "tracing: { endpoint: \"grpc://c:4317\" }\n",
                        "tracing.endpoint", "must be an http:// or https:// URL"),
                arguments("tracing endpoint with a query", l + "tracing: { endpoint: \"http://c:4318/v1/traces?x=1\" }\n",
                        "tracing.endpoint", "without user, query or fragment"),
                arguments("tracing endpoint not a URL", l + "tracing: { endpoint: \"http://c:43 18/\" }\n",
                        "tracing.endpoint", "is not a URL"),
                arguments("tracing percent over 100", l + "tracing: { endpoint: \"http://c\", percent: 101 }\n",
                        "tracing.percent", "must be a number from 0 to 100"),
                arguments("tracing percent text", l + "tracing: { endpoint: \"http://c\", percent: half }\n",
                        "tracing.percent", "must be a number from 0 to 100"),
                arguments("tracing serviceName blank", l + "tracing: { endpoint: \"http://c\", serviceName: \" \" }\n",
                        "tracing.serviceName", "must be 1 to 256 visible ASCII characters"),
                arguments("tracing flushInterval too short", l + "tracing: { endpoint: \"http://c\", flushInterval: 1ms }\n",
                        "tracing.flushInterval", "must be 10ms to 1m"),
                arguments("tracing trustIncoming a word", l + "tracing: { endpoint: \"http://c\", trustIncoming: maybe }\n",
                        "tracing.trustIncoming", "must be true, false or a list of addresses and CIDR blocks"),
                arguments("tracing header the exporter sets", l + "tracing: { endpoint: \"http://c\", headers:"
                        + " { Content-Type: text/plain } }\n", "tracing.headers.Content-Type", "is the exporter's own to set"),
                arguments("tracing header not a name", l + "tracing: { endpoint: \"http://c\", headers:"
                        + " { \"x key\": a } }\n", "tracing.headers.x key", "is not a header name"),
                arguments("tracing header with a line break", l + "tracing: { endpoint: \"http://c\", headers:"
                        + " { x-key: \"a\\r\\nb\" } }\n", "tracing.headers.x-key", "must be 1 to 8192 visible ASCII"),
                arguments("tracing header twice", l + "tracing: { endpoint: \"http://c\", headers:"
                        + " { x-key: a, X-Key: b } }\n", "tracing.headers.X-Key", "is named twice"),
                arguments("tracing unknown field", l + "tracing: { endpoint: \"http://c\", sampler: always }\n",
                        "tracing.sampler", "unknown field"),
                arguments("forwardedHeaders unknown field", l + "forwardedHeaders: { trustedProxies: [ 10.0.0.0/8 ] }\n",
                        "forwardedHeaders.trustedProxies", "unknown field"),
                arguments("trustedPeers not a list", l + "forwardedHeaders: { trustedPeers: 10.0.0.0/8 }\n",
                        "forwardedHeaders.trustedPeers", "must be a list"),
                arguments("trustedPeers a name", l + "forwardedHeaders: { trustedPeers: [ 10.0.0.0/8, lb.internal ] }\n",
                        "forwardedHeaders.trustedPeers[1]", "\"lb.internal\" is not an IP address or CIDR block"),
                arguments("trustedPeers bits past the prefix", l + "forwardedHeaders: { trustedPeers: [ 10.1.2.3/8 ] }\n",
                        "forwardedHeaders.trustedPeers[0]", "has address bits past its /8 prefix"),
                arguments("trustedPeers prefix too long", l + "forwardedHeaders: { trustedPeers: [ 10.0.0.0/33 ] }\n",
                        "forwardedHeaders.trustedPeers[0]", "the prefix length must be 0..32"),
                arguments("upstream unknown field (CRD-only service)",
                        l + "upstreams: [ { name: app, service: { name: s, port: 80 } } ]\n",
                        "upstreams[0].service", "unknown field"),

                // routes
                arguments("routes not a list", l + "routes: { site: {} }\n", "routes", "must be a list"),
                arguments("route without name", l + "routes: [ { hosts: [\"*\"], rules: [ " + OK_RULE + " ] } ]\n",
                        "routes[0].name", "is required"),
                arguments("duplicate route name",
                        l + "routes: [ { name: r, hosts: [\"a\"], rules: [ " + OK_RULE + " ] }, "
                                + "{ name: r, hosts: [\"b\"], rules: [ " + OK_RULE + " ] } ]\n",
                        "routes[1].name", "duplicate route name \"r\""),
                arguments("route without hosts", l + "routes: [ { name: r, rules: [ " + OK_RULE + " ] } ]\n",
                        "routes[0].hosts", "is required and must list at least one item"),
                arguments("route with empty hosts", l + "routes: [ { name: r, hosts: [], rules: [ " + OK_RULE + " ] } ]\n",
                        "routes[0].hosts", "must list at least one item"),
                arguments("route without rules", l + "routes: [ { name: r, hosts: [\"*\"] } ]\n",
                        "routes[0].rules", "is required and must list at least one item"),
                arguments("route with empty rules", l + "routes: [ { name: r, hosts: [\"*\"], rules: [] } ]\n",
                        "routes[0].rules", "must list at least one item"),
                arguments("route unknown field (CRD-only ingressClassName)",
                        l + "routes: [ { name: r, ingressClassName: strait, hosts: [\"*\"], rules: [ " + OK_RULE
                                + " ] } ]\n",
                        "routes[0].ingressClassName", "unknown field (expected one of name, hosts, rules, listeners, tlsPassthrough, hsts)"),
                arguments("rule not a mapping", withRules("respond"), "routes[0].rules[0]", "must be a mapping"),

                // rules and actions
                arguments("rule with no action", withRules(OK_RULE, "{ matches: [ { path: { value: / } } ] }"),
                        "routes[0].rules[1]", "needs one action: respond, files, backends or redirect"),
                arguments("rule with two actions", withRules(OK_RULE, "{ respond: {}, files: { root: /srv } }"),
                        "routes[0].rules[1]", "has respond and files; a rule takes exactly one action"),
                arguments("rule with three actions",
                        withRules("{ respond: {}, files: { root: /srv }, backends: [ { upstream: app } ] }"),
                        "routes[0].rules[0]", "has respond and files and backends; a rule takes exactly one action"),
                arguments("rule unknown field", withRules("{ respond: {}, rewrite: { to: / } }"),
                        "routes[0].rules[0].rewrite",
                        "unknown field (expected one of matches, respond, files, backends, redirect, cache, timeouts, "
                                + "retries, hostRewrite, pathRewrite, fastcgi, clientAddresses, basicAuth, rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlightLimit, satisfy, errorPages, accessLog, forwardAuth, mirrors, responseRewrite, requestBuffering, responseRate, tracing, compression, jwtAuth)"),
                arguments("cors origin with a path", withRules("{ respond: {}, cors: { allowOrigins: [ \"https://a.example.com/x\" ] } }"),
                        "routes[0].rules[0].cors.allowOrigins[0]", "is not * or an origin"),
                arguments("cors * among others", withRules("{ respond: {}, cors: { allowOrigins: [ \"*\", \"https://a.example.com\" ] } }"),
                        "routes[0].rules[0].cors.allowOrigins", "* allows every origin: list it alone"),
                arguments("cors method not a token", withRules("{ respond: {}, cors: { allowMethods: [ \"GET POST\" ] } }"),
                        "routes[0].rules[0].cors.allowMethods[0]", "is not a method or field name"),
                arguments("maxBodyBytes negative", withRules("{ respond: {}, maxBodyBytes: -1 }"),
                        "routes[0].rules[0].maxBodyBytes", "must be a whole number of bytes, got -1"),
                arguments("maxBodyBytes with a unit", withRules("{ respond: {}, maxBodyBytes: 8m }"),
                        "routes[0].rules[0].maxBodyBytes", "must be a whole number of bytes"),
                arguments("rateLimit without requests", withRules("{ respond: {}, rateLimit: { per: 1s } }"),
                        "routes[0].rules[0].rateLimit.requests", "is required"),
                arguments("rateLimit per too long", withRules("{ respond: {}, rateLimit: { requests: 1, per: 48h } }"),
                        "routes[0].rules[0].rateLimit.per", "must be at most 24h"),
                arguments("rateLimit burst too big", withRules("{ respond: {}, rateLimit: { requests: 1, burst: 5000 } }"),
                        "routes[0].rules[0].rateLimit.burst", "must be"),
                arguments("rateLimit exempt a name", withRules("{ respond: {}, rateLimit: { requests: 1, exempt: [ office ] } }"),
                        "routes[0].rules[0].rateLimit.exempt[0]", "is not an IP address or CIDR block"),
                arguments("jwtAuth without keys", withRules("{ respond: {}, jwtAuth: { issuer: x } }"),
                        "routes[0].rules[0].jwtAuth", "needs the keys that sign tokens: jwksUri (the identity provider's"
                        + " jwks_uri), jwks (a JWK Set as JSON), or an issuer URL whose OpenID discovery names them"),
                arguments("jwtAuth with two sources of keys", withRules("{ respond: {}, jwtAuth: { jwksUri: \"https://a/\","
                        + " jwks: \"{}\" } }"), "routes[0].rules[0].jwtAuth.jwks", "and jwksUri both give the keys"),
                arguments("jwtAuth keys not a JWK Set", withRules("{ respond: {}, jwtAuth: { jwks: \"[1]\" } }"),
                        "routes[0].rules[0].jwtAuth.jwks", "not a JWK Set"),
                arguments("jwtAuth a shared secret", withRules("{ respond: {}, jwtAuth: { jwks: '{\"keys\":[{\"kty\":\"oct\","
                        + "\"k\":\"c2VjcmV0\"}]}' } }"), "routes[0].rules[0].jwtAuth.jwks",
                        "has no key that checks signatures (keys[0]: kty oct: a shared secret"),
                arguments("jwtAuth keys from ftp", withRules("{ respond: {}, jwtAuth: { jwksUri: \"ftp://idp/jwks\" } }"),
                        "routes[0].rules[0].jwtAuth.jwksUri", "must be an http(s) URL"),
                arguments("jwtAuth refresh too often", withRules("{ respond: {}, jwtAuth: { jwksUri: \"https://idp/jwks\","
                        + " refresh: 1s } }"), "routes[0].rules[0].jwtAuth.refresh", "must be 30s at least"),
                arguments("jwtAuth claim into Authorization", withRules("{ respond: {}, jwtAuth: { jwksUri: \"https://idp/jwks\","
                        + " claimHeaders: { sub: Authorization } } }"), "routes[0].rules[0].jwtAuth.claimHeaders.sub",
                        "is a field the proxy keeps as it is"),
                arguments("jwtAuth requires nothing of a claim", withRules("{ respond: {}, jwtAuth: { jwksUri: \"https://idp/jwks\","
                        + " require: { scope: [] } } }"), "routes[0].rules[0].jwtAuth.require.scope", "must list at least one item"),
                arguments("jwtAuth requires two words at once", withRules("{ respond: {}, jwtAuth: { jwksUri: \"https://idp/jwks\","
                        + " require: { scope: [ \"a b\" ] } } }"), "routes[0].rules[0].jwtAuth.require.scope[0]",
                        "must be one word (a scope, a group), got \"a b\""),
                arguments("jwtAuth with basicAuth", withRules("{ respond: {}, jwtAuth: { jwksUri: \"https://idp/jwks\" },"
                        + " basicAuth: { htpasswd: \"a:{SHA}kniYfDOveJALlwGbJH1veyGzBwU=\" } }"),
                        "routes[0].rules[0].jwtAuth", "and basicAuth both read the Authorization field"),
                arguments("basicAuth without users", withRules("{ respond: {}, basicAuth: { htpasswd: \"# none yet\" } }"),
                        "routes[0].rules[0].basicAuth.htpasswd", "lists no users (name:hash per line)"),
                arguments("basicAuth without htpasswd", withRules("{ respond: {}, basicAuth: { realm: x } }"),
                        "routes[0].rules[0].basicAuth.htpasswd", "is required"),
                arguments("basicAuth bcrypt too costly", withRules("{ respond: {}, basicAuth: { htpasswd: \"a:{SHA}kniYfDOveJALlwGbJH1veyGzBwU=\\nb:$2y$13$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a\" } }"),
                        "routes[0].rules[0].basicAuth.htpasswd", "line 2: user \"b\": has bcrypt cost 13; Strait checks costs 4 to 12"),
                arguments("basicAuth SHA-crypt too many rounds", withRules("{ respond: {}, basicAuth: { htpasswd: \"b:$6$rounds=5000000$saltsalt$" + "x".repeat(86) + "\" } }"),
                        "routes[0].rules[0].basicAuth.htpasswd", "line 1: user \"b\": has SHA-crypt rounds=5000000; Strait checks up to 1000000"),
                arguments("basicAuth broken bcrypt", withRules("{ respond: {}, basicAuth: { htpasswd: \"b:$2x$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a\" } }"),
                        "routes[0].rules[0].basicAuth.htpasswd", "line 1: user \"b\": bcrypt hashes are checked as $2a$, $2b$ or $2y$ only"),
                arguments("basicAuth DES crypt", withRules("{ respond: {}, basicAuth: { htpasswd: \"a:abJnggxhB/yWI\" } }"),
                        "routes[0].rules[0].basicAuth.htpasswd", "line 1: user \"a\": DES crypt hashes are not checked"),
                arguments("basicAuth cut hash", withRules("{ respond: {}, basicAuth: { htpasswd: \"a:$apr1$x$12YdXEY0\" } }"),
                        "routes[0].rules[0].basicAuth.htpasswd", "line 1: user \"a\": is not a whole MD5-crypt hash"),
                arguments("basicAuth line without hash", withRules("{ respond: {}, basicAuth: { htpasswd: \"alice\" } }"),
                        "routes[0].rules[0].basicAuth.htpasswd", "line 1: is not name:hash"),
                arguments("basicAuth user twice", withRules("{ respond: {}, basicAuth: { htpasswd: \"a:{PLAIN}x\\na:{PLAIN}y\" } }"),
                        "routes[0].rules[0].basicAuth.htpasswd", "line 2: user \"a\" is listed twice"),
                arguments("basicAuth realm with a quote", withRules("{ respond: {}, basicAuth: { realm: 'a\"b', htpasswd: \"a:{PLAIN}x\" } }"),
                        "routes[0].rules[0].basicAuth.realm", "must be printable ASCII"),
                arguments("clientAddresses naming no one", withRules("{ respond: {}, clientAddresses: {} }"),
                        "routes[0].rules[0].clientAddresses", "names no addresses: give allow, deny or both"),
                arguments("clientAddresses empty lists", withRules("{ respond: {}, clientAddresses: { allow: [], deny: [] } }"),
                        "routes[0].rules[0].clientAddresses", "names no addresses"),
                arguments("clientAddresses a name", withRules("{ respond: {}, clientAddresses: { allow: [ 10.0.0.0/8, office ] } }"),
                        "routes[0].rules[0].clientAddresses.allow[1]", "\"office\" is not an IP address or CIDR block"),
                arguments("clientAddresses bits past the prefix", withRules("{ respond: {}, clientAddresses: { deny: [ 192.0.2.1/24 ] } }"),
                        "routes[0].rules[0].clientAddresses.deny[0]", "has address bits past its /24 prefix"),
                arguments("clientAddresses unknown field", withRules("{ respond: {}, clientAddresses: { only: [ 10.0.0.0/8 ] } }"),
                        "routes[0].rules[0].clientAddresses.only", "unknown field"),
                arguments("clientAddresses not a mapping", withRules("{ respond: {}, clientAddresses: [ 10.0.0.0/8 ] }"),
                        "routes[0].rules[0].clientAddresses", "must be a mapping"),
                arguments("hostRewrite on respond", withRules("{ respond: {}, hostRewrite: api.internal }"),
                        "routes[0].rules[0].hostRewrite", "only applies to a rule with backends"),
                arguments("hostRewrite not a host",
                        withRules("{ backends: [ { upstream: app } ], hostRewrite: \"a b/c\" }"),
                        "routes[0].rules[0].hostRewrite", "is not a host"),
                arguments("respond status too low", withRules(OK_RULE, "{ respond: { status: 99 } }"),
                        "routes[0].rules[1].respond.status", "must be a whole number 200..599, got 99"),
                arguments("respond status 1xx", withRules("{ respond: { status: 101 } }"),
                        "routes[0].rules[0].respond.status", "200..599"),
                arguments("respond status too high", withRules("{ respond: { status: 600 } }"),
                        "routes[0].rules[0].respond.status", "got 600"),
                arguments("respond status a string", withRules("{ respond: { status: ok } }"),
                        "routes[0].rules[0].respond.status", "got \"ok\""),
                arguments("respond not a mapping", withRules("{ respond: 200 }"), "routes[0].rules[0].respond",
                        "must be a mapping"),
                arguments("respond null", withRules("{ respond: null }"), "routes[0].rules[0].respond",
                        "must be a mapping (key: value), got nothing"),
                arguments("respond unknown field", withRules("{ respond: { code: 200 } }"),
                        "routes[0].rules[0].respond.code", "unknown field (expected one of status, body, headers)"),
                arguments("respond body a mapping", withRules("{ respond: { body: { a: b } } }"),
                        "routes[0].rules[0].respond.body", "must be a string, got a mapping"),
                arguments("respond headers a list", withRules("{ respond: { headers: [ a ] } }"),
                        "routes[0].rules[0].respond.headers", "must be a mapping"),
                arguments("respond reserved header", withRules("{ respond: { headers: { Content-Length: \"5\" } } }"),
                        "routes[0].rules[0].respond.headers.Content-Length", "is set by the proxy and cannot be configured"),
                arguments("respond reserved transfer-encoding",
                        withRules("{ respond: { headers: { transfer-encoding: chunked } } }"),
                        "routes[0].rules[0].respond.headers.transfer-encoding", "is set by the proxy"),
                arguments("respond bad header name", withRules("{ respond: { headers: { \"x a\": b } } }"),
                        "routes[0].rules[0].respond.headers.x a", "\"x a\" is not a header name"),
                arguments("respond header value with newline",
                        withRules("{ respond: { headers: { x-a: \"a\\r\\nSet-Cookie: b\" } } }"),
                        "routes[0].rules[0].respond.headers.x-a", "contains control characters"),
                arguments("respond header value with DEL", withRules("{ respond: { headers: { x-a: \"a\\x7fb\" } } }"),
                        "routes[0].rules[0].respond.headers.x-a", "contains control characters"),
                arguments("respond header value a list", withRules("{ respond: { headers: { x-a: [ a ] } } }"),
                        "routes[0].rules[0].respond.headers.x-a", "must be a string"),
                arguments("respond header value null", withRules("{ respond: { headers: { x-a: null } } }"),
                        "routes[0].rules[0].respond.headers.x-a", "must be a string"),
                arguments("files without root", withRules("{ files: { index: [ index.html ] } }"),
                        "routes[0].rules[0].files.root", "is required"),
                arguments("files root empty", withRules("{ files: { root: \"\" } }"),
                        "routes[0].rules[0].files.root", "must not be empty"),
                arguments("files index with a slash", withRules("{ files: { root: /srv, index: [ a/index.html ] } }"),
                        "routes[0].rules[0].files.index[0]", "must be a file name, got \"a/index.html\""),
                arguments("files index ..", withRules("{ files: { root: /srv, index: [ index.html, \"..\" ] } }"),
                        "routes[0].rules[0].files.index[1]", "must be a file name, got \"..\""),
                arguments("files index .", withRules("{ files: { root: /srv, index: [ \".\" ] } }"),
                        "routes[0].rules[0].files.index[0]", "must be a file name"),
                arguments("files index not a list", withRules("{ files: { root: /srv, index: index.html } }"),
                        "routes[0].rules[0].files.index", "must be a list"),
                arguments("files followSymlinks not boolean", withRules("{ files: { root: /srv, followSymlinks: maybe } }"),
                        "routes[0].rules[0].files.followSymlinks", "must be true or false"),
                arguments("files unknown field", withRules("{ files: { root: /srv, autoindex: true } }"),
                        "routes[0].rules[0].files.autoindex", "unknown field (expected one of root, index, followSymlinks, dotfiles, precompressed)"),
                arguments("files dotfiles unknown", withRules("{ files: { root: /srv, dotfiles: hide } }"),
                        "routes[0].rules[0].files.dotfiles", "must be one of allow, ignore, got \"hide\""),
                arguments("backends empty", withRules("{ backends: [] }"), "routes[0].rules[0].backends",
                        "must list at least one item"),
                arguments("backends null", withRules("{ backends: null }"), "routes[0].rules[0].backends",
                        "is required"),
                arguments("backends a mapping", withRules("{ backends: { upstream: app } }"),
                        "routes[0].rules[0].backends", "must be a list, got a mapping"),
                arguments("backend naming an undefined upstream",
                        withRules(OK_RULE, OK_RULE, "{ backends: [ { upstream: app }, { upstream: app-v2 } ] }"),
                        "routes[0].rules[2].backends[1].upstream", "upstream \"app-v2\" is not defined in upstreams"),
                arguments("backend without upstream", withRules("{ backends: [ { weight: 1 } ] }"),
                        "routes[0].rules[0].backends[0].upstream", "is required"),
                arguments("backend weight negative", withRules("{ backends: [ { upstream: app, weight: -1 } ] }"),
                        "routes[0].rules[0].backends[0].weight", "must be a whole number 0..1000000, got -1"),
                arguments("backend weight too large", withRules("{ backends: [ { upstream: app, weight: 1000001 } ] }"),
                        "routes[0].rules[0].backends[0].weight", "0..1000000"),
                arguments("backend unknown field (CRD-only service)",
                        withRules("{ backends: [ { upstream: app, service: { name: s, port: 80 } } ] }"),
                        "routes[0].rules[0].backends[0].service", "unknown field (expected one of upstream, weight)"),
                arguments("cache enabled not boolean", withRules("{ respond: {}, cache: { enabled: sometimes } }"),
                        "routes[0].rules[0].cache.enabled", "must be true or false, got \"sometimes\""),
                arguments("cache not a mapping", withRules("{ respond: {}, cache: true }"),
                        "routes[0].rules[0].cache", "must be a mapping"),
                arguments("cache unknown field", withRules("{ respond: {}, cache: { ttl: 5s } }"),
                        "routes[0].rules[0].cache.ttl", "unknown field"),
                arguments("cache max body size not a number",
                        withRules("{ backends: [ { upstream: app } ], cache: { maxBodySize: 1MiB } }"),
                        "routes[0].rules[0].cache.maxBodySize", "must be a whole number of bytes, got \"1MiB\""),
                arguments("cache max body size 2 GiB",
                        withRules("{ backends: [ { upstream: app } ], cache: { maxBodySize: 2147483648 } }"),
                        "routes[0].rules[0].cache.maxBodySize", "must be below 2 GiB"),
                arguments("cache bad ttl", withRules("{ backends: [ { upstream: app } ], cache: { defaultTtl: 5 } }"),
                        "routes[0].rules[0].cache.defaultTtl", "must be a duration"),
                arguments("cache ignoring Cache-Control without a ttl",
                        withRules("{ backends: [ { upstream: app } ], cache: { ignoreCacheControl: true } }"),
                        "routes[0].rules[0].cache.defaultTtl", "must be longer than 0 with ignoreCacheControl"),
                arguments("cache lock timeout zero",
                        withRules("{ backends: [ { upstream: app } ], cache: { lockTimeout: 0s } }"),
                        "routes[0].rules[0].cache.lockTimeout", "must be longer than 0"),
                arguments("cache stale-if-error not a duration",
                        withRules("{ backends: [ { upstream: app } ], cache: { staleIfError: forever } }"),
                        "routes[0].rules[0].cache.staleIfError", "must be a duration"),
                arguments("cache on a respond rule", withRules("{ respond: {}, cache: {} }"),
                        "routes[0].rules[0].cache", "only applies to a rule with backends"),
                arguments("cache store size not a number", MINIMAL + "cache: { maxBytes: lots }\n",
                        "cache.maxBytes", "must be a whole number of bytes"),
                arguments("cache store unknown field", MINIMAL + "cache: { enabled: true }\n",
                        "cache.enabled", "unknown field (expected one of maxBytes)"),
                arguments("timeouts bad duration", withRules("{ respond: {}, timeouts: { request: soon } }"),
                        "routes[0].rules[0].timeouts.request", "must be a duration such as 250ms, 5s, 1m or 2h, got \"soon\""),
                arguments("timeouts number", withRules("{ respond: {}, timeouts: { request: 15 } }"),
                        "routes[0].rules[0].timeouts.request", "got \"15\""),
                arguments("timeouts unknown field", withRules("{ respond: {}, timeouts: { connect: 5s } }"),
                        "routes[0].rules[0].timeouts.connect", "unknown field (expected one of request, perTry, idle)"),
                arguments("timeouts zero", withRules("{ respond: {}, timeouts: { perTry: 0s } }"),
                        "routes[0].rules[0].timeouts.perTry", "must be longer than 0"),
                arguments("retries attempts too many",
                        withRules("{ backends: [ { upstream: app } ], retries: { attempts: 11 } }"),
                        "routes[0].rules[0].retries.attempts", "must be a whole number 0..10, got 11"),
                arguments("retries retryOn not a list",
                        withRules("{ backends: [ { upstream: app } ], retries: { retryOn: \"503\" } }"),
                        "routes[0].rules[0].retries.retryOn", "must be a list"),
                arguments("retries retryOn empty item",
                        withRules("{ backends: [ { upstream: app } ], retries: { retryOn: [ \"503\", \"\" ] } }"),
                        "routes[0].rules[0].retries.retryOn[1]", "must not be empty"),
                arguments("retries unknown field",
                        withRules("{ backends: [ { upstream: app } ], retries: { perTryTimeout: 1s } }"),
                        "routes[0].rules[0].retries.perTryTimeout",
                        "unknown field (expected one of attempts, retryOn, backoff)"),
                arguments("retries unknown condition",
                        withRules("{ backends: [ { upstream: app } ], retries: { retryOn: [ connect-failure, 4xx ] } }"),
                        "routes[0].rules[0].retries.retryOn[1]",
                        "must be one of connect-failure, refused-stream, reset, timeout, 5xx, gateway-error or a status code"),
                arguments("retries status out of range",
                        withRules("{ backends: [ { upstream: app } ], retries: { retryOn: [ \"600\" ] } }"),
                        "routes[0].rules[0].retries.retryOn[0]", "got \"600\""),
                arguments("retries zero backoff",
                        withRules("{ backends: [ { upstream: app } ], retries: { backoff: 0ms } }"),
                        "routes[0].rules[0].retries.backoff", "must be longer than 0"),

                // matches
                arguments("matches empty", withRules("{ matches: [], respond: {} }"), "routes[0].rules[0].matches",
                        "must list at least one item"),
                arguments("matches a mapping", withRules("{ matches: { path: { value: / } }, respond: {} }"),
                        "routes[0].rules[0].matches", "must be a list, got a mapping"),
                arguments("match not a mapping", withRules("{ matches: [ /api ], respond: {} }"),
                        "routes[0].rules[0].matches[0]", "must be a mapping"),
                arguments("match unknown field", withRules("{ matches: [ { host: a } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].host", "unknown field (expected one of path, method, headers, cookies)"),
                arguments("path a string", withRules("{ matches: [ { path: /api } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path", "must be a mapping (key: value), got \"/api\""),
                arguments("path unknown field", withRules("{ matches: [ { path: { kind: Exact, value: / } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.kind", "unknown field (expected one of type, value, priority)"),
                arguments("path type unknown", withRules("{ matches: [ { path: { type: Glob, value: /a } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.type",
                        "must be Exact, Prefix or RegularExpression, got \"Glob\""),
                arguments("path type lower case",
                        withRules(OK_RULE, "{ matches: [ { path: { value: / } }, { path: { type: prefix, value: /a } } ], respond: {} }"),
                        "routes[0].rules[1].matches[1].path.type", "got \"prefix\""),
                arguments("prefix path without slash",
                        withRules("{ matches: [ { path: { type: Prefix, value: api/ } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "must start with /, got \"api/\""),
                arguments("exact path without slash",
                        withRules("{ matches: [ { path: { type: Exact, value: healthz } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "must start with /"),
                arguments("default-type path without slash",
                        withRules("{ matches: [ { path: { value: api } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "must start with /"),
                arguments("path with an escaped unreserved character",
                        withRules("{ matches: [ { path: { type: Exact, value: /%7Euser } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "write \"/~user\""),
                arguments("path with a double slash",
                        withRules("{ matches: [ { path: { type: Prefix, value: /private//data } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "write \"/private/data\""),
                arguments("path with a dot segment",
                        withRules("{ matches: [ { path: { type: Prefix, value: /a/./secret } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "write \"/a/secret\""),
                arguments("path with an encoded slash",
                        withRules("{ matches: [ { path: { type: Prefix, value: /enc%2fslash } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "write \"/enc/slash\""),
                arguments("path with lower-case escapes",
                        withRules("{ matches: [ { path: { type: Exact, value: /caf%c3%a9 } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "write \"/caf%C3%A9\""),
                arguments("path with a query",
                        withRules("{ matches: [ { path: { type: Exact, value: \"/q?x=1\" } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "holds a query or fragment"),
                arguments("path with a space",
                        withRules("{ matches: [ { path: { type: Prefix, value: \"/sp ace\" } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "is not a request path"),
                arguments("path climbing above the root",
                        withRules("{ matches: [ { path: { type: Prefix, value: /a/../../b } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "is not a request path"),
                arguments("path without value", withRules("{ matches: [ { path: { type: Exact } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "is required"),
                arguments("bad regular expression",
                        withRules("{ matches: [ { path: { type: RegularExpression, value: \"/(a\" } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "not a valid regular expression: Unclosed group"),
                arguments("bad regular expression (dangling)",
                        withRules("{ matches: [ { path: { type: RegularExpression, value: \"*a\" } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.value", "not a valid regular expression"),
                arguments("client validation without a CA",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ] } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[0].ca", "is required"),
                arguments("client validation host twice",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ], ca: /c }, { hosts: [ A.example ], ca: /d } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[1].hosts[0]", "\"a.example\" is in an earlier clientValidation entry"),
                arguments("client validation bad mode",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ], ca: /c, mode: on } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[0].mode", "must be one of optional, optional-no-ca, require"),
                arguments("client validation bad depth",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ], ca: /c, verifyDepth: 0 } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[0].verifyDepth", "must be a whole number 1..10"),
                arguments("client validation revocation list without a CA",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ], mode: optional-no-ca, crl: /c.crl } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[0].crl", "give a ca too"),
                arguments("client validation error page not a URL",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ], ca: /c, errorPage: \"ftp://x\" } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[0].errorPage", "must be an http(s) URL or a path"),
                arguments("client OCSP checks without a CA",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ], mode: optional-no-ca, ocsp: leaf } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[0].ocsp", "give a ca too"),
                arguments("client OCSP checks of an unknown kind",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ], ca: /c, ocsp: true } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[0].ocsp", "must be one of chain, leaf, off, got true"),
                arguments("client OCSP responder not a URL",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ], ca: /c, ocsp: leaf, ocspResponder: \"ldap://x\" } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[0].ocspResponder", "must be an http(s) URL, got \"ldap://x\""),
                arguments("client OCSP responder without checks",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ], ca: /c, ocspResponder: \"http://x/\" } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[0].ocspResponder", "is asked only with ocsp: leaf or chain"),
                arguments("client validation bad subject pattern",
                        ("listeners: [ { name: s, address: \"127.0.0.1:1\", tls: { certificates: [ { cert: /a, key: /b } ],"
                                + " clientValidation: [ { hosts: [ a.example ], ca: /c, subjectMatch: \"CN=(a\" } ] } } ]\nroutes: []\n"),
                        "listeners[0].tls.clientValidation[0].subjectMatch", "not a valid regular expression"),
                arguments("forward-auth cache keyed by nothing",
                        withRules("{ respond: {}, forwardAuth: { upstream: app, cache: { duration: 1m } } }"),
                        "routes[0].rules[0].forwardAuth.cache", "needs headers or cookies that say who the client is"),
                arguments("forward-auth cache without duration",
                        withRules("{ respond: {}, forwardAuth: { upstream: app, cache: { headers: [ authorization ] } } }"),
                        "routes[0].rules[0].forwardAuth.cache.duration", "is required"),
                arguments("forward-auth cache too long",
                        withRules("{ respond: {}, forwardAuth: { upstream: app, cache: { cookies: [ s ], duration: 25h } } }"),
                        "routes[0].rules[0].forwardAuth.cache.duration", "at most 24h"),
                arguments("priority on a Prefix path",
                        withRules("{ matches: [ { path: { type: Prefix, value: /a, priority: 3 } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.priority", "orders RegularExpression paths only; Prefix"),
                arguments("priority not a number",
                        withRules("{ matches: [ { path: { type: RegularExpression, value: /a, priority: high } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.priority", "must be a whole number -1000000..1000000"),
                arguments("priority a fraction",
                        withRules("{ matches: [ { path: { type: RegularExpression, value: /a, priority: 1.5 } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].path.priority", "must be a whole number"),
                arguments("method with a space", withRules("{ matches: [ { method: \"GET POST\" } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].method", "\"GET POST\" is not an HTTP method"),
                arguments("method empty", withRules("{ matches: [ { method: \"\" } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].method", "must not be empty"),
                arguments("method a list", withRules("{ matches: [ { method: [ GET ] } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].method", "must be a string, got a list"),
                arguments("match headers a mapping",
                        withRules("{ matches: [ { headers: { x-a: b } } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].headers", "must be a list, got a mapping"),
                arguments("header match bad name",
                        withRules("{ matches: [ { headers: [ { name: \"x:a\", value: b } ] } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].headers[0].name", "\"x:a\" is not a header name"),
                arguments("header match without name",
                        withRules("{ matches: [ { headers: [ { value: b } ] } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].headers[0].name", "is required"),
                arguments("header match without value",
                        withRules("{ matches: [ { headers: [ { name: x-a } ] } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].headers[0].value", "is required"),
                arguments("header match unknown field",
                        withRules("{ matches: [ { headers: [ { name: x-a, value: b, kind: Exact } ] } ], respond: {} }"),
                        "routes[0].rules[0].matches[0].headers[0].kind", "unknown field (expected one of name, value, type)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidConfigs")
    void invalidConfigIsRefusedNamingTheField(String what, String text, String path, String message) {
        List<ConfigError> errors = errors(text);
        assertThat(errors)
                .as("errors for %s", what)
                .anySatisfy(e -> {
                    assertThat(e.path()).isEqualTo(path);
                    assertThat(e.message()).contains(message);
                });
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"/", "/a/b", "/a/b/", "/~user", "/caf%C3%A9", "/a%20b",
            "/api/v1/.well-known", "/a*b", "/a;b=c", "/%25"})
    void pathValuesInTheirMatchedFormAreAccepted(String value) throws Exception {
        Config c = TestConfigs.parse(withRules("{ matches: [ { path: { type: Prefix, value: \"" + value + "\" } } ], respond: {} }"));
        assertThat(c.routes().get(0).rules().get(0).matches().get(0).path().value()).isEqualTo(value);
    }

    static Stream<Arguments> badHostNames() {
        return Stream.of(
                arguments("exa mple.com"), arguments("-example.com"), arguments("example-.com"),
                arguments("example.com:8080"), arguments("*.*.example.com"), arguments("foo_bar.example.com"),
                arguments("example.com."), arguments(".example.com"), arguments("a..b"), arguments("**"),
                arguments("*example.com"), arguments("example.*"), arguments("http://example.com"),
                arguments("[::1]"), arguments("a".repeat(64) + ".com"), arguments("exämple.com"));
    }

    @ParameterizedTest
    @MethodSource("badHostNames")
    void badHostNameIsRefused(String host) {
        List<ConfigError> errors = errors(LISTENER + "routes: [ { name: r, hosts: [ \"*\", \"" + host + "\" ], rules: [ "
                + OK_RULE + " ] } ]\n");
        assertThat(errors).extracting(ConfigError::path, ConfigError::message).containsExactly(
                tuple("routes[0].hosts[1]", "\"" + host.toLowerCase(java.util.Locale.ROOT)
                        + "\" is not a host name (use example.com, *.example.com or *)"));
    }

    @Test
    void emptyHostIsRefused() {
        assertThat(errors(LISTENER + "routes: [ { name: r, hosts: [ \"\" ], rules: [ " + OK_RULE + " ] } ]\n"))
                .extracting(ConfigError::path, ConfigError::message)
                .containsExactly(tuple("routes[0].hosts[0]", "must not be empty"));
    }

    @Test
    void exactlyOneErrorForASingleMistake() {
        assertThat(errors(withRules(OK_RULE, "{ respond: { status: 99 } }")))
                .containsExactly(new ConfigError("routes[0].rules[1].respond.status",
                        "must be a whole number 200..599, got 99"));
    }

    @Test
    void everyErrorIsReportedAtOnce() {
        String text = """
                workers: -3
                transport: turbo
                colour: blue
                listeners:
                  - name: Http
                    address: nowhere
                upstreams:
                  - name: app
                    endpoints: [ "1.2.3.4:99999" ]
                    protocol: spdy
                routes:
                  - name: site
                    hosts: [ "bad host" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: nope } } ]
                        respond: { status: 42 }
                      - respond: {}
                        files: { root: /srv }
                      - backends: [ { upstream: ghost } ]
                        timeouts: { request: forever }
                """;
        assertThat(errors(text)).extracting(ConfigError::path).containsExactlyInAnyOrder(
                "colour",
                "workers",
                "transport",
                "listeners[0].name",
                "listeners[0].address",
                "upstreams[0].endpoints[0]",
                "upstreams[0].protocol",
                "routes[0].hosts[0]",
                "routes[0].rules[0].matches[0].path.value",
                "routes[0].rules[0].respond.status",
                "routes[0].rules[1]",
                "routes[0].rules[2].timeouts.request",
                "routes[0].rules[2].backends[0].upstream");
    }

    @Test
    void errorsInSeveralRoutesAndListeners() {
        String text = """
                listeners:
                  - { name: a, address: "0.0.0.0:80" }
                  - { name: a, address: "0.0.0.0:80" }
                  - { address: "0.0.0.0:81" }
                  - { address: "0.0.0.0:82" }
                routes:
                  - { name: r, hosts: ["*"], rules: [ { backends: [ { upstream: x } ] } ] }
                  - { name: r, hosts: ["*"], rules: [ { respond: {} }, { backends: [ { upstream: y } ] } ] }
                """;
        assertThat(errors(text)).extracting(ConfigError::path, ConfigError::message).containsExactlyInAnyOrder(
                tuple("listeners[1].name", "duplicate listener name \"a\""),
                tuple("listeners[1].address", "address 0.0.0.0:80 is used by another listener"),
                tuple("listeners[2].name", "is required"),
                tuple("listeners[3].name", "is required"),
                tuple("routes[0].rules[0].backends[0].upstream", "upstream \"x\" is not defined in upstreams"),
                tuple("routes[1].name", "duplicate route name \"r\""),
                tuple("routes[1].rules[1].backends[0].upstream", "upstream \"y\" is not defined in upstreams"));
    }

    @Test
    void nonMappingListEntriesAreReportedNotThrown() {
        String text = """
                listeners: [ "0.0.0.0:80", 5, { name: ok, address: "0.0.0.0:81" } ]
                upstreams: [ app ]
                routes: [ site ]
                """;
        assertThat(errors(text)).extracting(ConfigError::path).containsExactlyInAnyOrder(
                "listeners[0]", "listeners[1]", "upstreams[0]", "routes[0]");
    }

    @Test
    void exceptionMessageNamesTheSourceAndEveryError() {
        assertThatThrownBy(() -> ConfigParser.parse(LISTENER + "workers: -1\nbogus: 1\n", "/etc/strait/strait.yaml"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageStartingWith("/etc/strait/strait.yaml: 2 error(s):\n  ")
                .hasMessageContaining("\n  workers: must be a whole number 0..1024, got -1")
                .hasMessageContaining("\n  bogus: unknown field");
    }

    @Test
    void errorsListIsImmutable() {
        List<ConfigError> errors = errors(LISTENER + "workers: -1\n");
        assertThatThrownBy(errors::clear).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void configErrorToString() {
        assertThat(new ConfigError("routes[0].name", "is required")).hasToString("routes[0].name: is required");
        assertThat(new ConfigError("", "the config is empty")).hasToString("the config is empty");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   \n\n", "# only a comment\n", "---\n", "null\n", "~\n"})
    void emptyConfigIsRefused(String text) {
        assertThat(errors(text)).containsExactly(new ConfigError("", "the config is empty"));
    }

    @Test
    void yamlSyntaxErrorReportsTheLine() {
        String text = """
                listeners:
                  - name: http
                    address: 0.0.0.0:8080
                routes: [ { name: r
                """;
        List<ConfigError> errors = errors(text);
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0).path()).isEmpty();
        assertThat(errors.get(0).message()).startsWith("not valid YAML at line ").contains(", column ");
    }

    @Test
    void yamlSyntaxErrorLineIsTheOffendingOne() {
        String text = """
                workers: 2
                listeners:
                  - name: http
                   address: 0.0.0.0:8080
                """;
        List<ConfigError> errors = errors(text);
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0).message()).startsWith("not valid YAML at line 4,");
    }

    @Test
    void jsonWithADuplicateKeyIsRefused() {
        List<ConfigError> errors = errors("{ \"workers\": 1, \"workers\": 2 }");
        assertThat(errors).singleElement().satisfies(e -> assertThat(e.message()).startsWith("not valid JSON")
                .contains("workers"));
    }

    @Test
    void badJsonReportsTheLine() {
        List<ConfigError> errors = errors("{\n\"listeners\": [\n}\n");
        assertThat(errors).singleElement().satisfies(e -> {
            assertThat(e.path()).isEmpty();
            assertThat(e.message()).startsWith("not valid JSON at line ").contains("line 3");
        });
    }

    @Test
    void duplicateKeyIsRefused() {
        List<ConfigError> errors = errors(LISTENER + "workers: 2\nworkers: 3\n");
        assertThat(errors).singleElement().satisfies(e -> {
            assertThat(e.message()).contains("workers").contains("line 3");
        });
    }

    @Test
    void parsingIsRepeatableAndIndependent() throws Exception {
        // The parser keeps no state between calls: an error in one parse does not leak into the next.
        errors(LISTENER + "workers: -1\n");
        assertThat(parse(CONTRACT_EXAMPLE)).isEqualTo(parse(CONTRACT_EXAMPLE));
    }

    /** Aliases to scalars are not counted by SnakeYAML's alias limit; the text they expand to is. */
    @Test
    void aliasesThatExpandTheTextManyTimesOverAreRefused() {
        assertThatThrownBy(() -> ConfigParser.parse(routesSharingOneBody(200_000, 400), "bomb.yaml"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("aliases expand the document to over");
    }

    @Test
    void aliasesOfASharedValueWithinTheBudgetAreFine() throws Exception {
        assertThat(ConfigParser.parse(routesSharingOneBody(4000, 50), "shared.yaml").routes()).hasSize(50);
    }

    /** {@code routes} routes whose bodies are one anchored text of {@code length} characters and aliases of it. */
    private static String routesSharingOneBody(int length, int routes) {
        StringBuilder yaml = new StringBuilder("""
                listeners: [ { name: http, address: "127.0.0.1:8080" } ]
                routes:
                  - name: r0
                    hosts: [ "*" ]
                    rules:
                      - respond: { body: &shared "%s" }
                """.formatted("x".repeat(length)));
        for (int i = 1; i < routes; i++) {
            yaml.append("  - { name: r").append(i).append(", hosts: [ \"h").append(i)
                    .append(".example\" ], rules: [ { respond: { body: *shared } } ] }\n");
        }
        return yaml.toString();
    }

    /** YAML 1.2, not 1.1: what a string field is given unquoted stays what was written (the "Norway problem"). */
    @Test
    void plainYesOnAndUnderscoredNumbersStayTextInStringFields() throws Exception {
        Config c = ConfigParser.parse("""
                accessLog: { enabled: no }
                listeners: [ { name: http, address: "127.0.0.1:8080" } ]
                routes:
                  - name: r
                    hosts: [ "*" ]
                    rules:
                      - respond: { body: yes, headers: { x-a: on, x-b: NO, x-c: 1_000, x-d: 007, x-e: 12, x-f: true } }
                """, "yaml11.yaml");
        Route.Respond r = (Route.Respond) c.routes().get(0).rules().get(0).action();
        assertThat(r.body()).isEqualTo("yes");
        assertThat(r.headers()).containsEntry("x-a", "on").containsEntry("x-b", "NO").containsEntry("x-c", "1_000")
                .containsEntry("x-d", "007").containsEntry("x-e", "12").containsEntry("x-f", "true");
        assertThat(c.accessLog().enabled()).as("boolean fields still take yes/no/on/off").isFalse();
        assertThatThrownBy(() -> ConfigParser.parse("limits: { maxBodyBytes: 1_000 }\n" + LISTENER, "n.yaml"))
                .isInstanceOf(InvalidConfigException.class).hasMessageContaining("limits.maxBodyBytes");
    }
}
