package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.awaitRoute;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.hasCondition;
import static dev.strait.operator.reconcile.OperatorHarness.route;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.operator.crd.Route;
import dev.strait.operator.publish.Fleet;
import dev.strait.operator.publish.TestProxy;
import dev.strait.operator.translate.Fixtures;
import dev.strait.operator.translate.Inputs;
import dev.strait.operator.translate.ProxyDefaults;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.Scope;
import dev.strait.operator.translate.Translation;
import dev.strait.operator.translate.Translator;
import dev.strait.proxy.control.Identity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The warm-up of the per-change path after start-up (ADR 0030): it publishes nothing, writes no status,
 * leaves the next real translation exactly as it would have been, and stops for a real change.
 */
@EnableKubernetesMockClient(crud = true)
class WarmUpTest {
    static KubernetesClient client;
    private static final Duration QUIET = Duration.ofMillis(100);
    private static final Duration CAP = Duration.ofSeconds(1);

    private static String hello(String host, String body) {
        return """
                hosts: [ %s ]
                rules:
                  - matches: [ { path: { type: Exact, value: /hello } } ]
                    respond: { status: 200, body: "%s" }
                """.formatted(host, body);
    }

    @Test
    void whileItRunsNoVersionIsSentAndNoStatusWritten() throws Exception {
        OperatorHarness.installCrds(client);
        for (int i = 0; i < 5; i++) {
            create(client, route("shop", "r" + i, hello("r" + i + ".example.com", "v0")));
        }
        // Never done: the warm-up runs the whole time the test watches (and resumes after real rebuilds).
        try (OperatorApp app = new OperatorApp(client, OperatorHarness.settings()).warmUpIterations(Integer.MAX_VALUE)
                .start();
             TestProxy proxy = TestProxy.start(app.controlAddress(), Identity.ingress("strait"), null)) {
            for (int i = 0; i < 5; i++) {
                awaitRoute(client, "shop", "r" + i, s -> hasCondition(s, "Programmed", "True", "Programmed",
                        "1/1 proxies serve version " + proxy.version() + " or later"));
            }
            Fleet fleet = app.fleet();
            Scope scope = Scope.ingress("strait");
            await().atMost(OperatorHarness.WAIT).until(() -> app.warmUp().iterationsDone() > 0);
            long writes = app.statusWrites();
            long rebuilds = app.rebuilds();
            long snapshots = fleet.snapshotsSent();
            long deltas = fleet.deltasSent();
            long seq = fleet.currentSeq(scope);
            String version = proxy.version();
            long accepted = proxy.client.accepted();
            String resourceVersion = client.resources(Route.class).inNamespace("shop").withName("r0").get()
                    .getMetadata().getResourceVersion();

            long from = app.warmUp().iterationsDone();
            await().atMost(OperatorHarness.WAIT).until(() -> app.warmUp().iterationsDone() >= from + 50);
            Thread.sleep(1000); // and a status debounce's worth of quiet (500 ms in tests)

            assertThat(app.rebuilds()).as("rebuilds").isEqualTo(rebuilds);
            assertThat(fleet.snapshotsSent()).as("snapshots sent").isEqualTo(snapshots);
            assertThat(fleet.deltasSent()).as("deltas sent").isEqualTo(deltas);
            assertThat(fleet.currentSeq(scope)).as("versions published").isEqualTo(seq);
            assertThat(fleet.latestVersion(scope)).isEqualTo(version);
            assertThat(proxy.version()).isEqualTo(version);
            assertThat(proxy.client.accepted()).as("messages the proxy accepted").isEqualTo(accepted);
            assertThat(app.statusWrites()).as("status writes").isEqualTo(writes);
            assertThat(client.resources(Route.class).inNamespace("shop").withName("r0").get()
                    .getMetadata().getResourceVersion()).isEqualTo(resourceVersion);
            // The warm-up edits r0 in its copies; the proxy still serves the user's r0.
            assertThat(proxy.get("r0.example.com", "/hello")).isEqualTo("200 OK v0");

            // A real edit of the Route the warm-up edits is published as usual, and the warm-up gave way to it.
            client.resources(Route.class).inNamespace("shop").withName("r0")
                    .edit(r -> { r.getSpec().rules.get(0).respond.body = "v1"; return r; });
            await().atMost(OperatorHarness.WAIT).until(() -> proxy.get("r0.example.com", "/hello").equals("200 OK v1"));
            assertThat(app.warmUp().abandoned()).isGreaterThanOrEqualTo(1);
            assertThat(fleet.currentSeq(scope)).isEqualTo(seq + 1);
        } finally {
            client.resources(Route.class).inAnyNamespace().delete();
        }
    }

