package dev.strait.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.operator.publish.tls.ChannelPki;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The webhook over real HTTPS on port 0, as the API server calls it: trusting only the CA that goes
 * into caBundle, checking the name; and the caBundle written into the MutatingWebhookConfiguration
 * (fabric8's mock API server in CRUD mode).
 */
@EnableKubernetesMockClient(crud = true)
class WebhookServerTest {
    static KubernetesClient client;
    private static final ObjectMapper JSON = new ObjectMapper();
    private WebhookServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        client.admissionRegistration().v1().mutatingWebhookConfigurations().delete();
        client.secrets().inAnyNamespace().delete();
        client.configMaps().inAnyNamespace().delete();
    }

    private static HttpClient trusting(ChannelPki.Issued ca) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(5)).build();
    }

    private HttpResponse<String> post(HttpClient http, byte[] body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.address().getPort() + "/inject"))
                        .timeout(Duration.ofSeconds(10))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anAdmissionReviewOverHttpsIsAnsweredWithThePatch() throws Exception {
        Instant now = Instant.now();
        ChannelPki.Issued ca = ChannelPki.newCa("test-ca", now, Duration.ofDays(1));
        server = new WebhookServer(SidecarInjectionTest.HANDLER,
                ChannelPki.serverCertificate(ca, List.of("localhost", "127.0.0.1"), now, Duration.ofDays(1)))
                .start(new InetSocketAddress("127.0.0.1", 0));
        HttpClient http = trusting(ca);

        HttpResponse<String> r = post(http, SidecarInjectionTest.fixture("pod-annotated.json"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
        JsonNode response = JSON.readTree(r.body()).path("response");
        assertThat(response.path("allowed").asBoolean()).isTrue();
        assertThat(new String(Base64.getDecoder().decode(response.path("patch").asText()), StandardCharsets.UTF_8))
                .contains("\"restartPolicy\":\"Always\"");

        assertThat(post(http, "not json".getBytes(StandardCharsets.UTF_8)).statusCode()).isEqualTo(400);

        // A new certificate from another CA: the next handshake uses it, so only its CA is trusted now.
        ChannelPki.Issued ca2 = ChannelPki.newCa("test-ca-2", now, Duration.ofDays(1));
        server.certificate(ChannelPki.serverCertificate(ca2, List.of("localhost"), now, Duration.ofDays(1)));
        assertThat(post(trusting(ca2), SidecarInjectionTest.fixture("pod-plain.json")).statusCode()).isEqualTo(200);
        assertThatThrownBy(() -> post(trusting(ca), SidecarInjectionTest.fixture("pod-plain.json")))
                .hasCauseInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void theCaBundleIsWrittenIntoTheWebhookConfigurationAndTheCertificateChainsToIt() throws Exception {
        client.resource(Serialization.unmarshal("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: MutatingWebhookConfiguration
                metadata: { name: strait-sidecar-injector }
                webhooks:
                  - name: inject.strait.dev
                    admissionReviewVersions: [ v1 ]
                    sideEffects: None
                    failurePolicy: Ignore
                    clientConfig: { service: { namespace: strait, name: strait-operator, path: /inject, port: 443 } }
                    rules: [ { operations: [ CREATE ], apiGroups: [ "" ], apiVersions: [ v1 ], resources: [ pods ] } ]
                """, MutatingWebhookConfiguration.class)).create();
        WebhookCertificates certs = new WebhookCertificates(client, "strait", List.of("localhost"),
                "strait-sidecar-injector", Clock.systemUTC());
        ChannelPki.Issued serving = certs.refresh();
        server = new WebhookServer(SidecarInjectionTest.HANDLER, serving).start(new InetSocketAddress("127.0.0.1", 0));

        MutatingWebhookConfiguration mwc = client.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName("strait-sidecar-injector").get();
        String bundle = new String(Base64.getDecoder().decode(mwc.getWebhooks().get(0).getClientConfig().getCaBundle()),
                StandardCharsets.UTF_8);
        String caPem = new String(Base64.getDecoder().decode(
                client.secrets().inNamespace("strait").withName("strait-control-ca").get().getData().get("ca.crt")),
                StandardCharsets.UTF_8);
        assertThat(bundle).isEqualTo(caPem);
        // What the API server would do: trust exactly the caBundle and call the webhook.
        ChannelPki.Issued ca = ChannelPki.read(caPem, new String(Base64.getDecoder().decode(
                client.secrets().inNamespace("strait").withName("strait-control-ca").get().getData().get("ca.key")),
                StandardCharsets.UTF_8));
        assertThat(post(trusting(ca), SidecarInjectionTest.fixture("pod-annotated.json")).statusCode()).isEqualTo(200);

        // Refreshing again keeps the same certificate and leaves the configuration as it is.
        String rv = mwc.getMetadata().getResourceVersion();
        assertThat(certs.refresh()).isSameAs(serving);
        assertThat(client.admissionRegistration().v1().mutatingWebhookConfigurations().withName("strait-sidecar-injector")
                .get().getMetadata().getResourceVersion()).isEqualTo(rv);
    }
}
