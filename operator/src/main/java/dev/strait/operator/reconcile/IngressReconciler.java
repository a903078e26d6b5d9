package dev.strait.operator.reconcile;

import dev.strait.operator.status.EventLedger;
import dev.strait.operator.status.StatusBoard;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.ResourceReport;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressLoadBalancerIngress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressLoadBalancerStatus;
import io.fabric8.kubernetes.api.model.networking.v1.IngressStatus;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Writes {@code status.loadBalancer.ingress} of the Ingresses this operator serves: the proxies'
 * address (a setting, or the proxy Service's load-balancer address) while the Ingress is in a
 * snapshot, nothing while it is not. Ingresses of other controllers are left alone. Problems with an
 * Ingress (an Ingress has no conditions to carry them) are Events on it ({@link EventRecorder}, ADR 0056),
 * logged by the operator as they appear.
 */
@ControllerConfiguration(name = "strait-ingresses")
public final class IngressReconciler implements Reconciler<Ingress> {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(IngressReconciler.class);
    private final StatusBoard board;
    private final Supplier<List<IngressLoadBalancerIngress>> address;
    private final EventRecorder events;
    private final AtomicLong reconciles = new AtomicLong();
    final SimpleInboundEventSource<Ingress> pokes = new SimpleInboundEventSource<>("ingress-pokes");

    public IngressReconciler(StatusBoard board, Supplier<List<IngressLoadBalancerIngress>> address,
                             EventRecorder events) {
        this.board = board;
        this.address = address;
        this.events = events;
    }

    /** Reconciliations finished so far (for tests). */
    long reconciles() {
        return reconciles.get();
    }

    void poke(ResourceKey key) {
        try {
            pokes.propagateEvent(new ResourceID(key.name(), key.namespace()));
        } catch (RuntimeException e) {
            log.debug("status poke for {} not delivered: {}", key, e.toString());
        }
    }

    @Override
    public List<EventSource<?, Ingress>> prepareEventSources(EventSourceContext<Ingress> context) {
        return List.of(pokes);
    }

    @Override
    public UpdateControl<Ingress> reconcile(Ingress ingress, Context<Ingress> context) {
        try {
            return update(ingress);
        } finally {
            reconciles.incrementAndGet();
        }
    }

    private UpdateControl<Ingress> update(Ingress ingress) {
        ResourceReport r = board.report(new ResourceKey("Ingress", ingress.getMetadata().getNamespace(),
                ingress.getMetadata().getName()));
        if (r == null) {
            return UpdateControl.noUpdate(); // another controller's, or not translated yet
        }
        Long generation = ingress.getMetadata().getGeneration();
        if (r.generation() == (generation == null ? 0 : generation)
                && events.record(ingress, r).stream().anyMatch(n -> n.type().equals(EventLedger.WARNING))) {
            // Once per new problem, as its Event (an Ingress has no conditions to carry it).
            log.info("Ingress {}/{}: {}", ingress.getMetadata().getNamespace(), ingress.getMetadata().getName(),
                    String.join("; ", r.errors()));
        }
        List<IngressLoadBalancerIngress> want = r.inSnapshot() ? address.get() : List.of();
        IngressStatus status = ingress.getStatus();
        List<IngressLoadBalancerIngress> have = status == null || status.getLoadBalancer() == null
                || status.getLoadBalancer().getIngress() == null ? List.of() : status.getLoadBalancer().getIngress();
        if (Objects.equals(have, want)) {
            return UpdateControl.noUpdate();
        }
        ingress.setStatus(new IngressStatus(new IngressLoadBalancerStatus(want)));
        return UpdateControl.patchStatus(ingress);
    }
}
