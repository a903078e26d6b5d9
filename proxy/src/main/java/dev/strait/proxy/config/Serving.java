package dev.strait.proxy.config;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The one mutable thing on the request path: the current {@link Snapshot}, swapped whole by a reload
 * (no locks: one volatile read per request), and the drain flag set on SIGTERM.
 */
public final class Serving {
    private volatile Snapshot snapshot;
    private volatile boolean draining;
    private final AtomicLong swaps = new AtomicLong();
    private final CopyOnWriteArrayList<Consumer<Snapshot>> onSwap = new CopyOnWriteArrayList<>();

    public Serving(Snapshot initial) {
        this.snapshot = initial;
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    public void swap(Snapshot next) {
        snapshot = next;
        swaps.incrementAndGet();
        for (Consumer<Snapshot> l : onSwap) {
            l.accept(next);
        }
    }

    public long swaps() {
        return swaps.get();
    }

    /** Adds a listener told of every swap, on the thread that swapped (after the swap). */
    public void onSwap(Consumer<Snapshot> listener) {
        onSwap.add(listener);
    }

    public boolean draining() {
        return draining;
    }

    public void startDraining() {
        draining = true;
    }
}
