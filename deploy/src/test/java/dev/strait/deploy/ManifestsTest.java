package dev.strait.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.operator.crd.Route;
import dev.strait.operator.crd.Upstream;
import dev.strait.operator.translate.Inputs;
import dev.strait.operator.translate.ProxyDefaults;
import dev.strait.operator.translate.ResourceKey;
import dev.strait.operator.translate.ResourceReport;
import dev.strait.operator.translate.Translation;
import dev.strait.operator.translate.Translator;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * manifests/install.yaml is the chart rendered with its defaults (and fails when it drifts), and every
 * example in manifests/examples is valid Kubernetes YAML whose Routes, Upstreams and Ingresses the
 * operator's own translation accepts with every reference resolved.
 */
class ManifestsTest {
    static final Path INSTALL = Chart.ROOT.resolve("manifests/install.yaml");
    static final Path EXAMPLES = Chart.ROOT.resolve("manifests/examples");

    /** What install.yaml must contain: the namespace, the CRDs, and the chart's objects. */
    static String renderInstall() throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append("# Strait, installed without Helm: kubectl apply --server-side -f manifests/install.yaml\n");
        sb.append("# Generated from helm/strait with its default values (release \"strait\", namespace \"")
                .append(Chart.NAMESPACE).append("\"); do not edit.\n");
        sb.append("# Regenerate: ./mvnw -B -q -pl deploy -am -Pupdate-manifests test -Dtest=ManifestsTest"
                + " -Dsurefire.failIfNoSpecifiedTests=false\n");
        sb.append("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ").append(Chart.NAMESPACE).append('\n');
        try (Stream<Path> crds = Files.list(Chart.DIR.resolve("crds"))) {
            for (Path crd : crds.sorted().toList()) {
                sb.append("---\n# Source: strait/crds/").append(crd.getFileName()).append('\n')
                        .append(Files.readString(crd, StandardCharsets.UTF_8).strip()).append('\n');
            }
        }
        String rendered = Chart.template("strait", c -> c.skipCrds());
        sb.append(rendered.strip()).append('\n');
        return sb.toString();
    }

    @Test
    void installYamlIsTheRenderedChart() throws IOException {
        String expected = renderInstall();
        if (Boolean.getBoolean("strait.updateManifests")) {
            Files.writeString(INSTALL, expected, StandardCharsets.UTF_8);
        }
        assertThat(INSTALL).as("manifests/install.yaml is stale; regenerate with the command at its top")
                .hasContent(expected);
        List<HasMetadata> objs = Chart.objects(expected);
        assertThat(objs.get(0)).isInstanceOf(Namespace.class);
        assertThat(Chart.all(objs, CustomResourceDefinition.class)).extracting(c -> c.getMetadata().getName())
                .containsExactly("routes.strait.dev", "upstreams.strait.dev");
        assertThat(Chart.all(objs, Deployment.class)).extracting(d -> d.getMetadata().getName())
                .containsExactlyInAnyOrder("strait-operator", "strait-proxy");
    }

    static List<Path> examples() throws IOException {
        try (Stream<Path> s = Files.list(EXAMPLES)) {
            return s.filter(p -> p.toString().endsWith(".yaml") && !p.toString().endsWith("-values.yaml")).sorted().toList();
        }
    }

    /** Every document of an example, typed (Route and Upstream as the operator's classes). */
    static List<HasMetadata> load(Path file) throws IOException {
        List<HasMetadata> out = new ArrayList<>();
        for (String doc : Files.readString(file).split("(?m)^---\\s*$")) {
            if (doc.replaceAll("(?m)^#.*$", "").isBlank()) {
                continue;
            }
            if (doc.contains("kind: Route")) {
                out.add(Serialization.unmarshal(doc, Route.class));
            } else if (doc.contains("kind: Upstream")) {
                out.add(Serialization.unmarshal(doc, Upstream.class));
            } else {
                out.add(Serialization.unmarshal(doc, HasMetadata.class));
            }
        }
        return out;
    }

    /** A ready endpoint for every port of a Service, as the EndpointSlice controller would make. */
    static EndpointSlice slice(Service s) {
        EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata()
                .withNamespace(s.getMetadata().getNamespace()).withName(s.getMetadata().getName() + "-x")
                .withLabels(Map.of("kubernetes.io/service-name", s.getMetadata().getName())).endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint().withAddresses("10.1.0.1").withNewConditions().withReady(true).endConditions().endEndpoint();
        for (ServicePort p : s.getSpec().getPorts()) {
            b.addNewPort().withName(p.getName()).withPort(p.getPort() + 1000).withProtocol("TCP").endPort();
        }
        return b.build();
    }

    @ParameterizedTest
    @MethodSource("examples")
    void everyExampleIsAcceptedByTheTranslation(Path file) throws IOException {
        List<HasMetadata> objs = load(file);
        assertThat(objs).isNotEmpty().allSatisfy(o -> assertThat(o.getMetadata().getNamespace())
                .as("%s %s names its namespace", o.getKind(), o.getMetadata().getName()).isNotBlank());
        List<Route> routes = Chart.all(objs, Route.class);
        List<Upstream> upstreams = Chart.all(objs, Upstream.class);
        List<Service> services = Chart.all(objs, Service.class);
        List<Ingress> ingresses = Chart.all(objs, Ingress.class);
        if (List.of("ingress.yaml", "admin-guarded.yaml", "jwt-api.yaml").contains(file.getFileName().toString())) {
            services = Chart.all(load(EXAMPLES.resolve("basic-route.yaml")), Service.class);
        } else if (file.getFileName().toString().equals("forward-auth.yaml")) {
            services = new ArrayList<>(services); // its app is basic-route.yaml's
            services.addAll(Chart.all(load(EXAMPLES.resolve("basic-route.yaml")), Service.class));
        }
        // The API server turns stringData into data; the operator reads data.
        List<Secret> secrets = Chart.all(objs, Secret.class);
        for (Secret s : secrets) {
            if (s.getStringData() != null) {
                Map<String, String> data = new java.util.HashMap<>(s.getData() == null ? Map.of() : s.getData());
                s.getStringData().forEach((k, v) -> data.put(k, java.util.Base64.getEncoder()
                        .encodeToString(v.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
                s.setData(data);
                s.setStringData(null);
            }
        }
        routes.forEach(r -> r.getMetadata().setGeneration(1L));
        upstreams.forEach(u -> u.getMetadata().setGeneration(1L));
        ingresses.forEach(i -> i.getMetadata().setGeneration(1L));
        Translation t = new Translator(ProxyDefaults.STANDARD).translate(new Inputs(routes, upstreams, services,
                services.stream().map(ManifestsTest::slice).toList(), secrets, ingresses, List.of()));
        List<HasMetadata> translated = new ArrayList<>();
        translated.addAll(routes);
        translated.addAll(upstreams);
        translated.addAll(ingresses);
        for (HasMetadata r : translated) {
            ResourceReport report = t.report(new ResourceKey(r.getKind(), r.getMetadata().getNamespace(), r.getMetadata().getName()));
            assertThat(report).as("%s %s", r.getKind(), r.getMetadata().getName()).isNotNull();
            assertThat(report.errors()).as("%s %s", r.getKind(), r.getMetadata().getName()).isEmpty();
            if (!r.getKind().equals("Upstream")) {
                assertThat(report.inSnapshot()).isTrue();
            }
        }
    }
}
