package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.WAIT;
import static dev.strait.operator.reconcile.OperatorHarness.awaitRoute;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.hasCondition;
import static dev.strait.operator.reconcile.OperatorHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.operator.crd.Route;
import dev.strait.operator.publish.TestProxy;
import dev.strait.operator.translate.Fixtures;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ExternalName Services end to end against fabric8's mock API server (CRUD mode) and a real proxy: a Service's
 * cluster name is followed to that Service's pods once it accepts the ExternalName Service's namespace, and a name
 * that leads to the proxy's own host answers 503 with the reason in the Route's status.
 */
@EnableKubernetesMockClient(crud = true)
class ExternalNameServedTest {
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
    }

    /**
     * Team's Ingress names its own ExternalName Service, which names shop's web by its cluster name: 503 until web
     * accepts team's references (the ExternalName's namespace, as a direct reference from there would need), then
     * shop's pods answer; taking the consent back takes them away again.
     */
    @Test
    void aServiceOfAnotherNamespaceByItsClusterNameServesOnceItAccepts() throws Exception {
        create(client, Fixtures.externalName("team", "web", "web.shop.svc.cluster.local", "http:80"));
        create(client, yaml("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: { namespace: team, name: site }
                spec:
                  ingressClassName: strait
                  rules:
                    - host: team.example.com
                      http:
                        paths: [ { path: /, pathType: Prefix, backend: { service: { name: web, port: { name: http } } } } ]
                """, Ingress.class));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("team.example.com", "/x").split(" ")[0]).isEqualTo("503"));

        accept("team");
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("team.example.com", "/x")).isEqualTo("200 OK app saw /x"));

        accept(null);
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("team.example.com", "/x").split(" ")[0]).isEqualTo("503"));
    }

    @Test
    void aNameOfTheProxysOwnHostAnswers503AndTheRouteSaysWhy() throws Exception {
        create(client, Fixtures.externalName("shop", "admin", "localhost"));
        create(client, OperatorHarness.route("shop", "admin", """
                hosts: [ admin.example.com ]
                rules:
                  - matches: [ { path: { value: /web } } ]
                    backends: [ { service: { name: web, port: 80 } } ]
                  - backends: [ { service: { name: admin, port: 9901 } } ]
                """));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("admin.example.com", "/web/x")).isEqualTo("200 OK app saw /web/x"));
        assertThat(proxy.get("admin.example.com", "/stats").split(" ")[0]).isEqualTo("503");
        awaitRoute(client, "shop", "admin", s -> hasCondition(s, "ResolvedRefs", "False", "InvalidBackend",
                "spec.rules[1].backends[0].service.name: Service \"admin\" (ExternalName \"localhost\") names the"
                        + " proxy's own host (RFC 6761); an ExternalName Service may not lead to the proxy's own host or"
                        + " the node's: loopback, link-local (the cloud metadata service at 169.254.169.254), unspecified"
                        + " and multicast addresses are refused"));
    }

    /** Sets (or, with null, removes) shop's web's consent to be named from {@code namespaces}. */
    private static void accept(String namespaces) {
        client.services().inNamespace("shop").withName("web").edit(s -> {
            s.getMetadata().setAnnotations(namespaces == null ? null
                    : java.util.Map.of("strait.dev/accept-references-from", namespaces));
            return s;
        });
    }
}
