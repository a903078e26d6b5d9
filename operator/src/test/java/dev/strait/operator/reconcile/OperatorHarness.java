package dev.strait.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.strait.operator.crd.ResourceStatus;
import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.Upstream;
import dev.strait.operator.publish.Authenticator;
import dev.strait.operator.publish.ChannelTest;
import dev.strait.operator.publish.TestProxy;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/** The operator against fabric8's mock API server (CRUD mode), and helpers to wait on status. */
final class OperatorHarness {
    static final Duration WAIT = Duration.ofSeconds(15);

    private OperatorHarness() {}

    /** Test settings: SSA off (the mock answers 415 to apply patches), no field selectors, loopback proxies. */
    /**
     * The served set-up of the end-to-end tests: the CRDs, an echoing app behind the Service {@code web}, the
     * operator, and a real ingress proxy on its channel. Closing stops them and deletes what the test made.
     */
    record Served(KubernetesClient client, HttpServer upstream, OperatorApp app, TestProxy proxy) implements AutoCloseable {
        static Served start(KubernetesClient client) throws Exception {
            Served s = withoutProxy(client);
            return new Served(client, s.upstream, s.app,
                    TestProxy.start(s.app.controlAddress(), dev.strait.proxy.control.Identity.ingress("strait"), null));
        }

        /** The same before any proxy has connected ({@link #proxy} is null): the test connects one when it needs to. */
        static Served withoutProxy(KubernetesClient client) throws Exception {
            installCrds(client);
            HttpServer upstream = echoUpstream();
            OperatorApp app = new OperatorApp(client, settings()).start();
            webBackend(client, upstream);
            return new Served(client, upstream, app, null);
        }

        @Override
        public void close() {
            if (proxy != null) {
                proxy.close();
            }
            app.close();
            upstream.stop(0);
            client.network().v1().ingresses().inAnyNamespace().delete();
            client.resources(Route.class).inAnyNamespace().delete();
            client.resources(Upstream.class).inAnyNamespace().delete();
            client.services().inAnyNamespace().delete();
            client.discovery().v1().endpointSlices().inAnyNamespace().delete();
            client.v1().events().inAnyNamespace().delete();
            client.secrets().inAnyNamespace().delete();
        }
    }

    static OperatorApp.Settings settings() {
        return new OperatorApp.Settings(new InetSocketAddress("127.0.0.1", 0), ChannelTest.LOOPBACK,
                Duration.ofMillis(100), Duration.ofSeconds(1), false, false, null, null, Authenticator.OPEN);
    }

    static void installCrds(KubernetesClient client) throws IOException {
        for (String f : new String[] {"routes.strait.dev-v1.yml", "upstreams.strait.dev-v1.yml"}) {
            try (InputStream in = Files.newInputStream(Path.of("../crds", f))) {
                client.apiextensions().v1().customResourceDefinitions().load(in).createOr(c -> c.update());
            }
        }
    }

    static <T extends HasMetadata> T create(KubernetesClient client, T resource) {
        return client.resource(resource).create();
    }

    /** A resource from YAML (with apiVersion and kind). */
    /** A Route in {@code ns} named {@code name} with {@code spec} (YAML, without the {@code spec:} key). */
    static Route route(String ns, String name, String spec) {
        return yaml("""
                apiVersion: strait.dev/v1alpha1
                kind: Route
                metadata: { namespace: %s, name: %s }
                spec:
                %s""".formatted(ns, name, spec.indent(2)), Route.class);
    }

    /**
     * Route {@code i} of the benchmarks: {@code r<i>} in one of 20 namespaces, host {@code r<i>.example.com},
     * {@code /hello} answering {@code body}, everything else 404.
     */
    static Route helloRoute(int i, String body) {
        return route("ns" + i % 20, "r" + i, """
                hosts: [ r%d.example.com ]
                rules:
                  - matches: [ { path: { type: Exact, value: /hello } } ]
                    respond: { status: 200, body: "%s" }
                  - respond: { status: 404 }
                """.formatted(i, body));
    }

    static <T extends HasMetadata> T yaml(String text, Class<T> type) {
        return Serialization.unmarshal(text, type);
    }

    static ResourceStatus routeStatus(KubernetesClient client, String ns, String name) {
        Route r = client.resources(Route.class).inNamespace(ns).withName(name).get();
        return r == null ? null : r.getStatus();
    }

    static ResourceStatus upstreamStatus(KubernetesClient client, String ns, String name) {
        Upstream u = client.resources(Upstream.class).inNamespace(ns).withName(name).get();
        return u == null ? null : u.getStatus();
    }

    static void awaitRoute(KubernetesClient client, String ns, String name, Consumer<ResourceStatus> check) {
        await().atMost(WAIT).untilAsserted(() -> {
            ResourceStatus s = routeStatus(client, ns, name);
            assertThat(s).as("status of Route %s/%s", ns, name).isNotNull();
            check.accept(s);
        });
    }

