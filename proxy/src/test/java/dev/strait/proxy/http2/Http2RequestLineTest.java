package dev.strait.proxy.http2;

import static dev.strait.proxy.http2.RawH2.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A {@code :method} or {@code :path} that HTTP/1.1 would refuse in its request line gets the same 400
 * on its stream over HTTP/2: no stack trace in the log per stream, no reset, and the connection goes on.
 */
class Http2RequestLineTest {
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

    /** A header block: {@code :method} and {@code :path} as literals (not Huffman), :scheme http, :authority a. */
    private static byte[] request(byte[] method, byte[] path) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(0x02); // literal without indexing, name :method (static index 2)
        b.write(method.length);
        b.writeBytes(method);
        b.write(0x86); // :scheme http
        b.write(0x04); // literal without indexing, name :path (static index 4)
        b.write(path.length);
        b.writeBytes(path);
        b.writeBytes(new byte[] {0x01, 0x01, 'a'}); // :authority a
        return b.toByteArray();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "GET     | /q?a b",
        "GET     | /caf\u00e9",
        "GET     | /a\u0001b",
        "GET     | /a#b",
        "GET     | ''",
        "'G ET'  | /",
        "GET\u00ff | /",
        "''      | /",
    })
    void isRefusedWith400OnItsStream(String m, String p) throws Exception {
        byte[] method = m.getBytes(StandardCharsets.ISO_8859_1);
        byte[] path = p.getBytes(StandardCharsets.ISO_8859_1);
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (RawH2 c = new RawH2(proxy.address())) {
            for (int stream = 1; stream <= 5; stream += 2) {
                c.send(frame(HEADERS, END_HEADERS | END_STREAM, stream, request(method, path)));
                RawH2.Frame end = null;
                for (RawH2.Frame f; end == null && (f = c.next()) != null; ) {
                    if (f.stream() == stream && f.type() == HEADERS) {
                        assertThat(c.headers(f).status().toString()).isEqualTo("400");
                    }
                    if (f.stream() == stream && (f.type() == RST_STREAM || (f.flags() & END_STREAM) != 0)) {
                        end = f;
                    }
                }
                // A 400, or (what the codec refuses before us: an empty name, a control character) a
                // stream error, PROTOCOL_ERROR (RFC 9113 8.1.1); never INTERNAL_ERROR.
                assertThat(end).isNotNull();
                if (end.type() == RST_STREAM) {
                    assertThat(end.errorCode()).isEqualTo(PROTOCOL_ERROR);
                }
            }
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, 7, GET));
            assertThat(c.answer(7)).anyMatch(f -> f.type() == DATA && f.text().equals("ok"));
        } finally {
            System.setErr(original);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        original.print(log);
        assertThat(log).doesNotContain("Exception").doesNotContain("ERROR");
    }
}
