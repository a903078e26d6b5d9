package dev.strait.proxy.http2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The request limits hold on HTTP/2 streams too: header count, header bytes, body size. */
class Http2LimitsTest {
    final ProxyHarness proxy = new ProxyHarness();

    @BeforeEach
    void start() throws Exception {
        proxy.start("""
                limits: { maxHeaderCount: 10, maxHeaderBytes: 4096, maxBodyBytes: 1000 }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - respond: { status: 200, body: "ok\\n" }
                """);
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    String curl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-s", "--max-time", "10", "--http2-prior-knowledge",
                "-o", "/dev/null", "-w", "%{http_code}"));
        cmd.addAll(List.of(args));
        cmd.add("http://127.0.0.1:" + proxy.address().getPort() + "/");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out;
    }

    @Test
    void limits() throws Exception {
        assertThat(curl()).isEqualTo("200");
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            many.add("-H");
            many.add("x-h" + i + ": v");
        }
        assertThat(curl(many.toArray(String[]::new))).as("header count").isEqualTo("431");
        // Over maxHeaderBytes: 431 on the stream, as HTTP/1.1 answers (Http2StreamErrorsTest has the frames).
        assertThat(curl("-H", "x-big: " + "a".repeat(6000))).as("header bytes").isEqualTo("431");
        assertThat(curl("--data-binary", "x".repeat(2000), "-H", "content-length: 2000")).as("declared body").isEqualTo("413");
        assertThat(curl()).as("still serving").isEqualTo("200");
    }
}
