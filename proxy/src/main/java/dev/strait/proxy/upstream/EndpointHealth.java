package dev.strait.proxy.upstream;

import dev.strait.model.HostPort;
import dev.strait.model.Upstream;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health of one endpoint of one upstream, shared by all event loops: the active checker's
 * verdict and the passive outlier detector's ejection. Loops read two volatile fields per choice;
 * writes happen only when health changes (and a failure count while failures run in a row).
 */
final class EndpointHealth {
    private static final Logger log = LoggerFactory.getLogger(EndpointHealth.class);
    private static final AtomicIntegerFieldUpdater<EndpointHealth> FAILURES =
            AtomicIntegerFieldUpdater.newUpdater(EndpointHealth.class, "consecutiveFailures");

    final UpstreamShared upstream;
    final HostPort address;
    /** The active health check's verdict; true until a check says otherwise. */
    volatile boolean activeHealthy = true;
    /** {@code System.nanoTime()} until which the endpoint is ejected; 0 when it is not. */
    volatile long ejectedUntil;
    private volatile int consecutiveFailures;
    /** How many ejections in a row (doubles the ejection time); guarded by {@code this}. */
    private int ejectionLevel;
    private long lastEjectionEnd;

    // Active check counters, touched only by the checker's loop.
    int checkFailures;
    int checkPasses;

    EndpointHealth(UpstreamShared upstream, HostPort address) {
        this.upstream = upstream;
        this.address = address;
    }

    boolean usable(long now) {
        if (!activeHealthy) {
            return false;
        }
        long until = ejectedUntil;
        return until == 0 || now - until >= 0;
    }

    /** A request got an answer below 500: a run of failures ends. */
    void success() {
        if (consecutiveFailures != 0) {
            consecutiveFailures = 0;
        }
    }

    /** A 5xx answer, connect failure, reset or timeout; ejects the endpoint after enough in a row. */
    void failure(Upstream.OutlierDetection od, long now, String why) {
        int limit = od.consecutiveFailures();
        if (limit == 0) {
            return;
        }
        if (FAILURES.incrementAndGet(this) < limit) {
            return;
        }
        long until;
        synchronized (this) {
            long current = ejectedUntil;
            if (current != 0 && now - current < 0) {
                return; // already ejected (another loop was first)
            }
            long max = od.maxEjectionTime().toNanos();
            if (lastEjectionEnd != 0 && now - lastEjectionEnd > max) {
                ejectionLevel = 0; // healthy for long enough: forgive earlier ejections
            }
            long time = Math.min(max, od.baseEjectionTime().toNanos() << Math.min(ejectionLevel, 20));
            ejectionLevel++;
            until = now + time;
            if (until == 0) {
                until = 1;
            }
            lastEjectionEnd = until;
            ejectedUntil = until;
            consecutiveFailures = 0;
        }
        upstream.meters.ejection();
        upstream.healthChanged();
        log.warn("upstream {} endpoint {} ejected for {} ms after {} failures in a row (last: {})", upstream.name,
                address, (until - now) / 1_000_000, limit, why);
    }

    /** The active checker's result, applied with the thresholds; true when the verdict changed. */
    boolean checked(boolean passed, Upstream.HealthCheck hc, String detail) {
        if (passed) {
            checkFailures = 0;
            checkPasses++;
            if (!activeHealthy && checkPasses >= hc.healthyThreshold()) {
                activeHealthy = true;
                log.info("upstream {} endpoint {} is healthy again", upstream.name, address);
                return true;
            }
        } else {
            checkPasses = 0;
            checkFailures++;
            if (activeHealthy && checkFailures >= hc.unhealthyThreshold()) {
                activeHealthy = false;
                log.warn("upstream {} endpoint {} is unhealthy: {} ({} failed checks)", upstream.name, address, detail,
                        checkFailures);
                return true;
            }
        }
        return false;
    }
}
