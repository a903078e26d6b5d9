package dev.strait.operator;

/**
 * The operator's entry point. The reconcilers, translation and control channel arrive with issue 5;
 * until then this jar only says so, so that nobody mistakes it for a working control plane.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.err.println("strait-operator: the control plane is not built yet (see docs/architecture.md);"
                + " run the proxy standalone with --config FILE.");
        System.exit(2);
    }
}
