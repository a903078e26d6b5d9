package dev.strait.operator.reconcile;

import dev.strait.operator.crd.Route;
import dev.strait.operator.publish.Fleet;
import dev.strait.operator.status.StatusBoard;
import dev.strait.operator.translate.Inputs;
import dev.strait.operator.translate.ProxyDefaults;
import dev.strait.operator.translate.Scope;
import dev.strait.operator.translate.Translation;
import dev.strait.operator.translate.Translator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * How many warm-up iterations the operator's per-change path needs (ADR 0030), in one JVM without the
 * API server or proxies: a translation from nothing of N Routes (as at start-up), K warm-up iterations,
 * then 8 real changes, each timed (translation; snapshot and delta; status board). Skipped unless asked:
 * {@code -Dstrait.bench.warmUp=K [-Dstrait.bench.routes=10000] [-Dstrait.bench.statusWave=true]}, the
 * last replacing every Route object before the first change, as the start-up status writes do. Use a
 * new JVM per K (surefire forks one per run); the debug lines of {@code WarmUp} give each iteration's time.
 */
@EnabledIfSystemProperty(named = "strait.bench.warmUp", matches = "\\d+")
class WarmUpIterationsBenchmark {
    private static Route route(int i, long generation, String body) {
        Route r = OperatorHarness.helloRoute(i, body);
        // As the API server would set them: the translator keys its cache on uid and generation.
        r.getMetadata().setUid("u" + i);
        r.getMetadata().setGeneration(generation);
        r.getMetadata().setCreationTimestamp("2026-11-30T10:00:00Z");
        return r;
    }

    @Test
    void firstChangesAfterWarmUp() throws Exception {
        int k = Integer.getInteger("strait.bench.warmUp");
        int n = Integer.getInteger("strait.bench.routes", 10000);
        List<Route> routes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            routes.add(route(i, 1, "v0"));
        }
        Translator real = new Translator(ProxyDefaults.STANDARD);
        long t0 = System.nanoTime();
        Translation last = real.translate(Inputs.of(routes, List.of()));
        for (Scope s : last.scopes()) {
            last.snapshot(s);
        }
        StatusBoard board = new StatusBoard(new Fleet(ProxyDefaults.STANDARD));
        board.update(last);
        System.out.printf("BENCH start-up translation: %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        try (WarmUp w = new WarmUp(real, k)) {
            long w0 = System.nanoTime();
            w.resume(Inputs.of(routes, List.of()));
            while (k > 0 && !w.finished()) {
                Thread.sleep(5);
            }
            System.out.printf("BENCH warm-up, %d iterations: %d ms%n", k, (System.nanoTime() - w0) / 1_000_000);
        }
        Thread.sleep(2000); // the compile queue drains, as during the benchmark's start-up status writes
        if (Boolean.getBoolean("strait.bench.statusWave")) {
            List<Route> written = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                written.add(route(i, 1, "v0"));
            }
            routes = written;
        }
        for (int c = 0; c < 8; c++) {
            routes = new ArrayList<>(routes);
            int target = (c * 7919) % n;
            routes.set(target, route(target, 2 + c, "v" + (c + 1)));
            long a = System.nanoTime();
            Translation t = real.translate(Inputs.of(routes, List.of()));
            long b = System.nanoTime();
            for (Scope s : t.scopes()) {
                Fleet.rehearse(last.snapshot(s), t.snapshot(s));
            }
            long d = System.nanoTime();
            board.update(t);
            long e = System.nanoTime();
            last = t;
            System.out.printf("BENCH warm-up %d, change %d: translation %.1f ms, snapshot and delta %.1f ms, status board %.1f ms%n",
                    k, c, (b - a) / 1e6, (d - b) / 1e6, (e - d) / 1e6);
            Thread.sleep(300);
        }
    }
}
