package dev.strait.model;

import static dev.strait.model.TestConfigs.LISTENER;
import static dev.strait.model.TestConfigs.errors;
import static dev.strait.model.TestConfigs.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The {@code fastcgi} key of a rule and {@code maxConnections} of an upstream. */
class FastCgiConfigTest {
    /** A php-fpm upstream and an http1 one, plus a route {@code site} with the given rules. */
    static String php(String... rules) {
        return LISTENER + """
                upstreams:
                  - { name: php, protocol: fastcgi, endpoints: [ "127.0.0.1:9000" ] }
                  - { name: app, endpoints: [ "127.0.0.1:3000" ] }
                """ + "routes: [ { name: site, hosts: [ \"*\" ], rules: [ " + String.join(", ", rules) + " ] } ]\n";
    }

    private static Route.Rule firstRule(String text) throws InvalidConfigException {
        return parse(text).routes().get(0).rules().get(0);
    }

    @Test
    void defaults() throws Exception {
        Route.Rule rule = firstRule(php("{ backends: [ { upstream: php } ], fastcgi: { root: /srv/php } }"));
        assertThat(rule.fastcgi()).isEqualTo(new Route.FastCgi("/srv/php", "index.php", "^(.+?\\.php)(/.*)$",
                Map.of(), 1024 * 1024));
        assertThat(parse(php("{ respond: {} }")).upstreams().get(0).maxConnections()).isZero();
    }

    @Test
    void everySetting() throws Exception {
        Config c = parse(php("""
                { backends: [ { upstream: php } ],
                  fastcgi: { root: /var/www, index: app.php, splitPathInfo: "", maxBufferedBody: 0,
                             params: { PHP_VALUE: "memory_limit=64M", APP_ENV: prod } } }""")
                .replace("protocol: fastcgi,", "protocol: fastcgi, maxConnections: 2,"));
        assertThat(c.upstreams().get(0).maxConnections()).isEqualTo(2);
        assertThat(c.routes().get(0).rules().get(0).fastcgi()).isEqualTo(new Route.FastCgi("/var/www", "app.php", "",
                Map.of("PHP_VALUE", "memory_limit=64M", "APP_ENV", "prod"), 0));
    }

    @Test
    void otherRulesHaveNone() throws Exception {
        assertThat(firstRule(php("{ respond: {} }")).fastcgi()).isNull();
        assertThat(firstRule(php("{ backends: [ { upstream: app } ] }")).fastcgi()).isNull();
    }

    @Test
    void writtenAndReadBack() throws Exception {
        Config c = parse(php("""
                { backends: [ { upstream: php } ],
                  fastcgi: { root: /var/www, params: { B: "2", A: "1" } } }""")
                .replace("protocol: fastcgi,", "protocol: fastcgi, maxConnections: 3,"));
        JsonNode n = ConfigWriter.toTree(c);
        assertThat(n.at("/upstreams/0/maxConnections").asInt()).isEqualTo(3);
        assertThat(n.at("/upstreams/1").has("maxConnections")).as("written only when set").isFalse();
        assertThat(n.at("/routes/0/rules/0/fastcgi").toString()).isEqualTo("{\"root\":\"/var/www\",\"index\":\"index.php\","
                + "\"splitPathInfo\":\"^(.+?\\\\.php)(/.*)$\",\"maxBufferedBody\":1048576,\"params\":{\"A\":\"1\",\"B\":\"2\"}}");
        assertThat(parse(ConfigWriter.toJson(c, true))).isEqualTo(c);
    }

