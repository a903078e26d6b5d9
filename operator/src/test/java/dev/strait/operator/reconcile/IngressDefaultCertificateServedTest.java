package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.WAIT;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.strait.model.HostPort;
import dev.strait.model.Limits;
import dev.strait.operator.publish.TestProxy;
import dev.strait.operator.publish.tls.ChannelPki;
import dev.strait.operator.translate.Fixtures;
import dev.strait.operator.translate.ProxyDefaults;
import dev.strait.proxy.control.Identity;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator's {@code --default-ssl-certificate} end to end (ADR 0096): a real proxy's https listener answers a host
 * an Ingress lists in {@code spec.tls} without a Secret, and clients without SNI, with the Secret's certificate, and a
 * renewed Secret (cert-manager's) reaches it without the Ingress being touched or anything restarted.
 */
@EnableKubernetesMockClient(crud = true)
class IngressDefaultCertificateServedTest {
    static KubernetesClient client;

    private static final String HOST = "shop.apps.example.com";

    private OperatorApp app;
    private TestProxy proxy;
    private HttpServer upstream;

    @BeforeEach
    void start() throws Exception {
        OperatorHarness.installCrds(client);
        upstream = OperatorHarness.echoUpstream();
    }

    @AfterEach
    void stop() {
        if (proxy != null) {
            proxy.close();
        }
        if (app != null) {
            app.close();
        }
        upstream.stop(0);
        client.network().v1().ingresses().inAnyNamespace().delete();
        client.services().inAnyNamespace().delete();
        client.discovery().v1().endpointSlices().inAnyNamespace().delete();
        client.secrets().inAnyNamespace().delete();
        client.v1().events().inAnyNamespace().delete();
    }

    private static ChannelPki.Issued wildcard() {
        Instant now = Instant.now();
        return ChannelPki.serverCertificate(ChannelPki.newCa("platform", now, Duration.ofDays(1)),
                List.of("*.apps.example.com"), now, Duration.ofDays(1));
    }

    private static Secret secret(ChannelPki.Issued issued) {
        return Fixtures.tlsSecret("certs", "wildcard-tls", issued.certificatePem(), issued.keyPem());
    }

    /** The Warning Events on the Ingress (an Ingress has no conditions: its problems are Events, ADR 0056). */
    private static List<Event> warnings() {
        return client.v1().events().inNamespace("shop").list().getItems().stream()
                .filter(e -> e.getInvolvedObject().getKind().equals("Ingress")
                        && e.getInvolvedObject().getName().equals("shop") && e.getType().equals("Warning"))
                .toList();
    }

    @Test
    void theDefaultCertificateServesTheHostAndARenewalReachesTheProxy() throws Exception {
        ChannelPki.Issued first = wildcard();
        // Before the operator starts, so its first snapshot has the https listener the proxy binds at start.
        OperatorHarness.webBackend(client, upstream);
        create(client, secret(first));
        create(client, yaml("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: { namespace: shop, name: shop }
                spec:
                  ingressClassName: strait
                  tls: [ { hosts: [ %s ] } ]
                  rules:
                    - host: %s
                      http:
                        paths:
                          - { path: /, pathType: Prefix, backend: { service: { name: web, port: { name: http } } } }
                """.formatted(HOST, HOST), Ingress.class));
        HostPort loopback = new HostPort("127.0.0.1", 0);
        app = new OperatorApp(client, OperatorHarness.settings().withDefaults(new ProxyDefaults("strait", "strait-sidecar",
                loopback, loopback, null, Limits.DEFAULTS, false)
                .withDefaultCertificate(new ProxyDefaults.SecretRef("certs", "wildcard-tls")))).start();
        proxy = TestProxy.start(app.controlAddress(), Identity.ingress("strait"), null);

        // A TLS host like any: plain requests go to https, where the app answers with the default certificate.
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get(HOST, "/cart")).isEqualTo("308 Permanent Redirect "));
        TestProxy.Tls tls = proxy.https(HOST, HOST, "/cart");
        assertThat(tls.certificate()).isEqualTo(first.certificate());
        assertThat(tls.response()).startsWith("HTTP/1.1 200 ").endsWith("app saw /cart")
                .containsIgnoringCase("\r\nStrict-Transport-Security: max-age=31536000; includeSubDomains\r\n");
        // Names no certificate has, and clients that send none, get it too.
        assertThat(proxy.https("unknown.example.org", HOST, "/").certificate()).isEqualTo(first.certificate());
        assertThat(proxy.https(null, HOST, "/").certificate()).isEqualTo(first.certificate());
        String ingressVersion = client.network().v1().ingresses().inNamespace("shop").withName("shop").get()
                .getMetadata().getResourceVersion();

        // cert-manager renews the Secret in place: the proxy serves the new certificate, nothing else is touched.
        ChannelPki.Issued renewed = wildcard();
        client.resource(secret(renewed)).update();
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.https(HOST, HOST, "/").certificate()).isEqualTo(renewed.certificate()));
        assertThat(proxy.https(null, HOST, "/").certificate()).isEqualTo(renewed.certificate());
        assertThat(client.network().v1().ingresses().inNamespace("shop").withName("shop").get().getMetadata()
                .getResourceVersion()).as("the Ingress was not written").isEqualTo(ingressVersion);

        // The Secret goes: the host is one without TLS again (never some other certificate's), and says why.
        client.resource(secret(renewed)).delete();
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get(HOST, "/cart")).isEqualTo("200 OK app saw /cart"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(warnings()).singleElement().satisfies(e -> {
            assertThat(e.getReason()).isEqualTo("SecretNotFound");
            assertThat(e.getMessage()).startsWith("spec.tls[0].secretName: not given, and host \"" + HOST + "\" cannot"
                    + " take the default certificate (--default-ssl-certificate certs/wildcard-tls: Secret not found)");
        }));
    }
}
