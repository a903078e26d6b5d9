package dev.strait.operator.translate;

/**
 * The names cluster DNS gives a Service, as the Kubernetes DNS specification writes them: {@code NAME.NAMESPACE.svc}
 * and, in the cluster's domain, {@code NAME.NAMESPACE.svc.DOMAIN} ({@code NAME.NAMESPACE.svc.cluster.local} by
 * default; kubelet's {@code --cluster-domain}, given to the operator as its own {@code --cluster-domain}, sets
 * another). Read wherever a name is taken for a Service of the cluster: an {@code auth-url}'s host (ADR 0078), a
 * {@code mirror-target}'s and an ExternalName Service's {@code externalName}. The operator does not read the
 * proxies' resolver settings: the domain is the one it is told, and a Service's name in any other domain is never
 * taken for a Service (in such a cluster it does not resolve, or not to this cluster's Service).
 */
final class ClusterDns {
    /** Kubernetes' default cluster domain, kubelet's {@code --cluster-domain} when not set. */
    static final String DEFAULT_DOMAIN = "cluster.local";

    private ClusterDns() {}

    /** A Service named by its cluster DNS name. */
    record ServiceName(String name, String namespace) {}

    /**
     * The Service {@code host} (lower-case, without a trailing dot) names as {@code NAME.NAMESPACE.svc} or
     * {@code NAME.NAMESPACE.svc.DOMAIN} in the cluster domain {@code domain} (lower-case); null for any other name,
     * a Service's name in another domain among them.
     */
    static ServiceName service(String host, String domain) {
        ServiceName s = relative(host);
        if (s == null && host.endsWith("." + domain)) {
            s = relative(host.substring(0, host.length() - domain.length() - 1));
        }
        return s;
    }

    /** {@code NAME.NAMESPACE.svc}'s Service, or null. */
    private static ServiceName relative(String name) {
        String[] labels = name.split("\\.", -1);
        return labels.length == 3 && labels[2].equals("svc") && !labels[0].isEmpty() && !labels[1].isEmpty()
                ? new ServiceName(labels[0], labels[1]) : null;
    }

    /**
     * Whether {@code host} (lower-case, without a trailing dot), not a {@link #service} name, is still one the
     * cluster's DNS answers for or may: a pod's ({@code 10-0-0-1.NAMESPACE.pod.DOMAIN}), a headless Service's pod
     * ({@code web-0.web.NAMESPACE.svc.DOMAIN}), any other under {@code .svc} or the cluster domain {@code domain}, or
     * a Service of another cluster domain ({@code NAME.NAMESPACE.svc.example.internal}). Names under
     * {@value #DEFAULT_DOMAIN} stay the cluster's when the domain is another: CoreDNS may serve both zones, and no
     * name outside a cluster is written so.
     */
    static boolean internal(String host, String domain) {
        String[] labels = host.split("\\.", -1);
        return under(host, domain) || under(host, DEFAULT_DOMAIN) || under(host, "svc")
                || labels.length > 3 && labels[2].equals("svc");
    }

    private static boolean under(String host, String domain) {
        return host.equals(domain) || host.endsWith("." + domain);
    }
}