    @Test
    void aUnixSocketEndpointIsReadWrittenAndReadBack() throws Exception {
        Config c = parse(php("{ backends: [ { upstream: php } ], fastcgi: { root: /srv } }")
                .replace("\"127.0.0.1:9000\"", "\"unix:/run/php/php8.2-fpm.sock\", { address: \"unix:/tmp/b.sock\", weight: 2 }"));
        Upstream php = c.upstreams().get(0);
        assertThat(php.endpoints()).containsExactly(new HostPort("/run/php/php8.2-fpm.sock", 0), new HostPort("/tmp/b.sock", 0));
        assertThat(php.endpoints()).allMatch(HostPort::isUnixSocket);
        assertThat(php.weight(new HostPort("/tmp/b.sock", 0))).isEqualTo(2);
        JsonNode n = ConfigWriter.toTree(c);
        assertThat(n.at("/upstreams/0/endpoints/0").asText()).isEqualTo("unix:/run/php/php8.2-fpm.sock");
        assertThat(parse(ConfigWriter.toJson(c, true))).isEqualTo(c);
    }

    @Test
    void configsWithoutTheNewKeysKeepTheirVersion() throws Exception {
        // The writer adds nothing for upstreams and rules that do not use FastCGI settings.
        JsonNode n = ConfigWriter.toTree(parse(php("{ backends: [ { upstream: app } ] }")));
        assertThat(n.at("/routes/0/rules/0").has("fastcgi")).isFalse();
        assertThat(n.at("/upstreams/1").has("maxConnections")).isFalse();
    }

    @Test
    void modelBuiltWithoutTheNewFieldsHasNone() {
        Route.Rule rule = new Route.Rule(List.of(), new Route.Respond(200, "", Map.of()), null, null, null);
        assertThat(rule.fastcgi()).isNull();
        Upstream u = new Upstream("u", List.of(), Upstream.Protocol.FASTCGI, Upstream.LoadBalancer.ROUND_ROBIN, null);
        assertThat(u.maxConnections()).isZero();
    }

