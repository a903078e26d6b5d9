package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.HostPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A Service port becomes the ready endpoints of its EndpointSlices, as kube-proxy sees them. */
class EndpointsTest {
    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("ready endpoints only", "http", List.of(
                        slice("ns", "svc", "s1", "http", 3000, "10.0.0.1", "10.0.0.2!", "10.0.0.3")),
                        List.of("10.0.0.1:3000", "10.0.0.3:3000"), null),
                Arguments.of("several slices, sorted and deduplicated", "http", List.of(
                        slice("ns", "svc", "s2", "http", 3000, "10.0.0.9", "10.0.0.1"),
                        slice("ns", "svc", "s1", "http", 3000, "10.0.0.1")),
                        List.of("10.0.0.1:3000", "10.0.0.9:3000"), null),
                Arguments.of("the slice port is found by the Service port's name", "http", List.of(
                        sliceWithTwoPorts()),
                        List.of("10.0.0.1:3000"), null),
                Arguments.of("slices of other Services are ignored", "http", List.of(
                        slice("ns", "other", "o1", "http", 3000, "10.9.9.9")),
                        List.of(), null),
                Arguments.of("no ready endpoint: an empty list, not an error", "http", List.of(
                        slice("ns", "svc", "s1", "http", 3000, "10.0.0.1!")),
                        List.of(), null),
                Arguments.of("an unnamed port matches an unnamed slice port", "", List.of(
                        slice("ns", "svc", "s1", null, 8080, "10.0.0.1")),
                        List.of("10.0.0.1:8080"), null),
                Arguments.of("terminating-but-serving endpoints are not used while one is ready", "http", List.of(
                        slice("ns", "svc", "s1", "http", 3000, "10.0.0.1~", "10.0.0.2"),
                        slice("ns", "svc", "s2", "http", 3000, "10.0.0.3~")),
                        List.of("10.0.0.2:3000"), null),
                Arguments.of("with none ready, the terminating ones still serving drain the traffic", "http", List.of(
                        slice("ns", "svc", "s1", "http", 3000, "10.0.0.1~", "10.0.0.2!"),
                        slice("ns", "svc", "s2", "http", 3000, "10.0.0.3~")),
                        List.of("10.0.0.1:3000", "10.0.0.3:3000"), null),
                Arguments.of("a named target port may differ per pod (one slice per port number)", "http", List.of(
                        slice("ns", "svc", "s1", "http", 3000, "10.0.0.1"),
                        slice("ns", "svc", "s2", "http", 3001, "10.0.0.2")),
                        List.of("10.0.0.1:3000", "10.0.0.2:3001"), null),
                Arguments.of("dual stack: both families, IPv6 in brackets", "http", List.of(
                        slice("ns", "svc", "s4", "http", 3000, "10.0.0.1"),
                        slice("ns", "svc", "s6", "http", 3000, "fd00::1")),
                        List.of("10.0.0.1:3000", "[fd00::1]:3000"), null),
                Arguments.of("a slice port without a number is skipped", "http", List.of(
                        sliceWithoutPortNumber(), slice("ns", "svc", "s2", "http", 3000, "10.0.0.2")),
                        List.of("10.0.0.2:3000"), null));
    }

    private static EndpointSlice sliceWithoutPortNumber() {
        EndpointSlice s = slice("ns", "svc", "s1", "http", 3000, "10.0.0.1");
        s.getPorts().get(0).setPort(null);
        return s;
    }

    private static EndpointSlice sliceWithTwoPorts() {
        EndpointSlice s = slice("ns", "svc", "s1", "metrics", 9090, "10.0.0.1");
        s.getPorts().add(new io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder()
                .withName("http").withPort(3000).withProtocol("TCP").build());
        return s;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void resolves(String name, String portName, List<EndpointSlice> slices, List<String> expected, String error) {
        ServiceEndpoints se = new ServiceEndpoints(List.of(service("ns", "svc", portName + ":80")), slices);
        ServiceEndpoints.Resolution r = se.resolve("ns", "svc", 80);
        assertThat(r.error()).isEqualTo(error);
        assertThat(r.endpoints()).map(HostPort::toString).containsExactlyElementsOf(expected);
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of("missing Service", "nope", 80, "name", "Service \"nope\" not found"),
                Arguments.of("missing port", "svc", 81, "port", "Service \"svc\" has no TCP port 81"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("errors")
    void reportsWhatIsMissing(String name, String svc, int port, String field, String error) {
        ServiceEndpoints se = new ServiceEndpoints(List.of(service("ns", "svc", "http:80")), List.of());
        ServiceEndpoints.Resolution r = se.resolve("ns", svc, port);
        assertThat(r.field()).isEqualTo(field);
        assertThat(r.error()).isEqualTo(error);
    }
}
