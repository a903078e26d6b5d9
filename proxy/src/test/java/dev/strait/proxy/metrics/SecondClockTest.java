package dev.strait.proxy.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The metrics' clock: wall time to the second, monotonic time exact, and the histogram still counting. */
class SecondClockTest {
    @Test
    void wallTimeIsTheCurrentSecond() {
        long before = System.currentTimeMillis();
        long wall = SecondClock.INSTANCE.wallTime();
        long after = System.currentTimeMillis();
        assertThat(wall % 1000).isZero();
        // The Date tick may run up to a tick late on a busy machine; never ahead of the clock.
        assertThat(wall).isBetween(before - 2000, after);
    }

    @Test
    void monotonicTimeIsNanoTime() {
        long before = System.nanoTime();
        long t = SecondClock.INSTANCE.monotonicTime();
        assertThat(t).isBetween(before, System.nanoTime());
    }

    @Test
    void routeLatencyIsStillRecordedAndScraped() {
        ProxyMetrics metrics = new ProxyMetrics();
        ProxyMetrics.RouteMeters meters = metrics.route("r");
        meters.record(200, TimeUnit.MILLISECONDS.toNanos(3));
        meters.record(200, TimeUnit.MILLISECONDS.toNanos(700));
        Timer timer = metrics.registry().get("strait_request_duration").tag("route", "r").timer();
        assertThat(timer.count()).isEqualTo(2);
        assertThat(timer.max(TimeUnit.MILLISECONDS)).isEqualTo(700);
        assertThat(metrics.scrape())
                .contains("strait_requests_total{route=\"r\",status=\"200\"} 2")
                .contains("strait_request_duration_seconds_count{route=\"r\"} 2")
                .containsPattern("strait_request_duration_seconds_bucket\\{route=\"r\",le=\"0\\.00[0-9]+\"} 1");
        assertThat(Duration.ofNanos((long) timer.totalTime(TimeUnit.NANOSECONDS))).isEqualTo(Duration.ofMillis(703));
    }
}
