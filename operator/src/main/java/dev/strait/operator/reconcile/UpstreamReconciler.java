package dev.strait.operator.reconcile;

import dev.strait.operator.crd.Upstream;
import dev.strait.operator.status.StatusBoard;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.time.Clock;

/** Writes Upstreams' status. */
@ControllerConfiguration(name = "strait-upstreams")
public final class UpstreamReconciler extends StatusReconciler<Upstream> {
    public UpstreamReconciler(StatusBoard board, Clock clock) {
        super(board, clock);
    }
}
