package dev.strait.operator.reconcile;

import dev.strait.operator.status.EventLedger;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.ResourceReport;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the Kubernetes Events the {@link EventLedger} calls for (core/v1 Events, which {@code kubectl describe}
 * shows for Ingresses, Routes and Upstreams alike), best-effort and off the reconcilers' threads (ADR 0056).
 *
 * <ul>
 *   <li><b>Off the reconcile path.</b> {@link #record} only asks the ledger and queues; one thread of its own
 *       writes. An API error is logged (at most one warning a minute) and dropped: status and snapshots never
 *       wait for an event.</li>
 *   <li><b>Named after their content.</b> An event's name is the resource's name and a hash of its uid, type,
 *       reason and message, so one problem is one Event object. The same problem again after it was fixed (as
 *       client-go's aggregation does) raises that Event's {@code count} and {@code lastTimestamp}; and a
 *       restarted operator, or a new leader, that sees the problem as new finds the Event already there (409)
 *       and writes nothing more.</li>
 *   <li><b>No storms.</b> Events are made only on changes (the ledger); besides, each resource may have 25
 *       written in a burst and then one every five minutes (client-go's spam filter), and at most
 *       {@value #MAX_PENDING} wait to be written.</li>
 * </ul>
 * Only the leader records: it is called by the reconcilers, which JOSDK runs on the leader only.
 */
public final class EventRecorder implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);
    /** {@code source.component}, as kubectl shows it ("From"). */
    static final String COMPONENT = "strait-operator";
    static final String REPORTING_COMPONENT = "strait.dev/operator";
    /** Longer messages are cut (events.k8s.io refuses notes over 1 KiB; kubectl shows a line). */
    static final int MAX_MESSAGE = 1024;
    static final int MAX_PENDING = 10_000;
    private static final int BURST = 25;
    private static final long REFILL_SECONDS = 300;
    /** Names of the Events this process wrote, with their count (client-go keeps as many). */
    private static final int WRITTEN = 4096;

    private final KubernetesClient client;
    private final String instance;
    private final Clock clock;
    private final EventLedger ledger = new EventLedger();
    private final ArrayDeque<Event> pending = new ArrayDeque<>();
    private final Map<String, Integer> written = lru(WRITTEN);
    private final Map<String, double[]> buckets = lru(WRITTEN);
    private final AtomicLong queued = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private long lastWarning = Long.MIN_VALUE;
    /** The writer thread has taken an event and not yet finished with it (guarded by {@code pending}). */
    private boolean busy;
    private final Thread writer;
    private volatile boolean closed;

    /** @param instance {@code reportingInstance}: this replica (its pod name) */
    public EventRecorder(KubernetesClient client, String instance, Clock clock) {
        this.client = client;
        this.instance = instance;
        this.clock = clock;
        this.writer = new Thread(this::run, "strait-events");
        writer.setDaemon(true);
        writer.start();
    }

    /**
     * Queues the events the resource's latest report calls for; returns them (usually none). Never blocks on
     * the API and never throws for it.
     */
    public List<EventLedger.Notice> record(HasMetadata resource, ResourceReport report) {
        String uid = resource.getMetadata().getUid();
        List<EventLedger.Notice> notices = ledger.observe(report.key(), uid == null ? "" : uid, report);
        for (EventLedger.Notice n : notices) {
            Event e = event(resource, n);
            synchronized (pending) {
                if (pending.size() >= MAX_PENDING || !allowed(report.key() + "/" + uid)) {
                    dropped.incrementAndGet();
                    continue;
                }
                pending.add(e);
                queued.incrementAndGet();
                pending.notifyAll();
            }
        }
        return notices;
    }

    /** Forgets resources that are gone. */
    public void retain(java.util.function.Predicate<ResourceKey> exists) {
        ledger.retain(exists);
    }

    int remembered() {
        return ledger.size();
    }

    /** Events queued so far. */
    long queued() {
        return queued.get();
    }

    /** Requests made to the API server so far (writes, and failed ones). */
    long requests() {
        return requests.get();
    }

    /** Whether nothing waits to be written (the last one taken may still be in flight: see {@link #requests}). */
    boolean idle() {
        synchronized (pending) {
            return pending.isEmpty() && !busy;
        }
    }

    /** client-go's per-object token bucket: {@value #BURST} at once, then one per {@value #REFILL_SECONDS} s. */
    private boolean allowed(String object) {
        long now = clock.millis();
        double[] b = buckets.computeIfAbsent(object, o -> new double[] {BURST, now});
        b[0] = Math.min(BURST, b[0] + (now - b[1]) / (REFILL_SECONDS * 1000.0));
        b[1] = now;
        if (b[0] < 1) {
            return false;
        }
        b[0] -= 1;
        return true;
    }

    private Event event(HasMetadata r, EventLedger.Notice n) {
        String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
        String message = n.message().length() > MAX_MESSAGE ? n.message().substring(0, MAX_MESSAGE - 4) + " ..." : n.message();
        return new EventBuilder()
                .withNewMetadata().withNamespace(r.getMetadata().getNamespace()).withName(name(r, n)).endMetadata()
                .withNewInvolvedObject()
                .withApiVersion(r.getApiVersion() != null ? r.getApiVersion() : HasMetadata.getApiVersion(r.getClass()))
                .withKind(r.getKind() != null ? r.getKind() : HasMetadata.getKind(r.getClass()))
                .withNamespace(r.getMetadata().getNamespace())
                .withName(r.getMetadata().getName())
                .withUid(r.getMetadata().getUid())
                .endInvolvedObject()
                .withType(n.type())
                .withReason(n.reason())
                .withMessage(message)
                .withNewSource().withComponent(COMPONENT).endSource()
                .withReportingComponent(REPORTING_COMPONENT)
                .withReportingInstance(instance)
                .withFirstTimestamp(now)
                .withLastTimestamp(now)
                .withCount(1)
                .build();
    }

    /** The resource's name and 16 hex digits of its uid, kind, type, reason and message. */
    static String name(HasMetadata r, EventLedger.Notice n) {
        String text = String.join("\n", r.getKind(), String.valueOf(r.getMetadata().getUid()), n.type(), n.reason(),
                n.message());
        byte[] hash;
        try {
            hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        String name = r.getMetadata().getName();
        if (name.length() > 253 - 17) {
            name = name.substring(0, 253 - 17);
        }
        return name + "." + HexFormat.of().formatHex(hash, 0, 8);
    }

    private void run() {
        while (!closed) {
            Event e;
            synchronized (pending) {
                busy = false;
                while (pending.isEmpty() && !closed) {
                    try {
                        pending.wait();
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                e = pending.poll();
                busy = true;
            }
            try {
                write(e);
            } catch (RuntimeException ex) {
                long now = System.nanoTime();
                if (lastWarning == Long.MIN_VALUE || now - lastWarning > 60_000_000_000L) {
                    lastWarning = now;
                    log.warn("event {} {} about {} {}/{} not written (events are best-effort; more failures within a"
                            + " minute are logged at debug): {}", e.getType(), e.getReason(),
                            e.getInvolvedObject().getKind(), e.getMetadata().getNamespace(),
                            e.getInvolvedObject().getName(), ex.toString());
                } else {
                    log.debug("event {} not written: {}", e.getMetadata().getName(), ex.toString());
                }
            }
        }
    }

    private void write(Event e) {
        String ns = e.getMetadata().getNamespace();
        String name = e.getMetadata().getName();
        Integer count = written.get(name);
        if (count != null) {
            // The same problem again after it was gone: one Event, counted (client-go's aggregation).
            requests.incrementAndGet();
            try {
                client.v1().events().inNamespace(ns).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE),
                        "{\"count\":" + (count + 1) + ",\"lastTimestamp\":\"" + e.getLastTimestamp() + "\"}");
                written.put(name, count + 1);
                return;
            } catch (KubernetesClientException ex) {
                if (ex.getCode() != 404) {
                    throw ex;
                }
                written.remove(name); // expired (an hour by default): made again below
            }
        }
        requests.incrementAndGet();
        try {
            client.v1().events().inNamespace(ns).resource(e).create();
            written.put(name, 1);
        } catch (KubernetesClientException ex) {
            if (ex.getCode() != 409) {
                throw ex;
            }
            // Written before this process knew of it (a restart, another leader): it says this already.
            log.debug("event {} already exists", name);
        }
    }

    private static <V> Map<String, V> lru(int max) {
        return java.util.Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > max;
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        synchronized (pending) {
            pending.notifyAll();
        }
        writer.interrupt();
    }
}
