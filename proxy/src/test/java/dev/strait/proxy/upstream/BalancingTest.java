package dev.strait.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Choosing endpoints and upstreams: round-robin (weighted), least-request, consistent hash, traffic split. */
class BalancingTest {
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private List<TestUpstream> upstreams(int n) throws Exception {
        List<TestUpstream> out = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(h.upstream("u" + i, TestUpstream.name()));
        }
        return out;
    }

    /** The upstreams' addresses as a YAML flow list's items: {@code "127.0.0.1:1", "127.0.0.1:2"}. */
    private static String endpoints(List<TestUpstream> ups) {
        return String.join(", ", ups.stream().map(u -> "\"" + u.endpoint() + "\"").toList());
    }

    private static String config(String upstreamBody, String backends) {
        return """
                workers: 1
                upstreams:
                %s
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: %s
                """.formatted(upstreamBody, backends);
    }

    private Map<String, Integer> count(int requests, String... headerLines) throws Exception {
        return count(java.util.Collections.nCopies(requests, "/b"), headerLines);
    }

    /** Which endpoint answered how many of the requests for {@code targets}, one request per target. */
    private Map<String, Integer> count(List<String> targets, String... headerLines) throws Exception {
        Map<String, Integer> counts = new HashMap<>();
        RawClient c = h.client();
        for (String target : targets) {
            StringBuilder sb = new StringBuilder("GET " + target + " HTTP/1.1\r\nHost: a\r\n");
            for (String l : headerLines) {
                sb.append(l).append("\r\n");
            }
            RawClient.Response r = c.send(sb.append("\r\n").toString()).read();
            assertThat(r.status()).isEqualTo(200);
            counts.merge(r.text(), 1, Integer::sum);
        }
        return counts;
    }

    @Test
    void roundRobinTakesTurns() throws Exception {
        List<TestUpstream> ups = upstreams(3);
        h.start(config("  - { name: app, endpoints: [ \"%s\", \"%s\", \"%s\" ] }".formatted(
                ups.get(0).endpoint(), ups.get(1).endpoint(), ups.get(2).endpoint()), "[ { upstream: app } ]"));
        assertThat(count(30)).containsExactlyInAnyOrderEntriesOf(Map.of("u0", 10, "u1", 10, "u2", 10));
    }

    @Test
    void weightedRoundRobinFollowsTheWeights() throws Exception {
        List<TestUpstream> ups = upstreams(3);
        h.start(config("""
                  - name: app
                    endpoints: [ "%s", { address: "%s", weight: 3 }, { address: "%s", weight: 0 } ]
                """.formatted(ups.get(0).endpoint(), ups.get(1).endpoint(), ups.get(2).endpoint()),
                "[ { upstream: app } ]"));
        assertThat(count(40)).containsExactlyInAnyOrderEntriesOf(Map.of("u0", 10, "u1", 30));
    }

    @Test
    void leastRequestAvoidsTheBusyEndpoint() throws Exception {
        // u0 holds its requests until released; u1 answers at once. With u0 busy, new requests go to u1.
        CountDownLatch release = new CountDownLatch(1);
        TestUpstream slow = h.upstream("u0", (ctx, req, u) -> new Thread(() -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ctx.writeAndFlush(TestUpstream.response(200, "u0"));
        }).start());
        TestUpstream fast = h.upstream("u1", TestUpstream.name());
        h.start(config("  - { name: app, loadBalancer: least-request, endpoints: [ \"%s\", \"%s\" ] }".formatted(
                slow.endpoint(), fast.endpoint()), "[ { upstream: app } ]"));
        // Park a request on the slow endpoint (each try on its own client connection; the fast one answers at once).
        List<RawClient> parked = new java.util.ArrayList<>();
        for (int i = 0; i < 20 && slow.requests() < 1; i++) {
            RawClient c = h.add(new RawClient(h.address()));
            c.send("GET /park HTTP/1.1\r\nHost: a\r\n\r\n");
            parked.add(c);
            org.awaitility.Awaitility.await().until(() -> slow.requests() + fast.requests() >= parked.size());
        }
        assertThat(slow.requests()).isEqualTo(1);
        Map<String, Integer> counts = count(20);
        assertThat(counts.getOrDefault("u1", 0)).as("two choices: the idle endpoint always wins").isEqualTo(20);
        release.countDown();
    }

    @Test
    void consistentHashKeepsAKeyOnOneEndpoint() throws Exception {
        List<TestUpstream> ups = upstreams(4);
        h.start(config("""
                  - name: app
                    loadBalancer: consistent-hash
                    hashOn: { source: header, name: x-user }
                    endpoints: [ "%s", "%s", "%s", "%s" ]
                """.formatted(ups.get(0).endpoint(), ups.get(1).endpoint(), ups.get(2).endpoint(),
                ups.get(3).endpoint()), "[ { upstream: app } ]"));
        Map<String, String> owner = new HashMap<>();
        for (int user = 0; user < 40; user++) {
            Map<String, Integer> counts = count(3, "X-User: user-" + user);
            assertThat(counts).as("user-%d sticks to one endpoint", user).hasSize(1);
            owner.put("user-" + user, counts.keySet().iterator().next());
        }
        assertThat(new java.util.HashSet<>(owner.values())).as("keys spread over the endpoints").hasSizeGreaterThanOrEqualTo(3);
    }

    @Test
    void consistentHashOnACookieAndOnTheClientAddress() throws Exception {
        List<TestUpstream> ups = upstreams(3);
        String eps = endpoints(ups);
        h.start(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: sid },"
                + " endpoints: [ " + eps + " ] }", "[ { upstream: app } ]"));
        for (int s = 0; s < 10; s++) {
            assertThat(count(3, "Cookie: theme=dark; sid=s" + s + "; x=1")).hasSize(1);
        }
        h.reload(config("  - { name: app, loadBalancer: consistent-hash, endpoints: [ " + eps + " ] }",
                "[ { upstream: app } ]"));
        assertThat(count(9)).as("every request from 127.0.0.1 goes to one endpoint").hasSize(1);
    }

    /** ingress-nginx's upstream-hash-by: $request_uri, $uri and $arg_NAME, as a cache in front of sharded endpoints uses. */
    @Test
    void consistentHashOnTheRequestTargetThePathOrAQueryParameter() throws Exception {
        List<TestUpstream> ups = upstreams(4);
        String eps = endpoints(ups);
        h.start(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: uri }, endpoints: [ " + eps
                + " ] }", "[ { upstream: app } ]"));
        java.util.Set<String> owners = new java.util.HashSet<>();
        for (int i = 0; i < 40; i++) {
            String target = "/b/item-" + i + "?v=1";
            Map<String, Integer> counts = count(List.of(target, target, "http://a" + target));
            assertThat(counts).as("%s, also in absolute form, goes to one endpoint", target).hasSize(1);
            owners.addAll(counts.keySet());
        }
        assertThat(owners).as("targets spread over the endpoints").hasSizeGreaterThanOrEqualTo(3);
        assertThat(count(List.of("/b/x?v=1", "/b/x?v=2", "/b/x?v=3", "/b/x?v=4", "/b/x?v=5", "/b/x?v=6")))
                .as("the query is part of the key").hasSizeGreaterThan(1);

        h.reload(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: path }, endpoints: [ " + eps
                + " ] }", "[ { upstream: app } ]"));
        owners.clear();
        for (int i = 0; i < 40; i++) {
            Map<String, Integer> counts = count(List.of("/b/item-" + i + "?v=1", "/b/item-" + i + "?v=2",
                    "/b/./item-" + i));
            assertThat(counts).as("/b/item-%d goes to one endpoint whatever its query", i).hasSize(1);
            owners.addAll(counts.keySet());
        }
        assertThat(owners).hasSizeGreaterThanOrEqualTo(3);

        h.reload(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: query, name: tenant },"
                + " endpoints: [ " + eps + " ] }", "[ { upstream: app } ]"));
        owners.clear();
        for (int t = 0; t < 40; t++) {
            Map<String, Integer> counts = count(List.of("/b?tenant=t" + t, "/b/other?x=1&tenant=t" + t + "&y=2",
                    "/b?tenants=z&tenant=t" + t));
            assertThat(counts).as("tenant t%d goes to one endpoint", t).hasSize(1);
            owners.addAll(counts.keySet());
        }
        assertThat(owners).hasSizeGreaterThanOrEqualTo(3);
        assertThat(count(List.of("/b?a=1", "/b?a=2", "/b?xtenant=1", "/b?xtenant=2", "/b", "/c")))
                .as("without the parameter, the client's address (127.0.0.1)").hasSize(1);
    }

    /** hashOn.also: several parts of the request in one key, as ingress-nginx's upstream-hash-by "$uri$http_x_tenant". */
    @Test
    void consistentHashOnSeveralPartsOfTheRequest() throws Exception {
        List<TestUpstream> ups = upstreams(4);
        String eps = endpoints(ups);
        h.start(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: path, also: [ { source: header,"
                + " name: x-tenant } ] }, endpoints: [ " + eps + " ] }", "[ { upstream: app } ]"));
        java.util.Set<String> byTenant = new java.util.HashSet<>();
        java.util.Set<String> byPath = new java.util.HashSet<>();
        for (int i = 0; i < 40; i++) {
            Map<String, Integer> counts = count(List.of("/b/item?v=" + i, "/b/./item"), "X-Tenant: t" + i);
            assertThat(counts).as("one path and tenant %d go to one endpoint", i).hasSize(1);
            byTenant.addAll(counts.keySet());
            Map<String, Integer> paths = count(List.of("/b/item-" + i, "/b/item-" + i + "?v=2"), "X-Tenant: t0");
            assertThat(paths).hasSize(1);
            byPath.addAll(paths.keySet());
        }
        assertThat(byTenant).as("the tenant is part of the key").hasSizeGreaterThanOrEqualTo(3);
        assertThat(byPath).as("and so is the path").hasSizeGreaterThanOrEqualTo(3);
        // Without the header, the path alone still spreads the requests (a missing part is empty, not the address).
        java.util.Set<String> noHeader = new java.util.HashSet<>();
        for (int i = 0; i < 40; i++) {
            noHeader.addAll(count(List.of("/b/item-" + i)).keySet());
        }
        assertThat(noHeader).hasSizeGreaterThanOrEqualTo(3);

        // Every part missing: the client's address.
        h.reload(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: header, name: x-a, also: ["
                + " { source: query, name: b } ] }, endpoints: [ " + eps + " ] }", "[ { upstream: app } ]"));
        assertThat(count(List.of("/1", "/2", "/3", "/4", "/5", "/6", "/7", "/8"))).as("127.0.0.1's endpoint").hasSize(1);
    }

    /** hashOn.setCookie: sticky sessions as ingress-nginx's affinity: cookie, each new client its own key. */
    @Test
    void anAffinityCookieIsSetOnceAndKeepsTheBrowserOnItsEndpoint() throws Exception {
        List<TestUpstream> ups = upstreams(3);
        String eps = endpoints(ups);
        h.start(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route,"
                + " setCookie: { path: /shop, maxAge: 1h } }, endpoints: [ " + eps + " ] }", "[ { upstream: app } ]"));
        java.util.Set<String> firstEndpoints = new java.util.HashSet<>();
        java.util.Set<String> keys = new java.util.HashSet<>();
        try (RawClient c = h.client()) {
            for (int browser = 0; browser < 30; browser++) {
                RawClient.Response first = c.send("GET /shop HTTP/1.1\r\nHost: a\r\nCookie: theme=dark\r\n\r\n").read();
                assertThat(first.status()).isEqualTo(200);
                String set = first.header("set-cookie");
                assertThat(set).matches("route=[0-9a-f]{16}; Path=/shop; Max-Age=3600; HttpOnly");
                String key = set.substring("route=".length(), set.indexOf(';'));
                keys.add(key);
                firstEndpoints.add(first.text());
                for (int i = 0; i < 3; i++) {
                    RawClient.Response again = c.send("GET /shop/cart HTTP/1.1\r\nHost: a\r\nCookie: theme=dark; route="
                            + key + "\r\n\r\n").read();
                    assertThat(again.text()).as("browser %d stays where its first request went", browser)
                            .isEqualTo(first.text());
                    assertThat(again.header("set-cookie")).as("set once").isNull();
                }
            }
        }
        assertThat(keys).as("each new browser its own key").hasSize(30);
        assertThat(firstEndpoints).as("new browsers spread over the endpoints, not all on one client address")
                .hasSize(3);

        // SameSite as asked; None only where the cookie is Secure (https), as browsers drop it otherwise.
        h.reload(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route,"
                + " setCookie: { sameSite: Strict } }, endpoints: [ " + eps + " ] }", "[ { upstream: app } ]"));
        assertThat(h.get("/shop").header("set-cookie")).matches("route=[0-9a-f]{16}; Path=/; HttpOnly; SameSite=Strict");
        h.reload(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route,"
                + " setCookie: { sameSite: None } }, endpoints: [ " + eps + " ] }", "[ { upstream: app } ]"));
        assertThat(h.get("/shop").header("set-cookie")).matches("route=[0-9a-f]{16}; Path=/; HttpOnly");
        assertThat(h.get("/shop", "X-Forwarded-Proto: https").header("set-cookie")).as("not a trusted peer: still http")
                .doesNotContain("SameSite");
        // Behind a load balancer that ended TLS (a trusted peer): https, so Secure and SameSite=None.
        h.reload("forwardedHeaders: { trustedPeers: [ 127.0.0.1/32 ] }\n" + config("  - { name: app, loadBalancer:"
                + " consistent-hash, hashOn: { source: cookie, name: route, setCookie: { sameSite: None } }, endpoints: [ "
                + eps + " ] }", "[ { upstream: app } ]"));
        assertThat(h.get("/shop", "X-Forwarded-Proto: https").header("set-cookie"))
                .matches("route=[0-9a-f]{16}; Path=/; HttpOnly; Secure; SameSite=None");
    }

    /**
     * setCookie.domain and .secure (ingress-nginx's session-cookie-domain and session-cookie-secure): the cookie goes
     * to the subdomains too, and is Secure (so SameSite=None may go with it) even when the request came over plain
     * http, as behind a load balancer that ended TLS but is not a trusted peer.
     */
    @Test
    void anAffinityCookieMayNameItsDomainAndBeSecureOverPlainHttp() throws Exception {
        List<TestUpstream> ups = upstreams(3);
        String eps = endpoints(ups);
        h.start(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route,"
                + " setCookie: { maxAge: 1h, sameSite: None, domain: .example.com, secure: true } }, endpoints: [ " + eps
                + " ] }", "[ { upstream: app } ]"));
        try (RawClient c = h.client()) {
            RawClient.Response first = c.send("GET /shop HTTP/1.1\r\nHost: a\r\n\r\n").read();
            String set = first.header("set-cookie");
            assertThat(set).as("plain http, Secure all the same")
                    .matches("route=[0-9a-f]{16}; Path=/; Domain=\\.example\\.com; Max-Age=3600; HttpOnly; Secure;"
                            + " SameSite=None");
            String key = set.substring("route=".length(), set.indexOf(';'));
            RawClient.Response again = c.send("GET /shop HTTP/1.1\r\nHost: a\r\nCookie: route=" + key + "\r\n\r\n")
                    .read();
            assertThat(again.text()).isEqualTo(first.text());
            assertThat(again.header("set-cookie")).isNull();
        }

        // Without secure: a Domain, and Secure (with SameSite=None) on https only, as before.
        h.reload(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route,"
                + " setCookie: { sameSite: None, domain: example.com } }, endpoints: [ " + eps + " ] }",
                "[ { upstream: app } ]"));
        assertThat(h.get("/shop").header("set-cookie")).matches("route=[0-9a-f]{16}; Path=/; Domain=example\\.com; HttpOnly");
    }

    /**
     * changeOnFailure (ingress-nginx's session-cookie-change-on-failure): a browser whose endpoint is down is served
     * by another and handed a key for that one (persistent: a cookie naming it); without it, it keeps its key (and
     * goes back once its own is up).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"balanced", "persistent"})
    void aBrowserWhoseEndpointFailedGetsAKeyForTheOneThatServedIt(String mode) throws Exception {
        List<TestUpstream> ups = upstreams(3);
        String eps = endpoints(ups);
        h.start(config("  - { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route,"
                + " setCookie: { changeOnFailure: true, mode: " + mode + " } }, endpoints: [ " + eps + " ] }",
                "[ { upstream: app } ]"));
        try (RawClient c = h.client()) {
            RawClient.Response first = c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
            String key = first.header("set-cookie").substring("route=".length(), first.header("set-cookie").indexOf(';'));
            String home = first.text();
            ups.stream().filter(u -> home.equals(u.name)).findFirst().orElseThrow().close();
            RawClient.Response moved = c.send("GET / HTTP/1.1\r\nHost: a\r\nCookie: route=" + key + "\r\n\r\n").read();
            assertThat(moved.status()).isEqualTo(200);
            assertThat(moved.text()).isNotEqualTo(home);
            String set = moved.header("set-cookie");
            assertThat(set).as("a key for where it was served").matches("route=[0-9a-f]{16}; Path=/; HttpOnly");
            String newKey = set.substring("route=".length(), set.indexOf(';'));
            if (mode.equals("persistent")) {
                TestUpstream served = ups.stream().filter(u -> moved.text().equals(u.name)).findFirst().orElseThrow();
                assertThat(newKey).as("names the endpoint that served").isEqualTo(EndpointKeys.key("app", served.endpoint()));
            }
            for (int i = 0; i < 3; i++) {
                RawClient.Response again = c.send("GET / HTTP/1.1\r\nHost: a\r\nCookie: route=" + newKey + "\r\n\r\n")
                        .read();
                assertThat(again.text()).isEqualTo(moved.text());
                assertThat(again.header("set-cookie")).as("at home again: nothing to change").isNull();
            }
        }
    }

    /**
     * setCookie.mode: persistent (ingress-nginx's affinity-mode: persistent): the cookie names the endpoint that served,
     * so a browser keeps it when endpoints are added (where a balanced key moves about half of them from 3 to 6), and
     * gets a new cookie only when its endpoint leaves the upstream.
     */
    @Test
    void aPersistentCookieNamesItsEndpointAndKeepsItThroughAScaleUp() throws Exception {
        List<TestUpstream> ups = upstreams(6);
        String three = endpoints(ups.subList(0, 3));
        String six = endpoints(ups);
        Map<String, String> endpointByKey = new HashMap<>();
        for (TestUpstream u : ups) {
            endpointByKey.put(EndpointKeys.key("app", u.endpoint()), u.name);
        }
        for (String mode : List.of("persistent", "balanced")) {
            String upstream = "  - { name: app, loadBalancer: consistent-hash, hashOn: { source: cookie, name: route,"
                    + " setCookie: { mode: " + mode + " } }, endpoints: [ %s ] }";
            if (mode.equals("persistent")) {
                h.start(config(upstream.formatted(three), "[ { upstream: app } ]"));
            } else {
                h.reload(config(upstream.formatted(three), "[ { upstream: app } ]"));
            }
            Map<String, String> home = new HashMap<>(); // cookie value -> the endpoint that served its first request
            try (RawClient c = h.client()) {
                for (int browser = 0; browser < 20; browser++) {
                    RawClient.Response first = c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read();
                    String set = first.header("set-cookie");
                    assertThat(set).matches("route=[0-9a-f]{16}; Path=/; HttpOnly");
                    String value = set.substring("route=".length(), set.indexOf(';'));
                    if (mode.equals("persistent")) {
                        assertThat(endpointByKey.get(value)).as("the value names the endpoint that served")
                                .isEqualTo(first.text());
                    }
                    home.put(value, first.text());
                }
                assertThat(new java.util.HashSet<>(home.values())).as("new browsers spread").hasSize(3);

                h.reload(config(upstream.formatted(six), "[ { upstream: app } ]"));
                int moved = 0;
                for (Map.Entry<String, String> b : home.entrySet()) {
                    RawClient.Response again = c.send("GET / HTTP/1.1\r\nHost: a\r\nCookie: route=" + b.getKey()
                            + "\r\n\r\n").read();
                    assertThat(again.header("set-cookie")).isNull();
                    moved += again.text().equals(b.getValue()) ? 0 : 1;
                }
                if (mode.equals("persistent")) {
                    assertThat(moved).as("no browser moves when endpoints are added").isZero();
                    // New browsers take the new endpoints too.
                    java.util.Set<String> served = new java.util.HashSet<>();
                    for (int browser = 0; browser < 40; browser++) {
                        served.add(c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text());
                    }
                    assertThat(served).hasSizeGreaterThanOrEqualTo(5);

                    // Its endpoint gone from the upstream: a new cookie, naming where the browser now is.
                    String gone = ups.get(0).name;
                    String goneKey = EndpointKeys.key("app", ups.get(0).endpoint());
                    h.reload(config(upstream.formatted(endpoints(ups.subList(1, 6))), "[ { upstream: app } ]"));
                    RawClient.Response moved0 = c.send("GET / HTTP/1.1\r\nHost: a\r\nCookie: route=" + goneKey
                            + "\r\n\r\n").read();
                    assertThat(moved0.text()).isNotEqualTo(gone);
                    String set = moved0.header("set-cookie");
                    assertThat(set).as("a cookie for where it is served now").isNotNull();
                    assertThat(endpointByKey.get(set.substring("route=".length(), set.indexOf(';')))).isEqualTo(moved0.text());
                    // A value that names no endpoint (forged, or from another upstream) is a new browser.
                    assertThat(c.send("GET / HTTP/1.1\r\nHost: a\r\nCookie: route=0123456789abcdef\r\n\r\n").read()
                            .header("set-cookie")).startsWith("route=");
                } else {
                    assertThat(moved).as("balanced keys move with the ring (about half of them from 3 to 6)").isPositive();
                }
            }
        }
    }

    @Test
    void consistentHashMovesOnlyTheKeysOfARemovedEndpoint() {
        String[] four = {"10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80", "10.0.0.4:80"};
        String[] three = {"10.0.0.1:80", "10.0.0.2:80", "10.0.0.3:80"};
        HashRing a = new HashRing(four, new int[] {1, 1, 1, 1});
        HashRing b = new HashRing(three, new int[] {1, 1, 1});
        int moved = 0;
        int[] load = new int[4];
        for (int k = 0; k < 10_000; k++) {
            long hash = Hashing.hash("key-" + k);
            int before = a.owner(a.position(hash));
            int after = b.owner(b.position(hash));
            load[before]++;
            if (before != 3 && before != after) {
                moved++;
            }
        }
        assertThat(moved).as("keys of the endpoints that stayed do not move").isZero();
        for (int l : load) {
            assertThat(l).as("each endpoint owns about a quarter").isBetween(1_800, 3_200);
        }
    }

    @Test
    void weightedBackendsSplitTraffic() throws Exception {
        TestUpstream v1 = h.upstream("v1", TestUpstream.name());
        TestUpstream v2 = h.upstream("v2", TestUpstream.name());
        h.start(config("""
                  - { name: app, endpoints: [ "%s" ] }
                  - { name: app-v2, endpoints: [ "%s" ] }
                """.formatted(v1.endpoint(), v2.endpoint()),
                "[ { upstream: app, weight: 75 }, { upstream: app-v2, weight: 25 } ]"));
        Map<String, Integer> counts = count(400);
        assertThat(counts.get("v1")).isBetween(250, 350);
        assertThat(counts.get("v2")).isBetween(50, 150);
    }

    @Test
    void allBackendsWeighingZeroGets503() throws Exception {
        TestUpstream v1 = h.upstream("v1", TestUpstream.name());
        h.start(config("  - { name: app, endpoints: [ \"%s\" ] }".formatted(v1.endpoint()),
                "[ { upstream: app, weight: 0 } ]"));
        assertThat(h.get("/z").status()).isEqualTo(503);
    }
}
