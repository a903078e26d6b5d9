package dev.strait.proxy.upstream;

/**
 * Keeps retries to at most 20% of the requests (linkerd's and Finagle's retry budget): each first try
 * deposits 0.2 of a retry, each retry withdraws one. A small reserve, refilled at one retry a second,
 * lets a quiet upstream still retry. One per event loop and upstream, so no locks; the limit holds
 * per loop and therefore overall.
 */
final class RetryBudget {
    static final double RATIO = 0.2;
    static final double RESERVE = 3;
    private static final double MAX = 10;
    private static final long REFILL_NANOS = 1_000_000_000L;

    private double tokens = RESERVE;
    private long lastRefill = System.nanoTime();

    void deposit() {
        if (tokens < MAX) {
            tokens = Math.min(MAX, tokens + RATIO);
        }
    }

    boolean withdraw(long now) {
        if (tokens < RESERVE) {
            long seconds = (now - lastRefill) / REFILL_NANOS;
            if (seconds > 0) {
                tokens = Math.min(RESERVE, tokens + seconds);
                lastRefill = now;
            }
        } else {
            lastRefill = now;
        }
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
