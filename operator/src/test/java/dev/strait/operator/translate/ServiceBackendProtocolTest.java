package dev.strait.operator.translate;

import static dev.strait.operator.translate.Fixtures.STRAIT;
import static dev.strait.operator.translate.Fixtures.route;
import static dev.strait.operator.translate.Fixtures.service;
import static dev.strait.operator.translate.Fixtures.slice;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Upstream;
import io.fabric8.kubernetes.api.model.Service;
import org.junit.jupiter.api.Test;

/**
 * How a Route's Service backend is spoken to (ADR 0062): its {@code protocol}, else what the Service port's
 * {@code appProtocol} asks for (Gateway API's {@code kubernetes.io/h2c}, {@code kubernetes.io/wss}), else
 * HTTP/1.1 in the clear. Each way is an upstream of its own.
 */
class ServiceBackendProtocolTest {
    private static Upstream upstreamFor(String backend, String appProtocol) {
        Service svc = service("shop", "api", "grpc:50051");
        svc.getSpec().getPorts().get(0).setAppProtocol(appProtocol);
        Translation t = Fixtures.translate(svc, slice("shop", "api", "api-1", "grpc", 9000, "10.0.0.1"),
                route("shop", "api", 1, "hosts: [ api.example.com ]\nrules: [ { backends: [ " + backend + " ] } ]"));
        assertThat(Fixtures.routeReport(t, "shop", "api").errors()).isEmpty();
        return t.snapshot(STRAIT).config().upstreams().stream().filter(u -> u.name().startsWith("service.shop.api."))
                .findFirst().orElseThrow();
    }

    @Test
    void theBackendsProtocolThenTheServicePortsAppProtocol() {
        Upstream plain = upstreamFor("{ service: { name: api, port: 50051 } }", null);
        assertThat(plain.name()).isEqualTo("service.shop.api.50051");
        assertThat(plain.protocol()).isEqualTo(Upstream.Protocol.HTTP1);
        assertThat(plain.tls()).isNull();

        Upstream h2c = upstreamFor("{ service: { name: api, port: 50051 }, protocol: h2c }", null);
        assertThat(h2c.name()).isEqualTo("service.shop.api.50051.h2c");
        assertThat(h2c.protocol()).isEqualTo(Upstream.Protocol.H2C);

        Upstream byPort = upstreamFor("{ service: { name: api, port: 50051 } }", "kubernetes.io/h2c");
        assertThat(byPort.protocol()).isEqualTo(Upstream.Protocol.H2C);
        Upstream wss = upstreamFor("{ service: { name: api, port: 50051 } }", "kubernetes.io/wss");
        assertThat(wss.protocol()).isEqualTo(Upstream.Protocol.HTTP1);
        assertThat(wss.tls()).isEqualTo(Upstream.Tls.UNVERIFIED);
        assertThat(upstreamFor("{ service: { name: api, port: 50051 } }", "http").protocol()).isEqualTo(Upstream.Protocol.HTTP1);

        Upstream wins = upstreamFor("{ service: { name: api, port: 50051 }, protocol: h2 }", "kubernetes.io/h2c");
        assertThat(wins.protocol()).as("the backend's own protocol wins").isEqualTo(Upstream.Protocol.H2);
        assertThat(wins.tls()).isEqualTo(Upstream.Tls.UNVERIFIED);
    }
}
