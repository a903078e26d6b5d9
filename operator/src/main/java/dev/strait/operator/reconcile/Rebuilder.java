package dev.strait.operator.reconcile;

import dev.strait.operator.translate.Inputs;
import dev.strait.operator.translate.Translation;
import dev.strait.operator.translate.Translator;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds the whole table after changes, debounced ({@link Debounced}: 100 ms of quiet, at most 1 s
 * after the first change in production), so a burst (a Helm release, a rollout's EndpointSlice churn)
 * costs one translation and a steady trickle still converges within the cap. A lone change after a
 * quiet spell waits a tenth of the quiet period instead (10 ms in production): most changes are single
 * edits, and the whole wait is part of the time until proxies serve them.
 */
public final class Rebuilder implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Rebuilder.class);

    private final Supplier<Inputs> inputs;
    private final Translator translator;
    private final Consumer<Translation> sink;
    private final Debounced debounced;
    private final AtomicLong rebuilds = new AtomicLong();
    /** Warms the per-change path on throwaway state after each rebuild until it has done enough (ADR 0030). */
    private final WarmUp warmUp;
    /** Why the default certificate could not be used at the last rebuild (null: it could, or there is none). */
    private String defaultCertificateProblem;

    /** @param inputs the caches' contents, or null while they have not synced */
    public Rebuilder(Supplier<Inputs> inputs, Translator translator, Consumer<Translation> sink, Duration quiet, Duration cap) {
        this(inputs, translator, sink, quiet, cap, WarmUp.ITERATIONS);
    }

    /** @param warmUpIterations throwaway incremental translations to run after start-up (0: none) */
    Rebuilder(Supplier<Inputs> inputs, Translator translator, Consumer<Translation> sink, Duration quiet, Duration cap,
              int warmUpIterations) {
        this.inputs = inputs;
        this.translator = translator;
        this.sink = sink;
        this.debounced = new Debounced("strait-rebuild", quiet.dividedBy(10), quiet, cap, this::rebuild);
        this.warmUp = new WarmUp(translator, warmUpIterations);
    }

    /** Something changed: rebuild soon. Cheap; called from informer threads. */
    public void changed() {
        warmUp.yieldToChange(); // a real change never waits behind the warm-up
        debounced.changed();
    }

    private void rebuild() {
        Inputs in = inputs.get();
        if (in == null) {
            return; // not synced: the cache reports a change once it is
        }
        long start = System.nanoTime();
        try {
            Translation t = translator.translate(in);
            long translated = System.nanoTime();
            sink.accept(t);
            rebuilds.incrementAndGet();
            defaultCertificate(t);
            warmUp.resume(in);
            if (log.isDebugEnabled()) {
                log.debug("rebuilt {} route(s), {} upstream(s) in {} ms (translation {} ms, publication {} ms)",
                        in.routes().size(), in.upstreams().size(), (System.nanoTime() - start) / 1_000_000,
                        (translated - start) / 1_000_000, (System.nanoTime() - translated) / 1_000_000);
            }
        } catch (RuntimeException e) {
            log.error("rebuild failed; the last published snapshots stay", e);
        }
    }

    /**
     * Says once, when it changes, why the operator's {@code --default-ssl-certificate} cannot be used (its Secret is
     * missing or holds no usable certificate and key), and when it can again: until then the hosts Ingresses list in
     * {@code spec.tls} without a Secret are served as hosts without TLS (each Ingress says so in its status and Events).
     */
    private void defaultCertificate(Translation t) {
        String problem = t.defaultCertificateProblem();
        if (java.util.Objects.equals(problem, defaultCertificateProblem)) {
            return;
        }
        if (problem != null) {
            log.warn("{}; the hosts Ingresses list in spec.tls without a secretName are served as hosts without TLS"
                    + " (plain HTTP, no redirect to https) until it can be used", problem);
        } else if (t.defaults().defaultCertificate() != null) {
            log.info("--default-ssl-certificate {}: its certificate is served again", t.defaults().defaultCertificate());
        }
        defaultCertificateProblem = problem;
    }

    /** Rebuilds done so far. */
    public long rebuilds() {
        return rebuilds.get();
    }

    WarmUp warmUp() {
        return warmUp;
    }

    @Override
    public void close() {
        warmUp.close();
        debounced.close();
    }
}
