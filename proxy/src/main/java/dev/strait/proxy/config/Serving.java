package dev.strait.proxy.config;

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
    private volatile Consumer<Snapshot> onSwap = s -> {};

    public Serving(Snapshot initial) {
        this.snapshot = initial;
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    public void swap(Snapshot next) {
        snapshot = next;
        swaps.incrementAndGet();
        onSwap.accept(next);
    }

    public long swaps() {
        return swaps.get();
    }

    public void onSwap(Consumer<Snapshot> listener) {
        this.onSwap = listener;
    }

    public boolean draining() {
        return draining;
    }

    public void startDraining() {
        draining = true;
    }
}
