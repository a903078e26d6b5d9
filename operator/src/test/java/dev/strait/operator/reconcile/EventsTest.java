package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.WAIT;
import static dev.strait.operator.reconcile.OperatorHarness.awaitRoute;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.hasCondition;
import static dev.strait.operator.reconcile.OperatorHarness.route;
import static dev.strait.operator.reconcile.OperatorHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.operator.crd.Upstream;
import dev.strait.operator.publish.TestProxy;
import dev.strait.proxy.control.Identity;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Kubernetes Events for what the operator refuses or cannot program (ADR 0056), against fabric8's mock API
 * server in CRUD mode: one Warning per problem, on changes only, none again after a restart, and never in the
 * way of status or serving.
 */
@EnableKubernetesMockClient(crud = true)
class EventsTest {
    static KubernetesClient client;
    static KubernetesMockServer server;

    private static final String REWRITE = "nginx.ingress.kubernetes.io/rewrite-target";

    private OperatorHarness.Served served;
    private OperatorApp app;
    private TestProxy proxy;

    @BeforeEach
    void start() throws Exception {
        served = OperatorHarness.Served.withoutProxy(client);
        app = served.app();
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close(); // connected by the test that needs one
        }
        served.close();
    }

    /** {@code /api/(.*)} with {@code rewrite-target: /$1?page=1}, which Strait cannot express (ADR 0054, 0058): it answers 503. */
    private static Ingress unsupported() {
        return yaml("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata:
                  namespace: shop
                  name: site
                  annotations: { %s: "/$1?page=1" }
                spec:
                  ingressClassName: strait
                  rules:
                    - host: site.example.com
                      http:
                        paths:
                          - { path: "/api/(.*)", pathType: ImplementationSpecific, backend: { service: { name: web, port: { name: http } } } }
                """.formatted(REWRITE), Ingress.class);
    }

    private static List<Event> events(String kind, String name) {
        return client.v1().events().inNamespace("shop").list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getKind().equals(kind) && e.getInvolvedObject().getName().equals(name))
                .toList();
    }

    private static List<Event> events(String kind, String name, String type) {
        return events(kind, name).stream().filter(e -> e.getType().equals(type)).toList();
    }

    /** Waits until the writer has nothing left to write. */
    private void settled() {
        await().atMost(WAIT).until(() -> app.events().idle());
    }

    private Event oneUnsupportedAnnotationWarning(Ingress ing) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(events("Ingress", "site")).hasSize(1));
        Event e = events("Ingress", "site").get(0);
        assertThat(e.getType()).isEqualTo("Warning");
        assertThat(e.getReason()).isEqualTo("UnsupportedAnnotation");
        assertThat(e.getMessage()).startsWith("metadata.annotations[" + REWRITE + "]: \"/$1?page=1\" with "
                + "spec.rules[0].http.paths[0].path \"/api/(.*)\" cannot be expressed");
        assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("networking.k8s.io/v1");
        assertThat(e.getInvolvedObject().getUid()).isEqualTo(ing.getMetadata().getUid()).isNotNull();
        assertThat(e.getSource().getComponent()).isEqualTo("strait-operator");
        assertThat(e.getCount()).isEqualTo(1);
        return e;
    }

    @Test
    void anIngressWithAnUnsupportedAnnotationGetsOneWarningUntilItIsFixed() throws Exception {
        Ingress ing = create(client, unsupported());
        Event warning = oneUnsupportedAnnotationWarning(ing);

        // Reconciled again with the same problem: a proxy connects and programs it, so the Ingress is reconciled.
        long reconciles = app.ingressReconciles();
        long queued = app.events().queued();
        proxy = TestProxy.start(app.controlAddress(), Identity.ingress("strait"), null);
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("site.example.com", "/api/(.*)").split(" ")[0]).as("the path it applies to").isEqualTo("503"));
        await().atMost(WAIT).until(() -> app.ingressReconciles() > reconciles);
        settled();
        assertThat(app.events().queued()).as("no event for a reconcile that changed nothing").isEqualTo(queued);
        assertThat(events("Ingress", "site")).containsExactly(warning);

        // Fixed: one Normal event says so, and no further warnings.
        ing = client.network().v1().ingresses().inNamespace("shop").withName("site").get();
        ing.getMetadata().setAnnotations(Map.of());
        client.resource(ing).update();
        await().atMost(WAIT).untilAsserted(() -> assertThat(events("Ingress", "site", "Normal")).singleElement()
                .satisfies(e -> assertThat(e.getReason()).isEqualTo("Resolved")));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("site.example.com", "/api/(.*)")).isEqualTo("200 OK app saw /api/(.*)"));
        settled();
        assertThat(events("Ingress", "site", "Warning")).containsExactly(warning);
    }

    @Test
    void aRestartedOperatorDoesNotWriteTheWarningAgain() throws Exception {
        Ingress ing = create(client, unsupported());
        Event warning = oneUnsupportedAnnotationWarning(ing);
        app.close();
        app = new OperatorApp(client, OperatorHarness.settings()).start();
        await().atMost(WAIT).until(() -> app.ingressReconciles() > 0 && app.events().requests() > 0);
        settled();
        assertThat(app.events().requests()).as("one create, answered 409").isEqualTo(1);
        assertThat(events("Ingress", "site")).containsExactly(warning);
    }

    @Test
    void aRouteGetsAWarningPerProblemAndTheSameProblemAgainIsCountedOnItsEvent() {
        create(client, route("shop", "site", """
                hosts: [ site.example.com ]
                rules: [ { backends: [ { upstream: api } ] } ]
                """));
        awaitRoute(client, "shop", "site", s -> hasCondition(s, "ResolvedRefs", "False", "BackendNotFound", null));
        await().atMost(WAIT).untilAsserted(() -> assertThat(events("Route", "site", "Warning")).singleElement()
                .satisfies(e -> {
                    assertThat(e.getReason()).isEqualTo("BackendNotFound");
                    assertThat(e.getMessage()).isEqualTo("spec.rules[0].backends[0].upstream: Upstream \"api\" not found");
                    assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("strait.dev/v1alpha1");
                }));

        Upstream api = create(client, yaml("""
                apiVersion: strait.dev/v1alpha1
                kind: Upstream
                metadata: { namespace: shop, name: api }
                spec: { service: { name: web, port: 80 } }
                """, Upstream.class));
        await().atMost(WAIT).untilAsserted(() -> assertThat(events("Route", "site", "Normal")).singleElement()
                .satisfies(e -> assertThat(e.getReason()).isEqualTo("Resolved")));

        client.resource(api).delete();
        await().atMost(WAIT).untilAsserted(() -> assertThat(events("Route", "site", "Warning")).singleElement()
                .satisfies(e -> assertThat(e.getCount()).as("client-go's aggregation").isEqualTo(2)));
    }

    @Test
    void eventsTheApiServerRefusesNeverHoldUpStatus() {
        // As without RBAC for events: every write refused.
        server.expect().post().withPath("/api/v1/namespaces/shop/events")
                .andReturn(403, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Forbidden\",\"code\":403}")
                .always();
        create(client, route("shop", "site", """
                hosts: [ site.example.com ]
                rules: [ { backends: [ { upstream: api } ] } ]
                """));
        awaitRoute(client, "shop", "site", s -> hasCondition(s, "ResolvedRefs", "False", "BackendNotFound", null));
        await().atMost(WAIT).until(() -> app.events().requests() > 0);
        create(client, yaml("""
                apiVersion: strait.dev/v1alpha1
                kind: Upstream
                metadata: { namespace: shop, name: api }
                spec: { service: { name: web, port: 80 } }
                """, Upstream.class));
        awaitRoute(client, "shop", "site", s -> hasCondition(s, "ResolvedRefs", "True", "ResolvedRefs", null));
        settled();
        assertThat(app.events().requests()).as("the Warning and the Normal event, each tried once").isEqualTo(2);
        assertThat(client.v1().events().inNamespace("shop").list().getItems()).isEmpty();
    }
}
