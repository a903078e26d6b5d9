package dev.strait.proxy.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestCertificates.KeyType;
import dev.strait.proxy.testing.TestUpstream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Listeners with {@code proxyProtocol}: the header's client is the connection's peer everywhere; no header, no service. */
class ProxyProtocolTest {
    final ProxyHarness proxy = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    /** A proxied rule and one only 203.0.113.0/24 may use, on a listener that reads PROXY headers. */
    String config(String upstream, String tls) {
        return """
                workers: 1
                accessLog: { enabled: false }
                listeners:
                  - { name: lb, address: "127.0.0.1:0", proxyProtocol: true%s }
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - matches: [ { path: { type: Prefix, value: /office } } ]
                        clientAddresses: { allow: [ 203.0.113.0/24 ] }
                        respond: { body: "office" }
                      - backends: [ { upstream: app } ]
                """.formatted(tls, upstream);
    }

    InetSocketAddress lb() {
        return proxy.server.address("lb");
    }

    @Test
    void theHeadersClientIsTheClientForGuardsAndUpstreams() throws Exception {
        TestUpstream app = proxy.upstream(TestUpstream.reply(200, "app"));
        proxy.startConfig(config(app.endpoint(), ""));
        try (RawClient c = new RawClient(lb())) {
            // Header and request in one write, as a load balancer forwards them.
            c.send("PROXY TCP4 203.0.113.7 10.0.0.1 51234 80\r\nGET /office HTTP/1.1\r\nHost: a\r\n\r\n");
            assertThat(c.read().text()).as("clientAddresses sees the header's client").isEqualTo("office");
            assertThat(c.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").read().text()).isEqualTo("app");
        }
        assertThat(app.last().headers().get("x-forwarded-for")).isEqualTo("203.0.113.7");

        try (RawClient c = new RawClient(lb())) {
            c.send(v2(true, new byte[] {(byte) 198, 51, 100, 9}, 40000));
            assertThat(c.send("GET /office HTTP/1.1\r\nHost: a\r\n\r\n").read().status())
                    .as("v2 names 198.51.100.9, outside the office").isEqualTo(403);
            assertThat(c.send("GET /y HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);
        }
        assertThat(app.last().headers().get("x-forwarded-for")).isEqualTo("198.51.100.9");

        try (RawClient c = new RawClient(lb())) {
            c.send(v2(false, null, 0)); // LOCAL: the balancer's own check, with no client behind it
            assertThat(c.send("GET /z HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);
        }
        assertThat(app.last().headers().get("x-forwarded-for")).as("LOCAL keeps the socket's peer").isEqualTo("127.0.0.1");
    }

    @Test
    void aConnectionWithoutAValidHeaderIsClosedUnanswered() throws Exception {
        TestUpstream app = proxy.upstream(TestUpstream.reply(200, "app"));
        proxy.startConfig(config(app.endpoint(), ""));
        for (String first : List.of("GET / HTTP/1.1\r\nHost: a\r\n\r\n", "PROXY TCP4 not-an-address 10.0.0.1 1 2\r\n")) {
            try (RawClient c = new RawClient(lb())) {
                c.send(first);
                assertThat(c.closedByServer()).as(first.trim()).isTrue();
            }
        }
        assertThat(app.requests()).isZero();
    }

    @Test
    void aTlsListenerReadsTheHeaderBeforeTheHandshake() throws Exception {
        TestCertificates pki = new TestCertificates();
        Issued cert = pki.issue(KeyType.EC, "site.test", "site.test");
        TestUpstream app = proxy.upstream(TestUpstream.reply(200, "app"));
        proxy.startConfig(config(app.endpoint(), ", tls: { certificates: [ " + cert.configEntry() + " ] }"));
        try (Socket raw = new Socket(lb().getAddress(), lb().getPort())) {
            raw.getOutputStream().write("PROXY TCP6 2001:db8::7 2001:db8::1 51234 443\r\n".getBytes(StandardCharsets.US_ASCII));
            SSLSocket tls = (SSLSocket) pki.clientContext().getSocketFactory().createSocket(raw, "site.test",
                    lb().getPort(), false);
            SSLParameters p = tls.getSSLParameters();
            p.setServerNames(List.of(new SNIHostName("site.test")));
            tls.setSSLParameters(p);
            tls.setSoTimeout(5000);
            tls.getOutputStream().write("GET /x HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(readAll(tls.getInputStream())).startsWith("HTTP/1.1 200").endsWith("app");
        }
        assertThat(app.last().headers().get("x-forwarded-for")).isEqualTo("2001:db8::7");
        assertThat(app.last().headers().get("x-forwarded-proto")).isEqualTo("https");
    }

    private static String readAll(InputStream in) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    /** A v2 header: PROXY over TCP4 from {@code source} to 10.0.0.1:443, or LOCAL with no addresses. */
    private static byte[] v2(boolean proxy, byte[] source, int port) {
        byte[] sig = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
        int len = proxy ? 12 : 0;
        byte[] h = new byte[16 + len];
        System.arraycopy(sig, 0, h, 0, 12);
        h[12] = (byte) (proxy ? 0x21 : 0x20); // version 2, PROXY or LOCAL
        h[13] = (byte) (proxy ? 0x11 : 0x00); // TCP over IPv4, or UNSPEC
        h[14] = 0;
        h[15] = (byte) len;
        if (proxy) {
            System.arraycopy(source, 0, h, 16, 4);
            System.arraycopy(new byte[] {10, 0, 0, 1}, 0, h, 20, 4);
            h[24] = (byte) (port >> 8);
            h[25] = (byte) port;
            h[26] = (byte) (443 >> 8);
            h[27] = (byte) (443 & 0xff);
        }
        return h;
    }
}
