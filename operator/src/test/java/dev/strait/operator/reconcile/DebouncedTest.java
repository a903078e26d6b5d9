package dev.strait.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DebouncedTest {
    @Test
    void aLoneChangeAfterQuietRunsAfterTheShortWait() {
        AtomicLong ranAt = new AtomicLong();
        try (Debounced d = new Debounced("test", Duration.ofMillis(10), Duration.ofSeconds(5), Duration.ofSeconds(30),
                () -> ranAt.set(System.nanoTime()))) {
            long t0 = System.nanoTime();
            d.changed();
            await().atMost(Duration.ofSeconds(4)).until(() -> ranAt.get() != 0);
            // Far below the 5 s quiet period: the lone change did not wait for quiet.
            assertThat(Duration.ofNanos(ranAt.get() - t0)).isLessThan(Duration.ofSeconds(4));
        }
    }

    @Test
    void aBurstCostsAtMostTwoRunsAndWaitsForQuiet() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        try (Debounced d = new Debounced("test", Duration.ofMillis(10), Duration.ofMillis(300), Duration.ofSeconds(30),
                runs::incrementAndGet)) {
            long end = System.nanoTime() + Duration.ofMillis(600).toNanos();
            while (System.nanoTime() < end) {
                d.changed();
                Thread.sleep(2); // a burst: changes far closer together than the quiet period
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> runs.get() >= 1);
            Thread.sleep(700);
            assertThat(runs.get()).isBetween(1, 2);
        }
    }

    @Test
    void aSteadyTrickleStillRunsWithinTheCap() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        try (Debounced d = new Debounced("test", Duration.ofMillis(10), Duration.ofMillis(200), Duration.ofMillis(500),
                runs::incrementAndGet)) {
            long end = System.nanoTime() + Duration.ofMillis(2000).toNanos();
            while (System.nanoTime() < end) {
                d.changed();
                Thread.sleep(20); // never quiet for 200 ms
            }
            assertThat(runs.get()).as("runs in 2 s with a 500 ms cap").isGreaterThanOrEqualTo(2);
        }
    }
}
