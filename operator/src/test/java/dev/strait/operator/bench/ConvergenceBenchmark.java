package dev.strait.operator.bench;

import static org.awaitility.Awaitility.await;

import dev.strait.operator.crd.Route;
import dev.strait.operator.publish.TestProxy;
import dev.strait.operator.reconcile.OperatorApp;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.Scope;
import dev.strait.proxy.control.Identity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Time from a Route change written to the API server until (a) a real proxy serves it and (b) every
 * one of {@code strait.bench.proxies} simulated proxies has received it, with {@code strait.bench.routes}
 * Routes. Not part of the test run:
 * {@code ./mvnw -B -q -pl model,operator -am test -Dtest=ConvergenceBenchmark -Dsurefire.failIfNoSpecifiedTests=false
 * -Dstrait.bench=true -Dstrait.bench.routes=1000 -Dstrait.bench.proxies=100}; {@code -Dstrait.bench.deltas=false}
 * has the simulated proxies take whole snapshots. The API server is
 * fabric8's mock (in-process), so the figures include its watch delivery but not etcd's.
 */
@EnabledIfSystemProperty(named = "strait.bench", matches = "true")
@EnableKubernetesMockClient(crud = true)
class ConvergenceBenchmark {
    static KubernetesClient client;
    private static boolean settled;
    private static long settleSeconds;
    private static long startupWrites;

    private static Route route(int i, String body) {
        return dev.strait.operator.reconcile.OperatorHarnessAccess.helloRoute(i, body);
    }

