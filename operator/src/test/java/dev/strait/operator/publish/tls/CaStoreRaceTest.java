package dev.strait.operator.publish.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two replicas starting together (the chart's default): the one whose create of the CA Secret is
 * answered 409 Conflict uses the CA the other one stored. The API server's answers are scripted with
 * fabric8's mock server in expectation mode: not found, then conflict, then the winner's Secret.
 */
@EnableKubernetesMockClient
class CaStoreRaceTest {
    static KubernetesMockServer server;
    static KubernetesClient client;

    private static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theReplicaThatLosesTheCreateUsesTheWinnersCa() throws Exception {
        Instant now = Instant.now();
        ChannelPki.Issued winner = ChannelPki.newCa("strait-control-ca", now, Duration.ofDays(365));
        Secret stored = new SecretBuilder().withNewMetadata().withName(CaStore.NAME).withNamespace("strait")
                .withResourceVersion("7").endMetadata()
                .withData(Map.of("ca.crt", b64(winner.certificatePem()), "ca.key", b64(winner.keyPem()))).build();
        String path = "/api/v1/namespaces/strait/secrets/" + CaStore.NAME;
        server.expect().get().withPath(path).andReturn(404, new StatusBuilder().withCode(404).build()).once();
        server.expect().post().withPath("/api/v1/namespaces/strait/secrets")
                .andReturn(409, new StatusBuilder().withCode(409).withReason("AlreadyExists").build()).once();
        server.expect().get().withPath(path).andReturn(200, stored).always();

        ChannelPki.Issued ca = new CaStore(client, "strait").currentCa(now);
        assertThat(ca.certificate()).isEqualTo(winner.certificate());
    }
}
