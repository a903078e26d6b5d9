package dev.strait.proxy.cache;

/**
 * Hit-for-pass: a key whose last response could not be stored. Until {@code untilNanos} its requests
 * go straight upstream, without waiting on each other (coalescing would serialize them).
 */
record Pass(long untilNanos, String why) implements Stored {
    @Override
    public int weight() {
        return 96;
    }

    @Override
    public long keepNanos(long nowMillis) {
        return Math.max(1, untilNanos - System.nanoTime());
    }

    boolean active() {
        return System.nanoTime() - untilNanos < 0;
    }
}
