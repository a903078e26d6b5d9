package dev.strait.operator.reconcile;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ConfigMaps that Ingresses name ({@code custom-headers}, ADR 0093), each watched by name: one informer per
 * ConfigMap, its list and watch narrowed by the API server to {@code metadata.name}. ConfigMaps are users' own
 * (dashboards, scripts, whole configuration files, up to 1 MiB each) and cannot be told apart by a label, so the
 * operator never lists them all: it caches the ones named and nothing else. A watch starts when an Ingress of its
 * class first names the ConfigMap and stops when none does; any change to the ConfigMap calls for a rebuild.
 *
 * <p>A new watch is waited for (at most {@link #FIRST_LIST}) before the translation that first needs it, so an
 * Ingress is not reported without its ConfigMap only because the watch had not listed yet. A watch that cannot list
 * (the operator's role lacks {@code configmaps}) keeps trying with the client's backoff; meanwhile its ConfigMap
 * reads as missing, and the operator logs why. Its own thread-safety: called by the rebuilder, closed by the app.
 */
final class NamedConfigMaps implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NamedConfigMaps.class);
    /** How long a translation waits for the first list of a new watch. */
    static final Duration FIRST_LIST = Duration.ofSeconds(5);

    private final KubernetesClient client;
    private final Runnable changed;
    /** {@code namespace/name} to its watch. */
    private final Map<String, SharedIndexInformer<ConfigMap>> watches = new HashMap<>();
    /** Watches whose failure was logged as a warning already (each is logged once, then at debug). */
    private final Set<String> warned = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private boolean closed;

    NamedConfigMaps(KubernetesClient client, Runnable changed) {
        this.client = client;
        this.changed = changed;
    }

    /**
     * Watches exactly the ConfigMaps of {@code wanted} ({@code namespace/name}): starts the new ones and waits for
     * their first list, stops those no longer named; returns what the watches hold (those that exist).
     */
    synchronized List<ConfigMap> track(Set<String> wanted) {
        if (closed) {
            return List.of();
        }
        for (Iterator<Map.Entry<String, SharedIndexInformer<ConfigMap>>> it = watches.entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, SharedIndexInformer<ConfigMap>> e = it.next();
            if (!wanted.contains(e.getKey())) {
                e.getValue().close();
                warned.remove(e.getKey());
                it.remove();
            }
        }
        List<CompletableFuture<Void>> starting = new ArrayList<>();
        Set<String> started = new HashSet<>();
        for (String key : wanted) {
            if (watches.containsKey(key)) {
                continue;
            }
            int slash = key.indexOf('/');
            SharedIndexInformer<ConfigMap> informer = client.configMaps().inNamespace(key.substring(0, slash))
                    .withName(key.substring(slash + 1)).runnableInformer(0);
            informer.addEventHandler(new Handler());
            // Keep trying, with the client's backoff, whatever the failure: a role granted later is then seen.
            informer.exceptionHandler((isStarted, t) -> {
                if (warned.add(key)) {
                    log.warn("cannot watch ConfigMap {} (named by an Ingress's custom-headers); it reads as missing"
                            + " until the watch lists it: {}", key, t.toString());
                } else {
                    log.debug("watch of ConfigMap {} failed again: {}", key, t.toString());
                }
                return true;
            });
            watches.put(key, informer);
            started.add(key);
            starting.add(informer.start().toCompletableFuture());
        }
        if (!starting.isEmpty()) {
            try {
                CompletableFuture.allOf(starting.toArray(CompletableFuture[]::new))
                        .get(FIRST_LIST.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException e) {
                // Translated without them for now; each one's first list calls for a rebuild when it comes.
                log.debug("ConfigMap watches {} not listed within {}: {}", started, FIRST_LIST, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<ConfigMap> out = new ArrayList<>();
        for (SharedIndexInformer<ConfigMap> informer : watches.values()) {
            out.addAll(informer.getStore().list());
        }
        return out;
    }

    /** The ConfigMaps watched now (for tests). */
    synchronized Set<String> watched() {
        return Set.copyOf(watches.keySet());
    }

    @Override
    public synchronized void close() {
        closed = true;
        watches.values().forEach(SharedIndexInformer::close);
        watches.clear();
    }

    /** Any change of a watched ConfigMap (its first list too) may change a snapshot. */
    private final class Handler implements ResourceEventHandler<ConfigMap> {
        @Override
        public void onAdd(ConfigMap obj) {
            changed.run();
        }

        @Override
        public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {
            if (!Objects.equals(oldObj.getMetadata().getResourceVersion(), newObj.getMetadata().getResourceVersion())) {
                changed.run();
            }
        }

        @Override
        public void onDelete(ConfigMap obj, boolean deletedFinalStateUnknown) {
            changed.run();
        }
    }
}
