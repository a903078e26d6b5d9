package dev.strait.proxy.http2;

import static dev.strait.proxy.http2.RawH2.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A connection the proxy ends while its client is still sending (server/LingeringClose): the client's bytes
 * are read out and dropped, so its sending completes, its GOAWAY arrives, and the connection ends in FIN,
 * not in the RST that a socket closed with unread input sends (which would fail the client's writes and
 * drop what the kernel had not yet sent).
 */
class Http2LingeringCloseTest {
    private final ProxyHarness proxy = new ProxyHarness();

    @BeforeEach
    void start() throws Exception {
        proxy.start("""
                routes: [ { name: r, hosts: [ "*" ], rules: [ { respond: { body: "ok" } } ] } ]
                """);
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    @Test
    void aClientStillSendingGetsItsGoAwayAndAnOrderlyEnd() throws Exception {
        try (RawH2 c = new RawH2(proxy.address())) {
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            burst.write(frame(DATA, 0, 0, new byte[] {'x'})); // DATA on stream 0: a connection error (RFC 9113 6.1)
            byte[] ping = frame(PING, 0, 0, new byte[8]);
            while (burst.size() < 4 << 20) {
                burst.write(ping); // 4 MiB that follow it, never decoded: far more than one read takes
            }
            c.send(burst.toByteArray());
            List<Frame> frames = c.readUntilGoAway(1000); // flushes the burst first: a reset would fail it

            assertThat(frames).as("frames " + frames.stream().map(Frame::type).toList())
                    .anyMatch(f -> f.type() == GOAWAY && f.errorCode() == PROTOCOL_ERROR);
            c.socket.setSoTimeout(10_000);
            assertThat(c.socket.getInputStream().read()).as("FIN after the GOAWAY, not a reset").isEqualTo(-1);
        }
    }
}