    static void awaitUpstream(KubernetesClient client, String ns, String name, Consumer<ResourceStatus> check) {
        await().atMost(WAIT).untilAsserted(() -> {
            ResourceStatus s = upstreamStatus(client, ns, name);
            assertThat(s).as("status of Upstream %s/%s", ns, name).isNotNull();
            check.accept(s);
        });
    }

    static Condition condition(ResourceStatus s, String type) {
        return s.conditions.stream().filter(c -> c.getType().equals(type)).findFirst()
                .orElseThrow(() -> new AssertionError("no condition " + type + " in " + Serialization.asYaml(s)));
    }

    /** Asserts a condition's status, reason and (when given) message. */
    static void hasCondition(ResourceStatus s, String type, String status, String reason, String message) {
        Condition c = condition(s, type);
        assertThat(c.getStatus()).as(type + " status (" + c.getMessage() + ")").isEqualTo(status);
        assertThat(c.getReason()).as(type + " reason (" + c.getMessage() + ")").isEqualTo(reason);
        if (message != null) {
            assertThat(c.getMessage()).as(type + " message").isEqualTo(message);
        }
        assertThat(c.getLastTransitionTime()).isNotNull();
    }

    /** A started upstream on loopback that answers every request 200 with "app saw PATH[?QUERY]" (raw forms). */
    /** The Service {@code shop/web} (port http 80) with one ready endpoint: {@code upstream} on 127.0.0.1. */
    static void webBackend(KubernetesClient client, HttpServer upstream) {
        serviceBackend(client, "web", "http", 80, upstream);
    }

    /** The Service {@code shop/NAME} with port {@code portName:port}, whose one endpoint is {@code upstream}. */
    static void serviceBackend(KubernetesClient client, String name, String portName, int port, HttpServer upstream) {
        create(client, dev.strait.operator.translate.Fixtures.service("shop", name, portName + ":" + port));
        create(client, dev.strait.operator.translate.Fixtures.slice("shop", name, name + "-1", portName,
                upstream.getAddress().getPort(), "127.0.0.1"));
    }

    /**
     * The same over TLS, with a certificate from a CA of its own that nobody trusts (a backend's self-signed
     * one, as HTTPS backends behind ingress-nginx often have).
     */
    static HttpServer echoUpstreamTls(String name) throws Exception {
        return echoUpstreamTls(name, dev.strait.operator.publish.tls.ChannelPki.newCa("backend", java.time.Instant.now(),
                java.time.Duration.ofDays(1)), null);
    }

    /**
     * The same with a certificate for {@code web.shop.svc} that {@code ca} issued; with {@code clientCa}, only for a
     * client that presents a certificate that CA issued (mutual TLS).
     */
    static HttpServer echoUpstreamTls(String name, dev.strait.operator.publish.tls.ChannelPki.Issued ca,
                                      dev.strait.operator.publish.tls.ChannelPki.Issued clientCa) throws Exception {
        java.time.Instant now = java.time.Instant.now();
        var issued = dev.strait.operator.publish.tls.ChannelPki.serverCertificate(ca, java.util.List.of("web.shop.svc"),
                now, java.time.Duration.ofDays(1));
        java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("k", issued.key(), new char[0], new java.security.cert.Certificate[] {issued.certificate()});
        javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(
                javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, new char[0]);
        javax.net.ssl.TrustManager[] trust = null;
        if (clientCa != null) {
            java.security.KeyStore cas = java.security.KeyStore.getInstance("PKCS12");
            cas.load(null, null);
            cas.setCertificateEntry("ca", clientCa.certificate());
            javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                    javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(cas);
            trust = tmf.getTrustManagers();
        }
        javax.net.ssl.SSLContext tls = javax.net.ssl.SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), trust, null);
        com.sun.net.httpserver.HttpsServer s = com.sun.net.httpserver.HttpsServer.create(
                new InetSocketAddress("127.0.0.1", 0), 0);
        s.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls) {
            @Override
            public void configure(com.sun.net.httpserver.HttpsParameters params) {
                javax.net.ssl.SSLParameters p = getSSLContext().getDefaultSSLParameters();
                p.setNeedClientAuth(clientCa != null);
                params.setSSLParameters(p);
            }
        });
        s.createContext("/", x -> {
            byte[] body = (name + " saw " + x.getRequestURI().getRawPath() + " over TLS").getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        s.start();
        return s;
    }

    static HttpServer echoUpstream() throws IOException {
        return echoUpstream("app");
    }

    /** A started upstream on loopback that answers every request 200 with "NAME saw PATH[?QUERY]" (raw forms). */
    static HttpServer echoUpstream(String name) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.createContext("/", x -> {
            String query = x.getRequestURI().getRawQuery();
            byte[] body = (name + " saw " + x.getRequestURI().getRawPath() + (query == null ? "" : "?" + query))
                    .getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        s.start();
        return s;
    }
}
