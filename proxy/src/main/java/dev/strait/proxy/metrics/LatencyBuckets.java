package dev.strait.proxy.metrics;

import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * The bucket bounds every Strait latency histogram publishes (ADR 0036): 16 fixed bounds from 0.5 ms
 * (a sidecar hop) to 60 s (the longest default timeout), in the 1-2.5-5 steps Prometheus users read.
 * Micrometer's generated percentile buckets gave 74 series per route and upstream and a binary search
 * over them on every request.
 */
public final class LatencyBuckets {
    private static final Duration[] BOUNDS = {
        Duration.ofNanos(500_000), Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5),
        Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
        Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500),
        Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60),
    };

    private LatencyBuckets() {}

    /** {@code timer} with Strait's latency buckets. */
    public static Timer.Builder on(Timer.Builder timer) {
        return timer.serviceLevelObjectives(BOUNDS);
    }
}
