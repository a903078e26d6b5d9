package dev.strait.proxy.control;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Redial delays: doubling from {@code initial} up to {@code max}, each drawn between half and all of
 * the current step ("equal jitter"), so a fleet that lost the operator at once does not redial at once.
 * Reset when a snapshot arrives.
 */
public final class Backoff {
    public static final Backoff STANDARD = new Backoff(Duration.ofMillis(250), Duration.ofSeconds(30));

    private final long initialMillis;
    private final long maxMillis;
    private long stepMillis;

    public Backoff(Duration initial, Duration max) {
        this.initialMillis = Math.max(1, initial.toMillis());
        this.maxMillis = Math.max(initialMillis, max.toMillis());
        this.stepMillis = initialMillis;
    }

    public synchronized long nextMillis() {
        long step = stepMillis;
        stepMillis = Math.min(maxMillis, stepMillis * 2);
        return step / 2 + ThreadLocalRandom.current().nextLong(step / 2 + 1);
    }

    public synchronized void reset() {
        stepMillis = initialMillis;
    }

    Backoff copy() {
        return new Backoff(Duration.ofMillis(initialMillis), Duration.ofMillis(maxMillis));
    }
}
