package dev.strait.proxy.http2;

import static dev.strait.proxy.http2.RawH2.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import java.io.ByteArrayOutputStream;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file sent over HTTP/2 goes out as the client opens its windows, and arrives whole once they are open
 * (ADR 0026: with no child channel and ChunkedWriteHandler any more, the stream's {@link Http2Exchange}
 * reads the file a chunk at a time while the stream is writable, and must go on when a WINDOW_UPDATE
 * makes it writable again; a lost wake-up stalls the answer for ever).
 */
class Http2FileWindowTest {
    /** GET /big.bin with :authority "a". */
    private static final byte[] GET_BIG = {(byte) 0x82, (byte) 0x86, 0x04, 0x08, '/', 'b', 'i', 'g', '.', 'b', 'i', 'n',
            0x01, 0x01, 'a'};
    private static final int SIZE = 300_000 + 7; // several 16 KiB chunks, and more than the connection's 64 KiB

    private final ProxyHarness proxy = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    @Test
    void aFileIsSentNoFasterThanTheClientsWindowAndWholeOnceItOpens(@TempDir Path dir) throws Exception {
        byte[] bytes = new byte[SIZE];
        new Random(7).nextBytes(bytes);
        Files.write(dir.resolve("big.bin"), bytes);
        proxy.start("""
                routes:
                  - name: r
                    hosts: [ "*" ]
                    rules:
                      - files: { root: '%s' }
                """.formatted(dir));
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (RawH2 c = new RawH2(proxy.address(), 0, setting(SETTINGS_INITIAL_WINDOW_SIZE, 1000))) {
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, GET_BIG));
            // The stream's window is 1000 bytes: that much DATA, then nothing until the client opens it.
            c.socket.setSoTimeout(500);
            try {
                for (Frame f; (f = c.next()) != null; ) {
                    if (f.type() == DATA) {
                        got.write(f.payload());
                        assertThat(got.size()).as("DATA bytes sent against a 1000-byte window").isLessThanOrEqualTo(1000);
                    }
                }
            } catch (SocketTimeoutException quiet) {
                // nothing more until a WINDOW_UPDATE
            }
            assertThat(got.size()).isEqualTo(1000);
            c.send(frame(WINDOW_UPDATE, 0, 1, int32(SIZE)));
            c.send(frame(WINDOW_UPDATE, 0, 0, int32(SIZE)));
            c.socket.setSoTimeout(5000);
            for (Frame f : c.answer(1)) {
                if (f.type() == DATA && f.stream() == 1) {
                    got.write(f.payload());
                }
            }
        }
        assertThat(got.toByteArray()).isEqualTo(bytes);
    }
}
