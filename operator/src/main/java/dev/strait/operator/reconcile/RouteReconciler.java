package dev.strait.operator.reconcile;

import dev.strait.operator.crd.Route;
import dev.strait.operator.status.StatusBoard;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.time.Clock;

/** Writes Routes' status. */
@ControllerConfiguration(name = "strait-routes")
public final class RouteReconciler extends StatusReconciler<Route> {
    public RouteReconciler(StatusBoard board, Clock clock) {
        super(board, clock);
    }
}
