package dev.strait.proxy.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

/**
 * The proxy's Prometheus metrics (names prefixed {@code strait_}). Meters are looked up once per route
 * and status and then kept in arrays, so recording a request does no tag building or map lookups.
 */
public final class ProxyMetrics {
    /** Route tag for requests that matched no route. */
    public static final String NO_ROUTE = "";

    private final PrometheusMeterRegistry registry =
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new PrometheusRegistry(), SecondClock.INSTANCE);
    private final ConcurrentHashMap<String, RouteMeters> routes = new ConcurrentHashMap<>();
    private final AtomicLong openConnections = new AtomicLong();
    private final AtomicLong restartPending = new AtomicLong();
    private final Counter rejectedReloads;
    private final Counter acceptedReloads;
    private final Counter refusedConnections;
    private volatile LongSupplier accessLogDropped = () -> 0;
    private volatile LongSupplier bodyFilesHeld = () -> 0;
    private volatile LongSupplier bodyFilesRefused = () -> 0;
    private Gauge configInfo;
    private Gauge tlsEngineInfo;
    private LongSupplier[] ocspStapling;
    private LongSupplier[] clientOcsp;

    public ProxyMetrics() {
        Gauge.builder("strait_connections_open", openConnections, AtomicLong::get)
                .description("Client connections open now").register(registry);
        rejectedReloads = Counter.builder("strait_config_reloads_rejected")
                .description("Config reloads refused because the new config was invalid").register(registry);
        acceptedReloads = Counter.builder("strait_config_reloads_accepted")
                .description("Config reloads that were applied").register(registry);
        Gauge.builder("strait_config_restart_pending", restartPending, AtomicLong::get)
                .description("1 while the serving config changes listeners, workers, transport or admin, which take"
                        + " effect at the next restart").register(registry);
        refusedConnections = Counter.builder("strait_connections_refused")
                .description("Client connections closed at once because limits.maxConnections were open")
                .register(registry);
        // Held through this object: Micrometer keeps a function counter's object weakly.
        FunctionCounter.builder("strait_access_log_dropped", this, m -> m.accessLogDropped.getAsLong())
                .description("Access-log lines dropped because stdout did not take them as fast as requests came")
                .register(registry);
        Gauge.builder("strait_request_body_files_bytes", this, m -> m.bodyFilesHeld.getAsLong())
                .description("Bytes of request bodies in files now: bodies read before their upstream is asked,"
                        + " past what their rule holds in memory (requestBodyFiles)").register(registry);
        FunctionCounter.builder("strait_request_body_files_refused", this, m -> m.bodyFilesRefused.getAsLong())
                .description("Request bodies that streamed on because requestBodyFiles could not take them (its"
                        + " maxBytes reached, or the directory refused a file)").register(registry);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Meters for one route; resolve once (at table build) and keep. */
    public RouteMeters route(String name) {
        RouteMeters m = routes.get(name); // get first: computeIfAbsent with a method reference allocates per call
        return m != null ? m : routes.computeIfAbsent(name, RouteMeters::new);
    }

    public void connectionOpened() {
        openConnections.incrementAndGet();
    }

    public void connectionClosed() {
        openConnections.decrementAndGet();
    }

    public void connectionRefused() {
        refusedConnections.increment();
    }

    public long openConnections() {
        return openConnections.get();
    }

    /** Whether the serving config differs from the started one in what only a restart applies. */
    public void restartPending(boolean pending) {
        restartPending.set(pending ? 1 : 0);
    }

    public void reloadRejected() {
        rejectedReloads.increment();
    }

    public void reloadAccepted() {
        acceptedReloads.increment();
    }

    /** Where {@code strait_access_log_dropped_total} is read from, at each scrape: the access log's own count. */
    public void accessLogDropped(LongSupplier dropped) {
        accessLogDropped = dropped;
    }

    /** Where the request body files' gauge and refusals are read. */
    public void requestBodyFiles(LongSupplier held, LongSupplier refused) {
        bodyFilesHeld = held;
        bodyFilesRefused = refused;
    }

    /** Exposes the serving config's version as {@code strait_config_serving{version="..."} 1}. */
    public synchronized void configVersion(String version) {
        if (configInfo != null) {
            registry.remove(configInfo);
        }
        configInfo = Gauge.builder("strait_config_serving", () -> 1).description("The serving config's version")
                .tag("version", version).register(registry);
    }

    /** Exposes the TLS engine in use as {@code strait_tls_engine{engine="openssl"} 1} (or {@code jdk}). */
    public synchronized void tlsEngine(String engine) {
        if (tlsEngineInfo == null) {
            tlsEngineInfo = Gauge.builder("strait_tls_engine", () -> 1)
                    .description("The TLS implementation serving TLS listeners").tag("engine", engine).register(registry);
        }
    }

    /**
     * The OCSP stapler's gauges and counters (ADR 0104), registered once: {@code strait_tls_ocsp_stapled} and
     * {@code strait_tls_ocsp_unstapled} (certificates of listeners with {@code ocspStapling} whose handshakes get a
     * staple now, and those that go without), {@code strait_tls_ocsp_answers_total{result}} (good, revoked, failed).
     */
    public synchronized void ocspStapling(LongSupplier stapled, LongSupplier unstapled, LongSupplier good,
                                          LongSupplier revoked, LongSupplier failed) {
        if (ocspStapling != null) {
            return;
        }
        ocspStapling = new LongSupplier[] {stapled, unstapled, good, revoked, failed};
        Gauge.builder("strait_tls_ocsp_stapled", this, m -> m.ocspStapling[0].getAsLong())
                .description("Certificates with ocspStapling whose handshakes get a good OCSP answer stapled now")
                .register(registry);
        Gauge.builder("strait_tls_ocsp_unstapled", this, m -> m.ocspStapling[1].getAsLong())
                .description("Certificates with ocspStapling whose handshakes go without a staple: no good answer yet,"
                        + " the last one expired, or the certificate is revoked").register(registry);
        String[] results = {"good", "revoked", "failed"};
        for (int i = 0; i < results.length; i++) {
            int at = i + 2;
            FunctionCounter.builder("strait_tls_ocsp_answers", this, m -> m.ocspStapling[at].getAsLong())
                    .description("OCSP answers fetched for stapling: good (stapled), revoked, failed (none, or not"
                            + " one to staple: unreachable, an HTTP error, malformed, not valid, expired, unknown)")
                    .tag("result", results[i]).register(registry);
        }
    }

    /**
     * The client-certificate OCSP checker's counters (ADR 0106), registered once:
     * {@code strait_tls_client_ocsp_answers_total{result}} (good, revoked, unknown, failed: what each question to a
     * responder brought) and {@code strait_tls_client_ocsp_kept_total} (verdicts taken from a kept answer).
     */
    public synchronized void clientOcsp(LongSupplier good, LongSupplier revoked, LongSupplier unknown,
                                        LongSupplier failed, LongSupplier kept) {
        if (clientOcsp != null) {
            return;
        }
        clientOcsp = new LongSupplier[] {good, revoked, unknown, failed, kept};
        String[] results = {"good", "revoked", "unknown", "failed"};
        for (int i = 0; i < results.length; i++) {
            int at = i;
            FunctionCounter.builder("strait_tls_client_ocsp_answers", this, m -> m.clientOcsp[at].getAsLong())
                    .description("OCSP questions about client certificates: good, revoked, unknown (to the responder),"
                            + " failed (no responder, unreachable, an HTTP error, malformed, not valid, expired)")
                    .tag("result", results[i]).register(registry);
        }
        FunctionCounter.builder("strait_tls_client_ocsp_kept", this, m -> m.clientOcsp[4].getAsLong())
                .description("Client-certificate OCSP verdicts taken from a kept answer, without asking")
                .register(registry);
    }

    public String scrape() {
        return registry.scrape();
    }

    /**
     * The counter of one rule mirror's copies ending {@code outcome}: {@code answered} (the mirror's upstream
     * answered, whatever the status), {@code failed} (no answer: refused, reset, timed out), {@code abandoned}
     * (given up: it fell behind the client's body, or that body broke off), {@code skipped} (not sent: too many
     * copies already in flight to it). Looked up once per mirror and outcome.
     */
    public Counter mirrorCopies(String route, String upstream, String outcome) {
        return Counter.builder("strait_mirror_requests")
                .description("Copies of requests sent to a rule's mirror, by how they ended")
                .tag("route", route).tag("upstream", upstream).tag("outcome", outcome).register(registry);
    }

    /** Per-route meters: request counters by status and a latency histogram. */
    public final class RouteMeters {
        private final String route;
        private final AtomicReferenceArray<Counter> byStatus = new AtomicReferenceArray<>(600);
        private final Timer latency;

        RouteMeters(String route) {
            this.route = route;
            this.latency = LatencyBuckets.on(Timer.builder("strait_request_duration"))
                    .description("Time from request head to response written")
                    .tag("route", route)
                    .register(registry);
        }

        public void record(int status, long nanos) {
            Counter c = byStatus.get(status);
            if (c == null) {
                c = Counter.builder("strait_requests")
                        .description("Requests answered, by route and status (499: the client left before an answer started)")
                        .tag("route", route).tag("status", Integer.toString(status)).register(registry);
                byStatus.set(status, c);
            }
            c.increment();
            latency.record(nanos, TimeUnit.NANOSECONDS);
        }
    }
}
