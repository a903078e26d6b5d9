package dev.strait.proxy.handler.files;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code files.precompressed} on a real proxy: the twin beside a file, in the coding the client weighs highest (the
 * rule's order on a tie), sent as it is with the file's own type; the file itself otherwise; {@code Vary} on both.
 */
class PrecompressedFilesTest {
    private static final String JS = "console.log('strait');\n".repeat(200);
    private final ProxyHarness h = new ProxyHarness();
    @TempDir
    Path root;
    @TempDir
    Path outside;

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static byte[] gzip(byte[] b) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(b);
        }
        return out.toByteArray();
    }

    /** Stand-ins for brotli and zstd output: the proxy sends a twin's bytes as they are, never reading them. */
    private static byte[] marked(String coding, int size) {
        byte[] b = new byte[size];
        new Random(size).nextBytes(b);
        byte[] mark = coding.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(mark, 0, b, 0, mark.length);
        return b;
    }

    @BeforeEach
    void files() throws Exception {
        Files.writeString(root.resolve("app.js"), JS);
        Files.write(root.resolve("app.js.br"), marked("br", 300));
        Files.write(root.resolve("app.js.gz"), gzip(JS.getBytes(StandardCharsets.UTF_8)));
        Files.writeString(root.resolve("plain.css"), "body { margin: 0 }\n");
        Files.writeString(root.resolve("index.html"), "<h1>home</h1>\n");
        Files.write(root.resolve("index.html.zst"), marked("zstd", 40));
        Files.writeString(root.resolve("big.svg"), "<svg/>");
        Files.write(root.resolve("big.svg.br"), marked("br", 200_000));
        Files.writeString(root.resolve("linked.txt"), "inside\n");
        Files.writeString(outside.resolve("secret.br"), "outside the root\n");
        Files.createSymbolicLink(root.resolve("linked.txt.br"), outside.resolve("secret.br"));
        h.start("""
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - files: { root: "%s", precompressed: [ zstd, br, gzip ] }
                """.formatted(root));
    }

    @Test
    void theClientsHeaviestCodingsTwinGoesAsItIsWithTheFilesType() throws Exception {
        RawClient.Response br = h.get("/app.js", "Accept-Encoding: gzip, deflate, br");
        assertThat(br.status()).isEqualTo(200);
        assertThat(br.header("content-type")).startsWith("text/javascript");
        assertThat(br.header("content-encoding")).isEqualTo("br");
        assertThat(br.header("vary")).isEqualTo("Accept-Encoding");
        assertThat(br.body()).isEqualTo(marked("br", 300));
        RawClient.Response gz = h.get("/app.js", "Accept-Encoding: gzip;q=1, br;q=0.5");
        assertThat(gz.header("content-encoding")).isEqualTo("gzip");
        assertThat(new String(new GZIPInputStream(new ByteArrayInputStream(gz.body())).readAllBytes(),
                StandardCharsets.UTF_8)).isEqualTo(JS);
        assertThat(gz.header("etag")).as("each twin is a representation of its own").isNotEqualTo(br.header("etag"));
        // zstd is the rule's first choice, but app.js has no .zst: the next the client takes.
        assertThat(h.get("/app.js", "Accept-Encoding: zstd, br").header("content-encoding")).isEqualTo("br");
        RawClient.Response index = h.get("/", "Accept-Encoding: zstd, br, gzip");
        assertThat(index.header("content-type")).startsWith("text/html");
        assertThat(index.header("content-encoding")).isEqualTo("zstd");
        assertThat(index.body()).isEqualTo(marked("zstd", 40));
        RawClient.Response big = h.get("/big.svg", "Accept-Encoding: br");
        assertThat(big.header("content-type")).startsWith("image/svg+xml");
        assertThat(big.header("content-encoding")).isEqualTo("br");
        assertThat(big.body()).isEqualTo(marked("br", 200_000));
    }

    @Test
    void withoutATwinOrACodingTheClientTakesTheFileGoesAsItIsWithVary() throws Exception {
        for (String[] ask : new String[][] {{}, {"Accept-Encoding: identity"}, {"Accept-Encoding: br;q=0, gzip;q=0"}}) {
            RawClient.Response r = h.get("/app.js", ask);
            assertThat(r.header("content-encoding")).isNull();
            assertThat(r.header("vary")).isEqualTo("Accept-Encoding");
            assertThat(r.text()).isEqualTo(JS);
        }
        RawClient.Response css = h.get("/plain.css", "Accept-Encoding: br, gzip");
        assertThat(css.header("content-encoding")).isNull();
        assertThat(css.header("vary")).isEqualTo("Accept-Encoding");
        assertThat(css.text()).isEqualTo("body { margin: 0 }\n");
        // A twin that leads out of the root is no twin: the file itself, never what the link names.
        RawClient.Response linked = h.get("/linked.txt", "Accept-Encoding: br");
        assertThat(linked.header("content-encoding")).isNull();
        assertThat(linked.text()).isEqualTo("inside\n");
        // A twin's name asked for is a file like any other, in no coding.
        RawClient.Response direct = h.get("/app.js.br", "Accept-Encoding: br");
        assertThat(direct.header("content-encoding")).isNull();
        assertThat(direct.body()).isEqualTo(marked("br", 300));
    }

    @Test
    void aTwinIsRevalidatedByItsOwnTagAndGoesWholeForARange() throws Exception {
        RawClient.Response br = h.get("/app.js", "Accept-Encoding: br");
        RawClient.Response notModified = h.get("/app.js", "Accept-Encoding: br", "If-None-Match: " + br.header("etag"));
        assertThat(notModified.status()).isEqualTo(304);
        assertThat(notModified.header("vary")).isEqualTo("Accept-Encoding");
        RawClient.Response range = h.get("/app.js", "Accept-Encoding: br", "Range: bytes=0-9");
        assertThat(range.status()).isEqualTo(200);
        assertThat(range.body()).isEqualTo(marked("br", 300));
        RawClient.Response plainRange = h.get("/app.js", "Range: bytes=0-9");
        assertThat(plainRange.status()).isEqualTo(206);
        assertThat(plainRange.text()).isEqualTo(JS.substring(0, 10));
        try (RawClient c = h.client()) {
            RawClient.Response head = c.send("HEAD /app.js HTTP/1.1\r\nHost: t\r\nAccept-Encoding: br\r\n\r\n").read(true);
            assertThat(head.header("content-encoding")).isEqualTo("br");
            assertThat(head.header("content-length")).isEqualTo("300");
        }
    }

    @Test
    void aTwinWrittenLaterOrChangedIsSeen() throws Exception {
        assertThat(h.get("/plain.css", "Accept-Encoding: br").header("content-encoding")).isNull();
        Files.write(root.resolve("plain.css.br"), marked("br", 77));
        // Looked for again a second after it was missed, as nginx's open_file_cache_errors.
        long deadline = System.nanoTime() + 10_000_000_000L;
        RawClient.Response r;
        do {
            r = h.get("/plain.css", "Accept-Encoding: br");
        } while (r.header("content-encoding") == null && System.nanoTime() < deadline);
        assertThat(r.header("content-encoding")).isEqualTo("br");
        assertThat(r.body()).isEqualTo(marked("br", 77));
        Files.write(root.resolve("plain.css.br"), marked("br", 78));
        assertThat(h.get("/plain.css", "Accept-Encoding: br").body()).isEqualTo(marked("br", 78));
        Files.delete(root.resolve("plain.css.br"));
        RawClient.Response gone = h.get("/plain.css", "Accept-Encoding: br");
        assertThat(gone.header("content-encoding")).isNull();
        assertThat(gone.text()).isEqualTo("body { margin: 0 }\n");
    }
}