    /**
     * Routes that compete for hosts (ADR 0028's owners): the warm-up edits the owner in its copies, which
     * reopens the contest there. The real translator must not see any of it.
     */
    @Test
    void theNextRealTranslationIsWhatItWouldHaveBeenWithout() {
        Route owner = Fixtures.route("shop", "owner", 1, """
                hosts: [ a.example.com, b.example.com ]
                rules:
                  - matches: [ { path: { type: Exact, value: /hello } } ]
                    respond: { status: 200, body: "owner" }""");
        Route rival = Fixtures.route("shop", "rival", 2, hello("a.example.com", "rival"));
        Route cascade = Fixtures.route("shop", "cascade", 3, hello("b.example.com", "cascade"));
        List<Route> others = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            others.add(Fixtures.route("ns" + i % 3, "r" + i, i % 60, hello("r" + i + ".example.com", "v0")));
        }
        List<Route> start = new ArrayList<>(List.of(owner, rival, cascade));
        start.addAll(others);
        AtomicReference<Inputs> inputs = new AtomicReference<>(Inputs.of(start, List.of()));
        List<Translation> warmed = new CopyOnWriteArrayList<>();
        List<Translation> cold = new CopyOnWriteArrayList<>();
        // An odd number of iterations: the warm-up's last translation has its edited copy of the owner, so
        // a real translator that had taken part would have dropped the owner's memoized state.
        try (Rebuilder withWarmUp = new Rebuilder(inputs::get, new Translator(ProxyDefaults.STANDARD), warmed::add,
                QUIET, CAP, 41);
             Rebuilder without = new Rebuilder(inputs::get, new Translator(ProxyDefaults.STANDARD), cold::add,
                QUIET, CAP, 0)) {
            withWarmUp.changed();
            without.changed();
            await().atMost(OperatorHarness.WAIT).until(() -> withWarmUp.warmUp().finished() && cold.size() == 1);
            assertThat(withWarmUp.warmUp().iterationsDone()).isEqualTo(41);
            assertThat(warmed).as("translations published by the warm-up").hasSize(1);
            assertSame(warmed.get(0), cold.get(0));

            // One other Route changes: everything else is reused from the last real translation, the very
            // same values (the warm-up evicted nothing from the real translator's memos).
            List<Route> next = new ArrayList<>(start);
            next.set(10, Fixtures.route("ns1", "r7", 7, hello("r7.example.com", "v1")));
            inputs.set(Inputs.of(next, List.of()));
            withWarmUp.changed();
            without.changed();
            await().atMost(OperatorHarness.WAIT).until(() -> warmed.size() == 2 && cold.size() == 2);
            assertSame(warmed.get(1), cold.get(1));
            List<dev.strait.model.Route> before = warmed.get(0).snapshot(Fixtures.STRAIT).config().routes();
            List<dev.strait.model.Route> after = warmed.get(1).snapshot(Fixtures.STRAIT).config().routes();
            assertThat(after).hasSameSizeAs(before);
            for (int i = 0; i < after.size(); i++) {
                if (!after.get(i).name().equals("ns1.r7")) {
                    assertThat(after.get(i)).as(after.get(i).name()).isSameAs(before.get(i));
                }
            }

            // The owner changes its hosts: the rival gets a.example.com, and the cascade b.example.com.
            next.set(0, Fixtures.route("shop", "owner", 1, hello("c.example.com", "owner")));
            inputs.set(Inputs.of(next, List.of()));
            withWarmUp.changed();
            without.changed();
            await().atMost(OperatorHarness.WAIT).until(() -> warmed.size() == 3 && cold.size() == 3);
            assertSame(warmed.get(2), cold.get(2));
            assertSame(warmed.get(2), new Translator(ProxyDefaults.STANDARD).translate(inputs.get()));
            assertThat(Fixtures.routeReport(warmed.get(2), "shop", "rival").inSnapshot()).isTrue();
            assertThat(Fixtures.routeReport(warmed.get(2), "shop", "cascade").inSnapshot()).isTrue();
        }
    }

    /** Same snapshots (version, document) in every scope, same reports (conflicts lost included) and contents. */
    private static void assertSame(Translation actual, Translation expected) {
        assertThat(actual.scopes()).isEqualTo(expected.scopes());
        for (Scope s : expected.scopes()) {
            assertThat(actual.snapshot(s).version()).as("version of " + s).isEqualTo(expected.snapshot(s).version());
            assertThat(actual.snapshot(s).json()).isEqualTo(expected.snapshot(s).json());
        }
        assertThat(actual.reports()).isEqualTo(expected.reports());
        for (ResourceKey k : expected.reports().keySet()) {
            assertThat(actual.content(k)).as("content of " + k).isEqualTo(expected.content(k));
        }
    }

    @Test
    void aRealChangeStopsItAtTheNextCheckAndItResumesAfterTheRebuild() {
        List<Route> routes = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            routes.add(Fixtures.route("ns" + i % 20, "r" + i, i % 60, hello("r" + i + ".example.com", "v0")));
        }
        AtomicReference<Inputs> inputs = new AtomicReference<>(Inputs.of(routes, List.of()));
        List<Translation> published = new CopyOnWriteArrayList<>();
        AtomicReference<long[]> duringRebuild = new AtomicReference<>();
        AtomicReference<Rebuilder> self = new AtomicReference<>();
        try (Rebuilder rebuilder = new Rebuilder(inputs::get, new Translator(ProxyDefaults.STANDARD), t -> {
            if (!published.isEmpty()) {
                // The real change's rebuild, on the rebuild thread: hold it and watch the warm-up meanwhile.
                WarmUp w = self.get().warmUp();
                await().atMost(OperatorHarness.WAIT).until(() -> w.abandoned() >= 1);
                long stopped = w.iterationsDone();
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                duringRebuild.set(new long[] {stopped, w.iterationsDone()});
            }
            published.add(t);
        }, QUIET, CAP, Integer.MAX_VALUE)) {
            self.set(rebuilder);
            rebuilder.changed();
            await().atMost(OperatorHarness.WAIT).until(() -> rebuilder.warmUp().iterationsDone() >= 3);

            List<Route> edited = new ArrayList<>(routes);
            edited.set(5, Fixtures.route("ns5", "r5", 5, hello("r5.example.com", "v1")));
            inputs.set(Inputs.of(edited, List.of()));
            rebuilder.changed();
            await().atMost(OperatorHarness.WAIT).until(() -> published.size() == 2);

            long[] watched = duringRebuild.get();
            assertThat(watched[1]).as("iterations while the real rebuild was held").isEqualTo(watched[0]);
            assertThat(published.get(1).snapshot(Fixtures.STRAIT).json()).contains("\"v1\"");
            await().atMost(OperatorHarness.WAIT).until(() -> rebuilder.warmUp().iterationsDone() > watched[1]);
        }
    }
}
