package dev.strait.operator.translate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The names cluster DNS gives a Service, in the default cluster domain and in another (kubelet's
 * {@code --cluster-domain}, the operator's own): a Service's name in the domain the operator is told is that Service;
 * one in any other domain is not a Service but still a name of the cluster, never one outside it.
 */
class ClusterDnsTest {
    private static final String DEFAULT = ClusterDns.DEFAULT_DOMAIN;
    private static final String CORP = "corp.internal";
    private static final ClusterDns.ServiceName AUTH = new ClusterDns.ServiceName("auth", "identity");

    /** host, domain, the Service it names (null for none), whether it is the cluster's (a Service's name is). */
    static Stream<Arguments> names() {
        return Stream.of(
                Arguments.of("auth.identity.svc", DEFAULT, AUTH, true),
                Arguments.of("auth.identity.svc", CORP, AUTH, true),
                Arguments.of("auth.identity.svc.cluster.local", DEFAULT, AUTH, true),
                Arguments.of("auth.identity.svc.corp.internal", CORP, AUTH, true),
                Arguments.of("auth.identity.svc.k8s.corp.example", "k8s.corp.example", AUTH, true),
                Arguments.of("auth.identity.svc.local", "local", AUTH, true),
                // A Service's name in another domain: not this cluster's Service, but not outside the cluster either.
                Arguments.of("auth.identity.svc.corp.internal", DEFAULT, null, true),
                Arguments.of("auth.identity.svc.cluster.local", CORP, null, true),
                Arguments.of("auth.identity.svc.internal", CORP, null, true),
                // Not a Service: a headless Service's pod, a pod, the domain itself, empty labels.
                Arguments.of("web-0.web.identity.svc.corp.internal", CORP, null, true),
                Arguments.of("10-1-0-9.identity.pod.corp.internal", CORP, null, true),
                Arguments.of("10-1-0-9.identity.pod.cluster.local", DEFAULT, null, true),
                Arguments.of("10-1-0-9.identity.pod.cluster.local", CORP, null, true),
                Arguments.of("corp.internal", CORP, null, true),
                Arguments.of("identity.svc", CORP, null, true),
                Arguments.of(".identity.svc.corp.internal", CORP, null, true),
                // Outside the cluster in one domain, the cluster's in the other.
                Arguments.of("10-1-0-9.identity.pod.corp.internal", DEFAULT, null, false),
                Arguments.of("db.corp.internal", DEFAULT, null, false),
                Arguments.of("db.corp.internal", CORP, null, true),
                Arguments.of("api.example.com", DEFAULT, null, false),
                Arguments.of("api.example.com", CORP, null, false),
                Arguments.of("notcorp.internal", CORP, null, false),
                Arguments.of("auth.identity.svcx.corp.internal", CORP, null, true));
    }

    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource("names")
    void aServiceIsNamedInTheClusterDomain(String host, String domain, ClusterDns.ServiceName service, boolean internal) {
        assertThat(ClusterDns.service(host, domain)).isEqualTo(service);
        assertThat(service != null || ClusterDns.internal(host, domain)).as("the cluster's").isEqualTo(internal);
    }
}
