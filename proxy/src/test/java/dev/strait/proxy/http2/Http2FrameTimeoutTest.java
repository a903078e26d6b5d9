package dev.strait.proxy.http2;

import static dev.strait.proxy.http2.RawH2.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.TestCertificates;
import dev.strait.proxy.testing.TestCertificates.Issued;
import dev.strait.proxy.testing.TestCertificates.KeyType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The handlers before the codec, however the connection became HTTP/2 (h2c by prior knowledge, h2c by Upgrade,
 * h2 over TLS). {@code Http2FrameTimeout} reads frame boundaries from the bytes, so it must be in step with them:
 * a connection that only ever sends whole frames is not closed at {@code headerTimeout} (the connections that
 * must be closed are in {@link Http2ConnectionLimitsTest}). {@code LingeringClose} must be there on every way.
 */
class Http2FrameTimeoutTest {
    enum Start { PRIOR_KNOWLEDGE, UPGRADE, TLS }

    static TestCertificates pki;
    static Issued local;
    final ProxyHarness proxy = new ProxyHarness();

    @BeforeAll
    static void certificates() throws Exception {
        pki = new TestCertificates();
        local = pki.issue(KeyType.EC, "localhost", "localhost");
    }

    @BeforeEach
    void start() throws Exception {
        proxy.startConfig("""
                accessLog: { enabled: false }
                limits: { headerTimeout: 300ms }
                listeners:
                  - { name: http, address: "127.0.0.1:0" }
                  - { name: https, address: "127.0.0.1:0", tls: { certificates: [ { cert: "%s", key: "%s" } ] } }
                routes: [ { name: r, hosts: [ "*" ], rules: [ { respond: { body: "ok" } } ] } ]
                """.formatted(local.certPem().replace("\n", "\\n"), local.keyPem().replace("\n", "\\n")));
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    private RawH2 open(Start how) throws Exception {
        InetSocketAddress http = proxy.server.address("http");
        switch (how) {
            case PRIOR_KNOWLEDGE:
                return new RawH2(http);
            case UPGRADE: {
                Socket s = new Socket();
                s.connect(http, 2000);
                s.setSoTimeout(5000);
                // HTTP2-Settings: SETTINGS_MAX_CONCURRENT_STREAMS = 100, base64url.
                s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                        + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABk\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                assertThat(head(s.getInputStream())).startsWith("HTTP/1.1 101");
                return new RawH2(s, new byte[0]); // the request is stream 1
            }
            default: {
                InetSocketAddress https = proxy.server.address("https");
                SSLSocket s = (SSLSocket) pki.clientContext().getSocketFactory()
                        .createSocket(https.getAddress(), https.getPort());
                SSLParameters p = s.getSSLParameters();
                p.setApplicationProtocols(new String[] {"h2"});
                s.setSSLParameters(p);
                s.startHandshake();
                assertThat(s.getApplicationProtocol()).isEqualTo("h2");
                return new RawH2(s, new byte[0]);
            }
        }
    }

    /** HTTP/1.1 bytes where the preface should follow an Upgrade (in the same packet): a PROTOCOL_ERROR. */
    @org.junit.jupiter.api.Test
    void http1BytesInsteadOfThePrefaceAfterAnUpgradeAreAProtocolError() throws Exception {
        Socket s = new Socket();
        s.connect(proxy.server.address("http"), 2000);
        s.setSoTimeout(5000);
        s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABk\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        assertThat(head(s.getInputStream())).startsWith("HTTP/1.1 101");
        // Only read: the server may close right after its GOAWAY, so nothing more is written to it.
        java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
        try (s) {
            for (int i = 0; i < 20; i++) {
                int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
                int type = in.readUnsignedByte();
                in.readUnsignedByte(); // flags
                in.readInt(); // stream
                byte[] payload = in.readNBytes(length);
                if (type == RawH2.GOAWAY) {
                    int error = java.nio.ByteBuffer.wrap(payload, 4, 4).getInt();
                    assertThat(error).as("PROTOCOL_ERROR").isEqualTo(1);
                    return;
                }
            }
        }
        throw new AssertionError("no GOAWAY");
    }

    /** The response head of the 101, byte by byte so that no HTTP/2 byte after it is consumed. */
    private static String head(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (!b.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed in the 101's head: " + b);
            }
            b.write(c);
        }
        return b.toString(StandardCharsets.US_ASCII);
    }


    @ParameterizedTest
    @EnumSource(Start.class)
    void aConnectionOfWholeFramesOutlivesHeaderTimeout(Start how) throws Exception {
        try (RawH2 c = open(how)) {
            if (how != Start.UPGRADE) {
                c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, GET));
            }
            assertThat(c.answer(1)).anyMatch(f -> f.type() == DATA && f.text().equals("ok"));
            // Past headerTimeout with nothing unfinished: only a misread frame boundary would close it now.
            assertThat(c.closesWithin(800)).isFalse();
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 3, GET));
            assertThat(c.answer(3)).anyMatch(f -> f.type() == DATA && f.text().equals("ok"));
        }
    }

    /**
     * A connection ended while its client is still sending (server/LingeringClose, ADR 0077): the client's bytes are
     * read out and dropped, so its sending goes on without error and the connection ends in FIN (after close_notify
     * under TLS), not in the RST that a socket closed with unread input, or written to once closed, answers with:
     * that fails the client's writes and drops whatever of ours it had not read yet.
     */
    @ParameterizedTest
    @EnumSource(Start.class)
    void aClientStillSendingGetsItsGoAwayAndAnOrderlyEnd(Start how) throws Exception {
        try (RawH2 c = open(how)) {
            c.send(frame(DATA, 0, 0, new byte[] {'x'})); // DATA on stream 0: a connection error (RFC 9113 6.1)
            java.util.List<Frame> frames = c.readUntilGoAway(100);
            assertThat(frames).as("frames " + frames.stream().map(Frame::type).toList())
                    .anyMatch(f -> f.type() == GOAWAY && f.errorCode() == PROTOCOL_ERROR);

            // Frames sent before the client read the GOAWAY: 8 MiB, more than a socket buffers, never decoded.
            ByteArrayOutputStream pings = new ByteArrayOutputStream();
            while (pings.size() < 64 << 10) {
                pings.write(frame(PING, 0, 0, new byte[8]));
            }
            java.io.OutputStream out = c.socket.getOutputStream();
            for (int sent = 0; sent < 8 << 20; sent += pings.size()) {
                out.write(pings.toByteArray()); // a reset fails this
            }
            out.flush();
            c.socket.setSoTimeout(10_000);
            assertThat(c.socket.getInputStream().read()).as("the end after the GOAWAY, not a reset").isEqualTo(-1);
        }
    }
}
