package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole product on this machine: the operator jar and the proxy jar as real processes, fabric8's
 * mock API server (CRUD) standing in for Kubernetes, the files of manifests/examples applied as a user
 * would, and the examples' own apps (their node one-liners) running as real upstreams. What a cluster
 * would add is done by hand: the apps run here instead of in pods, and an EndpointSlice per Service
 * points at them.
 */
@EnableKubernetesMockClient(crud = true)
class LocalClusterTest {
    static KubernetesClient client;

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern CONTROL = Pattern.compile("control channel listening on /?[^:\\s]*:(\\d+)");
    private static final Pattern WEBHOOK = Pattern.compile("webhook listening on https://\\S*?:(\\d+)/inject");
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    final StraitProcesses strait = new StraitProcesses();

    @TempDir
    Path dir;

    /** Every document of a file, as typed objects (Routes and Upstreams stay generic here). */
    static List<HasMetadata> load(Path file) throws IOException {
        List<HasMetadata> out = new ArrayList<>();
        for (String doc : Files.readString(file).split("(?m)^---\\s*$")) {
            if (!doc.replaceAll("(?m)^#.*$", "").isBlank()) {
                out.add(Serialization.unmarshal(doc, HasMetadata.class));
            }
        }
        return out;
    }

    /** {@code kubectl apply -f}: creates every object of the files. */
    private List<HasMetadata> apply(String... examples) throws IOException {
        List<HasMetadata> all = new ArrayList<>();
        for (String e : examples) {
            for (HasMetadata o : load(ROOT.resolve("manifests/examples").resolve(e))) {
                all.add(client.resource(o).create());
            }
        }
        return all;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * Runs the app of an example Deployment here: its {@code node -e SCRIPT} command, listening on a free
     * port instead of the one in the manifest; returns the port once it accepts connections.
     */
    private int runApp(Deployment d) throws IOException {
        List<String> command = new ArrayList<>(d.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand());
        assertThat(command.get(0)).isEqualTo("node");
        int port = freePort();
        command.set(2, command.get(2).replaceAll("\\.listen\\(\\d+", ".listen(+process.env.PORT"));
        strait.startProcess(command, Map.of("PORT", String.valueOf(port)));
        await("app " + d.getMetadata().getName()).atMost(Duration.ofSeconds(20)).until(() -> {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return true;
            } catch (IOException e) {
                return false;
            }
        });
        return port;
    }

    /** A Service of namespace {@code default} with one port, whose one ready endpoint is the app on loopback's {@code appPort}. */
    private static void serviceOnLoopback(String name, String portName, int port, int appPort) {
        Service svc = client.resource(new io.fabric8.kubernetes.api.model.ServiceBuilder().withNewMetadata()
                .withNamespace("default").withName(name).endMetadata().withNewSpec()
                .addNewPort().withName(portName).withPort(port).endPort().endSpec().build()).create();
        endpoints(svc, appPort);
    }

    /** What the EndpointSlice controller would publish for a Service whose pods are the app on {@code port}. */
    private static void endpoints(Service svc, int port) {
        EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata()
                .withNamespace(svc.getMetadata().getNamespace()).withName(svc.getMetadata().getName() + "-local")
                .withLabels(Map.of("kubernetes.io/service-name", svc.getMetadata().getName())).endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint().withAddresses("127.0.0.1").withNewConditions().withReady(true).endConditions().endEndpoint();
        for (ServicePort p : svc.getSpec().getPorts()) {
            b.addNewPort().withName(p.getName()).withPort(port).withProtocol("TCP").endPort();
        }
        client.resource(b.build()).create();
    }

    private Path kubeconfig() throws IOException {
        Path f = dir.resolve("kubeconfig");
        Files.writeString(f, """
                apiVersion: v1
                kind: Config
                clusters: [ { name: mock, cluster: { server: "%s", insecure-skip-tls-verify: true } } ]
                users: [ { name: mock, user: { token: local } } ]
                contexts: [ { name: mock, context: { cluster: mock, user: mock, namespace: strait-system } } ]
                current-context: mock
                """.formatted(client.getMasterUrl().toString()));
        return f;
    }

