package dev.strait.proxy.metrics;

import dev.strait.proxy.http.DateHeader;
import io.micrometer.core.instrument.Clock;

/**
 * Micrometer's clock with a wall time read from the once-a-second Date tick. A latency histogram and
 * its max read the wall clock on every record only to see whether their time window (40 s) has to
 * rotate; at tens of thousands of requests a second on one core those two clock calls per request
 * cost more than the recording itself. Monotonic time (timer durations) stays exact.
 */
final class SecondClock implements Clock {
    static final SecondClock INSTANCE = new SecondClock();

    private SecondClock() {}

    @Override
    public long wallTime() {
        return DateHeader.millis();
    }

    @Override
    public long monotonicTime() {
        return System.nanoTime();
    }
}
