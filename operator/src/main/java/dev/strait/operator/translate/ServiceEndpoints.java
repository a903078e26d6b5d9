package dev.strait.operator.translate;

import dev.strait.model.HostPort;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Resolves a Service and one of its ports to the ready endpoints listed in its EndpointSlices, as
 * kube-proxy does: slices are found by the {@code kubernetes.io/service-name} label, the slice port by
 * the Service port's name, and an endpoint counts when its {@code ready} condition is not false
 * (absent means ready, per the EndpointSlice API). When no endpoint of the port is ready, the ones that
 * are terminating but still {@code serving} are used instead (graceful drain, as kube-proxy, Envoy and
 * Contour do): a Deployment of one replica being rolled, or the last pods of a scale-down, keep
 * answering until they stop serving, rather than every request getting 503.
 *
 * <p>A Service of type ExternalName has no endpoints of its own: it is its {@code externalName}, looked up by
 * the proxy when it connects, with the backend's port (a CNAME: the client connects to the port it asked for).
 * Its owner chooses where the proxy connects, so the name may not lead to the proxy's own host or the node's
 * (loopback, link-local such as the cloud metadata service at 169.254.169.254, unspecified, multicast: refused
 * here when the name says so, and by the proxy when the name resolves there; Contour's GHSA-5ph6-qq5x-7jwc,
 * CVE-2021-25740). A name of a Service of the cluster ({@link ClusterDns}) is not looked up but followed, as a
 * reference from the ExternalName Service's namespace that needs the same consent as any other ({@link Consent}):
 * else an ExternalName Service would reach another namespace's Service that never accepted its namespace.
 */
final class ServiceEndpoints {
    static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

    private final Map<String, Service> services = new HashMap<>();
    private final Map<String, List<EndpointSlice>> slices = new HashMap<>();
    /** The cluster's DNS domain, in which an ExternalName's {@code NAME.NAMESPACE.svc.DOMAIN} is a Service. */
    private final String clusterDomain;

    /** In the default cluster domain, {@value ClusterDns#DEFAULT_DOMAIN}. */
    ServiceEndpoints(List<Service> services, List<EndpointSlice> endpointSlices) {
        this(services, endpointSlices, ClusterDns.DEFAULT_DOMAIN);
    }

    /** @param clusterDomain the cluster's DNS domain (the operator's {@code --cluster-domain}) */
    ServiceEndpoints(List<Service> services, List<EndpointSlice> endpointSlices, String clusterDomain) {
        this.clusterDomain = clusterDomain;
        for (Service s : services) {
            this.services.put(s.getMetadata().getNamespace() + "/" + s.getMetadata().getName(), s);
        }
        for (EndpointSlice es : endpointSlices) {
            Map<String, String> labels = es.getMetadata().getLabels();
            String svc = labels == null ? null : labels.get(SERVICE_NAME_LABEL);
            if (svc != null) {
                slices.computeIfAbsent(es.getMetadata().getNamespace() + "/" + svc, k -> new ArrayList<>()).add(es);
            }
        }
    }

    /** ResolvedRefs' reasons (Gateway API's where it has one). */
    static final String NOT_FOUND = "BackendNotFound";
    static final String NOT_PERMITTED = "RefNotPermitted";
    static final String INVALID = "InvalidBackend";

    /**
     * Either the endpoints (sorted, maybe none) or an error about the reference's {@code field} ({@code name},
     * {@code namespace} or {@code port}), with the condition reason for it.
     *
     * @param appProtocol the Service port's {@code appProtocol}, or null
     * @param clusterIp   the cluster IP of the Service the endpoints are of, or null (headless, ExternalName)
     * @param byName      the one endpoint is an ExternalName Service's name, looked up by the proxy, which may not
     *                    lead to a local address ({@link dev.strait.model.Upstream#refuseLocalAddresses})
     */
    record Resolution(List<HostPort> endpoints, String field, String reason, String error, String appProtocol,
                      String clusterIp, boolean byName) {

        static Resolution failed(String field, String reason, String error) {
            return new Resolution(List.of(), field, reason, error, null, null, false);
        }

        boolean ok() {
            return error == null;
        }

        /**
         * The backend protocol the port's {@code appProtocol} asks for (Gateway API, GEP-1911):
         * {@code kubernetes.io/h2c} is h2c, {@code kubernetes.io/wss} TLS; null for anything else (HTTP/1.1).
         */
        String protocol() {
            return appProtocol == null ? null : switch (appProtocol) {
                case "kubernetes.io/h2c" -> "h2c";
                case "kubernetes.io/wss" -> "https";
                default -> null;
            };
        }
    }