    /** {@code GET path} with a Host header and more headers, over a plain socket; "STATUS BODY". */
    static String get(int port, String host, String path, String... headers) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            StringBuilder req = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n");
            for (String h : headers) {
                req.append(h).append("\r\n");
            }
            out.write(req.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            String resp = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return resp.substring(9, 12) + " " + resp.substring(resp.indexOf("\r\n\r\n") + 4);
        }
    }

    /** The operator jar as a process, against the mock API server, everything on loopback and port 0. */
    private ProxyProcess operator(String... more) throws IOException {
        String operatorJar = Path.of(System.getProperty("strait.operator.jar")).toAbsolutePath().toString();
        List<String> command = new ArrayList<>(List.of(StraitProcesses.javaBinary(), "-jar", operatorJar,
                "--control-address", "127.0.0.1:0", "--leader-election", "false", "--secure", "false",
                "--server-side-apply", "false", "--ingress-address", "203.0.113.7",
                "--proxy-http-address", "127.0.0.1:0", "--proxy-admin-address", "127.0.0.1:0"));
        command.addAll(List.of(more));
        ProxyProcess operator = strait.startProcess(command, Map.of("KUBECONFIG", kubeconfig().toString()));
        operator.awaitStderr("caches synced; serving snapshots");
        return operator;
    }

    private static void installCrds() throws IOException {
        for (String crd : new String[] {"routes.strait.dev-v1.yml", "upstreams.strait.dev-v1.yml"}) {
            client.resource(Serialization.unmarshal(Files.readString(ROOT.resolve("crds").resolve(crd)),
                    CustomResourceDefinition.class)).createOr(c -> c.update());
        }
    }

    @AfterEach
    void clean() {
        client.genericKubernetesResources("strait.dev/v1alpha1", "Route").inAnyNamespace().delete();
        client.genericKubernetesResources("strait.dev/v1alpha1", "Upstream").inAnyNamespace().delete();
        for (String ns : List.of("default", "strait-system")) {
            client.apps().deployments().inNamespace(ns).delete();
            client.services().inNamespace(ns).delete();
            client.discovery().v1().endpointSlices().inNamespace(ns).delete();
            client.secrets().inNamespace(ns).delete();
            client.configMaps().inNamespace(ns).delete();
            client.network().v1().ingresses().inNamespace(ns).delete();
        }
        client.admissionRegistration().v1().mutatingWebhookConfigurations().delete();
    }

    @Test
    void examplesAppliedToTheApiAreServedByTheProxyProcess() throws Exception {
        installCrds();
        List<HasMetadata> applied = apply("basic-route.yaml", "canary.yaml", "ingress.yaml");

        // The apps the Deployments would run, and the endpoints their Services would get.
        Map<String, Integer> appPorts = new HashMap<>();
        for (HasMetadata o : applied) {
            if (o instanceof Deployment d) {
                appPorts.put(d.getMetadata().getName(), runApp(d));
            }
        }
        for (HasMetadata o : applied) {
            if (o instanceof Service svc) {
                endpoints(svc, appPorts.get(svc.getMetadata().getName()));
            }
        }

        ProxyProcess operator = operator();
        Matcher m = CONTROL.matcher(operator.stderr());
        assertThat(m.find()).as(operator.stderr()).isTrue();
        ProxyProcess proxy = strait.start(Map.of("STRAIT_INGRESS_CLASS", "strait"),
                "--control", "127.0.0.1:" + m.group(1), "--state-dir", dir.resolve("state").toString()).awaitServing();
        int http = proxy.port("http");

        // basic-route.yaml: a fixed answer, and the app behind its Service.
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(get(http, "hello.example.com", "/")).startsWith("200 hello from "));
        assertThat(get(http, "hello.example.com", "/healthz")).isEqualTo("200 ok\n");

        // canary.yaml: the header pins v2; without it both versions answer, v1 far more often.
        assertThat(get(http, "shop.example.com", "/", "x-canary: 1")).isEqualTo("200 shop v2\n");
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < 200; i++) {
            seen.merge(get(http, "shop.example.com", "/"), 1, Integer::sum);
        }
        assertThat(seen.keySet()).containsExactlyInAnyOrder("200 shop v1\n", "200 shop v2\n");
        assertThat(seen.get("200 shop v1\n")).as("weights 90/10: %s", seen).isGreaterThan(150);

        // ingress.yaml: a standard Ingress, with the address written into its status.
        assertThat(get(http, "ingress.example.com", "/app/x")).startsWith("200 hello from ");
        assertThat(get(http, "ingress.example.com", "/other")).startsWith("404 ");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Ingress ing = client.network().v1().ingresses().inNamespace("default").withName("hello").get();
            assertThat(ing.getStatus().getLoadBalancer().getIngress()).extracting(i -> i.getIp()).containsExactly("203.0.113.7");
        });

        // And the operator says so on the Route: programmed by the one connected proxy.
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            GenericKubernetesResource route = client.genericKubernetesResources("strait.dev/v1alpha1", "Route")
                    .inNamespace("default").withName("shop").get();
            assertThat(route.get("status", "conditions").toString())
                    .contains("type=Programmed").contains("1/1 proxies serve version");
        });
    }

    /**
     * An Ingress with ingress-nginx's {@code ssl-passthrough}: the proxy process, programmed by the operator process,
     * relays a TLS connection naming the host to the Service's endpoint (a TLS server here, with its own certificate),
     * and sends plain HTTP for the host to https. No Route or Ingress of the class brings a certificate.
     */
    @Test
    void anSslPassthroughIngressReachesItsBackendsOwnTls() throws Exception {
        installCrds();
        dev.strait.operator.publish.tls.ChannelPki.Issued ca = newCa("backend CA");
        dev.strait.operator.publish.tls.ChannelPki.Issued leaf = serverCertificate(ca, "argocd.example.com");
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("backend", leaf.key(), new char[0], new java.security.cert.Certificate[] {leaf.certificate()});
        javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(
                javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, new char[0]);
        SSLContext serverTls = SSLContext.getInstance("TLS");
        serverTls.init(kmf.getKeyManagers(), null, null);
        try (javax.net.ssl.SSLServerSocket backend = (javax.net.ssl.SSLServerSocket) serverTls.getServerSocketFactory()
                .createServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread serving = new Thread(() -> answerEachConnection(backend), "tls-backend");
            serving.setDaemon(true);
            serving.start();

            serviceOnLoopback("argocd", "https", 443, backend.getLocalPort());
            client.resource(Serialization.unmarshal("""
                    apiVersion: networking.k8s.io/v1
                    kind: Ingress
                    metadata:
                      name: argocd
                      namespace: default
                      annotations: { nginx.ingress.kubernetes.io/ssl-passthrough: "true" }
                    spec:
                      ingressClassName: strait
                      rules:
                        - host: argocd.example.com
                          http:
                            paths:
                              - { path: /, pathType: Prefix, backend: { service: { name: argocd, port: { name: https } } } }
                    """, Ingress.class)).create();

            ProxyProcess operator = operator("--proxy-https-address", "127.0.0.1:0");
            Matcher m = CONTROL.matcher(operator.stderr());
            assertThat(m.find()).as(operator.stderr()).isTrue();
            ProxyProcess proxy = strait.start(Map.of("STRAIT_INGRESS_CLASS", "strait"),
                    "--control", "127.0.0.1:" + m.group(1), "--state-dir", dir.resolve("state").toString()).awaitServing();
            SSLContext trustingTheCa = trusting(ca);
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(new String(tlsExchange(trustingTheCa,
                    proxy.port("https"), "argocd.example.com", "GET / HTTP/1.1\r\nHost: argocd.example.com\r\n\r\n"),
                    StandardCharsets.ISO_8859_1)).as("the backend's own TLS, trusted through its CA only")
                    .endsWith("argocd here"));
            assertThat(get(proxy.port("http"), "argocd.example.com", "/applications")).startsWith("308 ");
        }
    }

    @Test
    void aMirrorTargetIngressCopiesEachRequestToItsService() throws Exception {
        installCrds();
        java.util.concurrent.BlockingQueue<String> copies = new java.util.concurrent.LinkedBlockingQueue<>();
        com.sun.net.httpserver.HttpServer app = httpServer(x -> "app " + x.getRequestMethod() + " "
                + x.getRequestURI() + " id=" + x.getRequestHeaders().getFirst("X-Request-Id"), null);
        com.sun.net.httpserver.HttpServer shadow = httpServer(x -> "shadow", copies);
        try {
            for (var s : Map.of("app", app, "shadow", shadow).entrySet()) {
                serviceOnLoopback(s.getKey(), "http", 8080, s.getValue().getAddress().getPort());
            }
            shopIngress(", annotations: { nginx.ingress.kubernetes.io/mirror-target:"
                    + " \"http://shadow.default.svc.cluster.local:8080$request_uri\" }", "");

            ProxyProcess operator = operator();
            Matcher m = CONTROL.matcher(operator.stderr());
            assertThat(m.find()).as(operator.stderr()).isTrue();
            ProxyProcess proxy = strait.start(Map.of("STRAIT_INGRESS_CLASS", "strait"),
                    "--control", "127.0.0.1:" + m.group(1), "--state-dir", dir.resolve("state").toString()).awaitServing();
            String[] answer = new String[1];
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                answer[0] = get(proxy.port("http"), "shop.example.com", "/cart?id=7");
                assertThat(answer[0]).startsWith("200 app GET /cart?id=7 id=");
            });
            String id = answer[0].substring(answer[0].indexOf("id=", 20) + 3);
            String copy = null;
            for (String c; (c = copies.poll(10, java.util.concurrent.TimeUnit.SECONDS)) != null; ) {
                copy = c;
                if (c.contains(id)) {
                    break; // earlier copies are of the tries before the snapshot had the Ingress
                }
            }
            // The target's host name as Host, without its port: ingress-nginx's mirror location sets it so.
            assertThat(copy).as("the copy the shadow Service got").isEqualTo("GET /cart?id=7 id=" + id
                    + " host=shadow.default.svc.cluster.local");
        } finally {
            app.stop(0);
            shadow.stop(0);
        }
    }

    /** An id written in hex as the bytes a protobuf batch carries, one char per byte. */
    private static String raw(String hex) {
        return new String(java.util.HexFormat.of().parseHex(hex), StandardCharsets.ISO_8859_1);
    }

    @Test
    void theOperatorsTracingFlagsMakeEveryRequestASpanAtTheCollector() throws Exception {
        installCrds();
        java.util.concurrent.BlockingQueue<byte[]> batches = new java.util.concurrent.LinkedBlockingQueue<>();
        java.util.List<String> types = new java.util.concurrent.CopyOnWriteArrayList<>();
        com.sun.net.httpserver.HttpServer collector = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        collector.createContext("/v1/traces", x -> {
            types.add(x.getRequestHeaders().getFirst("Content-Type"));
            batches.add(x.getRequestBody().readAllBytes());
            x.sendResponseHeaders(200, -1);
            x.close();
        });
        collector.start();
        com.sun.net.httpserver.HttpServer app = httpServer(x -> "traceparent=" + x.getRequestHeaders().getFirst("traceparent"),
                null);
        try {
            serviceOnLoopback("app", "http", 8080, app.getAddress().getPort());
            shopIngress("", "");

            ProxyProcess operator = operator("--proxy-tracing-endpoint",
                    "http://127.0.0.1:" + collector.getAddress().getPort() + "/v1/traces",
                    "--proxy-tracing-service-name", "shop-edge");
            Matcher m = CONTROL.matcher(operator.stderr());
            assertThat(m.find()).as(operator.stderr()).isTrue();
            ProxyProcess proxy = strait.start(Map.of("STRAIT_INGRESS_CLASS", "strait"),
                    "--control", "127.0.0.1:" + m.group(1), "--state-dir", dir.resolve("state").toString()).awaitServing();
            String given = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
            String[] answer = new String[1];
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                answer[0] = get(proxy.port("http"), "shop.example.com", "/cart", "traceparent: " + given);
                assertThat(answer[0]).startsWith("200 traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-");
            });
            String spanId = answer[0].substring("200 traceparent=00-".length() + 33, "200 traceparent=00-".length() + 49);
            assertThat(spanId).matches("[0-9a-f]{16}").isNotEqualTo("00f067aa0ba902b7");
            // Batches go every 5 s (the default flushInterval), in OTLP's binary protobuf (its default): ids as their
            // bytes, strings as they are. The app's parent is a span the collector gets.
            String found = null;
            for (byte[] b; found == null && (b = batches.poll(15, java.util.concurrent.TimeUnit.SECONDS)) != null; ) {
                String bytes = new String(b, StandardCharsets.ISO_8859_1); // one char per byte
                found = bytes.contains(raw(spanId)) ? bytes : null;
            }
            assertThat(types).allMatch("application/x-protobuf"::equals);
            assertThat(found).as("the batch with the proxy's span").isNotNull()
                    .contains(raw("4bf92f3577b34da6a3ce929d0e0e4736"))
                    .contains(raw("00f067aa0ba902b7"))
                    .contains("shop-edge")
                    .contains("/cart");
        } finally {
            app.stop(0);
            collector.stop(0);
        }
    }

    /**
     * An Ingress with TLS on an operator with {@code --ingress-compression true}: over https the proxy process answers
     * with ingress-nginx's default HSTS and the app's page gzip-compressed (zstd for a browser that takes it), the certificate the Ingress's Secret's;
     * plain HTTP is sent to https, without HSTS.
     */
    @Test
    void anIngressWithTlsGetsHstsAndCompressedAnswersFromTheOperatorsDefaults() throws Exception {
        installCrds();
        dev.strait.operator.publish.tls.ChannelPki.Issued ca = newCa("shop CA");
        dev.strait.operator.publish.tls.ChannelPki.Issued leaf = serverCertificate(ca, "shop.example.com");
        String page = "<p>strait</p>\n".repeat(400);
        com.sun.net.httpserver.HttpServer app = httpServer(x -> {
            x.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            return page;
        }, null);
        try {
            serviceOnLoopback("app", "http", 8080, app.getAddress().getPort());
            Base64.Encoder b64 = Base64.getEncoder();
            client.resource(Serialization.unmarshal("""
                    apiVersion: v1
                    kind: Secret
                    metadata: { name: shop-tls, namespace: default }
                    type: kubernetes.io/tls
                    data: { tls.crt: %s, tls.key: %s }
                    """.formatted(b64.encodeToString(leaf.certificatePem().getBytes(StandardCharsets.US_ASCII)),
                    b64.encodeToString(leaf.keyPem().getBytes(StandardCharsets.US_ASCII))),
                    io.fabric8.kubernetes.api.model.Secret.class)).create();
            shopIngress("", "tls: [ { hosts: [ shop.example.com ], secretName: shop-tls } ]");

            ProxyProcess operator = operator("--proxy-https-address", "127.0.0.1:0", "--ingress-compression", "true");
            Matcher m = CONTROL.matcher(operator.stderr());
            assertThat(m.find()).as(operator.stderr()).isTrue();
            ProxyProcess proxy = strait.start(Map.of("STRAIT_INGRESS_CLASS", "strait"),
                    "--control", "127.0.0.1:" + m.group(1), "--state-dir", dir.resolve("state").toString()).awaitServing();
            SSLContext trustingTheCa = trusting(ca);
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                byte[] answer = tlsExchange(trustingTheCa, proxy.port("https"), "shop.example.com", "GET /cart HTTP/1.1\r\n"
                        + "Host: shop.example.com\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n");
                String text = new String(answer, StandardCharsets.ISO_8859_1);
                int end = text.indexOf("\r\n\r\n");
                String head = text.substring(0, end).toLowerCase(java.util.Locale.ROOT);
                assertThat(head).startsWith("http/1.1 200")
                        .contains("\r\nstrict-transport-security: max-age=31536000; includesubdomains")
                        .contains("\r\ncontent-encoding: gzip").contains("\r\nvary: accept-encoding");
                assertThat(new String(new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(
                        dechunked(answer, end + 4))).readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(page);
            });
            // A browser takes zstd too: the operator's default codings answer it in zstd first.
            byte[] zstd = tlsExchange(trustingTheCa, proxy.port("https"), "shop.example.com", "GET /cart HTTP/1.1\r\n"
                    + "Host: shop.example.com\r\nAccept-Encoding: gzip, deflate, br, zstd\r\nConnection: close\r\n\r\n");
            String zstdText = new String(zstd, StandardCharsets.ISO_8859_1);
            int zstdEnd = zstdText.indexOf("\r\n\r\n");
            assertThat(zstdText.substring(0, zstdEnd).toLowerCase(java.util.Locale.ROOT)).contains("\r\ncontent-encoding: zstd");
            assertThat(new String(new com.github.luben.zstd.ZstdInputStream(new java.io.ByteArrayInputStream(
                    dechunked(zstd, zstdEnd + 4))).readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(page);
            String plain = get(proxy.port("http"), "shop.example.com", "/cart");
            assertThat(plain).startsWith("308 ");
        } finally {
            app.stop(0);
        }
    }

    /**
     * The Ingress {@code default/shop}: {@code shop.example.com/} to the Service {@code app}'s port {@code http}.
     *
     * @param metadata more of its metadata's flow mapping ({@code , annotations: { ... }}), or ""
     * @param tls      its spec's {@code tls} line, or ""
     */
    private void shopIngress(String metadata, String tls) {
        client.resource(Serialization.unmarshal("""
                apiVersion: networking.k8s.io/v1
                kind: Ingress
                metadata: { name: shop, namespace: default%s }
                spec:
                  ingressClassName: strait
                  %s
                  rules:
                    - host: shop.example.com
                      http:
                        paths:
                          - { path: /, pathType: Prefix, backend: { service: { name: app, port: { name: http } } } }
                """.formatted(metadata, tls), Ingress.class)).create();
    }

    /** A CA for a test's certificates, valid for an hour. */
    private static dev.strait.operator.publish.tls.ChannelPki.Issued newCa(String name) throws Exception {
        return dev.strait.operator.publish.tls.ChannelPki.newCa(name, java.time.Instant.now(), Duration.ofHours(1));
    }

    /** A server certificate for {@code host} that {@code ca} issued, valid for an hour. */
    private static dev.strait.operator.publish.tls.ChannelPki.Issued serverCertificate(
            dev.strait.operator.publish.tls.ChannelPki.Issued ca, String host) throws Exception {
        return dev.strait.operator.publish.tls.ChannelPki.serverCertificate(ca, List.of(host), java.time.Instant.now(),
                Duration.ofHours(1));
    }

    /** A TLS client context that trusts {@code ca} alone. */
    private static SSLContext trusting(dev.strait.operator.publish.tls.ChannelPki.Issued ca) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    /** {@code request} sent over TLS to the loopback {@code port} naming {@code sni}; all the server sent back. */
    private static byte[] tlsExchange(SSLContext context, int port, String sni, String request) throws IOException {
        try (javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            javax.net.ssl.SSLParameters p = tls.getSSLParameters();
            p.setServerNames(List.of(new javax.net.ssl.SNIHostName(sni)));
            tls.setSSLParameters(p);
            tls.setSoTimeout(5000);
            tls.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            return tls.getInputStream().readAllBytes();
        }
    }

    /** A chunked body from {@code at} in {@code raw}, its chunks joined. */
    private static byte[] dechunked(byte[] raw, int at) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        while (true) {
            int eol = at;
            while (raw[eol] != '\r') {
                eol++;
            }
            int size = Integer.parseInt(new String(raw, at, eol - at, StandardCharsets.US_ASCII).trim(), 16);
            if (size == 0) {
                return out.toByteArray();
            }
            out.write(raw, eol + 2, size);
            at = eol + 2 + size + 2;
        }
    }

    /**
     * A JDK HTTP server on a free loopback port answering {@code answer} of each request; with {@code seen}, each
     * request is also put there as "METHOD TARGET id=X-Request-Id host=Host".
     */
    private static com.sun.net.httpserver.HttpServer httpServer(
            java.util.function.Function<com.sun.net.httpserver.HttpExchange, String> answer,
            java.util.concurrent.BlockingQueue<String> seen) throws IOException {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", x -> {
            x.getRequestBody().readAllBytes();
            if (seen != null) {
                seen.add(x.getRequestMethod() + " " + x.getRequestURI() + " id="
                        + x.getRequestHeaders().getFirst("X-Request-Id") + " host=" + x.getRequestHeaders().getFirst("Host"));
            }
            byte[] body = answer.apply(x).getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        return server;
    }

    /** A TLS server's connections, each answered once with {@code argocd here} and closed. */
    private static void answerEachConnection(ServerSocket server) {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                s.setSoTimeout(5000);
                InputStream in = s.getInputStream();
                for (int matched = 0, c; matched < 4 && (c = in.read()) >= 0; ) {
                    matched = c == "\r\n\r\n".charAt(matched) ? matched + 1 : c == '\r' ? 1 : 0;
                }
                s.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 11\r\nConnection: close\r\n\r\nargocd here"
                        .getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                // a client that went away, or the server closed: the loop decides
            }
        }
    }

    /**
     * sidecar-app.yaml as the API server and the kubelet would run it: the pod template sent to the
     * operator's webhook over HTTPS (trusting only the caBundle the operator wrote into the
     * MutatingWebhookConfiguration of install.yaml), the answered patch applied, then the injected
     * container's command and the app's command run here, the config file being the annotation the
     * downward API would project.
     */
    @Test
    void theSidecarExampleIsInjectedByTheWebhookAndForwardsToTheApp() throws Exception {
        Deployment d = example("sidecar-app.yaml");
        // Free ports on this shared machine instead of the manifest's 8000 and 3000.
        int inbound = freePort();
        int app = freePort();
        Map<String, String> annotations = d.getSpec().getTemplate().getMetadata().getAnnotations();
        annotations.put("strait.dev/inbound-port", String.valueOf(inbound));
        annotations.put("strait.dev/app-port", String.valueOf(app));
        annotations.put("strait.dev/admin-port", String.valueOf(freePort()));
        Pod injected = injectThroughTheWebhook(d);

        ProxyProcess proxy = runSidecar(injected, config -> config);
        List<String> appCommand = new ArrayList<>(injected.getSpec().getContainers().get(0).getCommand());
        appCommand.set(2, appCommand.get(2).replaceAll("\\.listen\\(\\d+", ".listen(" + app));
        strait.startProcess(appCommand, Map.of());
        awaitReady(injected, proxy);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(tryGet(inbound, "greeter", "/")).isEqualTo("200 greetings via the sidecar\n"));
        if (System.getProperty("os.name").startsWith("Linux")) {
            assertThat(proxy.stderr()).as("with a /tmp the native transport loads").containsPattern(
                    "worker\\(s\\) on (io_uring|epoll)");
        }
    }

    /**
     * sidecar-app-socket.yaml: the app listens on a unix socket in an emptyDir it shares with the sidecar
     * ({@code strait.dev/app-socket}); the webhook mounts that volume into the sidecar at its own path and
     * points the sidecar's upstream there. Here the volume is one directory both processes are given.
     */
    @Test
    void theSocketSidecarExampleReachesItsAppThroughTheSharedVolume() throws Exception {
        Deployment d = example("sidecar-app-socket.yaml");
        int inbound = freePort();
        Map<String, String> annotations = d.getSpec().getTemplate().getMetadata().getAnnotations();
        annotations.put("strait.dev/inbound-port", String.valueOf(inbound));
        annotations.put("strait.dev/admin-port", String.valueOf(freePort()));
        String socket = annotations.get("strait.dev/app-socket");
        Pod injected = injectThroughTheWebhook(d);
        Container sidecar = injected.getSpec().getInitContainers().get(0);
        io.fabric8.kubernetes.api.model.VolumeMount shared = sidecar.getVolumeMounts().stream()
                .filter(m -> m.getMountPath().equals("/run/strait-app")).findFirst().orElseThrow();
        io.fabric8.kubernetes.api.model.VolumeMount appMount = injected.getSpec().getContainers().get(0).getVolumeMounts()
                .stream().filter(m -> m.getName().equals(shared.getName())).findFirst().orElseThrow();
        assertThat(injected.getSpec().getVolumes()).anyMatch(v -> v.getName().equals(shared.getName()) && v.getEmptyDir() != null);

        // The emptyDir: one directory, where each container mounts it.
        Path volume = Files.createDirectories(dir.resolve("sockets"));
        ProxyProcess proxy = runSidecar(injected, config -> config.replace("/run/strait-app", volume.toString()));
        List<String> appCommand = new ArrayList<>(injected.getSpec().getContainers().get(0).getCommand());
        appCommand.set(2, appCommand.get(2).replace(socket, volume + socket.substring(appMount.getMountPath().length())));
        strait.startProcess(appCommand, Map.of());
        awaitReady(injected, proxy);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(tryGet(inbound, "greeter", "/")).isEqualTo("200 greetings via the sidecar, over a socket\n"));
    }

    private static Deployment example(String file) throws IOException {
        return (Deployment) load(ROOT.resolve("manifests/examples/" + file)).stream()
                .filter(o -> o instanceof Deployment).findFirst().orElseThrow();
    }

    /**
     * {@code d}'s pod template as the API server sends it to the operator's webhook over HTTPS (trusting only the
     * caBundle the operator wrote into install.yaml's MutatingWebhookConfiguration), with the answered patch applied.
     */
    private Pod injectThroughTheWebhook(Deployment d) throws Exception {
        installCrds();
        for (HasMetadata o : load(ROOT.resolve("manifests/install.yaml"))) {
            if (o instanceof MutatingWebhookConfiguration mwc) {
                client.resource(mwc).create();
            }
        }
        ProxyProcess operator = operator("--webhook-address", "127.0.0.1:0",
                "--sidecar-image", "ghcr.io/strait-dev/strait-proxy:0.1.0");
        Matcher w = WEBHOOK.matcher(operator.stderr());
        assertThat(w.find()).as(operator.stderr()).isTrue();
        String caBundle = await().atMost(Duration.ofSeconds(20)).until(() -> client.admissionRegistration().v1()
                .mutatingWebhookConfigurations().withName("strait-sidecar-injector").get()
                .getWebhooks().get(0).getClientConfig().getCaBundle(), b -> b != null);
        ObjectNode pod = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "Pod");
        pod.set("metadata", JSON.valueToTree(d.getSpec().getTemplate().getMetadata()));
        pod.set("spec", JSON.valueToTree(d.getSpec().getTemplate().getSpec()));
        ObjectNode review = JSON.createObjectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
        ObjectNode request = review.putObject("request").put("uid", "e2e-1").put("namespace", "default").put("operation", "CREATE");
        request.putObject("kind").put("group", "").put("version", "v1").put("kind", "Pod");
        request.set("object", pod);

        HttpResponse<String> answer = trusting(new String(Base64.getDecoder().decode(caBundle), StandardCharsets.UTF_8))
                .send(HttpRequest.newBuilder(URI.create("https://localhost:" + w.group(1) + "/inject"))
                        .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(review.toString())).build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(200);
        JsonNode response = JSON.readTree(answer.body()).path("response");
        assertThat(response.path("allowed").asBoolean()).isTrue();
        assertThat(response.has("patch")).as("injected: %s", response).isTrue();
        JsonNode patch = JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
        Pod injected = Serialization.unmarshal(io.fabric8.zjsonpatch.JsonPatch.apply(patch, pod).toString(), Pod.class);
        Container sidecar = injected.getSpec().getInitContainers().get(0);
        assertThat(sidecar.getName()).isEqualTo("strait-proxy");
        assertThat(sidecar.getRestartPolicy()).isEqualTo("Always");
        return injected;
    }

    /**
     * The kubelet's part for the injected sidecar: the downward API file (the annotation, through {@code editConfig}
     * where a volume's path differs here), the env, the /tmp volume, and the image's entrypoint (the launcher).
     */
    private ProxyProcess runSidecar(Pod injected, java.util.function.UnaryOperator<String> editConfig) throws IOException {
        Container sidecar = injected.getSpec().getInitContainers().get(0);
        Path config = dir.resolve("etc-strait").resolve("config.json");
        Files.createDirectories(config.getParent());
        Files.writeString(config, editConfig.apply(injected.getMetadata().getAnnotations().get("strait.dev/sidecar-config")));
        List<String> proxyCommand = new ArrayList<>(List.of(ROOT.resolve("proxy/bin/strait-proxy").toString()));
        sidecar.getArgs().forEach(a -> proxyCommand.add(a.equals("/etc/strait/config.json") ? config.toString() : a));
        // The kubelet's part of the env: downward-API fields, then $(VAR) references to variables listed before.
        Map<String, String> env = new java.util.LinkedHashMap<>();
        sidecar.getEnv().forEach(e -> {
            String value = e.getValue();
            if (e.getValueFrom() != null && e.getValueFrom().getFieldRef() != null) {
                value = switch (e.getValueFrom().getFieldRef().getFieldPath()) {
                    case "metadata.namespace" -> "shop";
                    case "metadata.name" -> "web-1";
                    case "spec.nodeName" -> "node-1";
                    default -> throw new AssertionError("a field the kubelet would not give: " + e);
                };
            }
            for (Map.Entry<String, String> before : env.entrySet()) {
                value = value.replace("$(" + before.getKey() + ")", before.getValue());
            }
            env.put(e.getName(), value);
        });
        assertThat(env.get("OTEL_RESOURCE_ATTRIBUTES"))
                .isEqualTo("k8s.namespace.name=shop,k8s.pod.name=web-1,k8s.node.name=node-1");
        // The pod's /tmp volume the injector adds (the root is read-only): native libraries unpack there, and only
        // there (Netty would fall back to this machine's own /tmp without its workdir named).
        assertThat(sidecar.getVolumeMounts()).anyMatch(m -> m.getMountPath().equals("/tmp"));
        Path tmp = Files.createDirectories(dir.resolve("sidecar-tmp"));
        env.merge("JAVA_OPTS", " -Djava.io.tmpdir=" + tmp + " -Dio.netty.native.workdir=" + tmp, String::concat);
        env.put("STRAIT_JAR", StraitProcesses.jar().toString());
        env.put("JAVA", StraitProcesses.javaBinary());
        return strait.startProcess(proxyCommand, env);
    }

    /** Until the sidecar's readiness probe passes, as the kubelet's startup probe waits. */
    private static void awaitReady(Pod injected, ProxyProcess proxy) {
        Container sidecar = injected.getSpec().getInitContainers().get(0);
        int readyPort = sidecar.getReadinessProbe().getHttpGet().getPort().getIntVal();
        String readyPath = sidecar.getReadinessProbe().getHttpGet().getPath();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(proxy.process.isAlive()).as(proxy.stderr()).isTrue();
            assertThat(tryGet(readyPort, "localhost", readyPath)).startsWith("200 ");
        });
    }

    /**
     * fastcgi-php.yaml with a real php-fpm: the ConfigMap's script placed where the Deployment mounts it,
     * inside a chroot (so the Route's {@code fastcgi.root} is used unchanged), the pool sized by the
     * Upstream's maxConnections. Needs php-fpm and root (for the chroot); skipped otherwise.
     */
    @Test
    void theFastCgiExampleIsServedByPhpFpm() throws Exception {
        Path fpm = Path.of("/usr/sbin/php-fpm8.2");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(fpm), "php-fpm8.2 is not installed");
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "php-fpm's chroot needs root");
        installCrds();
        List<HasMetadata> applied = apply("fastcgi-php.yaml");
        Deployment d = applied.stream().filter(o -> o instanceof Deployment).map(o -> (Deployment) o).findFirst().orElseThrow();
        io.fabric8.kubernetes.api.model.ConfigMap scripts = applied.stream()
                .filter(o -> o instanceof io.fabric8.kubernetes.api.model.ConfigMap)
                .map(o -> (io.fabric8.kubernetes.api.model.ConfigMap) o).findFirst().orElseThrow();
        String mount = d.getSpec().getTemplate().getSpec().getContainers().get(0).getVolumeMounts().get(0).getMountPath();
        Path root = dir.resolve("php-root");
        Path www = Files.createDirectories(root.resolve(mount.substring(1)));
        for (Map.Entry<String, String> f : scripts.getData().entrySet()) {
            Files.writeString(www.resolve(f.getKey()), f.getValue());
        }
        Files.createDirectories(root.resolve("tmp")); // PHP keeps a large POST body in a file of its own
        // Beside the example's page: what an upload form's script sees of the body.
        Files.writeString(www.resolve("upload.php"),
                "<?php echo $_SERVER['CONTENT_LENGTH'], ' ', md5(file_get_contents('php://input'));");
        GenericKubernetesResource upstream = client.genericKubernetesResources("strait.dev/v1alpha1", "Upstream")
                .inNamespace("default").withName("php-app").get();
        int children = ((Number) upstream.get("spec", "maxConnections")).intValue();
        int port = freePort();
        Path conf = dir.resolve("php-fpm.conf");
        Files.writeString(conf, """
                [global]
                daemonize = no
                error_log = %1$s/php-fpm.log
                pid = %1$s/php-fpm.pid
                [www]
                listen = 127.0.0.1:%2$d
                pm = static
                pm.max_children = %3$d
                clear_env = yes
                chroot = %4$s
                """.formatted(dir, port, children, root));
        strait.startProcess(List.of(fpm.toString(), "-n", "-R", "-F", "-y", conf.toString()), Map.of());
        for (HasMetadata o : applied) {
            if (o instanceof Service svc) {
                endpoints(svc, port);
            }
        }
        ProxyProcess operator = operator();
        Matcher m = CONTROL.matcher(operator.stderr());
        assertThat(m.find()).as(operator.stderr()).isTrue();
        ProxyProcess proxy = strait.start(Map.of("STRAIT_INGRESS_CLASS", "strait"),
                "--control", "127.0.0.1:" + m.group(1), "--state-dir", dir.resolve("state").toString()).awaitServing();
        int http = proxy.port("http");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                // A small page: php-fpm sends it with END_REQUEST in one write, so it has a Content-Length
                // (ADR 0031) and the body follows the head as it is.
                assertThat(tryGet(http, "php.example.com", "/?name=strait")).startsWith("200 hello strait from PHP "));
        // A chunked 3 MiB upload, three times what the proxy holds in memory for FastCGI: read whole into a request
        // body file, then sent to php-fpm with its CONTENT_LENGTH (before ADR 0102: 411 Length Required).
        byte[] body = new byte[3 << 20];
        new java.util.Random(7).nextBytes(body);
        String md5 = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5").digest(body));
        assertThat(postChunked(http, "php.example.com", "/upload.php", body)).isEqualTo("200 " + body.length + " " + md5);
    }

    /** A POST with a chunked body of 64 KiB chunks on a new connection; the status and the answer's body. */
    static String postChunked(int port, String host, String path, byte[] body) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = new java.io.BufferedOutputStream(s.getOutputStream());
            out.write(("POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            for (int at = 0; at < body.length; at += 65536) {
                int n = Math.min(65536, body.length - at);
                out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(body, at, n);
                out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String resp = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return resp.substring(9, 12) + " " + resp.substring(resp.indexOf("\r\n\r\n") + 4);
        }
    }

    /** {@link #get}, or the failure as text, for polling a port that may not listen yet. */
    static String tryGet(int port, String host, String path) {
        try {
            return get(port, host, path);
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** An HTTP client that trusts exactly the given PEM bundle, as the API server trusts a caBundle. */
    private static HttpClient trusting(String pem) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        int i = 0;
        for (java.security.cert.Certificate c : CertificateFactory.getInstance("X.509")
                .generateCertificates(new java.io.ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)))) {
            ks.setCertificateEntry("ca" + i++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1).build();
    }
}
