package dev.strait.model;

import static dev.strait.model.TestConfigs.CONTRACT_EXAMPLE;
import static dev.strait.model.TestConfigs.LISTENER;
import static dev.strait.model.TestConfigs.MINIMAL;
import static dev.strait.model.TestConfigs.parse;
import static dev.strait.model.TestConfigs.withRules;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigWriterTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Uses every field the model has, most with non-default values. */
    static final String EVERYTHING = """
            workers: 8
            transport: nio
            accessLog: { enabled: false }
            limits:
              maxRequestLine: 4096
              maxHeaderBytes: 65536
              maxHeaderCount: 64
              maxBodyBytes: 10485760
              headerTimeout: 1500ms
              keepAliveTimeout: 90s
              drainTimeout: 2m
            listeners:
              - name: http
                address: "[::]:8080"
                maxConnections: 500
              - name: https
                address: 0.0.0.0:8443
                proxyProtocol: true
                tls:
                  certificates:
                    - { cert: /a.crt, key: /a.key }
                    - { cert: /b.crt, key: /b.key }
                  clientValidation:
                    - { hosts: [ api.example.com, "*.partners.example.com" ], ca: /ca.crt, crl: /ca.crl, verifyDepth: 2,
                        subjectMatch: "CN=(a|b)", forwardCertificate: true, ocsp: chain,
                        ocspResponder: "http://ocsp.example.com/" }
                    - { hosts: [ "*" ], mode: optional-no-ca, errorPage: "https://example.com/no-certificate" }
                  ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA"
            admin: { address: "[::1]:9901" }
            upstreams:
              - { name: a, endpoints: [ "10.0.0.1:80", "[fd00::1]:80", "svc.ns.svc:8080" ], protocol: h2c,
                  loadBalancer: least-request, healthCheck: { path: /ready, interval: 250ms } }
              - { name: b, protocol: h2, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route,
                  setCookie: { path: /shop, maxAge: 48h, sameSite: None, changeOnFailure: true, domain: .example.com,
                               secure: true } } }
              - { name: c, protocol: fastcgi, endpoints: [ "127.0.0.1:9000" ], maxConnections: 2 }
              - { name: e, endpoints: [ "10.0.0.9:443" ] }
              - name: d
                endpoints: [ "10.0.0.5:80", { address: "10.0.0.6:80", weight: 5 }, { address: "10.0.0.7:80", weight: 0 } ]
                loadBalancer: consistent-hash
                hashOn: { source: header, name: x-user }
                healthCheck: { path: /h, interval: 1s, timeout: 100ms, unhealthyThreshold: 5, healthyThreshold: 2 }
                outlierDetection: { consecutiveFailures: 0, baseEjectionTime: 1s, maxEjectionTime: 1s }
                panicThreshold: 10
                pool: { maxIdlePerLoop: 0, idleTimeout: 1s, maxRequestsPerConnection: 7, connectTimeout: 100ms }
            routes:
              - name: one
                hosts: [ "Example.com", "*.example.com" ]
                rules:
                  - matches:
                      - { path: { type: RegularExpression, value: "^/v[0-9]+/", priority: 12 }, method: PUT }
                      - { headers: [ { name: X-A, value: "1" }, { name: x-b, value: two } ] }
                      - {}
                    respond: { status: 418, body: "I'm a teapot\\n", headers: { x-z: last, Content-Type: text/plain, a-a: first } }
                  - matches: [ { path: { type: Exact, value: / } } ]
                    files: { root: /srv/www, index: [], followSymlinks: true, dotfiles: allow }
                  - files: { root: /srv/other, precompressed: [ br, gzip ] }
                  - backends: [ { upstream: a, weight: 3 }, { upstream: b, weight: 0 } ]
                    cache: { enabled: false }
                    timeouts: { request: 3600s }
                    retries: { attempts: 0, retryOn: [] }
                  - backends: [ { upstream: c } ]
                    fastcgi: { root: /var/www/app, index: app.php, splitPathInfo: '^(.+\\.php)(/.*)$',
                               params: { PHP_VALUE: "memory_limit=64M", APP_ENV: prod }, maxBufferedBody: 4096 }
              - name: two
                hosts: [ "*" ]
                rules:
                  - backends: [ { upstream: a } ]
                    retries: { retryOn: [ "503", connect-failure ] }
                    timeouts: {}
                    cache: {}
                    requestBuffering: { maxBytes: 104857600, memoryBytes: 65536 }
                  - backends: [ { upstream: a } ]
                    cache: { maxBodySize: 4096, defaultTtl: 90s, ignoreCacheControl: true, cacheSetCookie: true,
                             cacheAuthorization: true, xCacheHeader: true, staleWhileRevalidate: 5s,
                             staleIfError: 1h, hitForPass: 0s, lockTimeout: 250ms }
                  - backends: [ { upstream: d } ]
                    hostRewrite: "internal:81"
                    responseRate: { bytesPerSecond: 65536, afterBytes: 1048576 }
                    compression: { types: [ text/html, "application/*" ], minBytes: 256, level: 6, codings: [ br, gzip ] }
                    retries: { attempts: 2, retryOn: [ reset, timeout, 5xx, gateway-error ], backoff: 10ms }
                    timeouts: { request: 9s, perTry: 3s, idle: 4s }
                  - matches: [ { path: { type: Prefix, value: /api/ } }, {} ]
                    backends: [ { upstream: a } ]
                    pathRewrite: { replacePrefixMatch: /v2 }
                  - matches: [ { path: { type: Prefix, value: /discovered } } ]
                    backends: [ { upstream: a } ]
                    jwtAuth: { issuer: "https://idp.example.com/realms/shop", refresh: 5m }
                  - matches: [ { path: { type: Prefix, value: /me } } ]
                    backends: [ { upstream: a } ]
                    jwtAuth: { jwksUri: "https://idp.example.com/jwks", refresh: 15m, issuer: "https://idp.example.com/",
                               audiences: [ api, web ], optional: true, cookie: session, realm: me,
                               claimHeaders: { sub: X-User, realm_access.roles: X-Roles },
                               require: { scope: [ "orders:read", "orders:write" ], realm_access.roles: [ staff ] } }
                  - matches: [ { path: { type: Exact, value: /old } } ]
                    redirect: { scheme: https, hostname: new.example.com, port: 8443,
                                path: { replaceFullPath: /new }, statusCode: 308 }
                  - redirect: {}
              - name: three
                hosts: [ argocd.example.com, "*.tls.example.com" ]
                listeners: [ https ]
                tlsPassthrough: { upstream: e, proxyProtocol: 2 }
            requestId: { trustIncoming: false }
            cache: { maxBytes: 1000000 }
            requestBodyFiles: { directory: /var/spool/strait, maxBytes: 1073741824 }
            tracing: { endpoint: "http://otel:4318/v1/traces", percent: 12.5, serviceName: edge, trustIncoming: false,
                       flushInterval: 1s, protocol: http/json }
            """;

    static Stream<String> configs() {
        return Stream.of(MINIMAL, CONTRACT_EXAMPLE, EVERYTHING);
    }

    @ParameterizedTest
    @MethodSource("configs")
    void roundTripGivesAnEqualConfig(String text) throws Exception {
        Config c = parse(text);
        assertThat(parse(ConfigWriter.toJson(c, false))).isEqualTo(c);
        assertThat(parse(ConfigWriter.toJson(c, true))).isEqualTo(c);
    }

    @ParameterizedTest
    @MethodSource("configs")
    void writingIsIdempotent(String text) throws Exception {
        Config c = parse(text);
        String once = ConfigWriter.toJson(c, true);
        assertThat(ConfigWriter.toJson(parse(once), true)).isEqualTo(once);
        assertThat(ConfigWriter.version(parse(once))).isEqualTo(ConfigWriter.version(c));
    }

    @ParameterizedTest
    @MethodSource("configs")
    void prettyAndCompactAreTheSameJson(String text) throws Exception {
        Config c = parse(text);
        assertThat(JSON.readTree(ConfigWriter.toJson(c, true))).isEqualTo(JSON.readTree(ConfigWriter.toJson(c, false)));
        assertThat(ConfigWriter.toJson(c, false)).doesNotContain("\n");
        assertThat(ConfigWriter.toJson(c, true)).contains("\n");
        assertThat(JSON.writeValueAsString(ConfigWriter.toTree(c))).isEqualTo(ConfigWriter.toJson(c, false));
    }

    @Test
    void everythingParsesAsExpected() throws Exception {
        Config c = parse(EVERYTHING);
        assertThat(c.transport()).isEqualTo(Config.Transport.NIO);
        assertThat(c.limits().headerTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(c.routes().get(0).rules().get(3).timeouts().request()).isEqualTo(Duration.ofHours(1));
        assertThat(c.routes().get(1).rules().get(0).timeouts()).isEqualTo(new Route.Timeouts(null));
    }

    @Test
    void contractExampleIsWrittenInTheConfigShape() throws Exception {
        JsonNode n = ConfigWriter.toTree(parse(CONTRACT_EXAMPLE));
        assertThat(n.get("workers").asInt()).isEqualTo(2);
        assertThat(n.get("transport").asText()).isEqualTo("auto");
        assertThat(n.at("/accessLog/enabled").asBoolean()).isTrue();
        assertThat(n.at("/limits/maxRequestLine").asInt()).isEqualTo(8192);
        assertThat(n.at("/limits/maxBodyBytes").asLong()).isEqualTo(1L << 30);
        assertThat(n.at("/limits/headerTimeout").asText()).isEqualTo("1m");
        assertThat(n.at("/limits/keepAliveTimeout").asText()).isEqualTo("75s");
        assertThat(n.at("/limits/drainTimeout").asText()).isEqualTo("30s");
        assertThat(n.at("/listeners/0/name").asText()).isEqualTo("http");
        assertThat(n.at("/listeners/0/address").asText()).isEqualTo("0.0.0.0:8080");
        assertThat(n.at("/listeners/0").has("tls")).isFalse();
        assertThat(n.at("/listeners/1/tls/certificates/0/cert").asText()).isEqualTo("/etc/strait/site.crt");
        assertThat(n.at("/listeners/1/tls/certificates/0/key").asText()).isEqualTo("/etc/strait/site.key");
        assertThat(n.at("/admin/address").asText()).isEqualTo("127.0.0.1:9901");
        assertThat(n.at("/upstreams/0/endpoints/0").asText()).isEqualTo("127.0.0.1:3000");
        assertThat(n.at("/upstreams/0/protocol").asText()).isEqualTo("http1");
        assertThat(n.at("/upstreams/0/loadBalancer").asText()).isEqualTo("round-robin");
        assertThat(n.at("/upstreams/0/healthCheck/path").asText()).isEqualTo("/healthz");
        assertThat(n.at("/upstreams/0/healthCheck/interval").asText()).isEqualTo("5s");
        assertThat(n.at("/upstreams/1/endpoints/1").asText()).isEqualTo("[::1]:3002");
        assertThat(n.at("/upstreams/1").has("healthCheck")).isFalse();
        assertThat(n.at("/routes/0/name").asText()).isEqualTo("site");
        assertThat(n.at("/routes/0/hosts/1").asText()).isEqualTo("*.example.com");
        assertThat(n.at("/routes/0/rules/0/matches/0/path/type").asText()).isEqualTo("Exact");
        assertThat(n.at("/routes/0/rules/0/matches/0/path/value").asText()).isEqualTo("/healthz");
        assertThat(n.at("/routes/0/rules/0/respond/status").asInt()).isEqualTo(200);
        assertThat(n.at("/routes/0/rules/0/respond/body").asText()).isEqualTo("ok\n");
        assertThat(n.at("/routes/0/rules/0/respond/headers/content-type").asText()).isEqualTo("text/plain");
        assertThat(n.at("/routes/0/rules/1/files/root").asText()).isEqualTo("/srv/www");
        assertThat(n.at("/routes/0/rules/1/files/index/0").asText()).isEqualTo("index.html");
        assertThat(n.at("/routes/0/rules/1/files/followSymlinks").asBoolean()).isFalse();
        assertThat(n.at("/routes/0/rules/1/files/dotfiles").asText()).isEqualTo("ignore");
        assertThat(n.at("/routes/0/rules/2/matches/0/method").asText()).isEqualTo("GET");
        assertThat(n.at("/routes/0/rules/2/matches/0/headers/0/name").asText()).isEqualTo("x-canary");
        assertThat(n.at("/routes/0/rules/2/matches/0/headers/0/value").asText()).isEqualTo("1");
        assertThat(n.at("/routes/0/rules/2/backends/1/upstream").asText()).isEqualTo("app-v2");
        assertThat(n.at("/routes/0/rules/2/backends/1/weight").asInt()).isEqualTo(10);
        assertThat(n.at("/routes/0/rules/2/cache/enabled").asBoolean()).isTrue();
        assertThat(n.at("/routes/0/rules/2/timeouts/request").asText()).isEqualTo("15s");
        assertThat(n.at("/routes/0/rules/2/retries/attempts").asInt()).isEqualTo(2);
        assertThat(n.at("/routes/0/rules/2/retries/retryOn").toString())
                .isEqualTo("[\"connect-failure\",\"refused-stream\",\"503\"]");
        // a rule has only its one action
        assertThat(n.at("/routes/0/rules/0").has("files")).isFalse();
        assertThat(n.at("/routes/0/rules/0").has("backends")).isFalse();
    }

    @Test
    void anAffinityCookieWritesItsDomainAndSecureOnlyWhenSet() throws Exception {
        JsonNode n = ConfigWriter.toTree(parse(EVERYTHING));
        assertThat(n.at("/upstreams/1/hashOn/setCookie/domain").asText()).isEqualTo(".example.com");
        assertThat(n.at("/upstreams/1/hashOn/setCookie/secure").asBoolean()).isTrue();
        // The defaults are left out, so that configs written before these fields existed keep their version.
        JsonNode plain = ConfigWriter.toTree(parse(LISTENER + "upstreams: [ { name: a, loadBalancer: consistent-hash,"
                + " hashOn: { source: cookie, name: route, setCookie: { secure: false } } } ]\n"));
        assertThat(plain.at("/upstreams/0/hashOn/setCookie").toString()).isEqualTo("{\"path\":\"/\"}");
    }

    /**
     * A key added later is written only when it is not its default: a snapshot from a newer operator then reads the
     * same to a proxy that predates the key (which refuses keys it does not know) unless the key is used.
     */
    @Test
    void newerKeysAreLeftOutAtTheirDefaults() throws Exception {
        JsonNode plain = ConfigWriter.toTree(parse(LISTENER + "tracing: { endpoint: \"http://c:4318\" }\n"
                + "routes: [ { name: r, hosts: [ \"*\" ], rules: [ { respond: {}, compression: {} } ] } ]\n"));
        assertThat(plain.at("/tracing").has("protocol")).isFalse();
        assertThat(plain.at("/routes/0/rules/0/compression").has("codings")).isFalse();
        JsonNode set = ConfigWriter.toTree(parse(LISTENER + "tracing: { endpoint: \"http://c:4318\", protocol: http/json }\n"
                + "routes: [ { name: r, hosts: [ \"*\" ], rules: [ { respond: {}, compression: { codings: [ gzip ] } } ] } ]\n"));
        assertThat(set.at("/tracing/protocol").asText()).isEqualTo("http/json");
        assertThat(set.at("/routes/0/rules/0/compression/codings").toString()).isEqualTo("[\"gzip\"]");
    }

    @Test
    void minimalConfigHasNoAdminAndEmptyLists() throws Exception {
        JsonNode n = ConfigWriter.toTree(parse(MINIMAL));
        assertThat(n.has("admin")).isFalse();
        assertThat(n.get("upstreams").isArray()).isTrue();
        assertThat(n.get("upstreams")).isEmpty();
        assertThat(n.get("routes")).isEmpty();
        assertThat(n.get("workers").asInt()).isZero();
    }

    @Test
    void enumsAreWrittenInConfigSpelling() throws Exception {
        JsonNode n = ConfigWriter.toTree(parse(EVERYTHING));
        assertThat(n.get("transport").asText()).isEqualTo("nio");
        assertThat(n.at("/upstreams/0/protocol").asText()).isEqualTo("h2c");
        assertThat(n.at("/upstreams/0/loadBalancer").asText()).isEqualTo("least-request");
        assertThat(n.at("/upstreams/1/loadBalancer").asText()).isEqualTo("consistent-hash");
        assertThat(n.at("/upstreams/2/protocol").asText()).isEqualTo("fastcgi");
        assertThat(n.at("/routes/0/rules/0/matches/0/path/type").asText()).isEqualTo("RegularExpression");

        Config io = parse(LISTENER + "transport: io_uring\n");
        assertThat(ConfigWriter.toTree(io).get("transport").asText()).isEqualTo("io_uring");
    }

    @Test
    void durationsAreWrittenInTheirShortestForm() throws Exception {
        JsonNode n = ConfigWriter.toTree(parse(EVERYTHING));
        assertThat(n.at("/limits/headerTimeout").asText()).isEqualTo("1500ms");
        assertThat(n.at("/limits/keepAliveTimeout").asText()).isEqualTo("90s");
        assertThat(n.at("/limits/drainTimeout").asText()).isEqualTo("2m");
        assertThat(n.at("/upstreams/0/healthCheck/interval").asText()).isEqualTo("250ms");
        assertThat(n.at("/routes/0/rules/3/timeouts/request").asText()).isEqualTo("1h");
    }

    @Test
    void addressesAreWrittenWithBracketsForIpv6() throws Exception {
        JsonNode n = ConfigWriter.toTree(parse(EVERYTHING));
        assertThat(n.at("/listeners/0/address").asText()).isEqualTo("[::]:8080");
        assertThat(n.at("/listeners/0/maxConnections").asInt()).isEqualTo(500);
        assertThat(n.at("/listeners/1").has("maxConnections")).as("0 is not written").isFalse();
        assertThat(n.at("/admin/address").asText()).isEqualTo("[::1]:9901");
        assertThat(n.at("/upstreams/0/endpoints").toString())
                .isEqualTo("[\"10.0.0.1:80\",\"[fd00::1]:80\",\"svc.ns.svc:8080\"]");
    }

    @Test
    void respondHeadersAreWrittenSortedByName() throws Exception {
        String json = ConfigWriter.toJson(parse(EVERYTHING), false);
        assertThat(json).contains("\"headers\":{\"Content-Type\":\"text/plain\",\"a-a\":\"first\",\"x-z\":\"last\"}");
    }

    @Test
    void hostsAreWrittenLowerCase() throws Exception {
        JsonNode n = ConfigWriter.toTree(parse(EVERYTHING));
        assertThat(n.at("/routes/0/hosts/0").asText()).isEqualTo("example.com");
    }

    @Test
    void ruleWithoutMatchesIsWrittenWithOneEmptyMatch() throws Exception {
        JsonNode n = ConfigWriter.toTree(parse(withRules("{ respond: {} }")));
        assertThat(n.at("/routes/0/rules/0/matches").toString()).isEqualTo("[{}]");
    }

    @Test
    void writerOutputIsTheSameForConfigsBuiltInCode() throws Exception {
        Config built = new Config(0, Config.Transport.AUTO, new Config.AccessLog(true), Limits.DEFAULTS,
                List.of(new Config.Listener("http", new HostPort("0.0.0.0", 8080), null)), null, List.of(),
                List.of(new Route("r", List.of("*"), List.of(new Route.Rule(
                        List.of(new Route.Match(new Route.PathMatch(Route.PathType.Prefix, "/"), null, List.of())),
                        new Route.Respond(204, "", Map.of()), null, null, null)))));
        Config parsed = parse(ConfigWriter.toJson(built, true));
        assertThat(parsed).isEqualTo(built);
        assertThat(ConfigWriter.version(parsed)).isEqualTo(ConfigWriter.version(built));
    }

    // ---- version ----

    @Test
    void versionIsTwelveHexDigits() throws Exception {
        assertThat(ConfigWriter.version(parse(CONTRACT_EXAMPLE))).matches("[0-9a-f]{12}");
        assertThat(ConfigWriter.version(parse(MINIMAL))).matches("[0-9a-f]{12}");
    }

    @Test
    void versionIsStable() throws Exception {
        String v = ConfigWriter.version(parse(CONTRACT_EXAMPLE));
        assertThat(ConfigWriter.version(parse(CONTRACT_EXAMPLE))).isEqualTo(v);
        assertThat(ConfigWriter.version(parse(CONTRACT_EXAMPLE))).isEqualTo(v);
        assertThat(ConfigWriter.version(parse(ConfigWriter.toJson(parse(CONTRACT_EXAMPLE), true)))).isEqualTo(v);
    }

    @Test
    void versionIsTheSha256PrefixOfTheCompactJson() throws Exception {
        Config c = parse(CONTRACT_EXAMPLE);
        byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                .digest(ConfigWriter.toJson(c, false).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(ConfigWriter.version(c)).isEqualTo(java.util.HexFormat.of().formatHex(digest).substring(0, 12));
    }

    @Test
    void versionIgnoresSpellingThatDoesNotChangeTheContent() throws Exception {
        String explicit = """
                workers: 0
                transport: auto
                accessLog: { enabled: true }
                limits: { headerTimeout: 60s, keepAliveTimeout: 75000ms, drainTimeout: 30s, maxBodyBytes: 1073741824 }
                listeners: [ { name: http, address: "0.0.0.0:8080" } ]
                upstreams: []
                routes: []
                """;
        String json = "{\"listeners\":[{\"address\":\"0.0.0.0:8080\",\"name\":\"http\"}]}";
        String v = ConfigWriter.version(parse(MINIMAL));
        assertThat(ConfigWriter.version(parse(explicit))).isEqualTo(v);
        assertThat(ConfigWriter.version(parse(json))).isEqualTo(v);
        assertThat(parse(explicit)).isEqualTo(parse(MINIMAL));
    }

    @Test
    void versionIgnoresRespondHeaderOrderAndHostCase() throws Exception {
        String a = withRules("{ respond: { headers: { a: \"1\", b: \"2\" } } }");
        String b = withRules("{ respond: { headers: { b: \"2\", a: \"1\" } } }");
        assertThat(ConfigWriter.version(parse(a))).isEqualTo(ConfigWriter.version(parse(b)));
        String lower = LISTENER + "routes: [ { name: r, hosts: [ example.com ], rules: [ { respond: {} } ] } ]\n";
        String upper = LISTENER + "routes: [ { name: r, hosts: [ EXAMPLE.COM ], rules: [ { respond: {} } ] } ]\n";
        assertThat(ConfigWriter.version(parse(lower))).isEqualTo(ConfigWriter.version(parse(upper)));
    }

    static Stream<String[]> contentChanges() {
        return Stream.of(
                new String[] {"workers: 2", "workers: 3"},
                new String[] {"accessLog: { enabled: true }", "accessLog: { enabled: false }"},
                new String[] {"address: 0.0.0.0:8443", "address: 0.0.0.0:8444"},
                new String[] {"cert: /etc/strait/site.crt", "cert: /etc/strait/other.crt"},
                new String[] {"admin: { address: 127.0.0.1:9901 }", "admin: { address: 127.0.0.1:9902 }"},
                new String[] {"\"127.0.0.1:3000\"", "\"127.0.0.1:3005\""},
                new String[] {"protocol: http1", "protocol: h2c"},
                new String[] {"loadBalancer: round-robin", "loadBalancer: least-request"},
                new String[] {"interval: 5s", "interval: 6s"},
                new String[] {"\"*.example.com\"", "\"*.example.org\""},
                new String[] {"type: Exact, value: /healthz", "type: Prefix, value: /healthz"},
                new String[] {"body: \"ok\\n\"", "body: \"OK\\n\""},
                new String[] {"content-type: text/plain", "content-type: text/html"},
                new String[] {"status: 200", "status: 201"},
                new String[] {"index: [ index.html ]", "index: [ index.htm ]"},
                new String[] {"method: GET", "method: HEAD"},
                new String[] {"value: \"1\" }", "value: \"2\" }"},
                new String[] {"weight: 90", "weight: 80"},
                new String[] {"cache: { enabled: true }", "cache: { enabled: false }"},
                new String[] {"cache: { enabled: true }", "cache: { enabled: true, defaultTtl: 1s }"},
                new String[] {"cache: { enabled: true }", "cache: { enabled: true, xCacheHeader: true }"},
                new String[] {"request: 15s", "request: 16s"},
                new String[] {"attempts: 2", "attempts: 3"},
                new String[] {"refused-stream, \"503\"", "\"503\", refused-stream"},
                new String[] {"timeouts: { request: 15s }", "timeouts: { request: 15s, idle: 3s }"},
                new String[] {"cache: { enabled: true }", "cache: { enabled: true }\n        hostRewrite: x"},
                new String[] {"loadBalancer: round-robin", "loadBalancer: round-robin\n    panicThreshold: 0"},
                new String[] {"\"127.0.0.1:3000\"", "{ address: \"127.0.0.1:3000\", weight: 2 }"});
    }

    @ParameterizedTest
    @MethodSource("contentChanges")
    void versionChangesWhenContentChanges(String from, String to) throws Exception {
        assertThat(CONTRACT_EXAMPLE).contains(from);
        Config before = parse(CONTRACT_EXAMPLE);
        Config after = parse(CONTRACT_EXAMPLE.replace(from, to));
        assertThat(after).isNotEqualTo(before);
        assertThat(ConfigWriter.version(after)).isNotEqualTo(ConfigWriter.version(before));
    }

    @Test
    void versionChangesWhenOrderChanges() throws Exception {
        // Listener, route and rule order are meaningful (first certificate is the default, rules are tried in order).
        Config c = parse(CONTRACT_EXAMPLE);
        List<Route.Rule> rules = new ArrayList<>(c.routes().get(0).rules());
        java.util.Collections.reverse(rules);
        Config reordered = new Config(c.workers(), c.transport(), c.accessLog(), c.limits(), c.listeners(), c.admin(),
                c.upstreams(), List.of(new Route("site", c.routes().get(0).hosts(), rules)));
        assertThat(ConfigWriter.version(reordered)).isNotEqualTo(ConfigWriter.version(c));
    }

    @Test
    void versionChangesWhenLimitsChange() throws Exception {
        String v = ConfigWriter.version(parse(MINIMAL));
        assertThat(ConfigWriter.version(parse(MINIMAL + "limits: { maxHeaderCount: 99 }\n"))).isNotEqualTo(v);
        assertThat(ConfigWriter.version(parse(MINIMAL + "limits: { drainTimeout: 31s }\n"))).isNotEqualTo(v);
        assertThat(ConfigWriter.version(parse(MINIMAL + "transport: epoll\n"))).isNotEqualTo(v);
        assertThat(ConfigWriter.version(parse(MINIMAL + "cache: { maxBytes: 1 }\n"))).isNotEqualTo(v);
        assertThat(ConfigWriter.version(parse(MINIMAL + "requestBodyFiles: { maxBytes: 0 }\n"))).isNotEqualTo(v);
        // The default store size is not written: configs without a cache keep their version.
        assertThat(ConfigWriter.toJson(parse(MINIMAL), false)).doesNotContain("\"cache\"")
                .doesNotContain("requestBodyFiles");
    }

    @Test
    void adminViewRedactsInlinePrivateKeysAndKeepsKeyFiles() throws Exception {
        String pem = "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n";
        Config c = parse("""
                listeners:
                  - name: https
                    address: "127.0.0.1:8443"
                    tls:
                      certificates:
                        - { cert: /etc/strait/a.crt, key: "%s" }
                        - { cert: /etc/strait/b.crt, key: /etc/strait/b.key }
                upstreams:
                  - name: app
                    endpoints: [ "127.0.0.1:9000" ]
                    tls: { cert: /etc/strait/client.crt, key: "%s" }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                """.formatted(pem, pem));
        String shown = ConfigWriter.toRedactedJson(c);
        assertThat(shown).doesNotContain("PRIVATE KEY").doesNotContain("MIIEvQIBADAN")
                .contains("/etc/strait/b.key").contains("/etc/strait/a.crt");
        assertThat(shown.split("\\[redacted: ", -1)).as("both inline keys").hasSize(3);
        assertThat(ConfigWriter.toJson(c, true)).as("the state directory keeps them").contains("PRIVATE KEY");
    }

    @Test
    void theAdminViewHidesATracingCollectorsKey() throws Exception {
        Config c = ConfigParser.parse("""
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                tracing: { endpoint: "https://api.honeycomb.io", headers: { x-honeycomb-team: hcaik_secret123 } }
                """, "test");
        String shown = ConfigWriter.toRedactedJson(c);
        assertThat(shown).doesNotContain("hcaik_secret123").contains("x-honeycomb-team").contains("[redacted: 15 characters]");
        assertThat(ConfigWriter.toJson(c, true)).contains("hcaik_secret123");
    }
}
