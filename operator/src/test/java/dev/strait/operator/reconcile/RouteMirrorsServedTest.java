package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.awaitRoute;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.hasCondition;
import static dev.strait.operator.reconcile.OperatorHarness.route;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.strait.model.Route;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Route's mirrors end to end against fabric8's mock API server in CRUD mode and a real proxy: a mirror that
 * resolves is in the snapshot the proxy takes, one that does not is reported in the Route's status and left out,
 * and the rule serves either way.
 */
@EnableKubernetesMockClient(crud = true)
class RouteMirrorsServedTest {
    static KubernetesClient client;

    private OperatorHarness.Served served;
    private HttpServer shadow;

    @BeforeEach
    void start() throws Exception {
        served = OperatorHarness.Served.start(client);
        shadow = OperatorHarness.echoUpstream("shadow");
        OperatorHarness.serviceBackend(client, "shadow", "http", 8080, shadow);
    }

    @AfterEach
    void stop() {
        shadow.stop(0);
        served.close();
    }

    @Test
    void aMirrorThatDoesNotResolveIsReportedAndTheRuleServes() throws Exception {
        create(client, route("shop", "site", """
                hosts: [ site.example.com ]
                rules:
                  - backends: [ { service: { name: web, port: 80 } } ]
                    mirrors:
                      - { backend: { service: { name: shadow, port: 8080 } }, percent: 50, body: false }
                      - { backend: { service: { name: gone, port: 8080 } } }
                """));
        awaitRoute(client, "shop", "site", s -> {
            hasCondition(s, "Accepted", "True", "Accepted", "valid");
            hasCondition(s, "ResolvedRefs", "False", "BackendNotFound",
                    "spec.rules[0].mirrors[1].backend.service.name: Service \"gone\" not found; the mirror is left out");
            hasCondition(s, "Programmed", "True", "Programmed", null);
        });
        assertThat(served.proxy().get("site.example.com", "/x")).isEqualTo("200 OK app saw /x");
        // The proxy took the snapshot with the mirror that resolves, and its upstream.
        var config = served.proxy().serving.snapshot().config();
        assertThat(config.routes().get(0).rules().get(0).mirrors())
                .isEqualTo(List.of(new Route.Mirror("service.shop.shadow.8080", 50, null, false)));
        assertThat(config.upstreams()).extracting(dev.strait.model.Upstream::name).contains("service.shop.shadow.8080");
    }
}
