package dev.strait.proxy.upstream;

import dev.strait.model.HostPort;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What all event loops share about one upstream (by name, across reloads): each endpoint's health,
 * a counter that moves whenever any of it changes (loops rebuild their list of usable endpoints only
 * then), the active health checker, the meters, and every loop's pools for the connection gauges.
 */
final class UpstreamShared {
    final String name;
    final UpstreamContext context;
    final UpstreamMeters meters;
    private final ConcurrentHashMap<HostPort, EndpointHealth> health = new ConcurrentHashMap<>();
    private final AtomicInteger epoch = new AtomicInteger();
    final CopyOnWriteArrayList<EndpointPool> pools = new CopyOnWriteArrayList<>();
    /** The spec of the serving config (null once the upstream left the config). */
    volatile UpstreamSpec spec;
    HealthChecker checker;

    UpstreamShared(UpstreamContext context, String name) {
        this.context = context;
        this.name = name;
        this.meters = new UpstreamMeters(context.metrics().registry(), this);
    }

    EndpointHealth health(HostPort endpoint) {
        return health.computeIfAbsent(endpoint, e -> new EndpointHealth(this, e));
    }

    /** Forgets endpoints that left the config. */
    void retain(Set<HostPort> endpoints) {
        if (health.keySet().retainAll(endpoints)) {
            healthChanged();
        }
    }

    int epoch() {
        return epoch.get();
    }

    void healthChanged() {
        epoch.incrementAndGet();
    }

    double openConnections() {
        long n = 0;
        for (EndpointPool p : pools) {
            n += p.open;
        }
        return n;
    }

    double idleConnections() {
        long n = 0;
        for (EndpointPool p : pools) {
            n += p.idleCount;
        }
        return n;
    }

    double healthyEndpoints() {
        UpstreamSpec s = spec;
        if (s == null) {
            return 0;
        }
        long now = System.nanoTime();
        int n = 0;
        for (HostPort e : s.endpoints) {
            EndpointHealth h = health.get(e);
            if (h == null || h.usable(now)) {
                n++;
            }
        }
        return n;
    }
}
