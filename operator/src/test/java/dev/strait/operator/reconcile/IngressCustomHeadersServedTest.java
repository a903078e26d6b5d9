package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.WAIT;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.operator.publish.TestProxy;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ingress-nginx's {@code custom-headers} end to end (ADR 0093): the operator watches the ConfigMap an Ingress names,
 * and a real proxy's answers carry its fields as soon as it exists, change with it and lose them when it goes.
 */
@EnableKubernetesMockClient(crud = true)
class IngressCustomHeadersServedTest {
    private static final String FIELD = "metadata.annotations[nginx.ingress.kubernetes.io/custom-headers]";
    static KubernetesClient client;

    private OperatorHarness.Served served;
    private TestProxy proxy;

    @BeforeEach
    void start() throws Exception {
        served = OperatorHarness.Served.start(client);
        proxy = served.proxy();
    }

    @AfterEach
    void stop() {
        served.close();
        client.configMaps().inAnyNamespace().delete();
    }

    private static Ingress ingress(String name, String configMap) {
        return yaml("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata:
                  namespace: shop
                  name: %s
                  annotations: { nginx.ingress.kubernetes.io/custom-headers: "%s" }
                spec:
                  ingressClassName: strait
                  rules:
                    - host: %s.example.com
                      http:
                        paths:
                          - { path: /, pathType: Prefix, backend: { service: { name: web, port: { name: http } } } }
                """.formatted(name, configMap, name), Ingress.class);
    }

    private static ConfigMap configMap(String ns, String name, Map<String, String> data, Map<String, String> annotations) {
        return new ConfigMapBuilder().withNewMetadata().withNamespace(ns).withName(name).withAnnotations(annotations)
                .endMetadata().withData(data).build();
    }

    private void awaitEvent(String reason, String messageStart) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(client.v1().events().inNamespace("shop").list().getItems())
                .anySatisfy(e -> {
                    assertThat(e.getReason()).isEqualTo(reason);
                    assertThat(e.getMessage()).startsWith(messageStart);
                }));
    }

    @Test
    void theAnswersCarryTheConfigMapsFieldsOnceItExistsAndFollowIt() throws Exception {
        create(client, ingress("site", "security"));
        // Missing: reported, and the path serves without the fields (they guard nothing).
        await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.get("site.example.com", "/x"))
                .isEqualTo("200 OK app saw /x"));
        assertThat(proxy.exchange("site.example.com", "/x")).doesNotContainIgnoringCase("X-Frame-Options");
        awaitEvent("ConfigMapNotFound", FIELD + ": ConfigMap \"security\" not found");

        // Created: nothing else changed, so only the ConfigMap's own event can have brought the fields.
        create(client, configMap("shop", "security", Map.of("X-Frame-Options", "DENY"), Map.of()));
        await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("site.example.com", "/x"))
                .startsWith("HTTP/1.1 200 ").containsIgnoringCase("\r\nx-frame-options: DENY\r\n"));

        client.configMaps().inNamespace("shop").withName("security")
                .edit(c -> new ConfigMapBuilder(c).withData(Map.of("X-Frame-Options", "SAMEORIGIN")).build());
        await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("site.example.com", "/x"))
                .containsIgnoringCase("\r\nx-frame-options: SAMEORIGIN\r\n"));

        client.configMaps().inNamespace("shop").withName("security").delete();
        await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("site.example.com", "/x"))
                .startsWith("HTTP/1.1 200 ").doesNotContainIgnoringCase("X-Frame-Options"));
    }

    @Test
    void aConfigMapOfAnotherNamespaceAppliesOnceItAcceptsTheIngresssNamespace() throws Exception {
        create(client, configMap("platform", "security", Map.of("X-Frame-Options", "DENY"), Map.of()));
        create(client, ingress("site", "platform/security"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.get("site.example.com", "/x"))
                .isEqualTo("200 OK app saw /x"));
        awaitEvent("RefNotPermitted", FIELD + ": ConfigMap \"security\" of namespace \"platform\" does not accept"
                + " references from namespace \"shop\"");
        assertThat(proxy.exchange("site.example.com", "/x")).doesNotContainIgnoringCase("X-Frame-Options");

        // The consent is an edit of the ConfigMap alone.
        client.configMaps().inNamespace("platform").withName("security").edit(c -> new ConfigMapBuilder(c)
                .editMetadata().addToAnnotations("strait.dev/accept-references-from", "shop").endMetadata().build());
        await().atMost(WAIT).untilAsserted(() -> assertThat(proxy.exchange("site.example.com", "/x"))
                .containsIgnoringCase("\r\nx-frame-options: DENY\r\n"));
    }
}
