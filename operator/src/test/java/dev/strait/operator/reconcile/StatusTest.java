package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.awaitRoute;
import static dev.strait.operator.reconcile.OperatorHarness.awaitUpstream;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.hasCondition;
import static dev.strait.operator.reconcile.OperatorHarness.route;
import static dev.strait.operator.reconcile.OperatorHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.Upstream;
import dev.strait.operator.publish.TestProxy;
import dev.strait.operator.translate.Fixtures;
import dev.strait.proxy.control.Identity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator end to end against fabric8's mock API server in CRUD mode and real proxies on the
 * channel: resources in, status out, every wait on the status or on a served answer.
 */
@EnableKubernetesMockClient(crud = true)
class StatusTest {
    static KubernetesClient client;
    static io.fabric8.kubernetes.client.server.mock.KubernetesMockServer server;

    private OperatorApp app;
    private final List<AutoCloseable> proxies = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        OperatorHarness.installCrds(client);
        app = new OperatorApp(client, OperatorHarness.settings()).start();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable p : proxies) {
            p.close();
        }
        app.close();
        client.resources(Route.class).inAnyNamespace().delete();
        client.resources(Upstream.class).inAnyNamespace().delete();
        client.services().inAnyNamespace().delete();
        client.discovery().v1().endpointSlices().inAnyNamespace().delete();
        client.secrets().inNamespace("shop").delete();
    }

    private TestProxy proxy() throws Exception {
        TestProxy p = TestProxy.start(app.controlAddress(), Identity.ingress("strait"), null);
        proxies.add(p);
        return p;
    }

    private static String hello(String host, String body) {
        return """
                hosts: [ %s ]
                rules:
                  - matches: [ { path: { type: Exact, value: /hello } } ]
                    respond: { status: 200, body: "%s" }
                """.formatted(host, body);
    }

    /**
     * Service shop/api (port 8080), its slice (10.0.0.1 ready, {@code second} as Fixtures.slice writes it)
     * and the Upstream api on it.
     */
    private void createApi(String second) {
        create(client, Fixtures.service("shop", "api", "http:8080"));
        create(client, Fixtures.slice("shop", "api", "api-1", "http", 3000, "10.0.0.1", second));
        create(client, yaml("""
                apiVersion: strait.dev/v1alpha1
                kind: Upstream
                metadata: { namespace: shop, name: api }
                spec: { service: { name: api, port: 8080 } }""", Upstream.class));
    }

    @Test
    void aRouteIsAcceptedResolvedAndProgrammedOnceItsProxyAcks() throws Exception {
        createApi("10.0.0.2!");
        create(client, route("shop", "site", hello("example.com", "hi") + """
                  - matches: [ { path: { type: Prefix, value: /api } } ]
                    files: { root: /tmp }
                """));
        awaitRoute(client, "shop", "site", s -> {
            assertThat(s.observedGeneration).isEqualTo(1L);
            hasCondition(s, "Accepted", "True", "Accepted", "valid");
            hasCondition(s, "ResolvedRefs", "True", "ResolvedRefs", null);
            hasCondition(s, "Programmed", "False", "NoProxies", "no proxy of class strait is connected");
        });
        awaitUpstream(client, "shop", "api", s -> hasCondition(s, "Programmed", "False", "NotReferenced", null));

        TestProxy proxy = proxy();
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK hi");
        awaitRoute(client, "shop", "site", s -> {
            hasCondition(s, "Programmed", "True", "Programmed", "1/1 proxies serve version " + proxy.version() + " or later");
            assertThat(s.programmedVersion).isEqualTo(proxy.version());
            assertThat(s.proxies.connected).isEqualTo(1);
            assertThat(s.proxies.programmed).isEqualTo(1);
            assertThat(s.proxies.rejected).isZero();
        });
    }

    @Test
    void aMissingUpstreamIsReportedWithItsFieldAndResolvedWhenItAppears() throws Exception {
        TestProxy proxy = proxy();
        create(client, route("shop", "api", hello("api.example.com", "hi") + """
                  - matches: [ { path: { type: Prefix, value: /api } } ]
                    backends: [ { upstream: api } ]
                """));
        awaitRoute(client, "shop", "api", s -> {
            hasCondition(s, "Accepted", "True", "Accepted", null);
            hasCondition(s, "ResolvedRefs", "False", "BackendNotFound",
                    "spec.rules[1].backends[0].upstream: Upstream \"api\" not found");
            hasCondition(s, "Programmed", "True", "Programmed", null);
        });
        // Only what names the missing Upstream fails (ADR 0049): the rest of the Route serves.
        assertThat(proxy.get("api.example.com", "/hello")).isEqualTo("200 OK hi");
        assertThat(proxy.get("api.example.com", "/api/x")).startsWith("503");
        create(client, yaml("""
                apiVersion: strait.dev/v1alpha1
                kind: Upstream
                metadata: { namespace: shop, name: api }
                spec: { service: { name: api, port: 80 } }""", Upstream.class));
        awaitRoute(client, "shop", "api", s -> hasCondition(s, "ResolvedRefs", "True", "ResolvedRefs", null));
        awaitUpstream(client, "shop", "api", s -> {
            hasCondition(s, "ResolvedRefs", "False", "BackendNotFound", "spec.service.name: Service \"api\" not found");
            hasCondition(s, "Programmed", "True", "Programmed", null);
        });
    }

    @Test
    void anUpstreamsMissingCaSecretIsReportedAndAnOpaqueOneResolvesIt() throws Exception {
        create(client, yaml("""
                apiVersion: strait.dev/v1alpha1
                kind: Upstream
                metadata: { namespace: shop, name: secure }
                spec: { service: { name: secure, port: 443 }, tls: { caSecretName: secure-ca, serverName: secure.internal } }""",
                Upstream.class));
        create(client, route("shop", "secure", """
                hosts: [ secure.example.com ]
                rules:
                  - backends: [ { upstream: secure } ]"""));
        awaitUpstream(client, "shop", "secure", s -> hasCondition(s, "ResolvedRefs", "False", "SecretNotFound",
                "spec.service.name: Service \"secure\" not found; spec.tls.caSecretName: Secret \"secure-ca\" not found"));
        awaitRoute(client, "shop", "secure", s -> hasCondition(s, "ResolvedRefs", "False", "InvalidBackend",
                "spec.rules[0].backends[0].upstream: Upstream \"secure\" is not valid: spec.tls.caSecretName: Secret"
                        + " \"secure-ca\" not found"));

        TestProxy proxy = proxy();
        create(client, Fixtures.caSecret("shop", "secure-ca", Fixtures.CERT));
        awaitRoute(client, "shop", "secure", s -> hasCondition(s, "Programmed", "True", "Programmed", null));
        assertThat(proxy.serving.snapshot().config().upstreams()).singleElement()
                .satisfies(u -> assertThat(u.tls()).isEqualTo(
                        new dev.strait.model.Upstream.Tls(Fixtures.CERT, "secure.internal", null, null)));
    }

    @Test
    void aBadRouteIsReportedAndNeverTakesDownTheRoutesThatServe() throws Exception {
        create(client, route("shop", "good", hello("good.example.com", "good")));
        TestProxy proxy = proxy();
        awaitRoute(client, "shop", "good", s -> hasCondition(s, "Programmed", "True", "Programmed", null));
        String before = proxy.version();

        create(client, route("shop", "bad", hello("bad host", "bad")));
        awaitRoute(client, "shop", "bad", s -> {
            hasCondition(s, "Accepted", "False", "Invalid",
                    "spec.hosts[0]: \"bad host\" is not a host name (use example.com, *.example.com or *)");
            hasCondition(s, "Programmed", "False", "Invalid", null);
        });
        assertThat(proxy.version()).isEqualTo(before);
        assertThat(proxy.get("good.example.com", "/hello")).isEqualTo("200 OK good");
        hasCondition(OperatorHarness.routeStatus(client, "shop", "good"), "Programmed", "True", "Programmed", null);
    }

    @Test
    void aRouteProxiesRefuseIsLeftOutSoTheScopeKeepsTakingChanges() throws Exception {
        create(client, route("shop", "good", hello("good.example.com", "good")));
        TestProxy proxy = proxy();
        awaitRoute(client, "shop", "good", s -> hasCondition(s, "Programmed", "True", "Programmed", null));

        // Only the proxy can tell that the directory does not exist there: it refuses the snapshot.
        create(client, route("shop", "files", """
                hosts: [ files.example.com ]
                rules: [ { files: { root: /no/such/dir } } ]"""));
        awaitRoute(client, "shop", "files", s -> {
            hasCondition(s, "Accepted", "False", "RejectedByProxy", null);
            assertThat(OperatorHarness.condition(s, "Accepted").getMessage())
                    .startsWith("spec.rules[0].files.root: directory /no/such/dir does not exist (refused by the proxy at")
                    .endsWith("left out until the Route changes)");
            hasCondition(s, "Programmed", "False", "RejectedByProxy", null);
        });
        // ADR 0050: without the rejection every later snapshot of the scope carried it and was refused too.
        create(client, route("shop", "later", hello("later.example.com", "later")));
        awaitRoute(client, "shop", "later", s -> hasCondition(s, "Programmed", "True", "Programmed", null));
        assertThat(proxy.get("later.example.com", "/hello")).isEqualTo("200 OK later");
        assertThat(proxy.get("good.example.com", "/hello")).isEqualTo("200 OK good");

        // A new generation is tried again.
        Route files = client.resources(Route.class).inNamespace("shop").withName("files").get();
        files.getSpec().rules.get(0).files.root = "/tmp";
        client.resource(files).update();
        awaitRoute(client, "shop", "files", s -> {
            assertThat(s.observedGeneration).isEqualTo(2L);
            hasCondition(s, "Accepted", "True", "Accepted", null);
            hasCondition(s, "Programmed", "True", "Programmed", null);
        });
    }

    @Test
    void aNackThatNamesNoRouteSaysWhichProxyRefusedWhat() throws Exception {
        create(client, route("shop", "good", hello("good.example.com", "good")));
        TestProxy proxy = proxy();
        awaitRoute(client, "shop", "good", s -> hasCondition(s, "Programmed", "True", "Programmed", null));
        proxy.client.close(); // a proxy that refuses everything, by hand
        try (var raw = dev.strait.operator.publish.RawProxy.connect(app.controlAddress(), "strait")) {
            raw.nackEverything("listeners[0].address: cannot bind");
            create(client, route("shop", "next", hello("next.example.com", "next")));
            awaitRoute(client, "shop", "next", s -> {
                hasCondition(s, "Programmed", "False", "Rejected", null);
                assertThat(OperatorHarness.condition(s, "Programmed").getMessage())
                        .contains("(proxy ingress class strait at /127.0.0.1:")
                        .endsWith("): listeners[0].address: cannot bind");
            });
        }
    }

    @Test
    void onceConvergedNothingIsWrittenAgain() throws Exception {
        createApi("10.0.0.3~");
        create(client, route("shop", "site", hello("example.com", "hi") + """
                  - matches: [ { path: { type: Prefix, value: /api } } ]
                    backends: [ { upstream: api }, { service: { name: gone, port: 80 } } ]
                """));
        create(client, route("shop", "bad", hello("bad host", "bad")));
        create(client, route("shop", "z-loser", hello("example.com", "loser"))); // younger, or later by name
        proxy();
        awaitRoute(client, "shop", "site", s -> hasCondition(s, "Programmed", "True", "Programmed", null));
        awaitRoute(client, "shop", "z-loser", s -> hasCondition(s, "Accepted", "False", "Conflicted", null));
        awaitRoute(client, "shop", "bad", s -> hasCondition(s, "Accepted", "False", "Invalid", null));
        awaitUpstream(client, "shop", "api", s -> hasCondition(s, "Programmed", "True", "Programmed", null));
        // Quiet: no status write, no request at all to the API server, for several status debounces.
        await().pollDelay(java.time.Duration.ofMillis(500)).atMost(OperatorHarness.WAIT).until(() -> {
            int requests = server.getRequestCount();
            long writes = app.statusWrites();
            Thread.sleep(3000);
            return server.getRequestCount() == requests && app.statusWrites() == writes;
        });
    }

    @Test
    void theOlderRouteWinsAConflictAndTheYoungerOneIsTold() throws Exception {
        // Creation times have one-second resolution; within a second namespace/name decides, so the
        // names are chosen to agree with the creation order (ConflictsTest covers each rule apart).
        create(client, route("a-shop", "first", hello("example.com", "first")));
        awaitRoute(client, "a-shop", "first", s -> hasCondition(s, "Accepted", "True", "Accepted", null));
        create(client, route("b-other", "second", hello("example.com", "second")));
        awaitRoute(client, "b-other", "second", s -> hasCondition(s, "Accepted", "False", "Conflicted",
                "spec.rules[0].matches[0]: host \"example.com\" path Exact /hello is already served by Route"
                        + " a-shop/first (the older Route wins)"));
        TestProxy proxy = proxy();
        assertThat(proxy.get("example.com", "/hello")).isEqualTo("200 OK first");
    }

    @Test
    void changesAreDebouncedAndADeletedRouteStopsServing() throws Exception {
        TestProxy proxy = proxy();
        long before = app.rebuilds();
        for (int i = 0; i < 20; i++) {
            create(client, route("shop", "r" + i, hello("r" + i + ".example.com", "r" + i)));
        }
        awaitRoute(client, "shop", "r19", s -> hasCondition(s, "Programmed", "True", "Programmed", null));
        assertThat(app.rebuilds() - before).as("rebuilds for 20 creations").isLessThan(20);
        assertThat(proxy.get("r7.example.com", "/hello")).isEqualTo("200 OK r7");

        client.resources(Route.class).inNamespace("shop").withName("r7").delete();
        await().atMost(OperatorHarness.WAIT).untilAsserted(() ->
                assertThat(proxy.get("r7.example.com", "/hello")).startsWith("404"));
    }
}
