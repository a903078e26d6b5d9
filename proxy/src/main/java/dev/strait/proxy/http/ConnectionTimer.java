package dev.strait.proxy.http;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A connection's one timer, moved lazily (HTTP/1.1 and HTTP/2 connections alike): code asks for it to
 * fire by a deadline, and it is rescheduled only when that is earlier than what it waits for now; the
 * callback works out what is due and asks for its next wake-up. No per-request scheduling. Used on
 * the connection's event loop only.
 */
public final class ConnectionTimer {
    /** A wake-up sooner than this finds nothing due yet: fire at most every 10 ms. */
    private static final long MIN_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Runnable onFire;
    private ScheduledFuture<?> future;
    private long deadline;

    public ConnectionTimer(Runnable onFire) {
        this.onFire = onFire;
    }

    /** Makes it fire by {@code deadline} (a nanoTime) if it is not armed or would fire later. */
    public void fireBy(EventExecutor executor, long deadline) {
        if (future == null || this.deadline - deadline > 0) {
            fireIn(executor, deadline - System.nanoTime());
        }
    }

    /** Arms it to fire in {@code nanos} (at least 10 ms), replacing what it waited for. */
    public void fireIn(EventExecutor executor, long nanos) {
        if (future != null) {
            future.cancel(false);
        }
        deadline = System.nanoTime() + nanos;
        future = executor.schedule(this::fire, Math.max(nanos, MIN_DELAY_NANOS), TimeUnit.NANOSECONDS);
    }

    public void cancel() {
        if (future != null) {
            future.cancel(false);
            future = null;
        }
    }

    private void fire() {
        future = null;
        onFire.run();
    }
}
