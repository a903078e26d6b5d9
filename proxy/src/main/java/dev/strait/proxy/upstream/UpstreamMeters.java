package dev.strait.proxy.upstream;

import dev.strait.proxy.metrics.LatencyBuckets;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus meters of one upstream, resolved once when the upstream first appears; recording a try
 * is an array index and an adder increment, no tag building.
 */
public final class UpstreamMeters {
    /** Index into {@link #tries} for a try that got no answer (connect failure, reset, timeout). */
    static final int FAILED = 0;
    private static final String[] CLASSES = {"failed", "1xx", "2xx", "3xx", "4xx", "5xx"};

    private final Counter[] tries = new Counter[CLASSES.length];
    private final Timer latency;
    private final Counter retries;
    private final Counter ejections;
    private final MeterRegistry registry;
    private final UpstreamShared upstream;
    /** The gauges while the upstream is in the serving config; none while it is not. */
    private List<Gauge> gauges = List.of();

    UpstreamMeters(MeterRegistry registry, UpstreamShared upstream) {
        this.registry = registry;
        this.upstream = upstream;
        String name = upstream.name;
        for (int i = 0; i < CLASSES.length; i++) {
            tries[i] = Counter.builder("strait_upstream_requests")
                    .description("Tries sent to an upstream, by the class of its answer (failed: none)")
                    .tag("upstream", name).tag("class", CLASSES[i]).register(registry);
        }
        latency = LatencyBuckets.on(Timer.builder("strait_upstream_request_duration"))
                .description("Time from sending a try to the end of the upstream's answer")
                .tag("upstream", name)
                .register(registry);
        retries = Counter.builder("strait_upstream_retries").description("Retries of requests to an upstream")
                .tag("upstream", name).register(registry);
        ejections = Counter.builder("strait_upstream_ejections")
                .description("Endpoints ejected by outlier detection").tag("upstream", name).register(registry);
        present(true);
    }

    /**
     * Whether the upstream is in the serving config. Its gauges are exported only while it is: a removed
     * upstream's {@code strait_upstream_endpoints_healthy 0} would fire "no healthy endpoint" alerts for
     * something that no longer exists. Its counters stay, as counters must.
     */
    void present(boolean present) {
        if (present == !gauges.isEmpty()) {
            return;
        }
        if (!present) {
            gauges.forEach(registry::remove);
            gauges = List.of();
            return;
        }
        String name = upstream.name;
        gauges = List.of(
                Gauge.builder("strait_upstream_connections_open", upstream, UpstreamShared::openConnections)
                        .description("Connections to an upstream's endpoints, over all event loops")
                        .tag("upstream", name).register(registry),
                Gauge.builder("strait_upstream_connections_idle", upstream, UpstreamShared::idleConnections)
                        .description("Idle keep-alive connections in an upstream's pools").tag("upstream", name)
                        .register(registry),
                Gauge.builder("strait_upstream_endpoints_healthy", upstream, UpstreamShared::healthyEndpoints)
                        .description("Endpoints neither failing health checks nor ejected").tag("upstream", name)
                        .register(registry));
    }

    /** One try ended: {@code status} is the upstream's answer, or 0 when there was none. */
    public void tried(int status, long nanos) {
        tries[status <= 0 || status >= 600 ? FAILED : status / 100].increment();
        latency.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void retry() {
        retries.increment();
    }

    void ejection() {
        ejections.increment();
    }
}
