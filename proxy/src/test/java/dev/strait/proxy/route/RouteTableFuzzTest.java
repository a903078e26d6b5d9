package dev.strait.proxy.route;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.strait.model.Config;
import dev.strait.model.PathNormalizer;
import dev.strait.model.Route;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.testing.TestServing;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The indexed route table against a plain reading of the precedence rules in docs/config.md, on
 * requests made from pieces that hit the table's edges (element boundaries, trailing slashes, wildcard
 * depths, method and header conditions): both must choose the same rule, or both none. Paths go
 * through the normaliser first, which must be idempotent.
 */
class RouteTableFuzzTest {
    private static final Snapshot SNAPSHOT = TestServing.snapshot("""
            listeners: [ { name: http, address: "127.0.0.1:0" } ]
            routes:
              - name: a
                hosts: [ example.com, "*.example.com" ]
                rules:
                  - matches: [ { path: { type: Exact, value: /healthz } } ]
                    respond: { body: a0 }
                  - matches: [ { path: { type: Exact, value: /healthz }, method: POST } ]
                    respond: { body: a1 }
                  - matches: [ { path: { type: Prefix, value: /api } } ]
                    respond: { body: a2 }
                  - matches: [ { path: { type: Prefix, value: /api/v1 }, headers: [ { name: x-v, value: "1" } ] } ]
                    respond: { body: a3 }
                  - matches: [ { path: { type: Prefix, value: /static/ } }, { path: { type: Exact, value: /s } } ]
                    respond: { body: a4 }
                  - matches: [ { path: { type: RegularExpression, value: "/img/.*\\\\.png" } } ]
                    respond: { body: a5 }
                  - matches: [ { path: { type: RegularExpression, value: "/img/.*" }, method: GET } ]
                    respond: { body: a6 }
                  - matches: [ { path: { type: Prefix, value: / }, method: DELETE } ]
                    respond: { body: a7 }
              - name: b
                hosts: [ "*.b.example.com", exact.example.com ]
                rules:
                  - matches: [ { path: { type: Exact, value: /x } } ]
                    respond: { body: b0 }
                  - respond: { body: b1 }
              - name: c
                hosts: [ "*" ]
                rules:
                  - matches: [ { path: { type: RegularExpression, value: ".*\\\\.php" } } ]
                    respond: { body: c0 }
                  - matches: [ { path: { type: Prefix, value: /other } } ]
                    respond: { body: c1 }
              - name: d
                hosts: [ example.com ]
                rules:
                  - matches: [ { path: { type: Exact, value: /d } } ]
                    respond: { body: d0 }
                  - matches: [ { path: { type: Prefix, value: /api }, headers: [ { name: x-v, value: "2" } ] } ]
                    respond: { body: d1 }
                  - matches: [ { path: { type: Prefix, value: /api }, method: GET, headers: [ { name: x-v, value: "2" } ] } ]
                    respond: { body: d2 }
            """);

    private static final String[] HOSTS = {"example.com", "a.example.com", "a.b.example.com", "x.y.b.example.com",
            "b.example.com", "exact.example.com", "other.org", "", "com", "example.com.evil"};
    private static final String[] PIECES = {"", "api", "v1", "healthz", "static", "img", "a.png", "x", "d", "s",
            "other", "index.php", ".", "..", "%61pi", "%2F", "api%2Fv1", "V1"};
    private static final HttpMethod[] METHODS = {HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.DELETE,
            HttpMethod.PUT};