    static Stream<Arguments> refused() {
        String ok = "backends: [ { upstream: php } ]";
        return Stream.of(
                arguments("fastcgi upstream without fastcgi settings", php("{ " + ok + " }"),
                        "routes[0].rules[0].fastcgi", "is required when backends name a fastcgi upstream (\"php\")"),
                arguments("fastcgi settings on an http1 rule",
                        php("{ backends: [ { upstream: app } ], fastcgi: { root: /srv } }"),
                        "routes[0].rules[0].fastcgi", "applies only to a rule whose backends name fastcgi upstreams"),
                arguments("fastcgi settings on a respond rule", php("{ respond: {}, fastcgi: { root: /srv } }"),
                        "routes[0].rules[0].fastcgi", "applies only to a rule whose backends name fastcgi upstreams"),
                arguments("fastcgi mixed with http1",
                        php("{ backends: [ { upstream: php }, { upstream: app } ], fastcgi: { root: /srv } }"),
                        "routes[0].rules[0].backends", "mixes the fastcgi upstream \"php\" with \"app\""),
                arguments("not a mapping", php("{ " + ok + ", fastcgi: /srv }"), "routes[0].rules[0].fastcgi",
                        "must be a mapping"),
                arguments("unknown field", php("{ " + ok + ", fastcgi: { root: /srv, pass: x } }"),
                        "routes[0].rules[0].fastcgi.pass",
                        "unknown field (expected one of root, index, splitPathInfo, params, maxBufferedBody)"),
                arguments("no root", php("{ " + ok + ", fastcgi: { index: a.php } }"),
                        "routes[0].rules[0].fastcgi.root", "is required"),
                arguments("relative root", php("{ " + ok + ", fastcgi: { root: www } }"),
                        "routes[0].rules[0].fastcgi.root", "must be an absolute path (as the FastCGI server sees it)"),
                arguments("index with a slash", php("{ " + ok + ", fastcgi: { root: /srv, index: a/b.php } }"),
                        "routes[0].rules[0].fastcgi.index", "must be a file name, got \"a/b.php\""),
                arguments("index ..", php("{ " + ok + ", fastcgi: { root: /srv, index: \"..\" } }"),
                        "routes[0].rules[0].fastcgi.index", "must be a file name"),
                arguments("split not a regex", php("{ " + ok + ", fastcgi: { root: /srv, splitPathInfo: \"(a\" } }"),
                        "routes[0].rules[0].fastcgi.splitPathInfo", "not a valid regular expression"),
                arguments("split with one group",
                        php("{ " + ok + ", fastcgi: { root: /srv, splitPathInfo: \"^(.+\\\\.php).*$\" } }"),
                        "routes[0].rules[0].fastcgi.splitPathInfo",
                        "must have two capture groups (script name, path info), has 1"),
                arguments("params a list", php("{ " + ok + ", fastcgi: { root: /srv, params: [ A ] } }"),
                        "routes[0].rules[0].fastcgi.params", "must be a mapping"),
                arguments("param name with a dash", php("{ " + ok + ", fastcgi: { root: /srv, params: { X-A: b } } }"),
                        "routes[0].rules[0].fastcgi.params.X-A", "is not a CGI param name"),
                arguments("param value a mapping",
                        php("{ " + ok + ", fastcgi: { root: /srv, params: { A: { b: c } } } }"),
                        "routes[0].rules[0].fastcgi.params.A", "must be a string"),
                arguments("param value with a newline",
                        php("{ " + ok + ", fastcgi: { root: /srv, params: { A: \"a\\nb\" } } }"),
                        "routes[0].rules[0].fastcgi.params.A", "contains control characters"),
                arguments("maxBufferedBody negative",
                        php("{ " + ok + ", fastcgi: { root: /srv, maxBufferedBody: -1 } }"),
                        "routes[0].rules[0].fastcgi.maxBufferedBody", "must be a whole number of bytes"),
                arguments("TLS to a unix socket", php("{ respond: {} }").replace("\"127.0.0.1:3000\" ]",
                        "\"unix:/run/app.sock\" ], tls: { verify: false }"), "upstreams[1].tls",
                        "TLS is not spoken over unix socket endpoints (leave tls out)"),
                arguments("h2 to a unix socket", php("{ respond: {} }").replace("\"127.0.0.1:3000\" ]",
                        "\"unix:/run/app.sock\" ], protocol: h2"), "upstreams[1].protocol",
                        "TLS is not spoken over unix socket endpoints (h2 is HTTP/2 over TLS; use h2c)"),
                arguments("a unix socket with a relative path", php("{ respond: {} }").replace("\"127.0.0.1:9000\"",
                        "\"unix:run/php.sock\""), "upstreams[0].endpoints[0]",
                        "a unix socket is an absolute file path (unix:/run/app.sock), got \"unix:run/php.sock\""),
                arguments("a unix socket path too long", php("{ respond: {} }").replace("\"127.0.0.1:9000\"",
                        "\"unix:/" + "s".repeat(107) + "\""), "upstreams[0].endpoints[0]",
                        "a unix socket's path holds at most 107 bytes, got 108"),
                arguments("a unix socket as a weighted endpoint, refusing local addresses", php("{ respond: {} }")
                        .replace("\"127.0.0.1:9000\" ]", "{ address: \"unix:/run/php.sock\" } ], refuseLocalAddresses: true"),
                        "upstreams[0].refuseLocalAddresses", "a unix socket endpoint is a local address"),
                arguments("a unix socket as a listener", php("{ respond: {} }").replace("0.0.0.0:8080",
                        "unix:/run/strait.sock"), "listeners[0].address",
                        "must be host:port (unix sockets are for upstreams' endpoints)"),
                arguments("maxConnections zero", php("{ respond: {} }").replace("protocol: fastcgi,",
                        "protocol: fastcgi, maxConnections: 0,"), "upstreams[0].maxConnections",
                        "must be a whole number 1..100000, got 0"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusedNamingTheField(String what, String text, String path, String message) {
        assertThat(errors(text)).as("errors for %s", what).anySatisfy(e -> {
            assertThat(e.path()).isEqualTo(path);
            assertThat(e.message()).contains(message);
        });
    }

    @Test
    void oneMistakeOneError() {
        assertThat(errors(php("{ backends: [ { upstream: php } ], fastcgi: { root: www } }"))).hasSize(1);
    }
}
