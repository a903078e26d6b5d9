package dev.strait.proxy.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.model.ConfigParser;
import dev.strait.model.InvalidConfigException;
import dev.strait.proxy.config.SnapshotBuilder;
import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestCertificates.KeyType;
import dev.strait.proxy.testing.TestUpstream;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** TLS to http1 upstreams: CA bundle, the name checked and sent as SNI, client certificates (mTLS). */
class UpstreamTlsTest {
    static TestCertificates pki;
    static Issued server;
    static Issued client;

    final ProxyHarness proxy = new ProxyHarness();

    @BeforeAll
    static void certificates() throws Exception {
        pki = new TestCertificates();
        server = pki.issue(KeyType.EC, "app.internal", "app.internal");
        client = pki.issue(KeyType.RSA, "strait-proxy");
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    static String q(String s) {
        return "\"" + s.replace("\n", "\\n") + "\"";
    }

    static SslContext serverContext(boolean requireClientCert) throws Exception {
        SslContextBuilder b = SslContextBuilder.forServer(server.key(), server.certificate());
        if (requireClientCert) {
            b.trustManager(pki.ca()).clientAuth(ClientAuth.REQUIRE);
        }
        return b.build();
    }

    String config(TestUpstream up, String tls) {
        return """
                workers: 1
                upstreams:
                  - { name: app, endpoints: [ "%s" ], tls: %s }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                """.formatted(up.endpoint(), tls);
    }

    int status(String path) throws Exception {
        return proxy.get(path).status();
    }

    @Test
    void verifiedByTheCaBundleAndTheServerName() throws Exception {
        TestUpstream up = proxy.add(TestUpstream.startTls(serverContext(false), TestUpstream.reply(200, "over tls")));
        proxy.start(config(up, "{ ca: " + q(pki.caPem()) + ", serverName: app.internal }"));
        RawClient.Response r = proxy.get("/x");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("over tls");
        assertThat(up.last().uri()).isEqualTo("/x");
        assertThat(status("/again")).as("a pooled TLS connection").isEqualTo(200);
        assertThat(up.connections()).as("pools are per loop: one loop here").isEqualTo(1);
    }

    @Test
    void aCertificateForAnotherNameOrFromAnotherCaIsRefused() throws Exception {
        TestUpstream up = proxy.add(TestUpstream.startTls(serverContext(false), TestUpstream.reply(200, "no")));
        proxy.start(config(up, "{ ca: " + q(pki.caPem()) + ", serverName: other.internal }"));
        assertThat(status("/x")).isEqualTo(502);
        proxy.reload(config(up, "{ ca: " + q(new TestCertificates().caPem()) + ", serverName: app.internal }"));
        assertThat(status("/x")).isEqualTo(502);
        proxy.reload(config(up, "{ serverName: app.internal }")); // the JDK's trust store does not know our CA
        assertThat(status("/x")).isEqualTo(502);
        assertThat(up.requests()).isZero();
    }

    /** nginx's proxy_ssl_verify_depth: 1 is issued by a CA of ours directly, 2 through one intermediate. */
    @Test
    void verifyDepthLimitsHowFarTheEndpointIsFromTheCa() throws Exception {
        Issued viaIntermediate = pki.intermediate("strait test intermediate").issue(KeyType.EC, "app.internal", "app.internal");
        SslContext sendsItsChain = SslContextBuilder.forServer(
                new java.io.ByteArrayInputStream(viaIntermediate.certPem().getBytes(java.nio.charset.StandardCharsets.US_ASCII)),
                new java.io.ByteArrayInputStream(viaIntermediate.keyPem().getBytes(java.nio.charset.StandardCharsets.US_ASCII)))
                .build();
        TestUpstream deep = proxy.add(TestUpstream.startTls(sendsItsChain, TestUpstream.reply(200, "deep")));
        String checked = "{ ca: " + q(pki.caPem()) + ", serverName: app.internal";
        proxy.start(config(deep, checked + " }"));
        assertThat(status("/x")).as("no limit").isEqualTo(200);
        proxy.reload(config(deep, checked + ", verifyDepth: 2 }"));
        assertThat(status("/x")).isEqualTo(200);
        proxy.reload(config(deep, checked + ", verifyDepth: 1 }"));
        assertThat(status("/x")).as("one intermediate is one too many").isEqualTo(502);
        assertThat(deep.requests()).isEqualTo(2);
        TestUpstream direct = proxy.add(TestUpstream.startTls(serverContext(false), TestUpstream.reply(200, "direct")));
        proxy.reload(config(direct, checked + ", verifyDepth: 1 }"));
        assertThat(status("/x")).isEqualTo(200);
        proxy.reload(config(direct, "{ ca: " + q(pki.caPem()) + ", serverName: other.internal, verifyDepth: 1 }"));
        assertThat(status("/x")).as("the name is still checked").isEqualTo(502);
    }

    /** ingress-nginx's backend-protocol HTTPS: encrypted, with a certificate nobody here can check (ADR 0062). */
    @Test
    void verifyFalseTakesAnyCertificateAndOnlyWhenAskedFor() throws Exception {
        TestUpstream up = proxy.add(TestUpstream.startTls(serverContext(false), TestUpstream.reply(200, "unchecked")));
        proxy.start(config(up, "{ verify: false }"));
        assertThat(proxy.get("/x").text()).isEqualTo("unchecked");
        assertThat(up.last().uri()).isEqualTo("/x");
        proxy.reload(config(up, "{ }"));
        assertThat(status("/y")).as("checked again: the JDK's trust store does not know our CA").isEqualTo(502);
        assertThat(up.requests()).isEqualTo(1);
    }

    @Test
    void healthChecksSpeakTlsToo() throws Exception {
        TestUpstream up = proxy.add(TestUpstream.startTls(serverContext(false), TestUpstream.reply(200, "ok")));
        proxy.start(config(up, "{ ca: " + q(pki.caPem()) + ", serverName: app.internal }")
                .replace("tls: {", "healthCheck: { path: /healthz, interval: 100ms }, tls: {"));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                .until(() -> up.seen().stream().filter(s -> s.uri().equals("/healthz")).count() >= 3);
        assertThat(status("/x")).isEqualTo(200);
    }

    @Test
    void mutualTls() throws Exception {
        TestUpstream up = proxy.add(TestUpstream.startTls(serverContext(true), TestUpstream.reply(200, "mtls")));
        proxy.start(config(up, "{ ca: " + q(pki.caPem()) + ", serverName: app.internal, cert: " + q(client.certPem())
                + ", key: " + q(client.keyPem()) + " }"));
        assertThat(proxy.get("/x").text()).isEqualTo("mtls");
        // Without the client certificate: the pooled connection (made with it) is not reused, a new one fails.
        proxy.reload(config(up, "{ ca: " + q(pki.caPem()) + ", serverName: app.internal }"));
        assertThat(status("/y")).as("no client certificate").isEqualTo(502);
        assertThat(up.requests()).isEqualTo(1);
    }

    @Test
    void badPemIsAConfigErrorWithItsFieldPath() {
        String yaml = """
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                upstreams:
                  - { name: a, endpoints: [ "127.0.0.1:1" ] }
                  - { name: b, endpoints: [ "127.0.0.1:2" ], tls: { ca: "-----BEGIN CERTIFICATE-----\\nxx\\n-----END CERTIFICATE-----\\n" } }
                  - { name: c, endpoints: [ "127.0.0.1:3" ], tls: { cert: %s, key: %s } }
                """.formatted(q(client.certPem()), q(server.keyPem()));
        assertThatThrownBy(() -> SnapshotBuilder.build(ConfigParser.parse(yaml, "t"), "t"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("upstreams[1].tls.ca: ")
                .hasMessageContaining("upstreams[2].tls.key: does not match the certificate");
    }
}
