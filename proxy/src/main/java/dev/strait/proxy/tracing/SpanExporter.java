package dev.strait.proxy.tracing;

import dev.strait.model.Config;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.config.Serving;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.internal.PlatformDependent;
import dev.strait.proxy.tls.CollectorTls;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends finished spans to the collector the serving config names ({@link Config.Tracing}), in OTLP batches
 * ({@link OtlpProtocol}: over HTTP, {@link OtlpHttp}, or gRPC, {@link OtlpGrpc}), off the event loops: a loop only
 * offers a span to a lock-free bounded queue; one thread sends batches of up to {@link #BATCH} every
 * {@code flushInterval}, or as soon as a batch is full (as OpenTelemetry's batch span processor). Requests never
 * wait for the collector: when the queue is full (the collector slower than the traffic, or away) spans are
 * dropped and counted.
 *
 * <p>A batch is sent once and again twice, half a second and a second later, when the collector's answer is one
 * OTLP calls retryable (HTTP 429, 502, 503, 504; gRPC's UNAVAILABLE and the like) or it cannot be reached; then it
 * is given up and counted as failed. Spans the collector takes but says it rejected (OTLP's partial success) are
 * counted as failed too, with its message logged. The endpoint and service name are read from the serving
 * snapshot as each batch goes, so a reload applies to the next batch; spans still queued when tracing is turned
 * off are dropped.
 */
public final class SpanExporter implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SpanExporter.class);
    static final int CAPACITY = 8192;
    static final int BATCH = 512;
    private static final int ATTEMPTS = 3;
    private static final long FIRST_BACKOFF_MILLIS = 500;
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** Per event loop: the exporter of the server the loop serves for (see {@link #install}). */
    private static final FastThreadLocal<SpanExporter> HERE = new FastThreadLocal<>();

    private final Serving serving;
    private final String version = SpanExporter.class.getPackage().getImplementationVersion();
    // Made by the first span: a proxy without tracing keeps neither the queue nor a thread.
    private volatile Queue<ExportedSpan> queue;
    private Thread sender;
    private final AtomicLong offered = new AtomicLong();
    private final AtomicLong exported = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean closed;
    private volatile String lastFailure;
    private long warnedAt;
    private boolean warned;

    /** The environment's {@code OTEL_EXPORTER_OTLP_*HEADERS}: sent with every batch, over the config's own. */
    private final Map<String, String> environmentHeaders;
    /** The environment's {@code OTEL_EXPORTER_OTLP_*PROTOCOL}, over the config's; null when it names none. */
    private final OtlpProtocol environmentProtocol;
    /** Where the environment's TLS settings for the collector are read ({@link CollectorTls}). */
    private final Map<String, String> environment;
    /** Who sends the spans: the environment's service name and resource attributes. */
    private final SpanResource resource;
    /** The environment's compression and timeout. */
    private final OtlpOptions options;
    /** Made by the sender thread when a batch first goes to an https endpoint; only it touches these. */
    private CollectorTls tls;
    private boolean tlsFailed;
    private OtlpGrpc grpc;

    public SpanExporter(Serving serving, MeterRegistry registry) {
        this(serving, registry, System.getenv());
    }

    /** @param environment where OpenTelemetry's exporter variables are read */
    SpanExporter(Serving serving, MeterRegistry registry, Map<String, String> environment) {
        this.serving = serving;
        this.environmentHeaders = Map.copyOf(OtlpHeaders.fromEnvironment(environment));
        this.environmentProtocol = OtlpProtocol.fromEnvironment(environment);
        this.environment = Map.copyOf(environment);
        this.options = OtlpOptions.fromEnvironment(environment);
        this.resource = SpanResource.fromEnvironment(environment);
        if (registry != null) {
            counter(registry, "exported", exported, "Spans the collector took");
            counter(registry, "dropped", dropped,
                    "Spans dropped before they were sent: the queue was full, or tracing was turned off");
            counter(registry, "failed", failed, "Spans in batches the collector refused or did not answer");
        }
    }

    private static void counter(MeterRegistry registry, String outcome, AtomicLong n, String description) {
        FunctionCounter.builder("strait_tracing_spans", n, AtomicLong::get).tag("outcome", outcome)
                .description(description).register(registry);
    }

    /** Makes this exporter the one every loop of {@code loops} reports to ({@link #here()}); returns when all know it. */
    public void install(EventLoopGroup loops) throws InterruptedException {
        dev.strait.proxy.server.EveryLoop.run(loops, () -> HERE.set(this));
    }

    /** The exporter of the calling loop's server, or null (a loop of no server: tests' embedded channels). */
    public static SpanExporter here() {
        return HERE.getIfExists();
    }

    private synchronized Queue<ExportedSpan> start() {
        if (queue == null && !closed) {
            Queue<ExportedSpan> q = PlatformDependent.newFixedMpscQueue(CAPACITY);
            sender = new Thread(() -> run(q), "strait-tracing");
            sender.setDaemon(true);
            queue = q;
            sender.start();
        }
        return queue;
    }

    /**
     * Reports a finished request's span when its trace is sampled and the calling loop's server has an
     * exporter: the span is made of references the exchange holds, and queued (called on the event loop).
     *
     * @param startNanos when the request's head came, {@code System.nanoTime()}
     * @param endNanos   when its answer ended, {@code System.nanoTime()}
     * @param headers    the request's fields (user agent, request id)
     */
    public static void report(RequestTrace trace, long startNanos, long endNanos, String method, String scheme,
                              String host, String target, String protocol, int status, long bytes, String route,
                              java.net.SocketAddress client, io.netty.handler.codec.http.HttpHeaders headers,
                              dev.strait.model.HostPort upstream) {
        SpanExporter spans;
        if (trace == null || !trace.sampled() || (spans = HERE.getIfExists()) == null) {
            return;
        }
        spans.offer(new Span(trace, trace.epochNanos(endNanos), endNanos - startNanos, method,
                scheme, host, target, protocol, status, bytes, route, AccessLog.remote(client),
                headers.get(io.netty.handler.codec.http.HttpHeaderNames.USER_AGENT), AccessLog.requestId(headers),
                upstream));
    }

    /**
     * The span for one try of a request upstream, when the request is recorded and the serving config asks for
     * upstream spans ({@code tracing.upstreamSpans}); else null, and the upstream is told the request's own span.
     * Called on the event loop as the try starts.
     */
    public static RequestTrace tryTrace(RequestTrace request) {
        SpanExporter spans;
        if (request == null || !request.sampled() || (spans = HERE.getIfExists()) == null) {
            return null;
        }
        Config.Tracing t = spans.serving.snapshot().config().tracing();
        return t != null && t.upstreamSpans() ? request.child() : null;
    }

    /**
     * Reports a finished try upstream ({@link UpstreamSpan}) whose span {@link #tryTrace} made; called on the event
     * loop. {@code tryTrace} null: nothing.
     *
     * @param startNanos the try's start, {@code System.nanoTime()}
     */
    public static void reportTry(RequestTrace tryTrace, long startNanos, String method, String scheme,
                                 dev.strait.model.HostPort endpoint, String target, String protocol, int status,
                                 String failure, int resends, String upstream, String route) {
        SpanExporter spans;
        if (tryTrace == null || (spans = HERE.getIfExists()) == null) {
            return;
        }
        long end = System.nanoTime();
        spans.offer(new UpstreamSpan(tryTrace, tryTrace.epochNanos(end), end - startNanos, method, scheme, endpoint,
                target, protocol, status, failure, resends, upstream, route));
    }

    /** Queues a finished span; never blocks. */
    public void offer(ExportedSpan s) {
        Queue<ExportedSpan> q = queue;
        if (q == null && (q = start()) == null) {
            dropped.incrementAndGet(); // closed
            return;
        }
        if (!q.offer(s)) {
            dropped.incrementAndGet();
        } else if (offered.incrementAndGet() % BATCH == 0) {
            LockSupport.unpark(sender); // a full batch waits: send it now rather than at the interval
        }
    }

    long exported() {
        return exported.get();
    }

    long dropped() {
        return dropped.get();
    }

    long failed() {
        return failed.get();
    }

    /** Why the last batch that failed did (what its warning said), or null. */
    String lastFailure() {
        return lastFailure;
    }

    private void run(Queue<ExportedSpan> q) {
        List<ExportedSpan> batch = new ArrayList<>(BATCH);
        while (true) {
            Config.Tracing t = serving.snapshot().config().tracing();
            if (q.size() < BATCH && !closed) {
                LockSupport.parkNanos(this, t == null ? TimeUnit.SECONDS.toNanos(1) : t.flushInterval().toNanos());
            }
            boolean last = closed;
            do {
                batch.clear();
                for (ExportedSpan s; batch.size() < BATCH && (s = q.poll()) != null; ) {
                    batch.add(s);
                }
                if (!batch.isEmpty()) {
                    send(batch, serving.snapshot().config().tracing(), last);
                }
            } while (batch.size() == BATCH);
            if (last) {
                if (grpc != null) {
                    grpc.close();
                }
                return;
            }
        }
    }

    private void send(List<ExportedSpan> batch, Config.Tracing t, boolean last) {
        if (t == null) {
            dropped.addAndGet(batch.size());
            return;
        }
        OtlpProtocol protocol = environmentProtocol != null ? environmentProtocol : OtlpProtocol.of(t.protocol());
        byte[] body = options.body(protocol.encode(batch, resource.attributes(t.serviceName()), version));
        String why = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            Delivery d;
            try {
                d = deliver(protocol, t, body);
            } catch (IOException | RuntimeException e) {
                d = Delivery.retry(e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                d = Delivery.refused("interrupted");
            }
            if (d.taken()) {
                long rejected = Math.min(d.rejected(), batch.size());
                exported.addAndGet(batch.size() - rejected);
                failed.addAndGet(rejected);
                if (d.why() != null || rejected > 0) {
                    warn("tracing: the collector at {} took a batch of {} span(s) but rejected {}: {}", t.endpoint(),
                            batch.size(), rejected, d.why() == null ? "it gave no reason" : d.why());
                }
                return;
            }
            why = d.why();
            if (!d.retry()) {
                break;
            }
            if (last || closed) {
                break; // stopping: one try, not the retries' seconds
            }
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(FIRST_BACKOFF_MILLIS << (attempt - 1)));
        }
        failed.addAndGet(batch.size());
        lastFailure = why;
        warn("tracing: {} span(s) not sent to {}: {} ({} failed in all; at most one warning every 30 s)",
                batch.size(), t.endpoint(), why, failed.get());
    }

    /** One try: the batch over the protocol's transport. */
    private Delivery deliver(OtlpProtocol protocol, Config.Tracing t, byte[] body) throws IOException, InterruptedException {
        if (protocol == OtlpProtocol.GRPC) {
            if (grpc == null) {
                grpc = new OtlpGrpc(version);
            }
            return grpc.export(t.endpoint(), body, options, t.headers(), environmentHeaders, this::tls);
        }
        return OtlpHttp.post(t.endpoint(), protocol, body, options, t.headers(), environmentHeaders,
                t.endpoint().regionMatches(true, 0, "https:", 0, 6) ? tls() : null);
    }

    /** The environment's TLS for the collector; when it cannot be used, said once and the JDK's defaults taken. */
    private CollectorTls tls() {
        if (tls == null && !tlsFailed) {
            try {
                tls = CollectorTls.of(pem("CERTIFICATE"), pem("CLIENT_CERTIFICATE"), pem("CLIENT_KEY"));
            } catch (IllegalArgumentException e) {
                tlsFailed = true;
                log.error("tracing: {}; the collector's certificate is checked against the JDK's CAs instead",
                        e.getMessage());
                tls = CollectorTls.of(null, null, null);
            }
        }
        return tls;
    }

    /** A PEM file OpenTelemetry's environment names ({@code OTEL_EXPORTER_OTLP_[TRACES_]<suffix>}), or null. */
    private CollectorTls.Pem pem(String suffix) {
        OtlpVariable v = OtlpVariable.of(environment, suffix);
        return v == null ? null : new CollectorTls.Pem(v.name(), v.value());
    }

    /** Logs at most one warning every 30 s. */
    private void warn(String format, Object... args) {
        long now = System.nanoTime();
        if (!warned || now - warnedAt >= WARN_EVERY_NANOS) {
            warned = true;
            warnedAt = now;
            log.warn(format, args);
        }
    }

    /** Sends what is queued (one try, so a collector that is away delays the stop by its timeouts at most). */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            t = sender;
        }
        if (t == null) {
            return;
        }
        LockSupport.unpark(t);
        try {
            t.join(TimeUnit.SECONDS.toMillis(3));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
