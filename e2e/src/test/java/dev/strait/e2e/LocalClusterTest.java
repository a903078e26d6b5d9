package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    @Test
    void examplesAppliedToTheApiAreServedByTheProxyProcess() throws Exception {
        for (String crd : new String[] {"routes.strait.dev-v1.yml", "upstreams.strait.dev-v1.yml"}) {
            client.resource(Serialization.unmarshal(Files.readString(ROOT.resolve("crds").resolve(crd)),
                    CustomResourceDefinition.class)).create();
        }
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

        String java = StraitProcesses.javaBinary();
        String operatorJar = Path.of(System.getProperty("strait.operator.jar")).toAbsolutePath().toString();
        ProxyProcess operator = strait.startProcess(List.of(java, "-jar", operatorJar,
                "--control-address", "127.0.0.1:0", "--leader-election", "false", "--secure", "false",
                "--server-side-apply", "false", "--ingress-address", "203.0.113.7",
                "--proxy-http-address", "127.0.0.1:0", "--proxy-admin-address", "127.0.0.1:0"),
                Map.of("KUBECONFIG", kubeconfig().toString()));
        operator.awaitStderr("caches synced; serving snapshots");
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
}
