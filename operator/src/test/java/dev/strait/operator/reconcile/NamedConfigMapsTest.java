package dev.strait.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The operator caches the ConfigMaps Ingresses name, by name, and no other (ADR 0093). */
@EnableKubernetesMockClient(crud = true)
class NamedConfigMapsTest {
    static KubernetesClient client;

    @AfterEach
    void clean() {
        client.configMaps().inAnyNamespace().delete();
    }

    private static ConfigMap configMap(String ns, String name, String value) {
        return new ConfigMapBuilder().withNewMetadata().withNamespace(ns).withName(name).endMetadata()
                .withData(Map.of("X-A", value)).build();
    }

    private static Set<String> names(java.util.List<ConfigMap> cms) {
        return cms.stream().map(c -> c.getMetadata().getNamespace() + "/" + c.getMetadata().getName())
                .collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void onlyTheNamedConfigMapsAreWatchedAndEachChangeCallsForARebuild() {
        client.resource(configMap("shop", "security", "1")).create();
        client.resource(configMap("shop", "dashboard", "big")).create(); // same namespace, never named
        client.resource(configMap("platform", "shared", "2")).create();
        AtomicInteger changes = new AtomicInteger();
        try (NamedConfigMaps watches = new NamedConfigMaps(client, changes::incrementAndGet)) {
            // The first list is waited for: the first translation that names them has them.
            assertThat(names(watches.track(Set.of("shop/security", "platform/shared", "shop/missing"))))
                    .containsExactlyInAnyOrder("shop/security", "platform/shared");
            assertThat(watches.watched()).containsExactlyInAnyOrder("shop/security", "platform/shared", "shop/missing");

            int before = changes.get();
            client.resource(configMap("shop", "missing", "3")).create();
            await().untilAsserted(() -> assertThat(changes.get()).isGreaterThan(before));
            await().untilAsserted(() -> assertThat(names(watches.track(watches.watched())))
                    .containsExactlyInAnyOrder("shop/security", "platform/shared", "shop/missing"));

            int beforeEdit = changes.get();
            client.resource(configMap("shop", "dashboard", "bigger")).update();
            client.resource(configMap("shop", "security", "4")).update();
            await().untilAsserted(() -> assertThat(watches.track(watches.watched()))
                    .filteredOn(c -> c.getMetadata().getName().equals("security"))
                    .singleElement().satisfies(c -> assertThat(c.getData()).containsEntry("X-A", "4")));
            await().untilAsserted(() -> assertThat(changes.get()).isGreaterThan(beforeEdit));

            // No longer named: no longer watched, nor held.
            assertThat(names(watches.track(Set.of("shop/security")))).containsExactly("shop/security");
            assertThat(watches.watched()).containsExactly("shop/security");
        }
    }
}
