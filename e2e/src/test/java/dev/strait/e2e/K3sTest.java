package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.LocalPortForward;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * Strait on a real Kubernetes (k3s in a container): the images built from docker/*.Dockerfile and
 * loaded into k3s, manifests/install.yaml applied, then an example Route and the sidecar example, each
 * answered through the proxy. Needs a Docker engine; where there is none (as on the machine these
 * tests were written on) the class is reported as skipped. The packaged jars must exist
 * ({@code ./mvnw -B -DskipTests package}), as for the other e2e tests.
 */
@Testcontainers(disabledWithoutDocker = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class K3sTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Duration ROLLOUT = Duration.ofMinutes(5);
    /** The names install.yaml refers to, so the file is applied unchanged. */
    static final String PROXY_IMAGE = "ghcr.io/strait-dev/strait-proxy:0.1.0";
    static final String OPERATOR_IMAGE = "ghcr.io/strait-dev/strait-operator:0.1.0";

    @Container
    static final K3sContainer K3S = new K3sContainer(DockerImageName.parse("rancher/k3s:v1.31.4-k3s1"));

    static KubernetesClient client;

    @BeforeAll
    static void install() throws Exception {
        load(build("docker/proxy.Dockerfile", PROXY_IMAGE));
        load(build("docker/operator.Dockerfile", OPERATOR_IMAGE));
        client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(K3S.getKubeConfigYaml())).build();
        List<HasMetadata> objects = LocalClusterTest.load(ROOT.resolve("manifests/install.yaml"));
        for (HasMetadata o : objects) {
            if (o instanceof CustomResourceDefinition || o.getKind().equals("Namespace")) {
                client.resource(o).serverSideApply();
            }
        }
        for (HasMetadata o : objects) {
            if (o instanceof CustomResourceDefinition crd) {
                client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                        .waitUntilCondition(c -> c.getStatus() != null && c.getStatus().getConditions().stream()
                                .anyMatch(x -> x.getType().equals("Established") && x.getStatus().equals("True")),
                                1, TimeUnit.MINUTES);
            }
        }
        for (HasMetadata o : objects) {
            if (!(o instanceof CustomResourceDefinition) && !o.getKind().equals("Namespace")) {
                client.resource(o).serverSideApply();
            }
        }
        client.apps().deployments().inNamespace("strait-system").withName("strait-operator")
                .waitUntilReady(ROLLOUT.toMinutes(), TimeUnit.MINUTES);
        client.apps().deployments().inNamespace("strait-system").withName("strait-proxy")
                .waitUntilReady(ROLLOUT.toMinutes(), TimeUnit.MINUTES);
    }

    @AfterAll
    static void close() {
        if (client != null) {
            client.close();
        }
    }

    /**
     * Builds an image from a Dockerfile; the context holds just what .dockerignore lets in (the packaged
     * jars and the launcher) at their repository paths.
     */
    static String build(String dockerfile, String name) {
        ImageFromDockerfile image = new ImageFromDockerfile(name, false)
                .withFileFromPath("Dockerfile", ROOT.resolve(dockerfile));
        for (String f : List.of("proxy/target/strait-proxy.jar", "proxy/bin/strait-proxy", "operator/target/strait-operator.jar")) {
            image.withFileFromPath(f, ROOT.resolve(f));
        }
        return image.get();
    }

    /** Copies an image from the Docker engine into k3s's containerd. */
    static void load(String image) throws Exception {
        Path tar = Files.createTempFile("strait-image-", ".tar");
        try (InputStream in = DockerClientFactory.instance().client().saveImageCmd(image).exec()) {
            Files.copy(in, tar, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        K3S.copyFileToContainer(MountableFile.forHostPath(tar), "/tmp/image.tar");
        var r = K3S.execInContainer("ctr", "-n", "k8s.io", "images", "import", "/tmp/image.tar");
        assertThat(r.getExitCode()).as(r.getStderr()).isZero();
        Files.delete(tar);
    }

    static void apply(String example) throws IOException {
        for (HasMetadata o : LocalClusterTest.load(ROOT.resolve("manifests/examples").resolve(example))) {
            client.resource(o).serverSideApply();
        }
    }

    @Test
    @Order(1)
    void anExampleRouteIsServedThroughTheProxy() throws Exception {
        apply("basic-route.yaml");
        client.apps().deployments().inNamespace("default").withName("hello").waitUntilReady(ROLLOUT.toMinutes(), TimeUnit.MINUTES);
        await().atMost(ROLLOUT).untilAsserted(() -> {
            GenericKubernetesResource route = client.genericKubernetesResources("strait.dev/v1alpha1", "Route")
                    .inNamespace("default").withName("hello").get();
            assertThat(String.valueOf(route.get("status", "conditions"))).contains("status=True, type=Programmed");
        });
        try (LocalPortForward pf = client.services().inNamespace("strait-system").withName("strait-proxy").portForward(80)) {
            await().atMost(Duration.ofMinutes(1)).untilAsserted(() ->
                    assertThat(LocalClusterTest.get(pf.getLocalPort(), "hello.example.com", "/")).startsWith("200 hello from hello-"));
        }
    }

    @Test
    @Order(2)
    void anInjectedSidecarForwardsToTheApp() throws Exception {
        // The operator writes the webhook's caBundle; before that the API server cannot call it.
        await().atMost(ROLLOUT).until(() -> {
            MutatingWebhookConfiguration m = client.admissionRegistration().v1().mutatingWebhookConfigurations()
                    .withName("strait-sidecar-injector").get();
            return m != null && m.getWebhooks().get(0).getClientConfig().getCaBundle() != null;
        });
        apply("sidecar-app.yaml");
        client.apps().deployments().inNamespace("default").withName("greeter").waitUntilReady(ROLLOUT.toMinutes(), TimeUnit.MINUTES);
        Pod pod = client.pods().inNamespace("default").withLabel("app", "greeter").list().getItems().get(0);
        assertThat(pod.getSpec().getInitContainers()).extracting(c -> c.getName()).contains("strait-proxy");
        try (LocalPortForward pf = client.services().inNamespace("default").withName("greeter").portForward(80)) {
            await().atMost(Duration.ofMinutes(1)).untilAsserted(() ->
                    assertThat(LocalClusterTest.get(pf.getLocalPort(), "greeter", "/")).isEqualTo("200 greetings via the sidecar\n"));
        }
    }

    @Test
    @Order(3)
    void anInjectedSidecarReachesAnAppOnAUnixSocket() throws Exception {
        apply("sidecar-app-socket.yaml"); // the webhook is up since the test before
        client.apps().deployments().inNamespace("default").withName("greeter-socket")
                .waitUntilReady(ROLLOUT.toMinutes(), TimeUnit.MINUTES);
        Pod pod = client.pods().inNamespace("default").withLabel("app", "greeter-socket").list().getItems().get(0);
        assertThat(pod.getSpec().getInitContainers().get(0).getVolumeMounts())
                .anyMatch(m -> m.getName().equals("sockets") && m.getMountPath().equals("/run/strait-app"));
        try (LocalPortForward pf = client.services().inNamespace("default").withName("greeter-socket").portForward(80)) {
            await().atMost(Duration.ofMinutes(1)).untilAsserted(() -> assertThat(LocalClusterTest.get(pf.getLocalPort(),
                    "greeter-socket", "/")).isEqualTo("200 greetings via the sidecar, over a socket\n"));
        }
    }
}
