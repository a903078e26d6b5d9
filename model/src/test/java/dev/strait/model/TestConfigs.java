package dev.strait.model;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

/** Shared config texts and helpers for the model tests. */
final class TestConfigs {
    private TestConfigs() {}

    /** The example config from CONTRACT.md, verbatim (plus the upstream {@code app-v2} it refers to). */
    static final String CONTRACT_EXAMPLE = """
            workers: 2                                # event loops; default: one per core
            accessLog: { enabled: true }              # JSON lines on stdout
            listeners:
              - name: http
                address: 0.0.0.0:8080
              - name: https
                address: 0.0.0.0:8443
                tls:
                  certificates:                       # chosen by SNI; the first is the default
                    - { cert: /etc/strait/site.crt, key: /etc/strait/site.key }
            admin: { address: 127.0.0.1:9901 }
            upstreams:
              - name: app
                endpoints: [ "127.0.0.1:3000" ]       # host:port list (the operator fills it from EndpointSlices)
                protocol: http1                       # http1 | h2c | h2 (TLS) | fastcgi
                loadBalancer: round-robin             # round-robin | least-request | consistent-hash
                healthCheck: { path: /healthz, interval: 5s }
              - name: app-v2
                endpoints: [ "127.0.0.1:3001", "[::1]:3002" ]
            routes:
              - name: site
                hosts: [ "example.com", "*.example.com" ]   # "*" = any host
                rules:
                  - matches: [ { path: { type: Exact, value: /healthz } } ]
                    respond: { status: 200, body: "ok\\n", headers: { content-type: text/plain } }
                  - matches: [ { path: { type: Prefix, value: /static/ } } ]
                    files: { root: /srv/www, index: [ index.html ] }
                  - matches: [ { path: { type: Prefix, value: /api/ }, method: GET, headers: [ { name: x-canary, value: "1" } ] } ]
                    backends: [ { upstream: app, weight: 90 }, { upstream: app-v2, weight: 10 } ]
                    cache: { enabled: true }
                    timeouts: { request: 15s }
                    retries: { attempts: 2, retryOn: [ connect-failure, refused-stream, "503" ] }
            """;

    /** The smallest valid config. */
    static final String MINIMAL = """
            listeners:
              - name: http
                address: 0.0.0.0:8080
            """;

    /** One listener, in flow style, to build small configs from. */
    static final String LISTENER = "listeners: [ { name: http, address: \"0.0.0.0:8080\" } ]\n";

    /** One upstream named {@code app}. */
    static final String UPSTREAM = "upstreams: [ { name: app, endpoints: [ \"127.0.0.1:3000\" ] } ]\n";

    /** A valid rule, in flow style. */
    static final String OK_RULE = "{ respond: { status: 200 } }";

    /** A config with one listener, the {@code app} upstream and one route {@code site} with the given rules. */
    static String withRules(String... rules) {
        return LISTENER + UPSTREAM
                + "routes: [ { name: site, hosts: [ \"*\" ], rules: [ " + String.join(", ", rules) + " ] } ]\n";
    }

    /** A config with the listener and upstream plus the given extra top-level text. */
    static String with(String extra) {
        return LISTENER + UPSTREAM + extra;
    }

    static Config parse(String text) throws InvalidConfigException {
        return ConfigParser.parse(text, "test.yaml");
    }

    /** Parses text that must be refused and returns every error. */
    static List<ConfigError> errors(String text) {
        try {
            Config c = ConfigParser.parse(text, "test.yaml");
            throw new AssertionError("expected the config to be refused, but it parsed: " + c + "\n" + text);
        } catch (InvalidConfigException e) {
            return e.errors();
        }
    }

    static void assertRefused(String text) {
        assertThatThrownBy(() -> ConfigParser.parse(text, "test.yaml")).isInstanceOf(InvalidConfigException.class);
    }
}
