package dev.strait.operator.reconcile;

import static dev.strait.operator.reconcile.OperatorHarness.WAIT;
import static dev.strait.operator.reconcile.OperatorHarness.create;
import static dev.strait.operator.reconcile.OperatorHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.strait.operator.publish.TestProxy;
import dev.strait.operator.translate.Fixtures;
import dev.strait.proxy.control.Identity;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressLoadBalancerIngress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A standard Ingress against fabric8's mock API server (CRUD mode): served by a real proxy on the
 * channel, forwarded to a real upstream, and its status given the proxies' address.
 */
@EnableKubernetesMockClient(crud = true)
class IngressStatusTest {
    static KubernetesClient client;

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
        client.network().v1().ingressClasses().delete();
        client.services().inAnyNamespace().delete();
        client.discovery().v1().endpointSlices().inAnyNamespace().delete();
        client.secrets().inAnyNamespace().delete();
    }

    private static Ingress ingress(String name, String classLine) {
        return yaml("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: { namespace: shop, name: %s }
                spec:
                  %s
                  rules:
                    - host: %s.example.com
                      http:
                        paths:
                          - { path: /, pathType: Prefix, backend: { service: { name: web, port: { name: http } } } }
                """.formatted(name, classLine, name), Ingress.class);
    }

    private static List<IngressLoadBalancerIngress> address(String name) {
        Ingress i = client.network().v1().ingresses().inNamespace("shop").withName(name).get();
        return i.getStatus() == null || i.getStatus().getLoadBalancer() == null
                || i.getStatus().getLoadBalancer().getIngress() == null ? List.of() : i.getStatus().getLoadBalancer().getIngress();
    }

    private void backend() {
        OperatorHarness.webBackend(client, upstream);
    }

    @Test
    void anIngressOfOurClassIsServedAndGetsTheFixedAddress() throws Exception {
        app = new OperatorApp(client, OperatorHarness.settings().withIngressAddress("203.0.113.7,lb.example.com")).start();
        backend();
        create(client, ingress("site", "ingressClassName: strait"));
        create(client, ingress("other", "ingressClassName: nginx"));
        proxy = TestProxy.start(app.controlAddress(), Identity.ingress("strait"), null);
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("site.example.com", "/shop/cart")).isEqualTo("200 OK app saw /shop/cart"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(address("site"))
                .extracting(IngressLoadBalancerIngress::getIp, IngressLoadBalancerIngress::getHostname)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("203.0.113.7", null),
                        org.assertj.core.groups.Tuple.tuple(null, "lb.example.com")));
        assertThat(proxy.get("other.example.com", "/").split(" ")[0]).as("another controller's Ingress").isEqualTo("404");
        assertThat(address("other")).isEmpty();
    }

    @Test
    void theDefaultIngressClassTakesIngressesWithoutOneAndTheAddressFollowsTheProxyService() throws Exception {
        app = new OperatorApp(client, OperatorHarness.settings().withIngressAddress("strait/strait-proxy")).start();
        backend();
        create(client, yaml("""
                apiVersion: networking.k8s.io/v1
                kind: IngressClass
                metadata:
                  name: strait
                  annotations: { ingressclass.kubernetes.io/is-default-class: "true" }
                spec: { controller: strait.dev/ingress-controller }""", io.fabric8.kubernetes.api.model.networking.v1.IngressClass.class));
        create(client, ingress("plain", ""));
        proxy = TestProxy.start(app.controlAddress(), Identity.ingress("strait"), null);
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("plain.example.com", "/")).isEqualTo("200 OK app saw /"));
        assertThat(address("plain")).as("no proxy Service yet").isEmpty();

        var svc = Fixtures.service("strait", "strait-proxy", "http:80");
        svc = create(client, svc);
        svc.setStatus(new io.fabric8.kubernetes.api.model.ServiceStatusBuilder().withNewLoadBalancer()
                .addNewIngress().withIp("198.51.100.9").endIngress().endLoadBalancer().build());
        client.resource(svc).updateStatus();
        await().atMost(WAIT).untilAsserted(() -> assertThat(address("plain"))
                .extracting(IngressLoadBalancerIngress::getIp).containsExactly("198.51.100.9"));
    }

    @Test
    void aTlsHostIsRedirectedToHttpsUntilTheSslRedirectAnnotationTurnsItOff() throws Exception {
        var d = dev.strait.operator.publish.ChannelTest.LOOPBACK;
        app = new OperatorApp(client, OperatorHarness.settings().withDefaults(new dev.strait.operator.translate.ProxyDefaults(
                d.defaultClass(), d.sidecarClass(), d.http(), new dev.strait.model.HostPort("127.0.0.1", 0), d.admin(),
                d.limits(), d.accessLog()))).start();
        backend();
        create(client, Fixtures.tlsSecret("shop", "site-tls", Fixtures.CERT, Fixtures.KEY));
        Ingress ing = yaml("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: { namespace: shop, name: site }
                spec:
                  ingressClassName: strait
                  tls: [ { hosts: [ example.com ], secretName: site-tls } ]
                  rules:
                    - host: example.com
                      http:
                        paths:
                          - { path: /shop, pathType: Prefix, backend: { service: { name: web, port: { name: http } } } }
                """, Ingress.class);
        create(client, ing);
        proxy = TestProxy.start(app.controlAddress(), Identity.ingress("strait"), null);
        // ingress-nginx's default: plain requests for a TLS host go to https, whatever the path.
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("example.com", "/shop/cart")).isEqualTo("308 Permanent Redirect "));
        ing = client.network().v1().ingresses().inNamespace("shop").withName("site").get();
        ing.getMetadata().setAnnotations(java.util.Map.of("nginx.ingress.kubernetes.io/ssl-redirect", "false"));
        client.resource(ing).update();
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(proxy.get("example.com", "/shop/cart")).isEqualTo("200 OK app saw /shop/cart"));
    }
}
