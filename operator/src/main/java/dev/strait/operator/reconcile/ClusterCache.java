package dev.strait.operator.reconcile;

import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.Upstream;
import dev.strait.operator.translate.CustomHeaders;
import dev.strait.operator.translate.Inputs;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Informers on everything a translation reads (Routes, Upstreams, Services, EndpointSlices, TLS
 * and Opaque Secrets, Ingresses and IngressClasses, and the ConfigMaps Ingresses name). Opaque Secrets are read for an
 * Upstream's CA bundle ({@code ca.crt}); other types (service-account tokens, Helm releases, registry credentials) are
 * never cached. ConfigMaps are watched one by one, those named by {@code custom-headers} only ({@link NamedConfigMaps}).
 * A Route or Upstream update that leaves its generation
 * alone (a status write, a label) does not count as a change; Services, EndpointSlices and Secrets
 * have no generation, so every update counts.
 */
public final class ClusterCache implements AutoCloseable {
    private static final String TLS_SECRET = "kubernetes.io/tls";
    private static final String OPAQUE_SECRET = "Opaque";
    private final KubernetesClient client;
    private final Runnable changed;
    private final boolean secretFieldSelector;
    /** The class of Ingresses that name none: whose ConfigMaps are watched, with those of this operator's classes. */
    private final String defaultClass;
    private final NamedConfigMaps configMaps;
    private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
    private SharedIndexInformer<Route> routes;
    private SharedIndexInformer<Upstream> upstreams;
    private SharedIndexInformer<Service> services;
    private SharedIndexInformer<EndpointSlice> slices;
    private SharedIndexInformer<Secret> secrets;
    private SharedIndexInformer<Secret> opaqueSecrets;
    private SharedIndexInformer<Ingress> ingresses;
    private SharedIndexInformer<IngressClass> ingressClasses;
    private volatile boolean synced;

    /**
     * @param secretFieldSelector watch only {@code kubernetes.io/tls} and {@code Opaque} Secrets (the API server filters);
     *                            off where the API (a mock) cannot filter by field, and then filtered here
     */
    public ClusterCache(KubernetesClient client, Runnable changed, boolean secretFieldSelector) {
        this(client, changed, secretFieldSelector, dev.strait.operator.translate.ProxyDefaults.STANDARD.defaultClass());
    }

    /** @param defaultClass the operator's class for Ingresses that name none ({@code ProxyDefaults.defaultClass}) */
    public ClusterCache(KubernetesClient client, Runnable changed, boolean secretFieldSelector, String defaultClass) {
        this.client = client;
        this.changed = changed;
        this.secretFieldSelector = secretFieldSelector;
        this.defaultClass = defaultClass;
        this.configMaps = new NamedConfigMaps(client, changed);
    }

    /** Starts every informer and returns once all have listed (synced); then reports one change. */
    public ClusterCache start() {
        routes = add(client.resources(Route.class).inAnyNamespace().inform(new Handler<>(true), 0));
        upstreams = add(client.resources(Upstream.class).inAnyNamespace().inform(new Handler<>(true), 0));
        services = add(client.services().inAnyNamespace().inform(new Handler<>(false), 0));
        slices = add(client.discovery().v1().endpointSlices().inAnyNamespace().inform(new Handler<>(false), 0));
        secrets = add(secretFieldSelector
                ? client.secrets().inAnyNamespace().withField("type", TLS_SECRET).inform(new Handler<>(false), 0)
                : client.secrets().inAnyNamespace().inform(new Handler<>(false), 0));
        if (secretFieldSelector) {
            opaqueSecrets = add(client.secrets().inAnyNamespace().withField("type", OPAQUE_SECRET)
                    .inform(new Handler<>(false), 0));
        }
        // An Ingress's annotations (its class, ssl-redirect) change what it is translated into, not its generation.
        ingresses = add(client.network().v1().ingresses().inAnyNamespace().inform(new Handler<>(true, true), 0));
        ingressClasses = add(client.network().v1().ingressClasses().inform(new Handler<>(false), 0));
        synced = true;
        changed.run();
        return this;
    }

    private <T> SharedIndexInformer<T> add(SharedIndexInformer<T> i) {
        informers.add(i);
        return i;
    }

    public boolean synced() {
        return synced && informers.stream().allMatch(SharedIndexInformer::hasSynced);
    }

    /** The Services now (for the Ingress status address). */
    public List<Service> services() {
        return services.getStore().list();
    }

    /**
     * What the caches hold now. The ConfigMaps that the Ingresses of this operator's classes name are watched from
     * here on (a new one is waited for, briefly), and those no longer named are no longer: called by the rebuilder.
     */
    public Inputs inputs() {
        List<Secret> tls = new ArrayList<>(secrets.getStore().list().stream()
                .filter(s -> TLS_SECRET.equals(s.getType()) || OPAQUE_SECRET.equals(s.getType())).toList());
        if (opaqueSecrets != null) {
            tls.addAll(opaqueSecrets.getStore().list());
        }
        List<Ingress> ing = ingresses.getStore().list();
        List<IngressClass> classes = ingressClasses.getStore().list();
        return new Inputs(routes.getStore().list(), upstreams.getStore().list(), services.getStore().list(),
                slices.getStore().list(), tls, ing, classes,
                configMaps.track(CustomHeaders.named(ing, classes, defaultClass)));
    }

    /** The ConfigMaps watched now, {@code namespace/name} (for tests). */
    java.util.Set<String> watchedConfigMaps() {
        return configMaps.watched();
    }

    @Override
    public void close() {
        configMaps.close();
        informers.forEach(SharedIndexInformer::close);
    }

    private final class Handler<T extends HasMetadata> implements ResourceEventHandler<T> {
        private final boolean generational;
        /** Whether annotations count as a change even where the generation does not move. */
        private final boolean annotated;

        Handler(boolean generational) {
            this(generational, false);
        }

        Handler(boolean generational, boolean annotated) {
            this.generational = generational;
            this.annotated = annotated;
        }

        @Override
        public void onAdd(T obj) {
            if (synced) {
                changed.run();
            }
        }

        @Override
        public void onUpdate(T oldObj, T newObj) {
            if (generational && newObj.getMetadata().getGeneration() != null
                    && Objects.equals(oldObj.getMetadata().getGeneration(), newObj.getMetadata().getGeneration())
                    && (!annotated || Objects.equals(oldObj.getMetadata().getAnnotations(),
                            newObj.getMetadata().getAnnotations()))) {
                return;
            }
            if (Objects.equals(oldObj.getMetadata().getResourceVersion(),
                    newObj.getMetadata().getResourceVersion())) {
                return; // a resync, nothing new
            }
            changed.run();
        }

        @Override
        public void onDelete(T obj, boolean deletedFinalStateUnknown) {
            changed.run();
        }
    }
}