    /** The number of a Service's first TCP port (ingress-nginx's choice for a default backend), or null. */
    Integer firstPort(String namespace, String name) {
        Service svc = services.get(namespace + "/" + name);
        if (svc == null || svc.getSpec() == null || svc.getSpec().getPorts() == null) {
            return null;
        }
        return svc.getSpec().getPorts().stream().filter(p -> p.getProtocol() == null || p.getProtocol().equals("TCP"))
                .map(ServicePort::getPort).findFirst().orElse(null);
    }

    /** Whether the Service exists. */
    boolean hasService(String namespace, String name) {
        return services.containsKey(namespace + "/" + name);
    }

    /** The number of a Service's TCP port by its name (an Ingress backend may name the port), or null. */
    Integer portNumber(String namespace, String name, String portName) {
        Service svc = services.get(namespace + "/" + name);
        if (svc == null || svc.getSpec().getPorts() == null) {
            return null;
        }
        for (ServicePort p : svc.getSpec().getPorts()) {
            if (portName.equals(p.getName()) && (p.getProtocol() == null || p.getProtocol().equals("TCP"))) {
                return p.getPort();
            }
        }
        return null;
    }

    /**
     * {@link #resolve(String, String, Integer)} for a reference from a resource of namespace {@code from} to a
     * Service of namespace {@code target} (null: {@code from}'s own). Another namespace's Service is resolved only
     * when it says so ({@link Consent}); else the error is the namespace's (ADR 0078).
     */
    Resolution resolve(String from, String target, String name, Integer port) {
        if (target == null || target.equals(from)) {
            return resolve(from, name, port);
        }
        Service svc = services.get(target + "/" + name);
        if (svc == null) {
            return Resolution.failed("name", NOT_FOUND, "Service \"" + name + "\" of namespace \"" + target + "\" not found");
        }
        if (!Consent.accepts(svc, from)) {
            return Resolution.failed("namespace", NOT_PERMITTED, Consent.refused("Service", name, target, from));
        }
        return resolve(target, name, port);
    }

    /** A Service of {@code namespace} and one of its ports, from a resource of the same namespace. */
    Resolution resolve(String namespace, String name, Integer port) {
        Service svc = services.get(namespace + "/" + name);
        if (svc == null) {
            return Resolution.failed("name", NOT_FOUND, "Service \"" + name + "\" not found");
        }
        if (isExternalName(svc)) {
            return externalName(svc, namespace, name, port);
        }
        return endpoints(svc, namespace, name, port);
    }

    private static boolean isExternalName(Service svc) {
        return svc.getSpec() != null && "ExternalName".equals(svc.getSpec().getType());
    }

