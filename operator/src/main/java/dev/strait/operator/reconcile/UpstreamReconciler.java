package dev.strait.operator.reconcile;

import dev.strait.operator.crd.Upstream;
import dev.strait.operator.status.StatusBoard;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.time.Clock;

/** Writes Upstreams' status, and records the Events their problems call for (ADR 0056). */
@ControllerConfiguration(name = "strait-upstreams")
public final class UpstreamReconciler extends StatusReconciler<Upstream> {
    public UpstreamReconciler(StatusBoard board, Clock clock, EventRecorder events) {
        super(board, clock, events);
    }
}
