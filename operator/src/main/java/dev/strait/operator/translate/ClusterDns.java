package dev.strait.operator.translate;

/**
 * The names cluster DNS gives a Service, as the Kubernetes DNS specification writes them: {@code NAME.NAMESPACE.svc}
 * and, in the cluster domain {@value #DOMAIN}, {@code NAME.NAMESPACE.svc.cluster.local}. Read wherever a name is
 * taken for a Service of the cluster: an {@code auth-url}'s host (ADR 0078) and an ExternalName Service's
 * {@code externalName}. Only the default cluster domain is known here (the operator does not read the proxies'
 * resolver settings); another is never taken for a Service.
 */
final class ClusterDns {
    static final String DOMAIN = "cluster.local";

    private ClusterDns() {}

    /** A Service named by its cluster DNS name. */
    record ServiceName(String name, String namespace) {}

    /**
     * The Service {@code host} (lower-case, without a trailing dot) names as {@code NAME.NAMESPACE.svc} or
     * {@code NAME.NAMESPACE.svc.cluster.local}; null for any other name.
     */
    static ServiceName service(String host) {
        String[] labels = host.split("\\.", -1);
        boolean qualified = labels.length == 3 && labels[2].equals("svc")
                || labels.length == 5 && labels[2].equals("svc") && (labels[3] + "." + labels[4]).equals(DOMAIN);
        return qualified && !labels[0].isEmpty() && !labels[1].isEmpty() ? new ServiceName(labels[0], labels[1]) : null;
    }

    /**
     * Whether {@code host} (lower-case, without a trailing dot), not a {@link #service} name, is still one the
     * cluster's DNS answers for or may: a pod's ({@code 10-0-0-1.NAMESPACE.pod.cluster.local}), a headless
     * Service's pod ({@code web-0.web.NAMESPACE.svc.cluster.local}), any other under {@code .svc} or the cluster
     * domain, or a Service of another cluster domain ({@code NAME.NAMESPACE.svc.example.internal}).
     */
    static boolean internal(String host) {
        String[] labels = host.split("\\.", -1);
        return host.equals(DOMAIN) || host.endsWith("." + DOMAIN) || host.equals("svc") || host.endsWith(".svc")
                || labels.length > 3 && labels[2].equals("svc");
    }
}
