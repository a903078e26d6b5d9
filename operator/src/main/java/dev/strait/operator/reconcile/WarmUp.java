package dev.strait.operator.reconcile;

import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.RouteSpec;
import dev.strait.operator.publish.Fleet;
import dev.strait.operator.status.StatusBoard;
import dev.strait.operator.translate.Inputs;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.ResourceReport;
import dev.strait.operator.translate.Scope;
import dev.strait.operator.translate.Translation;
import dev.strait.operator.translate.Translator;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the per-change path (an incremental translation with one Route edited, its snapshots written
 * through the fragment memo, the delta from the last ones and its check, the status board taking the
 * translation in; every other pair of iterations after a simulated wave of status writes) on throwaway
 * state after start-up, so that the JIT has compiled it before the first real change arrives (ADR
 * 0030). Without it that change runs interpreted and C1 code and takes twice as long as later ones.
 *
 * <p>Nothing here is shared with what is published: the translations come from a translator of its own
 * ({@link Translator#fresh}), with its own memos and conflict owners, the edited Route is a copy, the
 * deltas are computed by {@link Fleet#rehearse}, which touches no session, history or document, and the
 * status board is one of its own on a fleet of its own, which nothing pokes or refreshes. Only the
 * caches' objects are read, as the real translator reads them.
 *
 * <p>It runs on a thread of its own and gives way to real work: every change reported to the rebuilder
 * bumps an epoch, and the warm-up stops at its next check (between translating, writing each scope's
 * snapshot and its delta), so a real rebuild never waits for it; after that rebuild it resumes with the
 * newest inputs until it has done its iterations. Then it drops its translator (its memory is about
 * that of the real one's kept state).
 */
final class WarmUp implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WarmUp.class);
    /**
     * Measured at 10k Routes on 2 cores (ADR 0030): an iteration takes 40-390 ms for the first five, about
     * 25-30 ms from the sixth to tenth on (C2 has compiled the loops and the per-Route methods); a real
     * change after 30 or 60 took the same. Three times the knee, for slower or busier machines.
     */
    static final int ITERATIONS = 30;

    private final Translator translator;
    private final int iterations;
    private final ExecutorService thread;
    private final AtomicLong epoch = new AtomicLong();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong abandoned = new AtomicLong();
    private volatile Inputs latest;
    // Used on the warm-up thread only.
    private Translator throwaway;
    private Translation last;
    /** A status board of its own on a fleet of its own, so that taking a translation in is warm too. */
    private StatusBoard board;
    private long started;

    /** @param translator the real one: only {@link Translator#fresh} is called on it */
    WarmUp(Translator translator, int iterations) {
        this.translator = translator;
        this.iterations = iterations;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "strait-warm-up");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            return t;
        });
    }

    /** A real change is coming: stop at the next check. Cheap; from any thread. */
    void yieldToChange() {
        epoch.incrementAndGet();
    }

    /** A real rebuild published a translation of {@code in}: go on warming up with these inputs, if not done. */
    void resume(Inputs in) {
        if (done.get() >= iterations || thread.isShutdown()) {
            return;
        }
        latest = in;
        long e = epoch.get();
        try {
            thread.execute(() -> run(e));
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // closed meanwhile
        }
    }

    /** Iterations finished so far. */
    long iterationsDone() {
        return done.get();
    }

    /** Iterations given up for a real change. */
    long abandoned() {
        return abandoned.get();
    }

    boolean finished() {
        return done.get() >= iterations;
    }

    private boolean current(long e) {
        return epoch.get() == e && !thread.isShutdown();
    }

    private void run(long e) {
        if (done.get() >= iterations || !current(e)) {
            return;
        }
        try {
            if (throwaway == null) {
                throwaway = translator.fresh();
                started = System.nanoTime();
            }
            Inputs base = latest;
            if (last == null) {
                last = throwaway.translate(base); // from nothing, as the real translator's first
                for (Scope s : last.scopes()) {
                    last.snapshot(s);
                }
                board = new StatusBoard(new Fleet(last.defaults())); // no pokes, no refresh: it writes nothing
                board.update(last);
            }
            Route route = pick(base, last);
            if (route == null) {
                return; // no programmed Route to edit: try again after the next rebuild
            }
            Route edited = edited(route);
            int at = 0;
            while (base.routes().get(at) != route) {
                at++;
            }
            List<Route> written = statusWritten(base.routes());
            int i = 0;
            while (done.get() < iterations) {
                if (!current(e)) {
                    abandoned.incrementAndGet();
                    return;
                }
                // Alternate between the edit and the original: each is a changed source, as an edit is. Every
                // other pair of iterations sees every Route as another object, as after a wave of status
                // writes (start-up, proxy counts): the first real change usually comes after one.
                List<Route> routes = new ArrayList<>(i / 2 % 2 == 0 ? base.routes() : written);
                if (i++ % 2 == 0) {
                    routes.set(at, edited);
                }
                Inputs in = with(base, routes);
                long t0 = System.nanoTime();
                if (!step(in, e)) {
                    abandoned.incrementAndGet();
                    return;
                }
                done.incrementAndGet();
                if (log.isDebugEnabled()) {
                    log.debug("warm-up iteration {}: {} ms", done.get(), (System.nanoTime() - t0) / 1_000_000);
                }
            }
            log.info("warmed up the per-change path in {} ms ({} iterations, {} given up for real changes)",
                    (System.nanoTime() - started) / 1_000_000, done.get(), abandoned.get());
            throwaway = null; // its memos are as large as the real translator's
            last = null;
            latest = null;
            board = null;
            thread.shutdown(); // done for good: no idle thread left behind
        } catch (RuntimeException ex) {
            // Throwaway work: a failure here must not touch the real path. Stop warming up.
            log.warn("warm-up failed; the first change after start may be slower", ex);
            done.set(iterations);
            throwaway = null;
            last = null;
            latest = null;
            board = null;
            thread.shutdown();
        }
    }

    /** One translation, its snapshots and deltas; false when a real change came in between. */
    private boolean step(Inputs in, long e) {
        Translation before = last;
        Translation after = throwaway.translate(in);
        last = after; // the throwaway translator has moved on: the next step diffs against this one
        for (Scope s : after.scopes()) {
            if (!current(e)) {
                return false;
            }
            Translation.Snapshot snap = after.snapshot(s);
            if (before.scopes().contains(s)) {
                Fleet.rehearse(before.snapshot(s), snap);
            }
        }
        board.update(after);
        return true;
    }

    /** The first Route that made it into a snapshot, preferring one that answers itself (as most do). */
    private static Route pick(Inputs in, Translation t) {
        Route any = null;
        for (Route r : in.routes()) {
            ResourceReport report = t.report(ResourceKey.of(r));
            if (report == null || !report.inSnapshot() || r.getSpec() == null || r.getSpec().rules == null) {
                continue;
            }
            for (RouteSpec.Rule rule : r.getSpec().rules) {
                if (rule != null && rule.respond != null) {
                    return r;
                }
            }
            if (any == null) {
                any = r;
            }
        }
        return any;
    }

    /**
     * A copy of the Route as if the user had edited it: the next generation, and one rule's action
     * changed in a way that keeps it valid and its matches (hence its conflicts) as they were.
     */
    static Route edited(Route r) {
        Route copy = Serialization.unmarshal(Serialization.asJson(r), Route.class);
        Long generation = copy.getMetadata().getGeneration();
        copy.getMetadata().setGeneration(generation == null ? 1 : generation + 1);
        for (RouteSpec.Rule rule : copy.getSpec().rules) {
            if (rule == null) {
                continue;
            }
            if (rule.respond != null) {
                rule.respond.body = (rule.respond.body == null ? "" : rule.respond.body) + " ";
                return copy;
            }
            if (rule.files != null) {
                rule.files.followSymlinks = !Boolean.TRUE.equals(rule.files.followSymlinks);
                return copy;
            }
            if (rule.backends != null) {
                rule.hostRewrite = rule.hostRewrite == null ? "warm-up.invalid" : null;
                return copy;
            }
        }
        return copy; // nothing to change: still a changed source (its generation), if not a changed snapshot
    }

    /**
     * Every Route as another object with the same metadata and spec, as the cache holds them after status
     * writes (the same uid and generation). Shares what the cache's objects hold; neither is modified.
     */
    private static List<Route> statusWritten(List<Route> routes) {
        List<Route> out = new ArrayList<>(routes.size());
        for (Route r : routes) {
            Route w = new Route();
            w.setMetadata(r.getMetadata());
            w.setSpec(r.getSpec());
            w.setStatus(r.getStatus());
            out.add(w);
        }
        return out;
    }

    private static Inputs with(Inputs in, List<Route> routes) {
        return new Inputs(routes, in.upstreams(), in.services(), in.endpointSlices(), in.secrets(), in.ingresses(),
                in.ingressClasses(), in.configMaps());
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
