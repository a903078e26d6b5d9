package dev.strait.operator.reconcile;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs an action once things have been quiet for {@code quiet}, or {@code cap} after the first
 * unhandled change, whichever comes first: a burst costs one run and a steady trickle still gets one
 * at least every {@code cap}. Runs happen on one thread of their own, one at a time.
 *
 * <p>A change that comes after a quiet spell (nothing changed for {@code quiet}) is a lone edit far
 * more often than the start of a burst, so it is not made to wait the whole
 * quiet period: it runs after {@code first}, unless another change arrives by then, in which case it
 * is a burst after all and waits for quiet as above. A burst thus costs at most two runs (the lone
 * first change and the rest), and a single change costs {@code first} instead of {@code quiet}.
 */
final class Debounced implements AutoCloseable {
    private final Runnable action;
    private final long firstNanos;
    private final long quietNanos;
    private final long capNanos;
    private final ScheduledExecutorService thread;
    // Guarded by this.
    private long firstChange;
    private long lastChange;
    private long changes;
    private boolean pending;

    Debounced(String name, Duration quiet, Duration cap, Runnable action) {
        this(name, quiet, quiet, cap, action);
    }

    /** @param first the wait for a change after a quiet spell (at most {@code quiet}) */
    Debounced(String name, Duration first, Duration quiet, Duration cap, Runnable action) {
        this.action = action;
        this.firstNanos = Math.min(first.toNanos(), quiet.toNanos());
        this.quietNanos = quiet.toNanos();
        this.capNanos = cap.toNanos();
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Something changed: run soon. Cheap, from any thread. */
    synchronized void changed() {
        long now = System.nanoTime();
        boolean quietBefore = now - lastChange >= quietNanos;
        lastChange = now;
        changes++;
        if (!pending) {
            pending = true;
            firstChange = now;
            changes = 1;
            schedule(now, quietBefore ? now + firstNanos : now + quietNanos);
        }
    }

    private void schedule(long now, long due) {
        due = Math.min(due, firstChange + capNanos);
        if (!thread.isShutdown()) {
            thread.schedule(this::tick, Math.max(0, due - now), TimeUnit.NANOSECONDS);
        }
    }

    private void tick() {
        synchronized (this) {
            long now = System.nanoTime();
            boolean lone = changes == 1 && now - firstChange >= firstNanos;
            if (!lone && now - lastChange < quietNanos && now - firstChange < capNanos) {
                schedule(now, lastChange + quietNanos); // more changes came: wait for quiet, within the cap
                return;
            }
            pending = false;
        }
        action.run();
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
