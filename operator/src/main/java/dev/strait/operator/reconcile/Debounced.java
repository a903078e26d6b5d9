package dev.strait.operator.reconcile;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs an action once things have been quiet for {@code quiet}, or {@code cap} after the first
 * unhandled change, whichever comes first: a burst costs one run and a steady trickle still gets one
 * at least every {@code cap}. Runs happen on one thread of their own, one at a time.
 */
final class Debounced implements AutoCloseable {
    private final Runnable action;
    private final long quietNanos;
    private final long capNanos;
    private final ScheduledExecutorService thread;
    // Guarded by this.
    private long firstChange;
    private long lastChange;
    private boolean pending;

    Debounced(String name, Duration quiet, Duration cap, Runnable action) {
        this.action = action;
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
        lastChange = now;
        if (!pending) {
            pending = true;
            firstChange = now;
            schedule(now);
        }
    }

    private void schedule(long now) {
        long due = Math.min(lastChange + quietNanos, firstChange + capNanos);
        if (!thread.isShutdown()) {
            thread.schedule(this::tick, Math.max(0, due - now), TimeUnit.NANOSECONDS);
        }
    }

    private void tick() {
        synchronized (this) {
            long now = System.nanoTime();
            if (now - lastChange < quietNanos && now - firstChange < capNanos) {
                schedule(now); // more changes came: wait for quiet, within the cap
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