    /**
     * An ExternalName Service's port {@code port}: one endpoint, its name (lower-case, without the trailing dot)
     * and that port, or the Service it names in the cluster, or why neither.
     */
    private Resolution externalName(Service svc, String namespace, String name, Integer port) {
        String given = svc.getSpec().getExternalName();
        if (given == null || given.isEmpty()) {
            return Resolution.failed("name", INVALID, "Service \"" + name + "\" is of type ExternalName but has no"
                    + " spec.externalName");
        }
        String what = "Service \"" + name + "\" (ExternalName \"" + given + "\")";
        if (port == null) {
            return Resolution.failed("port", NOT_FOUND, what + ": a port is required");
        }
        String host = given.toLowerCase(Locale.ROOT);
        if (host.endsWith(".")) {
            host = host.substring(0, host.length() - 1); // absolute: the name itself
        }
        String problem = ExternalNames.problem(host, clusterDomain);
        if (problem != null) {
            return Resolution.failed("name", INVALID, what + " " + problem);
        }
        ClusterDns.ServiceName in = ClusterDns.service(host, clusterDomain);
        if (in == null) {
            String appProtocol = null;
            for (ServicePort p : svc.getSpec().getPorts() == null ? List.<ServicePort>of() : svc.getSpec().getPorts()) {
                if (port.equals(p.getPort()) && (p.getProtocol() == null || p.getProtocol().equals("TCP"))) {
                    appProtocol = p.getAppProtocol();
                }
            }
            return new Resolution(List.of(new HostPort(host, port)), null, null, null, appProtocol, null, true);
        }
        // A Service of the cluster, named from the ExternalName Service's namespace: its consent is asked as for any
        // reference from there, or the ExternalName would be a way round it (a confused deputy).
        Service target = services.get(in.namespace() + "/" + in.name());
        String named = "Service \"" + in.name() + "\" of namespace \"" + in.namespace() + "\"";
        if (target == null) {
            return Resolution.failed("name", NOT_FOUND, what + ": " + named + " not found");
        }
        if (isExternalName(target)) {
            return Resolution.failed("name", INVALID, what + " names " + named + ", of type ExternalName too: one"
                    + " ExternalName is followed, not a chain");
        }
        if (!in.namespace().equals(namespace) && !Consent.accepts(target, namespace)) {
            return Resolution.failed("name", NOT_PERMITTED, what + ": "
                    + Consent.refused("Service", in.name(), in.namespace(), namespace));
        }
        Resolution r = endpoints(target, in.namespace(), in.name(), port);
        return r.ok() ? r : Resolution.failed(r.field().equals("port") ? "port" : "name", r.reason(),
                what + ": " + r.error());
    }

    /** The ready endpoints of a Service's port (see the class documentation). */
    private Resolution endpoints(Service svc, String namespace, String name, Integer port) {
        ServicePort sp = null;
        if (svc.getSpec().getPorts() != null) {
            for (ServicePort p : svc.getSpec().getPorts()) {
                if (Objects.equals(p.getPort(), port) && (p.getProtocol() == null || p.getProtocol().equals("TCP"))) {
                    sp = p;
                }
            }
        }
        if (sp == null) {
            return Resolution.failed("port", NOT_FOUND, "Service \"" + name + "\" has no TCP port " + port);
        }
        String portName = sp.getName() == null ? "" : sp.getName();
        TreeSet<String> seen = new TreeSet<>();
        List<HostPort> out = new ArrayList<>();
        TreeSet<String> drainingSeen = new TreeSet<>();
        List<HostPort> draining = new ArrayList<>();
        for (EndpointSlice es : slices.getOrDefault(namespace + "/" + name, List.of())) {
            if ("FQDN".equals(es.getAddressType()) || es.getPorts() == null || es.getEndpoints() == null) {
                continue;
            }
            Integer target = null;
            for (EndpointPort ep : es.getPorts()) {
                String n = ep.getName() == null ? "" : ep.getName();
                if (n.equals(portName) && (ep.getProtocol() == null || ep.getProtocol().equals("TCP"))) {
                    target = ep.getPort();
                }
            }
            if (target == null) {
                continue; // no such port in this slice, or a port without a number (all ports): not ours to guess
            }
            for (Endpoint e : es.getEndpoints()) {
                if (e.getAddresses() == null) {
                    continue;
                }
                var c = e.getConditions();
                boolean ready = c == null || c.getReady() == null || c.getReady();
                // serving: absent means the same as ready; only a terminating endpoint can differ
                boolean drains = !ready && c != null && Boolean.TRUE.equals(c.getTerminating())
                        && Boolean.TRUE.equals(c.getServing());
                if (!ready && !drains) {
                    continue;
                }
                for (String address : e.getAddresses()) {
                    HostPort hp = new HostPort(address, target);
                    if (ready ? seen.add(hp.toString()) : drainingSeen.add(hp.toString())) {
                        (ready ? out : draining).add(hp);
                    }
                }
            }
        }
        List<HostPort> use = out.isEmpty() ? draining : out;
        use.sort((a, b) -> a.toString().compareTo(b.toString()));
        String ip = svc.getSpec().getClusterIP();
        ip = ip == null || ip.isEmpty() || ip.equals("None") ? null : ip;
        return new Resolution(List.copyOf(use), null, null, null, sp.getAppProtocol(), ip, false);
    }
}
