package dev.strait.operator.reconcile;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;

/** The test harness for code outside this package (the benchmark). */
public final class OperatorHarnessAccess {
    private OperatorHarnessAccess() {}

    public static OperatorApp.Settings settings() {
        return OperatorHarness.settings();
    }

    public static dev.strait.operator.crd.Route helloRoute(int i, String body) {
        return OperatorHarness.helloRoute(i, body);
    }

    public static void installCrds(KubernetesClient client) throws IOException {
        OperatorHarness.installCrds(client);
    }
}
