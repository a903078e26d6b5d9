package dev.strait.operator.translate;

import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.Upstream;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;

/** Everything a translation reads: the informer caches' contents at one moment. */
public record Inputs(
        List<Route> routes,
        List<Upstream> upstreams,
        List<Service> services,
        List<EndpointSlice> endpointSlices,
        List<Secret> secrets) {

    public Inputs {
        routes = List.copyOf(routes);
        upstreams = List.copyOf(upstreams);
        services = List.copyOf(services);
        endpointSlices = List.copyOf(endpointSlices);
        secrets = List.copyOf(secrets);
    }

    public static Inputs of(List<Route> routes, List<Upstream> upstreams) {
        return new Inputs(routes, upstreams, List.of(), List.of(), List.of());
    }
}