    @Test
    void convergence() throws Exception {
        int routes = Integer.getInteger("strait.bench.routes", 1000);
        int proxies = Integer.getInteger("strait.bench.proxies", 100);
        int changes = Integer.getInteger("strait.bench.changes", 30);
        // Simulated proxies announce deltas as real ones do; -Dstrait.bench.deltas=false measures whole snapshots.
        boolean deltas = !"false".equals(System.getProperty("strait.bench.deltas"));
        dev.strait.operator.reconcile.OperatorHarnessAccess.installCrds(client);
        for (int i = 0; i < routes; i++) {
            client.resource(route(i, "v0")).create();
        }
        try (OperatorApp app = new OperatorApp(client, dev.strait.operator.reconcile.OperatorHarnessAccess.settings()).start()) {
            List<SimulatedProxy> sims = new ArrayList<>();
            for (int i = 0; i < proxies; i++) {
                sims.add(new SimulatedProxy(app.controlAddress(), "strait", deltas));
            }
            // The first translation of N Routes from nothing can take longer on a loaded machine than the
            // real proxy waits for its first snapshot (10 s): start it once there is one.
            await().atMost(Duration.ofMinutes(2)).until(() -> app.fleet().latestVersion(Scope.ingress("strait")) != null);
            try (TestProxy real = TestProxy.start(app.controlAddress(), Identity.ingress("strait"), null)) {
                AtomicLong swappedAt = new AtomicLong();
                real.serving.onSwap(s -> swappedAt.set(System.nanoTime()));
                await().atMost(Duration.ofMinutes(2)).until(() -> real.get("r" + (routes - 1) + ".example.com", "/hello").endsWith("v0"));
                // Let the start-up status writes (one or more per Route) finish, for at most strait.bench.settle
                // seconds; whether they did is part of the report.
                long settleUntil = System.nanoTime() + Duration.ofSeconds(Integer.getInteger("strait.bench.settle", 180)).toNanos();
                long settleFrom = System.nanoTime();
                while (System.nanoTime() < settleUntil) {
                    long programmed = client.resources(Route.class).inAnyNamespace().list().getItems().stream()
                            .filter(x -> x.getStatus() != null && x.getStatus().conditions.stream().anyMatch(
                                    k -> k.getType().equals("Programmed") && k.getStatus().equals("True"))).count();
                    System.out.printf("BENCH settling: %d s, %d/%d Routes Programmed=True, %d status writes%n",
                            (System.nanoTime() - settleFrom) / 1_000_000_000L, programmed, routes, app.statusWrites());
                    if (programmed == routes) {
                        break;
                    }
                    Thread.sleep(5000); // a benchmark's settling wait, not a test's
                }
                settled = System.nanoTime() < settleUntil;
                settleSeconds = (System.nanoTime() - settleFrom) / 1_000_000_000L;
                startupWrites = app.statusWrites();
                long[] toReal = new long[changes];
                long[] toAll = new long[changes];
                for (int c = 0; c < changes; c++) {
                    int target = (c * 7919) % routes;
                    String body = "v" + (c + 1);
                    long t0 = System.nanoTime();
                    client.resources(Route.class).inNamespace("ns" + (target % 20)).withName("r" + target).edit(r -> {
                        r.getSpec().rules.get(0).respond.body = body;
                        return r;
                    });
                    if (Boolean.getBoolean("strait.bench.trace")) {
                        System.out.printf("BENCH %s change %d: edit answered after %d ms%n", java.time.LocalTime.now(), c, (System.nanoTime() - t0) / 1_000_000);
                    }
                    try {
                        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(2)).until(() ->
                                real.version().equals(app.fleet().latestVersion(Scope.ingress("strait")))
                                        && real.get("r" + target + ".example.com", "/hello").endsWith(body));
                    } catch (ConditionTimeoutException e) {
                        throw new AssertionError("change " + c + " not served: " + state(app, real, sims, target), e);
                    }
                    String version = real.version();
                    try {
                        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(2)).until(() ->
                                sims.stream().allMatch(s -> s.arrived.containsKey(version)));
                    } catch (ConditionTimeoutException e) {
                        throw new AssertionError("change " + c + " not received by all: " + state(app, real, sims, target), e);
                    }
                    toReal[c] = swappedAt.get() - t0;
                    toAll[c] = sims.stream().mapToLong(s -> s.arrived.get(version)).max().orElse(0) - t0;
                    if (Boolean.getBoolean("strait.bench.trace")) {
                        System.out.printf("BENCH %s change %d: real proxy serving after %d ms, all simulated after %d ms%n",
                                java.time.LocalTime.now(), c, toReal[c] / 1_000_000, toAll[c] / 1_000_000);
                    }
                }
                report(routes, proxies, toReal, toAll, (deltas ? "deltas" : "whole snapshots") + " (sent: "
                        + app.fleet().snapshotsSent() + " snapshots, " + app.fleet().deltasSent() + " deltas)");
            }
            for (SimulatedProxy s : sims) {
                s.close();
            }
        }
    }

    /** What each side holds, for a change that did not arrive. */
    private static String state(OperatorApp app, TestProxy real, List<SimulatedProxy> sims, int target) throws Exception {
        Route r = client.resources(Route.class).inNamespace("ns" + (target % 20)).withName("r" + target).get();
        var report = app.board().report(ResourceKey.of(r));
        Map<String, Long> acked = new TreeMap<>();
        app.fleet().proxies().forEach(p -> acked.merge(String.valueOf(p.acked()), 1L, Long::sum));
        return "real serves " + real.version() + ", latest " + app.fleet().latestVersion(Scope.ingress("strait"))
                + ", rebuilds " + app.rebuilds() + ", route generation " + r.getMetadata().getGeneration()
                + " (translated " + (report == null ? "-" : report.generation()) + "), acked by version " + acked
                + ", sims with the latest " + sims.stream().filter(s -> s.arrived.containsKey(
                        String.valueOf(app.fleet().latestVersion(Scope.ingress("strait"))))).count()
                + ", sent " + app.fleet().snapshotsSent() + " snapshots + " + app.fleet().deltasSent() + " deltas";
    }

    private static void report(int routes, int proxies, long[] toReal, long[] toAll, String mode) throws Exception {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long heap = (rt.totalMemory() - rt.freeMemory()) >> 20;
        String rss = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS"))
                .findFirst().orElse("VmRSS: ?").replaceAll("\\s+", " ");
        String line = String.format("routes=%d proxies=%d changes=%d | %s | real proxy serving: median %d ms, p99 %d ms,"
                        + " max %d ms | all %d simulated proxies received: median %d ms, p99 %d ms, max %d ms"
                        + " | start-up status writes settled first: %s (%d s after the real proxy served, %d writes)"
                        + " | JVM (mock API server + operator + proxies): heap after GC %d MiB, %s, uptime %d s",
                routes, proxies, toReal.length, mode, pct(toReal, 50), pct(toReal, 99), pct(toReal, 100), proxies,
                pct(toAll, 50), pct(toAll, 99), pct(toAll, 100), settled, settleSeconds, startupWrites, heap, rss,
                ManagementFactory.getRuntimeMXBean().getUptime() / 1000);
        System.out.println("BENCH " + line);
        Files.writeString(Path.of("target/convergence-" + routes + ".txt"), line + "\n");
    }

    private static long pct(long[] nanos, int p) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        int i = (int) Math.ceil(p / 100.0 * s.length) - 1;
        return s[Math.max(0, Math.min(s.length - 1, i))] / 1_000_000;
    }
}
