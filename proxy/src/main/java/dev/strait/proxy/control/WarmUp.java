package dev.strait.proxy.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.model.Config;
import dev.strait.model.ConfigDelta;
import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import dev.strait.proxy.config.SnapshotBuilder;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs what a delta costs the control client (apply it to the document, parse the result with the
 * parse memo, build the table, routes and version with the build's reuse) on throwaway copies after an
 * accepted config, so that the first real delta after start finds that code compiled (ADR 0030).
 *
 * <p>Nothing here is served, answered or kept: the delta is made here (one Route of the document edited,
 * then edited back), the memos are {@code copy()}s that share what the real ones kept without changing
 * it, and the results are dropped. It runs on a thread of its own and stops at its next check when a
 * message arrives from the operator; after the next accepted config it resumes from that one, until it
 * has done its iterations.
 */
final class WarmUp implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WarmUp.class);
    /** As the operator's (ADR 0030): the per-change time stops falling after 6-10 iterations at 10k Routes. */
    static final int ITERATIONS = 30;

    private final int iterations;
    private final AtomicLong epoch = new AtomicLong();
    private final AtomicLong done = new AtomicLong();
    private final AtomicLong abandoned = new AtomicLong();
    private final ExecutorService thread;

    WarmUp(int iterations) {
        this.iterations = iterations;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "strait-control-warm-up");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            return t;
        });
    }

    /** A message came: stop at the next check. Cheap. */
    void yieldToMessage() {
        epoch.incrementAndGet();
    }

    /**
     * A config was accepted: warm up on copies of what it left (called on the client's thread, where the
     * memos live; their copies are then used on the warm-up thread only).
     */
    void resume(ObjectNode document, ConfigParser.Memo parsed, SnapshotBuilder.Reuse built) {
        if (done.get() >= iterations || thread.isShutdown()) {
            return;
        }
        long e = epoch.get();
        ConfigParser.Memo p = parsed.copy();
        SnapshotBuilder.Reuse b = built.copy();
        try {
            thread.execute(() -> run(e, document, p, b));
        } catch (RejectedExecutionException closed) {
            // closed meanwhile
        }
    }

    long iterationsDone() {
        return done.get();
    }

    long abandoned() {
        return abandoned.get();
    }

    private boolean current(long e) {
        return epoch.get() == e && !thread.isShutdown();
    }

    private void run(long e, ObjectNode document, ConfigParser.Memo parsed, SnapshotBuilder.Reuse built) {
        if (!current(e) || done.get() >= iterations) {
            return;
        }
        try {
            ObjectNode edited = edited(document);
            if (edited == null) {
                return; // nothing to edit (no Route answers or proxies): try after the next config
            }
            ObjectNode there = ConfigDelta.diff(document, edited);
            ObjectNode back = ConfigDelta.diff(edited, document);
            if (there == null || back == null) {
                return;
            }
            ObjectNode base = document;
            long t0 = System.nanoTime();
            for (int i = 0; done.get() < iterations; i++) {
                if (!current(e)) {
                    abandoned.incrementAndGet();
                    return;
                }
                ObjectNode result = ConfigDelta.apply(base, i % 2 == 0 ? there : back);
                if (!current(e)) {
                    abandoned.incrementAndGet();
                    return;
                }
                Config config = ConfigParser.parse(result, "warm-up", parsed);
                if (!current(e)) {
                    abandoned.incrementAndGet();
                    return;
                }
                SnapshotBuilder.build(config, "warm-up", built).version();
                base = result;
                done.incrementAndGet();
            }
            log.debug("warmed up the delta path in {} ms ({} iterations, {} given up for messages)",
                    (System.nanoTime() - t0) / 1_000_000, done.get(), abandoned.get());
            thread.shutdown(); // done for good: no idle thread left behind
        } catch (InvalidConfigException | RuntimeException ex) {
            // Throwaway work: whatever went wrong here, the served table is untouched. Stop warming up.
            log.debug("warm-up stopped: {}", ex.toString());
            done.set(iterations);
            thread.shutdown();
        }
    }

    /**
     * The document with one Route changed as an operator's delta would change it: the first Route with a
     * fixed answer gets another body, else the first with backends another {@code hostRewrite}. Shares
     * every other node with {@code document}; null when no Route has either.
     */
    static ObjectNode edited(ObjectNode document) {
        JsonNode routes = document.path("routes");
        if (!routes.isArray()) {
            return null;
        }
        for (int i = 0; i < routes.size(); i++) {
            JsonNode rules = routes.get(i).path("rules");
            for (int j = 0; j < rules.size(); j++) {
                JsonNode rule = rules.get(j);
                if (rule.path("respond").isObject() || rule.path("backends").isArray()) {
                    ObjectNode route = routes.get(i).deepCopy();
                    ObjectNode r = (ObjectNode) route.path("rules").get(j);
                    if (r.path("respond") instanceof ObjectNode respond) {
                        respond.put("body", respond.path("body").asText("") + " ");
                    } else if (r.has("hostRewrite")) {
                        r.remove("hostRewrite");
                    } else {
                        r.put("hostRewrite", "warm-up.invalid");
                    }
                    ArrayNode copy = document.arrayNode(routes.size());
                    for (int k = 0; k < routes.size(); k++) {
                        copy.add(k == i ? route : routes.get(k));
                    }
                    ObjectNode out = document.objectNode();
                    out.setAll(document);
                    out.set("routes", copy);
                    return out;
                }
            }
        }
        return null;
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
