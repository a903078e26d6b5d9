package dev.strait.proxy.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.IpBlock;
import dev.strait.model.Route;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-client rate on its own, on a clock the test moves. */
class RateLimiterTest {
    private static final long SECOND = 1_000_000_000L;
    private final InetAddress a = InetAddress.getLoopbackAddress();
    private final InetAddress b;

    RateLimiterTest() throws Exception {
        b = InetAddress.getByName("192.0.2.7");
    }

    @Test
    void theRateWithItsBurstThenTheTimeToWait() {
        // 2 a second (one each 0.5 s) and 1 more at once.
        RateLimiter r = new RateLimiter(new Route.RateLimit(2, Duration.ofSeconds(1), 1, List.of()));
        long t = 1_000 * SECOND;
        assertThat(r.check(a, t)).isZero();
        assertThat(r.check(a, t)).as("the burst").isZero();
        assertThat(r.check(a, t)).as("half a second until the next").isEqualTo(SECOND / 2);
        assertThat(r.check(b, t)).as("another client has its own").isZero();
        assertThat(r.check(a, t + SECOND / 4)).isEqualTo(SECOND / 4);
        assertThat(r.check(a, t + SECOND / 2)).isZero();
        assertThat(r.check(a, t + SECOND / 2)).isPositive();
        // Idle for long, the bucket is full again: the burst, not more.
        long later = t + 60 * SECOND;
        assertThat(r.check(a, later)).isZero();
        assertThat(r.check(a, later)).isZero();
        assertThat(r.check(a, later)).isPositive();
    }

    @Test
    void exemptClientsAndClientsWithoutAnAddressAreNotLimited() {
        RateLimiter r = new RateLimiter(new Route.RateLimit(1, Duration.ofHours(1), 0,
                List.of(IpBlock.parse("127.0.0.0/8"))));
        for (int i = 0; i < 10; i++) {
            assertThat(r.check(a, i)).isZero();
            assertThat(r.check(null, i)).isZero();
        }
        assertThat(r.check(b, 0)).isZero();
        assertThat(r.check(b, 0)).isPositive();
        assertThat(r.tracked()).as("only b").isEqualTo(1);
    }

    @Test
    void aFullTableDropsIdleClientsAndRefusesNewOnesWhileAllAreActive() throws Exception {
        RateLimiter r = new RateLimiter(new Route.RateLimit(1, Duration.ofSeconds(1), 0, List.of()), 2);
        long t = 5 * SECOND;
        assertThat(r.check(a, t)).isZero();
        assertThat(r.check(b, t)).isZero();
        InetAddress c = InetAddress.getByName("198.51.100.1");
        assertThat(r.check(c, t)).as("both still within their second: no room").isPositive();
        assertThat(r.check(c, t + 2 * SECOND)).as("a and b idle since: dropped").isZero();
        assertThat(r.tracked()).isEqualTo(1);
    }
}
