package dev.strait.operator.reconcile;

import dev.strait.operator.crd.ResourceStatus;
import dev.strait.operator.status.StatusBoard;
import dev.strait.operator.status.StatusMerge;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.ResourceReport;
import io.fabric8.kubernetes.client.CustomResource;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes the status the {@link StatusBoard} wants. It runs when JOSDK sees the resource change and
 * when the board pokes it (through an inbound event source); either way it only compares and, when
 * they differ, patches the status subresource. It never rebuilds anything itself. It also hands the
 * resource's report to the {@link EventRecorder}, which queues an Event when a problem appeared,
 * changed or went away.
 */
abstract class StatusReconciler<R extends CustomResource<?, ResourceStatus>> implements Reconciler<R> {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(StatusReconciler.class);
    private final StatusBoard board;
    private final Clock clock;
    private final EventRecorder events;
    final SimpleInboundEventSource<R> pokes = new SimpleInboundEventSource<>("status-pokes");
    /** Status patches asked for so far, for the convergence benchmark's report. */
    private final AtomicLong writes = new AtomicLong();

    StatusReconciler(StatusBoard board, Clock clock, EventRecorder events) {
        this.board = board;
        this.clock = clock;
        this.events = events;
    }

    void poke(ResourceKey key) {
        try {
            pokes.propagateEvent(new ResourceID(key.name(), key.namespace()));
        } catch (RuntimeException e) {
            // Not started, or not the leader: the leader's own informer events bring it up to date.
            log.debug("status poke for {} not delivered: {}", key, e.toString());
        }
    }

    long writes() {
        return writes.get();
    }

    @Override
    public List<EventSource<?, R>> prepareEventSources(EventSourceContext<R> context) {
        return List.of(pokes);
    }

    @Override
    public UpdateControl<R> reconcile(R resource, Context<R> context) {
        Long generation = resource.getMetadata().getGeneration();
        ResourceKey key = ResourceKey.of(resource);
        ResourceStatus desired = board.desired(key, generation == null ? 0 : generation);
        if (desired == null) {
            return UpdateControl.noUpdate(); // not translated yet; the board pokes after the rebuild
        }
        ResourceReport report = board.report(key);
        if (report != null && report.generation() == (generation == null ? 0 : generation)) {
            events.record(resource, report); // queued only, and only when a problem appeared, changed or went
        }
        ResourceStatus next = StatusMerge.merge(resource.getStatus(), desired, clock.instant());
        if (next == null) {
            return UpdateControl.noUpdate();
        }
        resource.setStatus(next);
        writes.incrementAndGet();
        return UpdateControl.patchStatus(resource);
    }
}
