package dev.strait.operator.reconcile;

import dev.strait.operator.publish.Fleet;
import dev.strait.operator.publish.ProxyState;
import dev.strait.operator.status.FleetReport;
import dev.strait.operator.status.StatusBoard;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With several operator replicas, each has its own proxies on its control channel, and only the
 * leader writes status. So every replica puts its {@link FleetReport} in a Lease of its own
 * ({@code strait-fleet-<identity>}, label {@code strait.dev/fleet-report}) and renews it, and every
 * replica reads the others' fresh reports into its {@link StatusBoard}: whichever leads counts every
 * proxy. A Lease, because operators already may write Leases (leader election), and a report is a
 * heartbeat: one that has not been renewed for {@link #STALE} is ignored (its replica is gone).
 */
final class FleetReports implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FleetReports.class);
    static final String LABEL = "strait.dev/fleet-report";
    static final String ANNOTATION = "strait.dev/fleet";
    static final Duration STALE = Duration.ofSeconds(30);
    private static final Duration RENEW = Duration.ofSeconds(10);

    private final KubernetesClient client;
    private final String namespace;
    private final String identity;
    private final Fleet fleet;
    private final StatusBoard board;
    private final Runnable othersChanged;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "strait-fleet-reports");
        t.setDaemon(true);
        return t;
    });
    private String written;
    private Instant writtenAt = Instant.EPOCH;

    FleetReports(KubernetesClient client, String namespace, String identity, Fleet fleet, StatusBoard board,
                 Runnable othersChanged) {
        this.client = client;
        this.namespace = namespace;
        this.identity = identity;
        this.fleet = fleet;
        this.board = board;
        this.othersChanged = othersChanged;
    }

    /** Exchanges reports every {@code period}; a changed report of ours is written at the next tick. */
    FleetReports start(Duration period) {
        timer.scheduleWithFixedDelay(this::tick, 0, period.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    private void tick() {
        try {
            write();
            read();
        } catch (RuntimeException e) {
            log.warn("fleet reports: {}", e.toString());
        }
    }

    private void write() {
        String report = FleetReport.encode(fleet.proxies());
        Instant now = Instant.now();
        if (report.equals(written) && Duration.between(writtenAt, now).compareTo(RENEW) < 0) {
            return;
        }
        Lease lease = new LeaseBuilder().withNewMetadata().withNamespace(namespace).withName(leaseName(identity))
                .addToLabels(LABEL, "true").addToAnnotations(ANNOTATION, report).endMetadata()
                .withNewSpec().withHolderIdentity(identity).withLeaseDurationSeconds((int) STALE.toSeconds())
                .withRenewTime(ZonedDateTime.ofInstant(now.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC))
                .endSpec().build();
        client.leases().inNamespace(namespace).resource(lease).createOr(NonDeletingOperation::update);
        written = report;
        writtenAt = now;
    }

    private void read() {
        Instant now = Instant.now();
        List<ProxyState> others = new ArrayList<>();
        for (Lease l : client.leases().inNamespace(namespace).withLabel(LABEL, "true").list().getItems()) {
            if (l.getSpec() == null || identity.equals(l.getSpec().getHolderIdentity())
                    || l.getMetadata().getAnnotations() == null) {
                continue;
            }
            Instant renewed = renewTime(l);
            if (renewed == null || Duration.between(renewed, now).compareTo(STALE) > 0) {
                continue; // its replica stopped renewing: its proxies have redialled elsewhere by now
            }
            others.addAll(FleetReport.decode(l.getMetadata().getAnnotations().get(ANNOTATION), fleet::seqOf));
        }
        if (board.others(others)) {
            othersChanged.run();
        }
    }

    private static Instant renewTime(Lease l) {
        return l.getSpec().getRenewTime() == null ? null : l.getSpec().getRenewTime().toInstant();
    }

    static String leaseName(String identity) {
        String n = ("strait-fleet-" + identity).toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
        return n.length() > 253 ? n.substring(0, 253) : n;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            client.leases().inNamespace(namespace).withName(leaseName(identity)).delete();
        } catch (RuntimeException e) {
            log.debug("fleet report not removed: {}", e.toString());
        }
    }
}
