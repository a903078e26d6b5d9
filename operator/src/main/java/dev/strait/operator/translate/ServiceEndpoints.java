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
 */
final class ServiceEndpoints {
    static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

    private final Map<String, Service> services = new HashMap<>();
    private final Map<String, List<EndpointSlice>> slices = new HashMap<>();

    ServiceEndpoints(List<Service> services, List<EndpointSlice> endpointSlices) {
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

    /**
     * Either the endpoints (sorted, maybe none) or an error about {@code name} or {@code port}.
     *
     * @param appProtocol the Service port's {@code appProtocol}, or null
     */
    record Resolution(List<HostPort> endpoints, String field, String error, String appProtocol) {
        Resolution(List<HostPort> endpoints, String field, String error) {
            this(endpoints, field, error, null);
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

    /** The Service's cluster IP, or null where it has none (headless, ExternalName) or is not known. */
    String clusterIp(String namespace, String name) {
        Service svc = services.get(namespace + "/" + name);
        String ip = svc == null || svc.getSpec() == null ? null : svc.getSpec().getClusterIP();
        return ip == null || ip.isEmpty() || ip.equals("None") ? null : ip;
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
            return new Resolution(List.of(), "name", "Service \"" + name + "\" of namespace \"" + target + "\" not found");
        }
        if (!Consent.accepts(svc, from)) {
            return new Resolution(List.of(), "namespace", Consent.refused("Service", name, target, from));
        }
        return resolve(target, name, port);
    }

    Resolution resolve(String namespace, String name, Integer port) {
        Service svc = services.get(namespace + "/" + name);
        if (svc == null) {
            return new Resolution(List.of(), "name", "Service \"" + name + "\" not found");
        }
        if ("ExternalName".equals(svc.getSpec().getType())) {
            return new Resolution(List.of(), "name", "Service \"" + name + "\" is of type ExternalName, which is not supported");
        }
        ServicePort sp = null;
        if (svc.getSpec().getPorts() != null) {
            for (ServicePort p : svc.getSpec().getPorts()) {
                if (Objects.equals(p.getPort(), port) && (p.getProtocol() == null || p.getProtocol().equals("TCP"))) {
                    sp = p;
                }
            }
        }
        if (sp == null) {
            return new Resolution(List.of(), "port", "Service \"" + name + "\" has no TCP port " + port);
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
        return new Resolution(List.copyOf(use), null, null, sp.getAppProtocol());
    }
}
