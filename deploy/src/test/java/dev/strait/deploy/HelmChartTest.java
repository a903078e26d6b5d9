package dev.strait.deploy;

import static dev.strait.deploy.Chart.all;
import static dev.strait.deploy.Chart.objects;
import static dev.strait.deploy.Chart.one;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.IngressClass;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** helm lint, and helm template with several value sets, asserted on as Kubernetes objects. */
class HelmChartTest {

    @Test
    void lintIsClean() {
        LintResult r = new Helm(Chart.DIR).lint().strict().call();
        assertThat(r.isFailed()).as(String.join("\n", r.getMessages())).isFalse();
        assertThat(r.getMessages()).noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
    }

    @Test
    void theChartCarriesTheGeneratedCrds() throws Exception {
        try (Stream<Path> files = Files.list(Chart.ROOT.resolve("crds"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yml")).toList()) {
                Path copy = Chart.DIR.resolve("crds").resolve(f.getFileName());
                assertThat(copy).as("helm/strait/crds/%s (regenerate: see docs/deploy.md)", f.getFileName())
                        .exists().hasSameTextualContentAs(f);
            }
        }
    }

    @Test
    void defaultsInstallAnHaOperatorProxiesAndTheWebhook() {
        List<HasMetadata> objs = objects(Chart.template("strait", Map.of()));

        Deployment operator = one(objs, Deployment.class, "strait-operator");
        assertThat(operator.getMetadata().getNamespace()).isEqualTo(Chart.NAMESPACE);
        assertThat(operator.getSpec().getReplicas()).isEqualTo(2);
        Container op = operator.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(op.getImage()).isEqualTo("ghcr.io/strait-dev/strait-operator:0.1.0");
        assertThat(op.getArgs()).contains("--leader-election=true", "--secure=true",
                "--control-names=strait-operator.strait-system.svc,strait-operator.strait-system.svc.cluster.local",
                "--ingress-address=strait-system/strait-proxy", "--proxy-http-address=0.0.0.0:8080",
                "--proxy-https-address=0.0.0.0:8443", "--proxy-admin-address=0.0.0.0:9901",
                "--webhook-address=0.0.0.0:8443", "--webhook-config=strait-sidecar-injector",
                "--webhook-service=strait-operator", "--sidecar-image=ghcr.io/strait-dev/strait-proxy:0.1.0");
        assertThat(op.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(op.getArgs()).as("nobody's X-Forwarded-Proto by default").noneMatch(a -> a.startsWith("--proxy-trusted-peers"));
        assertThat(op.getArgs()).as("no PROXY protocol header expected by default").noneMatch(a -> a.startsWith("--proxy-protocol"));
        assertThat(op.getArgs()).as("no OCSP stapling by default").noneMatch(a -> a.startsWith("--proxy-ocsp-stapling"));
        assertThat(op.getArgs()).as("the proxies' own TLS versions and suites by default").noneMatch(a -> a.startsWith("--proxy-tls"));
        assertThat(op.getArgs()).as("no tracing by default").noneMatch(a -> a.startsWith("--proxy-tracing"));
        assertThat(op.getArgs()).as("the operator's own default domain").noneMatch(a -> a.startsWith("--cluster-domain"));
        assertThat(op.getArgs()).as("the proxies' default budget, passed as the proxies' /tmp is sized for it")
                .contains("--proxy-request-body-files-max-bytes=268435456");

        Deployment proxy = one(objs, Deployment.class, "strait-proxy");
        assertThat(proxy.getSpec().getReplicas()).isEqualTo(2);
        PodSpec pod = proxy.getSpec().getTemplate().getSpec();
        Container px = pod.getContainers().get(0);
        assertThat(px.getArgs()).containsExactly("--control=strait-operator.strait-system.svc:18000", "--state-dir=/var/lib/strait");
        assertThat(px.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(px.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(px.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("admin");
        // Accepting on while the endpoint leaves the Service, then 40 s to drain.
        assertThat(px.getLifecycle().getPreStop().getExec().getCommand()).containsExactly("sleep", "5");
        assertThat(pod.getTerminationGracePeriodSeconds()).isEqualTo(45L);
        assertThat(px.getPorts()).extracting(p -> p.getName() + ":" + p.getContainerPort())
                .containsExactly("http:8080", "https:8443", "admin:9901");
        assertThat(px.getEnv()).extracting(e -> e.getName() + "=" + e.getValue()).contains(
                "STRAIT_INGRESS_CLASS=strait", "STRAIT_CONTROL_CA=/etc/strait/control-ca/ca.crt",
                "STRAIT_CONTROL_TOKEN_FILE=/var/run/secrets/strait/token",
                "STRAIT_JIT=full"); // ingress proxies terminate TLS and HTTP/2: C2 (ADR 0110)
        assertThat(pod.getVolumes()).filteredOn(v -> v.getProjected() != null).singleElement().satisfies(v -> assertThat(v.getProjected().getSources().get(0)
                .getServiceAccountToken().getAudience()).isEqualTo("strait-control"));
        assertThat(proxy.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry("prometheus.io/scrape", "true").containsEntry("prometheus.io/port", "9901")
                .containsEntry("prometheus.io/path", "/metrics");

        Service svc = one(objs, Service.class, "strait-proxy");
        assertThat(svc.getSpec().getType()).isEqualTo("LoadBalancer");
        assertThat(svc.getSpec().getPorts()).extracting(p -> p.getPort() + "->" + p.getTargetPort().getStrVal())
                .containsExactly("80->http", "443->https");
        assertThat(svc.getSpec().getSelector()).isEqualTo(proxy.getSpec().getSelector().getMatchLabels());

        IngressClass cls = one(objs, IngressClass.class, "strait");
        assertThat(cls.getSpec().getController()).isEqualTo("strait.dev/ingress-controller");
        assertThat(cls.getMetadata().getAnnotations()).isNullOrEmpty();

        assertThat(one(objs, PodDisruptionBudget.class, "strait-proxy").getSpec().getMinAvailable().getIntVal()).isEqualTo(1);
        assertThat(one(objs, PodDisruptionBudget.class, "strait-operator").getSpec().getSelector().getMatchLabels())
                .isEqualTo(operator.getSpec().getSelector().getMatchLabels());

        MutatingWebhookConfiguration mwc = one(objs, MutatingWebhookConfiguration.class, "strait-sidecar-injector");
        MutatingWebhook w = mwc.getWebhooks().get(0);
        assertThat(w.getFailurePolicy()).isEqualTo("Ignore");
        assertThat(w.getSideEffects()).isEqualTo("None");
        assertThat(w.getClientConfig().getService().getName()).isEqualTo("strait-operator");
        assertThat(w.getClientConfig().getService().getPath()).isEqualTo("/inject");
        assertThat(w.getClientConfig().getCaBundle()).as("patched in by the operator").isNull();
        assertThat(w.getRules().get(0).getResources()).containsExactly("pods");
        assertThat(w.getNamespaceSelector().getMatchExpressions().get(0).getValues())
                .containsExactly("strait-system", "kube-system");
        assertThat(one(objs, Service.class, "strait-operator").getSpec().getPorts())
                .extracting(p -> p.getName() + ":" + p.getPort()).containsExactly("control:18000", "webhook:443");

        assertThat(all(objs, GenericKubernetesResource.class)).as("no ServiceMonitor unless asked").isEmpty();
    }

    @Test
    void everyContainerIsNonRootReadOnlyAndHasRequests() {
        for (Map<String, Object> values : List.<Map<String, Object>>of(Map.of(), Map.of("proxy.kind", "DaemonSet"))) {
            List<HasMetadata> objs = objects(Chart.template("strait", values));
            List<PodSpec> pods = Stream.concat(
                    all(objs, Deployment.class).stream().map(d -> d.getSpec().getTemplate().getSpec()),
                    all(objs, DaemonSet.class).stream().map(d -> d.getSpec().getTemplate().getSpec())).toList();
            assertThat(pods).hasSize(2);
            for (PodSpec pod : pods) {
                assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
                for (Container c : pod.getContainers()) {
                    assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).as(c.getName()).isTrue();
                    assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).as(c.getName()).isFalse();
                    assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
                    assertThat(c.getResources().getRequests()).as(c.getName()).containsKeys("cpu", "memory");
                    assertThat(c.getResources().getLimits()).as(c.getName()).containsKey("memory");
                }
            }
        }
    }

    /**
     * The proxies' root is read-only: /tmp holds the native libraries unpacked before they load (16Mi) and the request
     * bodies that outgrow memory, at most proxy.requestBodyFiles.maxBytes at once: the budget the chart passes to the
     * operator, always, for every snapshot. The kubelet evicts a pod whose emptyDir outgrows its sizeLimit, so the limit
     * is 16Mi + the budget rounded up to a Mi, from the same value: the two cannot disagree. Values read from a file are
     * float64 in Helm, those given with --set int64: both are written as whole numbers.
     */
    @Test
    void theRequestBodyFileBudgetGoesToTheOperatorAndSizesTheProxysTmp(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        long dflt = dev.strait.model.Config.RequestBodyFiles.DEFAULTS.maxBytes();
        Object[][] cases = {
            {null, dflt, "272Mi"}, // the chart's default, the proxies' own
            {0L, 0L, "16Mi"}, // no files
            {1073741824L, 1L << 30, "1040Mi"},
            {1L, 1L, "17Mi"}, // rounded up
            {1048577L, 1048577L, "18Mi"},
        };
        Path file = dir.resolve("values.yaml");
        for (Object[] c : cases) {
            long budget = (Long) c[1];
            for (String kind : List.of("Deployment", "DaemonSet")) {
                for (boolean fromFile : List.of(false, true)) {
                    String yaml;
                    if (fromFile) {
                        Files.writeString(file, "proxy:\n  kind: " + kind + (c[0] == null ? "\n"
                                : "\n  requestBodyFiles: { maxBytes: " + c[0] + " }\n"));
                        yaml = Chart.template("strait", t -> t.withValuesFile(file));
                    } else {
                        Map<String, Object> values = new java.util.HashMap<>(Map.of("proxy.kind", kind));
                        if (c[0] != null) {
                            values.put("proxy.requestBodyFiles.maxBytes", c[0]);
                        }
                        yaml = Chart.template("strait", values);
                    }
                    String what = c[0] + " " + kind + (fromFile ? " from a file" : " with --set");
                    List<HasMetadata> objs = objects(yaml);
                    assertThat(one(objs, Deployment.class, "strait-operator").getSpec().getTemplate().getSpec()
                            .getContainers().get(0).getArgs()).as(what)
                            .contains("--proxy-request-body-files-max-bytes=" + budget)
                            .filteredOn(a -> a.startsWith("--proxy-request-body-files")).hasSize(1);
                    PodSpec pod = (kind.equals("Deployment")
                            ? one(objs, Deployment.class, "strait-proxy").getSpec().getTemplate()
                            : one(objs, DaemonSet.class, "strait-proxy").getSpec().getTemplate()).getSpec();
                    assertThat(pod.getContainers().get(0).getVolumeMounts()).filteredOn(m -> m.getMountPath().equals("/tmp"))
                            .singleElement().extracting(m -> m.getName()).isEqualTo("tmp");
                    io.fabric8.kubernetes.api.model.Quantity limit = pod.getVolumes().stream()
                            .filter(v -> v.getName().equals("tmp")).findFirst().orElseThrow().getEmptyDir().getSizeLimit();
                    assertThat(limit.toString()).as(what).isEqualTo(c[2]);
                    assertThat(io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(limit).longValueExact()).as(what)
                            .isGreaterThanOrEqualTo((16L << 20) + budget).isLessThan((17L << 20) + budget);
                }
            }
        }
        for (Object bad : List.of(-1, 1.5, "256Mi")) {
            assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.requestBodyFiles.maxBytes", bad))).as("%s", bad)
                    .hasMessageContaining("/proxy/requestBodyFiles/maxBytes");
        }
        Files.writeString(file, "proxy: { requestBodyFiles: { maxBytes: 268435456.5 } }\n");
        assertThatThrownBy(() -> Chart.template("strait", t -> t.withValuesFile(file)))
                .hasMessageContaining("/proxy/requestBodyFiles/maxBytes");
        Files.writeString(file, "proxy: { requestBodyFiles: { maxBytes: null } }\n");
        assertThatThrownBy(() -> Chart.template("strait", t -> t.withValuesFile(file))).as("a budget is required")
                .hasMessageContaining("maxBytes");
    }

    @Test
    void theProxysSeccompProfileIsRuntimeDefaultUnlessIoUringIsLetIn() {
        List<HasMetadata> objs = objects(Chart.template("strait", Map.of()));
        assertThat(one(objs, Deployment.class, "strait-proxy").getSpec().getTemplate().getSpec().getSecurityContext()
                .getSeccompProfile().getType()).isEqualTo("RuntimeDefault");

        // RuntimeDefault refuses io_uring: a cluster that wants it for the proxy says so (ADR 0035).
        objs = objects(Chart.template("strait", Map.of("proxy.seccompProfile.type", "Localhost",
                "proxy.seccompProfile.localhostProfile", "profiles/strait-io-uring.json")));
        var proxy = one(objs, Deployment.class, "strait-proxy").getSpec().getTemplate().getSpec().getSecurityContext();
        assertThat(proxy.getSeccompProfile().getType()).isEqualTo("Localhost");
        assertThat(proxy.getSeccompProfile().getLocalhostProfile()).isEqualTo("profiles/strait-io-uring.json");
        assertThat(one(objs, Deployment.class, "strait-operator").getSpec().getTemplate().getSpec().getSecurityContext()
                .getSeccompProfile().getType()).as("the operator keeps the default").isEqualTo("RuntimeDefault");
    }

    @Test
    void rbacIsLeastPrivilege() {
        List<HasMetadata> objs = objects(Chart.template("strait", Map.of()));
        ClusterRole cr = one(objs, ClusterRole.class, "strait-operator");
        for (PolicyRule r : cr.getRules()) {
            assertThat(r.getVerbs()).as("cluster-wide %s", r.getResources()).doesNotContain("*", "delete", "deletecollection");
            assertThat(r.getResources()).doesNotContain("*");
            assertThat(r.getApiGroups()).doesNotContain("*");
        }
        assertThat(cr.getRules()).filteredOn(r -> r.getResources().contains("secrets")).singleElement()
                .satisfies(r -> assertThat(r.getVerbs()).as("cluster-wide Secrets: read only").containsExactly("list", "watch"));
        assertThat(cr.getRules()).filteredOn(r -> r.getResources().contains("configmaps")).singleElement()
                .satisfies(r -> {
                    assertThat(r.getApiGroups()).containsExactly("");
                    assertThat(r.getVerbs()).as("cluster-wide ConfigMaps (custom-headers): read only")
                            .containsExactly("list", "watch");
                });
        assertThat(cr.getRules()).filteredOn(r -> r.getResources().contains("mutatingwebhookconfigurations")).singleElement()
                .satisfies(r -> assertThat(r.getResourceNames()).containsExactly("strait-sidecar-injector"));
        assertThat(cr.getRules()).filteredOn(r -> r.getResources().contains("ingresses/status")).hasSize(1);
        assertThat(cr.getRules()).filteredOn(r -> r.getResources().contains("events")).singleElement()
                .satisfies(r -> {
                    assertThat(r.getApiGroups()).as("core/v1 Events").containsExactly("");
                    assertThat(r.getVerbs()).as("Events are made and counted again, never read").containsExactly("create", "patch");
                });
        Role role = one(objs, Role.class, "strait-operator");
        assertThat(role.getMetadata().getNamespace()).isEqualTo(Chart.NAMESPACE);
        assertThat(role.getRules()).flatExtracting(PolicyRule::getResources).containsExactlyInAnyOrder("secrets", "configmaps", "leases");
        assertThat(one(objs, ServiceAccount.class, "strait-proxy").getAutomountServiceAccountToken()).isFalse();
    }

    @Test
    void daemonSetNodePortServiceMonitorAndDefaultClass() {
        List<HasMetadata> objs = objects(Chart.template("strait", Map.of(
                "proxy.kind", "DaemonSet",
                "proxy.service.type", "NodePort",
                "proxy.service.httpNodePort", 30080,
                "proxy.ingressClass.default", true,
                "metrics.serviceMonitor.enabled", true)));
        assertThat(all(objs, Deployment.class)).extracting(d -> d.getMetadata().getName()).containsExactly("strait-operator");
        DaemonSet ds = one(objs, DaemonSet.class, "strait-proxy");
        assertThat(ds.getSpec().getTemplate().getSpec().getContainers().get(0).getImage()).endsWith("/strait-proxy:0.1.0");
        Service svc = one(objs, Service.class, "strait-proxy");
        assertThat(svc.getSpec().getType()).isEqualTo("NodePort");
        assertThat(svc.getSpec().getPorts().get(0).getNodePort()).isEqualTo(30080);
        assertThat(svc.getSpec().getPorts().get(1).getNodePort()).isNull();
        assertThat(one(objs, IngressClass.class, "strait").getMetadata().getAnnotations())
                .containsEntry("ingressclass.kubernetes.io/is-default-class", "true");
        GenericKubernetesResource sm = all(objs, GenericKubernetesResource.class).get(0);
        assertThat(sm.getKind()).isEqualTo("ServiceMonitor");
        assertThat(sm.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
        Map<String, Object> spec = sm.get("spec");
        assertThat(spec.toString()).contains("port=admin", "path=/metrics");
        assertThat(one(objs, Service.class, "strait-proxy-metrics").getMetadata().getLabels())
                .containsEntry("app.kubernetes.io/component", "proxy-metrics");
    }

    @Test
    void anotherReleaseWithoutInjectionOrChannelSecurity() {
        List<HasMetadata> objs = objects(Chart.template("edge", Map.of(
                "sidecarInjector.enabled", false,
                "operator.secure", false,
                "operator.replicas", 1,
                "proxy.ingressClass.name", "edge",
                "proxy.ingressAddress", "203.0.113.7",
                "proxy.trustedPeers", "10.0.0.0/8",
                "proxy.proxyProtocol", true,
                "proxy.ocspStapling", true,
                "proxy.tlsMinVersion", "1.2",
                "proxy.tlsCiphers", "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA")));
        assertThat(all(objs, MutatingWebhookConfiguration.class)).isEmpty();
        Container op = one(objs, Deployment.class, "edge-strait-operator").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(op.getArgs()).contains("--secure=false", "--ingress-address=203.0.113.7", "--proxy-trusted-peers=10.0.0.0/8",
                "--proxy-protocol=true", "--proxy-ocsp-stapling=true", "--proxy-tls-min-version=1.2",
                "--proxy-tls-ciphers=ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA", "--control-names=edge-strait-operator.strait-system.svc,edge-strait-operator.strait-system.svc.cluster.local");
        assertThat(op.getArgs()).noneMatch(a -> a.startsWith("--webhook"));
        assertThat(op.getReadinessProbe().getTcpSocket()).isNotNull();
        assertThat(one(objs, ClusterRole.class, "edge-strait-operator").getRules())
                .noneMatch(r -> r.getApiGroups().contains("admissionregistration.k8s.io"));
        Deployment proxy = one(objs, Deployment.class, "edge-strait-proxy");
        Container px = proxy.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(px.getArgs()).contains("--control=edge-strait-operator.strait-system.svc:18000");
        assertThat(px.getEnv()).extracting(e -> e.getName()).doesNotContain("STRAIT_CONTROL_CA", "STRAIT_CONTROL_TOKEN_FILE");
        assertThat(one(objs, IngressClass.class, "edge")).isNotNull();
    }

    /** proxy.tracing.* become the operator's --proxy-tracing-* flags, and only with an endpoint. */
    @Test
    void tracingIsPassedToTheOperatorWithAnEndpoint() {
        String collector = "http://otel-collector.monitoring:4318/v1/traces";
        assertThat(operatorArgs(Map.of("proxy.tracing.endpoint", collector))).containsSubsequence(
                "--proxy-tracing-endpoint=" + collector, "--proxy-tracing-percent=100",
                "--proxy-tracing-service-name=strait", "--proxy-tracing-trust-incoming=true",
                "--proxy-tracing-protocol=http/protobuf");
        assertThat(operatorArgs(Map.of("proxy.tracing.endpoint", collector, "proxy.tracing.protocol", "http/json")))
                .contains("--proxy-tracing-protocol=http/json");
        assertThat(operatorArgs(Map.of("proxy.tracing.endpoint", "http://otel-collector.monitoring:4317",
                "proxy.tracing.protocol", "grpc"))).contains("--proxy-tracing-protocol=grpc");
        assertThat(operatorArgs(Map.of("proxy.tracing.endpoint", collector))).as("upstream spans off by default")
                .noneMatch(a -> a.startsWith("--proxy-tracing-upstream-spans"));
        assertThat(operatorArgs(Map.of("proxy.tracing.endpoint", collector, "proxy.tracing.upstreamSpans", true)))
                .contains("--proxy-tracing-upstream-spans=true");
        assertThat(operatorArgs(Map.of("proxy.tracing.endpoint", collector, "proxy.tracing.upstreamSpans", false)))
                .noneMatch(a -> a.startsWith("--proxy-tracing-upstream-spans"));
        assertThat(operatorArgs(Map.of("proxy.tracing.endpoint", collector, "proxy.tracing.percent", "2.5",
                "proxy.tracing.serviceName", "edge proxy: eu", "proxy.tracing.trustIncoming", false))).contains(
                "--proxy-tracing-percent=2.5", "--proxy-tracing-service-name=edge proxy: eu",
                "--proxy-tracing-trust-incoming=false");
        assertThat(operatorArgs(Map.of("proxy.tracing.endpoint", collector, "proxy.tracing.percent", 0,
                "proxy.tracing.trustIncoming", "10.0.0.0/8,fd00::/8"))).contains("--proxy-tracing-percent=0",
                "--proxy-tracing-trust-incoming=10.0.0.0/8,fd00::/8");
        assertThat(operatorArgs(Map.of("proxy.tracing.percent", 10, "proxy.tracing.upstreamSpans", true)))
                .as("settings without an endpoint do nothing")
                .noneMatch(a -> a.startsWith("--proxy-tracing"));
    }

    private static final String RESOURCE_ATTRIBUTES = "k8s.namespace.name=$(STRAIT_K8S_NAMESPACE),"
            + "k8s.pod.name=$(STRAIT_K8S_POD_NAME),k8s.node.name=$(STRAIT_K8S_NODE_NAME)";

    private static List<EnvVar> proxyEnv(List<HasMetadata> objs, Class<? extends HasMetadata> kind) {
        HasMetadata workload = one(objs, kind, "strait-proxy");
        PodSpec pod = workload instanceof Deployment d ? d.getSpec().getTemplate().getSpec()
                : ((DaemonSet) workload).getSpec().getTemplate().getSpec();
        return pod.getContainers().get(0).getEnv();
    }

    /** What an env entry is: NAME=value, or NAME<-fieldPath for the downward API's. */
    private static String describe(EnvVar e) {
        return e.getValueFrom() != null && e.getValueFrom().getFieldRef() != null
                ? e.getName() + "<-" + e.getValueFrom().getFieldRef().getFieldPath() : e.getName() + "=" + e.getValue();
    }

    /**
     * The spans' resource names the pod (OpenTelemetry's k8s.* conventions): the downward API's fields, then
     * OTEL_RESOURCE_ATTRIBUTES from them, which Kubernetes expands only from variables listed before it.
     */
    @Test
    void theProxiesNameTheirPodInTheSpansResource() {
        for (Map<String, Object> values : List.<Map<String, Object>>of(Map.of(), Map.of("proxy.kind", "DaemonSet"),
                Map.of("operator.secure", false, "proxy.javaOpts", "-Xmx64m"))) {
            Class<? extends HasMetadata> kind = values.containsKey("proxy.kind") ? DaemonSet.class : Deployment.class;
            List<EnvVar> env = proxyEnv(objects(Chart.template("strait", values)), kind);
            List<String> names = env.stream().map(EnvVar::getName).toList();
            int first = names.indexOf("STRAIT_K8S_NAMESPACE");
            assertThat(first).as("%s", values).isPositive();
            assertThat(env.subList(first, first + 4)).extracting(HelmChartTest::describe).as("%s", values).containsExactly(
                    "STRAIT_K8S_NAMESPACE<-metadata.namespace", "STRAIT_K8S_POD_NAME<-metadata.name",
                    "STRAIT_K8S_NODE_NAME<-spec.nodeName", "OTEL_RESOURCE_ATTRIBUTES=" + RESOURCE_ATTRIBUTES);
            assertThat(names).as("the proxy would say hello as a sidecar of its own pod (Identity)")
                    .doesNotContain("STRAIT_POD_NAMESPACE", "STRAIT_POD_NAME");
            assertThat(names).as("each name once").doesNotHaveDuplicates();
        }
    }

    /** proxy.extraEnv goes on the proxy containers as it is, after the chart's own: a collector's key from a Secret, say. */
    @Test
    void extraEnvReachesTheProxyContainers(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path values = dir.resolve("values.yaml");
        Files.writeString(values, """
                proxy:
                  extraEnv:
                    - name: OTEL_EXPORTER_OTLP_HEADERS
                      valueFrom: { secretKeyRef: { name: honeycomb, key: headers } }
                    - { name: OTEL_SERVICE_NAME, value: edge }
                """);
        List<EnvVar> env = proxyEnv(objects(Chart.template("strait", c -> c.withValuesFile(values))), Deployment.class);
        assertThat(env).extracting(EnvVar::getName).containsSubsequence("STRAIT_INGRESS_CLASS", "STRAIT_K8S_NAMESPACE",
                "STRAIT_K8S_POD_NAME", "STRAIT_K8S_NODE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_EXPORTER_OTLP_HEADERS",
                "OTEL_SERVICE_NAME").doesNotHaveDuplicates();
        assertThat(env.get(env.size() - 2).getValueFrom().getSecretKeyRef().getName()).isEqualTo("honeycomb");
        assertThat(describe(env.get(env.size() - 1))).isEqualTo("OTEL_SERVICE_NAME=edge");

        // The user's OTEL_RESOURCE_ATTRIBUTES takes the chart's place (a name twice fails server-side apply), after
        // the downward API's variables, which it may use.
        Files.writeString(values, """
                proxy:
                  extraEnv:
                    - { name: OTEL_RESOURCE_ATTRIBUTES, value: "deployment.environment=prod,k8s.pod.name=$(STRAIT_K8S_POD_NAME)" }
                """);
        env = proxyEnv(objects(Chart.template("strait", c -> c.withValuesFile(values))), Deployment.class);
        assertThat(env).extracting(EnvVar::getName).containsSubsequence("STRAIT_K8S_NAMESPACE", "STRAIT_K8S_POD_NAME",
                "STRAIT_K8S_NODE_NAME", "OTEL_RESOURCE_ATTRIBUTES").doesNotHaveDuplicates();
        assertThat(describe(env.get(env.size() - 1)))
                .isEqualTo("OTEL_RESOURCE_ATTRIBUTES=deployment.environment=prod,k8s.pod.name=$(STRAIT_K8S_POD_NAME)");

        Files.writeString(values, "proxy: { extraEnv: [ { value: x } ] }\n");
        assertThatThrownBy(() -> Chart.template("strait", c -> c.withValuesFile(values))).as("a name is required")
                .hasMessageContaining("extraEnv");
    }

    /** ingress.compression.* become the operator's --ingress-compression* flags, and only when enabled. */
    @Test
    void ingressCompressionIsPassedToTheOperatorWhenEnabled(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        assertThat(operatorArgs(Map.of())).as("off by default").noneMatch(a -> a.startsWith("--ingress-compression"));
        assertThat(operatorArgs(Map.of("ingress.compression.level", 5))).as("settings without enabled do nothing")
                .noneMatch(a -> a.startsWith("--ingress-compression"));
        assertThat(operatorArgs(Map.of("ingress.compression.enabled", true))).containsSubsequence(
                "--ingress-compression=true", "--ingress-compression-level=1", "--ingress-compression-min-bytes=1024")
                .as("no types: the proxies' defaults").noneMatch(a -> a.startsWith("--ingress-compression-types"))
                .as("no codings: the proxies' defaults").noneMatch(a -> a.startsWith("--ingress-compression-codings"));
        Path values = dir.resolve("values.yaml");
        Files.writeString(values, """
                ingress:
                  compression: { enabled: true, level: 6, minBytes: 1048576, types: [ application/json, "text/*" ],
                    codings: [ br, zstd, gzip ] }
                """);
        List<String> args = one(objects(Chart.template("strait", c -> c.withValuesFile(values))), Deployment.class,
                "strait-operator").getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
        assertThat(args).containsSubsequence("--ingress-compression=true", "--ingress-compression-level=6",
                "--ingress-compression-min-bytes=1048576", "--ingress-compression-types=application/json,text/*",
                "--ingress-compression-codings=br,zstd,gzip");
        for (Map.Entry<String, Object> bad : List.of(Map.<String, Object>entry("ingress.compression.level", 0),
                Map.<String, Object>entry("ingress.compression.level", 10),
                Map.<String, Object>entry("ingress.compression.minBytes", -1),
                Map.<String, Object>entry("ingress.compression.enabled", "yes"),
                Map.<String, Object>entry("ingress.compression.types", "text/html"))) {
            assertThatThrownBy(() -> Chart.template("strait", Map.of(bad.getKey(), bad.getValue()))).as("%s", bad)
                    .hasMessageContaining("/" + bad.getKey().replace('.', '/'));
        }
        Files.writeString(values, "ingress: { compression: { types: [ text ] } }\n");
        assertThatThrownBy(() -> Chart.template("strait", c -> c.withValuesFile(values)))
                .hasMessageContaining("/ingress/compression/types/0");
        // The codings the proxies take, each once (as the operator's flag is checked), before the operator would refuse.
        for (String codings : List.of("[ deflate ]", "[ gzip, gzip ]", "[ zstd, br, gzip, zstd ]", "gzip")) {
            Files.writeString(values, "ingress: { compression: { enabled: true, codings: " + codings + " } }\n");
            assertThatThrownBy(() -> Chart.template("strait", c -> c.withValuesFile(values))).as(codings)
                    .hasMessageContaining("/ingress/compression/codings");
        }
    }

    /**
     * ingress.hsts becomes the operator's --ingress-hsts, always passed: ingress-nginx's HSTS by default, so a migration
     * keeps it; "off" turns it off. The schema refuses what is no Strict-Transport-Security value before the operator.
     */
    @Test
    void ingressHstsIsPassedToTheOperator(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        assertThat(operatorArgs(Map.of())).as("on by default, as in ingress-nginx")
                .contains("--ingress-hsts=max-age=31536000; includeSubDomains");
        Path values = dir.resolve("values.yaml");
        for (String ok : List.of("off", "max-age=63072000; includeSubDomains; preload", "MAX-AGE=0",
                " preload;includeSubDomains ; max-age=31536000 ;", "max-age=\"300\"")) {
            Files.writeString(values, "ingress: { hsts: " + com.fasterxml.jackson.databind.node.TextNode.valueOf(ok) + " }\n");
            List<String> args = one(objects(Chart.template("strait", c -> c.withValuesFile(values))), Deployment.class,
                    "strait-operator").getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
            assertThat(args).as(ok).contains("--ingress-hsts=" + ok);
        }
        // ingress-nginx's hsts: "false" is off here; a boolean is refused rather than guessed at.
        for (String bad : List.of("\"\"", "\"true\"", "false", "\"max-age=-1\"", "\"max-age=1y\"",
                "\"max-age=60 includeSubDomains\"", "\"includeSubdomain\"")) {
            Files.writeString(values, "ingress: { hsts: " + bad + " }\n");
            assertThatThrownBy(() -> Chart.template("strait", c -> c.withValuesFile(values))).as(bad)
                    .hasMessageContaining("at '/ingress/hsts'");
        }
        Files.writeString(values, "ingress: { hsts: null }\n");
        assertThatThrownBy(() -> Chart.template("strait", c -> c.withValuesFile(values)))
                .hasMessageContaining("missing property 'hsts'");
    }

    /**
     * ingress.defaultSslCertificate becomes the operator's --default-ssl-certificate (ingress-nginx's flag), passed only
     * when set; the schema refuses what is no NAMESPACE/NAME before the operator would.
     */
    @Test
    void ingressDefaultSslCertificateIsPassedToTheOperatorWhenSet() {
        assertThat(operatorArgs(Map.of())).as("none by default").noneMatch(a -> a.startsWith("--default-ssl-certificate"));
        assertThat(operatorArgs(Map.of("ingress.defaultSslCertificate", ""))).as("empty is none")
                .noneMatch(a -> a.startsWith("--default-ssl-certificate"));
        assertThat(operatorArgs(Map.of("ingress.defaultSslCertificate", "ingress-nginx/wildcard.apps-tls")))
                .contains("--default-ssl-certificate=ingress-nginx/wildcard.apps-tls");
        for (String bad : List.of("wildcard-tls", "certs/", "/wildcard-tls", "a/b/c", "Certs/wildcard", "certs/wild_card",
                "certs/wildcard tls", "certs.x/wildcard")) {
            assertThatThrownBy(() -> Chart.template("strait", Map.of("ingress.defaultSslCertificate", bad))).as(bad)
                    .hasMessageContaining("/ingress/defaultSslCertificate");
        }
    }

    /**
     * clusterDomain becomes the operator's --cluster-domain, and the control channel's certificate names its Service in
     * that domain (the proxies dial NAME.NAMESPACE.svc, which every domain answers).
     */
    @Test
    void anotherClusterDomainIsPassedToTheOperator() {
        List<String> args = operatorArgs(Map.of("clusterDomain", "corp.internal"));
        assertThat(args).contains("--cluster-domain=corp.internal",
                "--control-names=strait-operator.strait-system.svc,strait-operator.strait-system.svc.corp.internal");
        assertThat(args).noneMatch(a -> a.contains("cluster.local"));
        assertThat(operatorArgs(Map.of("clusterDomain", "cluster.local"))).as("the default is not passed")
                .noneMatch(a -> a.startsWith("--cluster-domain"));
        for (String bad : List.of("", "corp.internal.", ".corp.internal", "Corp.Internal", "corp..internal", "corp_internal")) {
            assertThatThrownBy(() -> Chart.template("strait", Map.of("clusterDomain", bad))).as(bad)
                    .hasMessageContaining("clusterDomain");
        }
    }

    private static List<String> operatorArgs(Map<String, Object> values) {
        return one(objects(Chart.template("strait", values)), Deployment.class, "strait-operator").getSpec().getTemplate()
                .getSpec().getContainers().get(0).getArgs();
    }

    /** Ingress proxies run the launcher's full JIT by default (ADR 0110); proxy.jit=small makes them C1 only. */
    @Test
    void theProxiesJitIsFullUnlessSmallIsAsked() {
        Container px = one(objects(Chart.template("strait", Map.of("proxy.jit", "small"))), Deployment.class,
                "strait-proxy").getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(px.getEnv()).extracting(e -> e.getName() + "=" + e.getValue()).contains("STRAIT_JIT=small");
    }

    @Test
    void valuesOutsideTheSchemaAreRefused() {
        assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.kind", "StatefulSet")))
                .hasMessageContaining("/proxy/kind");
        assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.replica", 3)))
                .hasMessageContaining("replica");
        assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.seccompProfile.type", "Off")))
                .hasMessageContaining("/proxy/seccompProfile/type");
        assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.proxyProtocol", "yes")))
                .hasMessageContaining("/proxy/proxyProtocol");
        // --set reads 2.5 as a string: one from 0 to 100 is taken, as the number is.
        for (Object percent : List.of(101, "100.5", "ten", "-1")) {
            assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.tracing.percent", percent))).as("%s", percent)
                    .hasMessageContaining("/proxy/tracing/percent");
        }
        assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.tracing.endpoint", "otel-collector:4317")))
                .as("OTLP over HTTP only").hasMessageContaining("/proxy/tracing/endpoint");
        assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.tracing.serviceName", " ")))
                .hasMessageContaining("/proxy/tracing/serviceName");
        assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.tracing.upstreamSpans", "yes")))
                .hasMessageContaining("/proxy/tracing/upstreamSpans");
        assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.tracing.sampler", "always")))
                .hasMessageContaining("sampler");
        for (Object version : List.of("1.1", 1.0, "TLSv1")) {
            assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.tlsMinVersion", version))).as("%s", version)
                    .hasMessageContaining("/proxy/tlsMinVersion");
        }
        assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.tlsCiphers", "ECDHE-RSA-AES128-SHA ECDHE")))
                .hasMessageContaining("/proxy/tlsCiphers");
        assertThatThrownBy(() -> Chart.template("strait", Map.of("proxy.jit", "c2")))
                .hasMessageContaining("/proxy/jit");
    }
}
