package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.WAIT;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.strait.operator.publish.TestProxy;
import dev.strait.operator.translate.Fixtures;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.ResourceReport;
import dev.strait.proxy.control.Identity;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two Ingresses on one host against fabric8's mock API server (CRUD mode), served by a real proxy to two real
 * upstreams: an explicit {@code Prefix /} answers before any defaultBackend, whichever Ingress is older
 * (ADR 0056), and neither Ingress is reported as conflicting.
 */
@EnableKubernetesMockClient(crud = true)
class IngressDefaultBackendServedTest {
    static KubernetesClient client;

    private OperatorApp app;
    private TestProxy proxy;
    private HttpServer web;
    private HttpServer fallback;

    @BeforeEach
    void start() throws Exception {
        OperatorHarness.installCrds(client);
        web = OperatorHarness.echoUpstream("web");
        fallback = OperatorHarness.echoUpstream("fallback");
        app = new OperatorApp(client, OperatorHarness.settings()).start();
        for (HttpServer s : new HttpServer[] {web, fallback}) {
            String name = s == web ? "web" : "fallback";
            create(client, Fixtures.service("shop", name, "http:80"));
            create(client, Fixtures.slice("shop", name, name + "-1", "http", s.getAddress().getPort(), "127.0.0.1"));
        }
        proxy = TestProxy.start(app.controlAddress(), Identity.ingress("strait"), null);
    }

    @AfterEach
    void stop() {
        proxy.close();
        app.close();
        web.stop(0);
        fallback.stop(0);
        client.network().v1().ingresses().inAnyNamespace().delete();
        client.services().inAnyNamespace().delete();
        client.discovery().v1().endpointSlices().inAnyNamespace().delete();
    }

    /** A defaultBackend, and {@code /api} on the host, both to the fallback app. */
    private static Ingress withDefaultBackend(String name) {
        return yaml("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: { namespace: shop, name: %s }
                spec:
                  ingressClassName: strait
                  defaultBackend: { service: { name: fallback, port: { name: http } } }
                  rules:
                    - host: shop.example.com
                      http:
                        paths:
                          - { path: /api, pathType: Prefix, backend: { service: { name: fallback, port: { name: http } } } }
                """.formatted(name), Ingress.class);
    }

    /** {@code Prefix /} on the host to the web app. */
    private static Ingress withRootPath(String name) {
        return yaml("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: { namespace: shop, name: %s }
                spec:
                  ingressClassName: strait
                  rules:
                    - host: shop.example.com
                      http:
                        paths:
                          - { path: /, pathType: Prefix, backend: { service: { name: web, port: { name: http } } } }
                """.formatted(name), Ingress.class);
    }

    /** Creates {@code younger} in a later second than {@code older} (creation times have whole seconds). */
    private static void createAfter(Ingress older, Ingress younger) {
        Instant created = Instant.parse(older.getMetadata().getCreationTimestamp());
        await().atMost(WAIT).until(() -> Instant.now().getEpochSecond() > created.getEpochSecond());
        Ingress made = create(client, younger);
        assertThat(Instant.parse(made.getMetadata().getCreationTimestamp())).isAfter(created);
    }

    private void noConflicts(String... names) {
        for (String name : names) {
            ResourceReport r = app.board().report(new ResourceKey("Ingress", "shop", name));
            assertThat(r.errors()).as(name).isEmpty();
            assertThat(r.accepted().reason()).as(name).isEqualTo("Accepted");
        }
    }

    @Test
    void aYoungerIngressesRootPathTakesTheHostFromAnOlderDefaultBackend() throws Exception {
        Ingress old = create(client, withDefaultBackend("old"));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("shop.example.com", "/cart")).isEqualTo("200 OK fallback saw /cart"));
        createAfter(old, withRootPath("young"));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("shop.example.com", "/cart")).isEqualTo("200 OK web saw /cart"));
        assertThat(proxy.get("shop.example.com", "/")).isEqualTo("200 OK web saw /");
        assertThat(proxy.get("shop.example.com", "/api/x")).isEqualTo("200 OK fallback saw /api/x");
        assertThat(proxy.get("other.example.com", "/")).as("a host no rule names").isEqualTo("200 OK fallback saw /");
        noConflicts("old", "young");
    }

    @Test
    void anOlderIngressesRootPathKeepsTheHostFromAYoungerDefaultBackend() throws Exception {
        Ingress old = create(client, withRootPath("old"));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("shop.example.com", "/cart")).isEqualTo("200 OK web saw /cart"));
        createAfter(old, withDefaultBackend("young"));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("shop.example.com", "/api/x")).isEqualTo("200 OK fallback saw /api/x"));
        assertThat(proxy.get("shop.example.com", "/cart")).isEqualTo("200 OK web saw /cart");
        assertThat(proxy.get("other.example.com", "/")).isEqualTo("200 OK fallback saw /");
        noConflicts("old", "young");
    }
}
