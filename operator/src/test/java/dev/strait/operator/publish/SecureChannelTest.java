package dev.strait.operator.publish;

import static dev.strait.operator.translate.Fixtures.route;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.model.HostPort;
import dev.strait.operator.publish.tls.ChannelPki;
import dev.strait.operator.publish.tls.ChannelTls;
import dev.strait.operator.translate.Fixtures;
import dev.strait.operator.translate.Translator;
import dev.strait.proxy.control.ControlClient;
import dev.strait.proxy.control.ControlTls;
import dev.strait.proxy.control.Identity;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS with the operator's own CA, and proxies that must prove who they are. */
class SecureChannelTest {
    private static final Instant NOW = Instant.now();
    private static final ChannelPki.Issued CA = ChannelPki.newCa("test-ca", NOW, Duration.ofDays(30));

    @TempDir
    Path dir;
    private ControlServer server;
    private Fleet fleet;
    private ControlClient bare;

    private void startOperator(Authenticator auth) throws Exception {
        fleet = new Fleet(ChannelTest.LOOPBACK);
        fleet.publish(new Translator(ChannelTest.LOOPBACK).translate(Fixtures.inputs(
                route("shop", "site", 1, "hosts: [ example.com ]\nrules: [ { respond: { status: 200, body: secret } } ]"))));
        SslContext tls = ChannelTls.server(CA, List.of("localhost", "127.0.0.1"), NOW);
        server = new ControlServer(fleet, () -> tls, auth).start(new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void stop() {
        if (bare != null) {
            bare.close();
        }
        server.close();
    }

    private Path write(String name, String pem) throws Exception {
        return Files.writeString(dir.resolve(name), pem);
    }

    private Supplier<SslContext> trusting(ChannelPki.Issued ca, ChannelPki.Issued client) throws Exception {
        Path caFile = write("ca-" + ca.certificate().getSerialNumber() + ".crt", ca.certificatePem());
        Path cert = client == null ? null : write("client.crt", client.certificatePem());
        Path key = client == null ? null : write("client.key", client.keyPem());
        return () -> ControlTls.client(caFile, cert, key);
    }

    /** A client that is refused must redial again and again and never be given a snapshot. */
    private void assertRefused(Identity id, Supplier<SslContext> tls, Supplier<String> token) {
        InetSocketAddress a = server.address();
        bare = new ControlClient(new HostPort(a.getHostString(), a.getPort()), id, null, TestProxy.FAST, tls, token);
        bare.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> bare.connects() >= 3);
        assertThat(bare.firstSnapshot()).isNotDone();
        assertThat(fleet.proxies()).isEmpty();
    }

    @Test
    void aProxyTrustingTheChannelCaGetsItsSnapshotOverTls() throws Exception {
        startOperator(Authenticator.OPEN);
        try (TestProxy p = TestProxy.start(server.address(), Identity.ingress("strait"), null, trusting(CA, null), null)) {
            assertThat(p.get("example.com", "/")).isEqualTo("200 OK secret");
        }
    }

    @Test
    void aProxyThatDoesNotTrustTheOperatorNeverTalksToIt() throws Exception {
        startOperator(Authenticator.OPEN);
        ChannelPki.Issued other = ChannelPki.newCa("someone-else", NOW, Duration.ofDays(30));
        assertRefused(Identity.ingress("strait"), trusting(other, null), null);
    }

    @Test
    void aClientCertificateNamesItsProxy() throws Exception {
        startOperator(Authenticators.certificateOrToken(null, Set.of(), Executors.newSingleThreadExecutor()));
        ChannelPki.Issued cert = ChannelPki.clientCertificate(CA, "ingress.strait", NOW, Duration.ofDays(1));
        try (TestProxy p = TestProxy.start(server.address(), Identity.ingress("strait"), null, trusting(CA, cert), null)) {
            assertThat(p.get("example.com", "/")).isEqualTo("200 OK secret");
        }
    }

    @Test
    void aCertificateForAnotherIdentityIsRefused() throws Exception {
        startOperator(Authenticators.certificateOrToken(null, Set.of(), Executors.newSingleThreadExecutor()));
        ChannelPki.Issued cert = ChannelPki.clientCertificate(CA, "sidecar.shop.web-0", NOW, Duration.ofDays(1));
        assertRefused(Identity.ingress("strait"), trusting(CA, cert), null);
    }

    @Test
    void anUnauthenticatedPeerGetsNothing() throws Exception {
        startOperator(Authenticators.certificateOrToken(null, Set.of(), Executors.newSingleThreadExecutor()));
        assertRefused(Identity.ingress("strait"), trusting(CA, null), null);
    }
}