    @FuzzTest(maxDuration = "1m")
    void indexedLookupAgreesWithThePlainReading(FuzzedDataProvider data) {
        String host = data.consumeBoolean() ? data.pickValue(HOSTS) : data.consumeString(12).toLowerCase();
        StringBuilder raw = new StringBuilder();
        int n = data.consumeInt(0, 4);
        for (int i = 0; i < n; i++) {
            raw.append('/').append(data.consumeBoolean() ? data.pickValue(PIECES) : data.consumeString(6));
        }
        if (raw.isEmpty() || data.consumeBoolean()) {
            raw.append('/');
        }
        HttpMethod method = data.pickValue(METHODS);
        HttpHeaders headers = new DefaultHttpHeaders(false);
        if (data.consumeBoolean()) {
            headers.add(data.consumeBoolean() ? "X-V" : "x-v", data.consumeBoolean() ? "1" : "2");
        }
        String path = PathNormalizer.normalize(raw.toString());
        if (path == null) {
            return; // refused with 400 before routing
        }
        assertThat(PathNormalizer.normalize(path)).as("normalising twice").isEqualTo(path);

        CompiledRule got = SNAPSHOT.table().find(host, path, method, headers);
        Choice want = reference(SNAPSHOT.config(), host, path, method, headers);
        String g = got == null ? "404" : got.route() + "#" + got.index();
        String w = want == null ? "404" : want.route + "#" + want.rule;
        assertThat(g).as("%s %s%s", method, host, path).isEqualTo(w);
    }

    private record Choice(String route, int rule, int kind, int prefixLength, boolean hasMethod, int headerCount,
                          int order) {}

    /** docs/config.md "Which rule answers", read literally, by scanning every rule. */
    private static Choice reference(Config config, String host, String path, HttpMethod method, HttpHeaders headers) {
        List<Route> routes = routesFor(config, host);
        List<Choice> fits = new ArrayList<>();
        int order = 0;
        for (Route r : routes) {
            for (int i = 0; i < r.rules().size(); i++) {
                for (Route.Match m : r.rules().get(i).matches()) {
                    order++;
                    if (!accepts(m, method, headers)) {
                        continue;
                    }
                    Route.PathMatch p = m.path() == null ? new Route.PathMatch(Route.PathType.Prefix, "/") : m.path();
                    String v = p.value();
                    boolean hasMethod = m.method() != null;
                    int hc = m.headers().size();
                    switch (p.type()) {
                        case Exact -> {
                            if (v.equals(path)) {
                                fits.add(new Choice(r.name(), i, 0, 0, hasMethod, hc, order));
                            }
                        }
                        case Prefix -> {
                            String pre = v.length() > 1 && v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
                            if (pre.equals("/") || path.equals(pre) || path.startsWith(pre + "/")) {
                                fits.add(new Choice(r.name(), i, 1, pre.equals("/") ? 0 : pre.length(), hasMethod, hc, order));
                            }
                        }
                        case RegularExpression -> {
                            if (path.matches(v)) {
                                fits.add(new Choice(r.name(), i, 2, 0, false, 0, order));
                            }
                        }
                    }
                }
            }
        }
        return fits.stream().min(Comparator.comparingInt(Choice::kind)
                .thenComparing(Comparator.comparingInt(Choice::prefixLength).reversed())
                .thenComparing(c -> c.kind == 2 ? 0 : c.hasMethod ? 0 : 1)
                .thenComparing(Comparator.comparingInt((Choice c) -> c.kind == 2 ? 0 : c.headerCount).reversed())
                .thenComparingInt(Choice::order)).orElse(null);
    }

    private static List<Route> routesFor(Config config, String host) {
        List<Route> exact = config.routes().stream().filter(r -> r.hosts().contains(host)).toList();
        if (!exact.isEmpty()) {
            return exact;
        }
        String best = null;
        for (Route r : config.routes()) {
            for (String h : r.hosts()) {
                if (h.startsWith("*.") && host.endsWith(h.substring(1)) && (best == null || h.length() > best.length())) {
                    best = h;
                }
            }
        }
        String chosen = best == null ? "*" : best;
        return config.routes().stream().filter(r -> r.hosts().contains(chosen)).toList();
    }

    private static boolean accepts(Route.Match m, HttpMethod method, HttpHeaders headers) {
        if (m.method() != null && !m.method().equals(method.name())
                && !(m.method().equals("GET") && method == HttpMethod.HEAD)) {
            return false;
        }
        for (Route.HeaderMatch h : m.headers()) {
            if (!h.value().equals(headers.get(h.name()))) {
                return false;
            }
        }
        return true;
    }
}
