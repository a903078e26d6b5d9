package dev.strait.operator.reconcile;

import dev.strait.operator.crd.Route;
import dev.strait.operator.status.StatusBoard;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import java.time.Clock;

/** Writes Routes' status, and records the Events their problems call for (ADR 0056). */
@ControllerConfiguration(name = "strait-routes")
public final class RouteReconciler extends StatusReconciler<Route> {
    public RouteReconciler(StatusBoard board, Clock clock, EventRecorder events) {
        super(board, clock, events);
    }
}
