package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.awaitRoute;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.operator.crd.Route;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two operator replicas against one API server (fabric8's mock in CRUD mode): one holds the Lease and
 * writes status; when it stops, the other takes the Lease over and status keeps following the specs.
 * Lease times are shortened (production: 15 s lease, 10 s renew deadline, 2 s retry).
 */
@EnableKubernetesMockClient(crud = true)
class LeaderElectionTest {
    static KubernetesClient client;
    static io.fabric8.kubernetes.client.server.mock.KubernetesMockServer server;

    private OperatorApp a;
    private OperatorApp b;

    @AfterEach
    void stop() {
        for (OperatorApp app : new OperatorApp[] {a, b}) {
            if (app != null) {
                app.close();
            }
        }
        client.resources(Route.class).inAnyNamespace().delete();
    }

    private static OperatorApp replica(KubernetesClient client, String identity) throws InterruptedException {
        return new OperatorApp(client, OperatorHarness.settings().withLeaderElection(
                LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration("strait-operator")
                        .withLeaseNamespace("default")
                        .withIdentity(identity)
                        .withLeaseDuration(Duration.ofSeconds(2))
                        .withRenewDeadline(Duration.ofMillis(1500))
                        .withRetryPeriod(Duration.ofMillis(200))
                        // A replica that loses the lease in a test must not exit the test's JVM.
                        .withExitOnStopLeading(false)
                        .build())).start();
    }

    private static String holder() {
        Lease l = client.leases().inNamespace("default").withName("strait-operator").get();
        return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
    }

    private static Route route(String body) {
        return yaml("""
                apiVersion: strait.dev/v1alpha1
                kind: Route
                metadata: { namespace: shop, name: site }
                spec:
                  hosts: [ example.com ]
                  rules: [ { respond: { body: "%s" } } ]
                """.formatted(body), Route.class);
    }

    @Test
    void oneReplicaWritesStatusAndTheOtherTakesOverWhenItStops() throws Exception {
        OperatorHarness.installCrds(client);
        // JOSDK first asks whether it may use Leases (SelfSubjectRulesReview); the CRUD mock cannot
        // answer that review, so the API server's authorizer is given its answer here: yes.
        server.expect().post().withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
                .andReturn(201, new io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder()
                        .withNewMetadata().endMetadata()
                        .withNewSpec().withNamespace("default").endSpec()
                        .withNewStatus().withIncomplete(false)
                        .addNewResourceRule().withApiGroups("coordination.k8s.io").withResources("leases")
                        .withVerbs("*").endResourceRule()
                        .endStatus().build())
                .always();
        a = replica(client, "replica-a");
        b = replica(client, "replica-b");
        await().atMost(Duration.ofSeconds(15)).until(() -> holder() != null);
        String first = holder();
        assertThat(first).isIn("replica-a", "replica-b");

        Route r = create(client, route("one"));
        awaitRoute(client, "shop", "site", s -> assertThat(s.observedGeneration).isEqualTo(r.getMetadata().getGeneration()));

        // The leader goes away (a rollout, a node drain): the other replica takes the lease over.
        if (first.equals("replica-a")) {
            a.close();
            a = null;
        } else {
            b.close();
            b = null;
        }
        String second = first.equals("replica-a") ? "replica-b" : "replica-a";
        await().atMost(Duration.ofSeconds(20)).until(() -> second.equals(holder()));

        Route changed = client.resources(Route.class).inNamespace("shop").withName("site")
                .edit(x -> {
                    x.getSpec().rules.get(0).respond.body = "two";
                    return x;
                });
        awaitRoute(client, "shop", "site",
                s -> assertThat(s.observedGeneration).isEqualTo(changed.getMetadata().getGeneration()));
    }
}
