package dev.strait.operator.inject;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.strait.model.Config;
import dev.strait.model.ConfigParser;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.zjsonpatch.JsonPatch;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * AdmissionReview fixtures (src/test/resources/admission) through the handler; the JSON patch it
 * answers is applied to the pod with a real RFC 6902 implementation and the result checked.
 */
class SidecarInjectionTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final AdmissionHandler HANDLER = new AdmissionHandler(
            new SidecarInjector(SidecarInjector.Settings.defaults("registry.example/strait-proxy:test")));

    static byte[] fixture(String name) throws IOException {
        try (InputStream in = SidecarInjectionTest.class.getResourceAsStream("/admission/" + name)) {
            return in.readAllBytes();
        }
    }

    /** The response part of the handler's answer. */
    private static JsonNode answer(byte[] review) throws IOException {
        JsonNode out = JSON.readTree(HANDLER.handle(review));
        assertThat(out.path("kind").asText()).isEqualTo("AdmissionReview");
        assertThat(out.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
        assertThat(out.path("response").path("uid").asText()).isEqualTo(JSON.readTree(review).path("request").path("uid").asText());
        assertThat(out.path("response").path("allowed").asBoolean()).as("never refuses a pod").isTrue();
        return out.path("response");
    }

    /** The pod after the answer's patch (the pod unchanged when there is none). */
    private static JsonNode patched(byte[] review) throws IOException {
        JsonNode response = answer(review);
        JsonNode pod = JSON.readTree(review).path("request").path("object");
        if (!response.has("patch")) {
            return pod;
        }
        assertThat(response.path("patchType").asText()).isEqualTo("JSONPatch");
        JsonNode patch = JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
        return JsonPatch.apply(patch, pod);
    }

    private static Pod pod(JsonNode json) {
        return Serialization.unmarshal(json.toString(), Pod.class);
    }

    @Test
    void anAnnotatedPodGetsTheProxyAsANativeSidecar() throws Exception {
        Pod pod = pod(patched(fixture("pod-annotated.json")));
        assertThat(pod.getSpec().getInitContainers()).hasSize(1);
        Container proxy = pod.getSpec().getInitContainers().get(0);
        assertThat(proxy.getName()).isEqualTo("strait-proxy");
        assertThat(proxy.getImage()).isEqualTo("registry.example/strait-proxy:test");
        assertThat(proxy.getRestartPolicy()).as("a native sidecar").isEqualTo("Always");
        assertThat(proxy.getArgs()).containsExactly("--config", "/etc/strait/config.json");
        assertThat(proxy.getPorts()).extracting(p -> p.getContainerPort()).containsExactly(8000, 15000);
        assertThat(proxy.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(proxy.getReadinessProbe().getHttpGet().getPort().getIntVal()).isEqualTo(15000);
        assertThat(proxy.getStartupProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(proxy.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(proxy.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(proxy.getResources().getLimits().get("memory").toString()).isEqualTo("128Mi");
        assertThat(proxy.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("JAVA_OPTS");
            assertThat(e.getValue()).contains("-Xmx32m").endsWith("-XX:ArchiveRelocationMode=0");
        });
        // The spans' resource names the pod: the downward API's fields, then OTEL_RESOURCE_ATTRIBUTES from them
        // (Kubernetes expands $(VAR) only from variables listed before it).
        assertThat(proxy.getEnv()).extracting(e -> e.getValueFrom() == null ? e.getName() + "=" + e.getValue()
                : e.getName() + "<-" + e.getValueFrom().getFieldRef().getFieldPath()).containsExactly(
                "JAVA_OPTS=" + SidecarInjector.Settings.defaults("x").javaOpts(), "STRAIT_CDS=off",
                "STRAIT_POD_NAMESPACE<-metadata.namespace", "STRAIT_POD_NAME<-metadata.name",
                "STRAIT_NODE_NAME<-spec.nodeName", "OTEL_RESOURCE_ATTRIBUTES=k8s.namespace.name=$(STRAIT_POD_NAMESPACE),"
                        + "k8s.pod.name=$(STRAIT_POD_NAME),k8s.node.name=$(STRAIT_NODE_NAME)");
        assertThat(proxy.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(proxy.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(proxy.getVolumeMounts()).extracting(m -> m.getName() + " " + m.getMountPath())
                .containsExactly("strait-sidecar-config /etc/strait", "strait-sidecar-tmp /tmp");
        assertThat(pod.getSpec().getVolumes()).hasSize(2);
        assertThat(pod.getSpec().getVolumes().get(0).getDownwardAPI().getItems().get(0).getFieldRef().getFieldPath())
                .isEqualTo("metadata.annotations['strait.dev/sidecar-config']");
        // The root is read-only: native libraries (the io_uring/epoll transports, zstd, brotli) unpack into /tmp (16Mi),
        // and request bodies read first go there past what is held in memory, at most requestBodyFiles.maxBytes at
        // once: a pod whose emptyDir outgrows its limit is evicted.
        io.fabric8.kubernetes.api.model.Quantity tmp = pod.getSpec().getVolumes().get(1).getEmptyDir().getSizeLimit();
        assertThat(tmp.toString()).isEqualTo("272Mi");
        assertThat(io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(tmp).longValueExact())
                .isEqualTo((16L << 20) + Config.RequestBodyFiles.DEFAULTS.maxBytes());
        assertThat(pod.getSpec().getContainers()).extracting(Container::getName).containsExactly("web");
        assertThat(pod.getMetadata().getAnnotations()).containsEntry("strait.dev/inject", "true");

        // The config the sidecar reads is valid for the proxy's own parser and forwards inbound -> app.
        Config config = ConfigParser.parse(pod.getMetadata().getAnnotations().get("strait.dev/sidecar-config"), "sidecar");
        assertThat(config.listeners()).singleElement().satisfies(l -> assertThat(l.address().port()).isEqualTo(8000));
        assertThat(config.admin().address().port()).isEqualTo(15000);
        assertThat(config.upstreams()).singleElement().satisfies(u ->
                assertThat(u.endpoints()).extracting(Object::toString).containsExactly("127.0.0.1:8080"));
        assertThat(config.routes()).singleElement().satisfies(r -> assertThat(r.hosts()).containsExactly("*"));
        // The default budget is not written: the annotation stays as it was before the operator had the flag.
        assertThat(config.requestBodyFiles()).isEqualTo(Config.RequestBodyFiles.DEFAULTS);
        assertThat(pod.getMetadata().getAnnotations().get("strait.dev/sidecar-config")).doesNotContain("requestBodyFiles");
    }

    /**
     * The operator's --proxy-request-body-files-max-bytes sizes the sidecar's /tmp: 16Mi for the native libraries and
     * the budget rounded up to a whole Mi, so the files can never outgrow the volume (the kubelet would evict the pod).
     * The sidecar's own config carries the same budget, so a smaller volume never meets the proxy's larger default.
     */
    @Test
    void theSidecarsTmpIsSizedForTheOperatorsBodyFileBudget() throws Exception {
        Object[][] cases = {
            {0L, "16Mi"},
            {1L, "17Mi"},
            {1L << 20, "17Mi"},
            {(1L << 20) + 1, "18Mi"},
            {Config.RequestBodyFiles.DEFAULTS.maxBytes(), "272Mi"},
            {1L << 30, "1040Mi"},
        };
        for (Object[] c : cases) {
            long budget = (Long) c[0];
            AdmissionHandler handler = new AdmissionHandler(new SidecarInjector(
                    SidecarInjector.Settings.defaults("registry.example/strait-proxy:test").withRequestBodyFilesMaxBytes(budget)));
            JsonNode response = JSON.readTree(handler.handle(fixture("pod-annotated.json"))).path("response");
            JsonNode patch = JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
            Pod pod = pod(JsonPatch.apply(patch, JSON.readTree(fixture("pod-annotated.json")).path("request").path("object")));
            io.fabric8.kubernetes.api.model.Quantity tmp = pod.getSpec().getVolumes().stream()
                    .filter(v -> v.getName().equals("strait-sidecar-tmp")).findFirst().orElseThrow()
                    .getEmptyDir().getSizeLimit();
            assertThat(tmp.toString()).as("budget %d", budget).isEqualTo(c[1]);
            assertThat(io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(tmp).longValueExact())
                    .as("budget %d", budget).isGreaterThanOrEqualTo((16L << 20) + budget)
                    .isLessThan((17L << 20) + budget);
            Config config = ConfigParser.parse(pod.getMetadata().getAnnotations().get("strait.dev/sidecar-config"), "sidecar");
            assertThat(config.requestBodyFiles()).as("budget %d", budget).isEqualTo(new Config.RequestBodyFiles(null, budget));
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SidecarInjector.Settings.defaults("x")
                .withRequestBodyFilesMaxBytes(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSidecarGoesBeforeExistingInitContainersAndVolumesAreKept() throws Exception {
        Pod pod = pod(patched(fixture("pod-with-lists.json")));
        assertThat(pod.getSpec().getInitContainers()).extracting(Container::getName).containsExactly("strait-proxy", "migrate");
        assertThat(pod.getSpec().getVolumes()).extracting(v -> v.getName())
                .containsExactly("data", "strait-sidecar-config", "strait-sidecar-tmp");
        Config config = ConfigParser.parse(pod.getMetadata().getAnnotations().get("strait.dev/sidecar-config"), "sidecar");
        assertThat(config.upstreams().get(0).endpoints()).as("the app port is the first TCP containerPort")
                .extracting(Object::toString).containsExactly("127.0.0.1:3000");
        assertThat(config.listeners().get(0).address().port()).as("default inbound port").isEqualTo(15001);
    }

    @Test
    void injectingTwiceChangesNothing() throws Exception {
        JsonNode once = patched(fixture("pod-annotated.json"));
        ObjectNode review = (ObjectNode) JSON.readTree(fixture("pod-annotated.json"));
        ((ObjectNode) review.get("request")).set("object", once);
        JsonNode response = answer(JSON.writeValueAsBytes(review));
        assertThat(response.has("patch")).isFalse();
    }

    @Test
    void podsWithoutTheAnnotationAndOtherObjectsAreLeftAlone() throws Exception {
        assertThat(answer(fixture("pod-plain.json")).has("patch")).isFalse();
        assertThat(answer(fixture("deployment-update.json")).has("patch")).isFalse();
    }

    @Test
    void clashingPortsAreAllowedUninjectedWithAWarning() throws Exception {
        JsonNode response = answer(fixture("pod-bad-ports.json"));
        assertThat(response.has("patch")).isFalse();
        assertThat(response.path("warnings").get(0).asText())
                .isEqualTo("strait sidecar not injected: the inbound (8080), app (8080) and admin (15000) ports must differ:"
                        + " the proxy and the app share the pod's network");
    }

    /** pod-annotated.json with {@code strait.dev/app-socket: socket} instead of the app port, its container given {@code mounts}. */
    private static byte[] socketPod(String socket, String mounts) throws IOException {
        ObjectNode review = (ObjectNode) JSON.readTree(fixture("pod-annotated.json"));
        ObjectNode pod = (ObjectNode) review.path("request").path("object");
        ObjectNode annotations = (ObjectNode) pod.path("metadata").path("annotations");
        annotations.remove("strait.dev/app-port");
        annotations.put("strait.dev/app-socket", socket);
        ObjectNode web = (ObjectNode) pod.path("spec").path("containers").get(0);
        web.remove("ports"); // no containerPort: a socket needs none
        web.set("volumeMounts", JSON.readTree(mounts));
        ((ObjectNode) pod.path("spec")).set("volumes", JSON.readTree("[{\"name\":\"sockets\",\"emptyDir\":{}},"
                + "{\"name\":\"data\",\"emptyDir\":{}}]"));
        return JSON.writeValueAsBytes(review);
    }

    @Test
    void anAppOnASocketIsReachedThroughTheVolumeThatHoldsIt() throws Exception {
        Pod pod = pod(patched(socketPod("/var/run/app/web.sock",
                "[{\"name\":\"data\",\"mountPath\":\"/var\"},{\"name\":\"sockets\",\"mountPath\":\"/var/run/app/\"}]")));
        Container proxy = pod.getSpec().getInitContainers().get(0);
        // The nearest mount holding the socket, at the sidecar's own path (never /tmp or /etc/strait, which it has).
        assertThat(proxy.getVolumeMounts()).extracting(m -> m.getName() + " " + m.getMountPath())
                .containsExactly("strait-sidecar-config /etc/strait", "strait-sidecar-tmp /tmp", "sockets /run/strait-app");
        assertThat(proxy.getVolumeMounts().get(2).getReadOnly()).as("connecting needs write permission").isNull();
        Config config = ConfigParser.parse(pod.getMetadata().getAnnotations().get("strait.dev/sidecar-config"), "sidecar");
        assertThat(config.upstreams().get(0).endpoints()).extracting(Object::toString)
                .containsExactly("unix:/run/strait-app/web.sock");
        assertThat(config.listeners().get(0).address().port()).isEqualTo(8000);
    }

    @Test
    void aSocketMountedWithASubPathKeepsIt() throws Exception {
        Pod pod = pod(patched(socketPod("/sock/deep/web.sock",
                "[{\"name\":\"sockets\",\"mountPath\":\"/sock\",\"subPath\":\"web\"}]")));
        Container proxy = pod.getSpec().getInitContainers().get(0);
        assertThat(proxy.getVolumeMounts().get(2).getSubPath()).isEqualTo("web");
        Config config = ConfigParser.parse(pod.getMetadata().getAnnotations().get("strait.dev/sidecar-config"), "sidecar");
        assertThat(config.upstreams().get(0).endpoints()).extracting(Object::toString)
                .containsExactly("unix:/run/strait-app/deep/web.sock");
    }

    @Test
    void aSocketTheSidecarCannotReachIsAllowedUninjectedWithAWarning() throws Exception {
        String[][] cases = {
            {"/run/web.sock", "[{\"name\":\"sockets\",\"mountPath\":\"/var/run/app\"}]",
                "strait.dev/app-socket: no container of the pod mounts a volume holding /run/web.sock"},
            {"/var/run/appx.sock", "[{\"name\":\"sockets\",\"mountPath\":\"/var/run/app\"}]",
                "strait.dev/app-socket: no container of the pod mounts a volume holding /var/run/appx.sock"},
            {"run/web.sock", "[]", "strait.dev/app-socket: a unix socket is an absolute file path"},
            {"/s/web.sock", "[{\"name\":\"sockets\",\"mountPath\":\"/s\",\"subPathExpr\":\"$(POD)\"}]",
                "strait.dev/app-socket: the volume holding /s/web.sock is mounted with subPathExpr"},
            {"/s/" + "x".repeat(95) + ".sock", "[{\"name\":\"sockets\",\"mountPath\":\"/s\"}]",
                "strait.dev/app-socket: in the sidecar at /run/strait-app/" + "x".repeat(95)
                        + ".sock: a unix socket's path holds at most 107 bytes"},
        };
        for (String[] c : cases) {
            JsonNode response = answer(socketPod(c[0], c[1]));
            assertThat(response.has("patch")).as(c[0]).isFalse();
            assertThat(response.path("warnings").get(0).asText()).as(c[0]).startsWith("strait sidecar not injected: " + c[2]);
        }
    }

    @Test
    void somethingElseThanAnAdmissionReviewIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HANDLER.handle("{\"kind\":\"Pod\"}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IOException.class);
    }
}
