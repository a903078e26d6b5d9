package dev.strait.operator.translate;

import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.Upstream;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressClass;
import java.util.List;
import java.util.Map;

/**
 * Everything a translation reads: the informer caches' contents at one moment. {@code configMaps} are only those
 * Ingresses name ({@code custom-headers}, {@link CustomHeaders#named}), not every ConfigMap of the cluster.
 */
public record Inputs(
        List<Route> routes,
        List<Upstream> upstreams,
        List<Service> services,
        List<EndpointSlice> endpointSlices,
        List<Secret> secrets,
        List<Ingress> ingresses,
        List<IngressClass> ingressClasses,
        List<ConfigMap> configMaps,
        Map<ResourceKey, ProxyRejection> rejected) {

    public Inputs {
        rejected = Map.copyOf(rejected);
        configMaps = List.copyOf(configMaps);
        routes = List.copyOf(routes);
        upstreams = List.copyOf(upstreams);
        services = List.copyOf(services);
        endpointSlices = List.copyOf(endpointSlices);
        secrets = List.copyOf(secrets);
        ingresses = List.copyOf(ingresses);
        ingressClasses = List.copyOf(ingressClasses);
    }

    /** Nothing refused by proxies. */
    public Inputs(List<Route> routes, List<Upstream> upstreams, List<Service> services,
                  List<EndpointSlice> endpointSlices, List<Secret> secrets, List<Ingress> ingresses,
                  List<IngressClass> ingressClasses, List<ConfigMap> configMaps) {
        this(routes, upstreams, services, endpointSlices, secrets, ingresses, ingressClasses, configMaps, Map.of());
    }

    /** Nothing refused by proxies, no ConfigMaps. */
    public Inputs(List<Route> routes, List<Upstream> upstreams, List<Service> services,
                  List<EndpointSlice> endpointSlices, List<Secret> secrets, List<Ingress> ingresses,
                  List<IngressClass> ingressClasses) {
        this(routes, upstreams, services, endpointSlices, secrets, ingresses, ingressClasses, List.of());
    }

    /** The same resources, with what proxies refused ({@link ProxyRejection}). */
    public Inputs withRejected(Map<ResourceKey, ProxyRejection> r) {
        return new Inputs(routes, upstreams, services, endpointSlices, secrets, ingresses, ingressClasses, configMaps, r);
    }

    /** Without standard Ingresses. */
    public Inputs(List<Route> routes, List<Upstream> upstreams, List<Service> services,
                  List<EndpointSlice> endpointSlices, List<Secret> secrets) {
        this(routes, upstreams, services, endpointSlices, secrets, List.of(), List.of());
    }

    public static Inputs of(List<Route> routes, List<Upstream> upstreams) {
        return new Inputs(routes, upstreams, List.of(), List.of(), List.of());
    }
}
