package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code files} action serving a directory: whole files (an index and 1 MiB of random bytes),
 * byte ranges (RFC 9110 14) and {@code If-None-Match} revalidation (RFC 9110 13.1.2).
 * Skipped while the files handler answers 501 Not Implemented.
 */
class StaticFilesTest {
    private static final String INDEX = "<!doctype html><title>e2e</title><p>static index</p>\n";
    private static final int BIG = 1024 * 1024;

    @RegisterExtension
    final StraitProcesses strait = new StraitProcesses();

    @TempDir
    Path dir;
    private byte[] big;
    private ProxyProcess proxy;

    @BeforeEach
    void serveADirectory() throws Exception {
        Path root = Files.createDirectory(dir.resolve("www"));
        Files.writeString(root.resolve("index.html"), INDEX);
        big = new byte[BIG];
        new Random(42).nextBytes(big);
        Files.write(root.resolve("big.bin"), big);
        Path file = Files.writeString(dir.resolve("strait.yaml"), """
                listeners:
                  - { name: http, address: "127.0.0.1:0" }
                routes:
                  - name: static
                    hosts: [ "*" ]
                    rules:
                      - files: { root: "%s", index: [ index.html ] }
                """.formatted(root));
        proxy = strait.start("--config", file.toString()).awaitServing();
        Assumptions.assumeTrue(proxy.get("/index.html").statusCode() != 501,
                "the files handler answers 501 Not Implemented in this build");
    }

    @Test
    void wholeFilesAndTheIndex() {
        HttpResponse<String> index = proxy.get("/");
        assertThat(index.statusCode()).isEqualTo(200);
        assertThat(index.body()).isEqualTo(INDEX);
        assertThat(index.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(proxy.get("/index.html").body()).isEqualTo(INDEX);

        HttpResponse<byte[]> whole = bytes(request("/big.bin"));
        assertThat(whole.statusCode()).isEqualTo(200);
        assertThat(whole.headers().firstValueAsLong("content-length")).hasValue(BIG);
        assertThat(Arrays.equals(whole.body(), big)).as("the 1 MiB body is byte for byte the file").isTrue();

        assertThat(proxy.get("/no-such-file").statusCode()).isEqualTo(404);
    }

    @Test
    void rangesAndConditionalRequests() {
        HttpResponse<byte[]> part = bytes(request("/big.bin").header("Range", "bytes=1000-1999"));
        assertThat(part.statusCode()).isEqualTo(206);
        assertThat(part.headers().firstValue("content-range")).hasValue("bytes 1000-1999/" + BIG);
        assertThat(part.body()).isEqualTo(Arrays.copyOfRange(big, 1000, 2000));

        HttpResponse<byte[]> suffix = bytes(request("/big.bin").header("Range", "bytes=-10"));
        assertThat(suffix.statusCode()).isEqualTo(206);
        assertThat(suffix.body()).isEqualTo(Arrays.copyOfRange(big, BIG - 10, BIG));

        HttpResponse<byte[]> unsatisfiable = bytes(request("/big.bin").header("Range", "bytes=" + BIG + "-"));
        assertThat(unsatisfiable.statusCode()).isEqualTo(416);
        assertThat(unsatisfiable.headers().firstValue("content-range")).hasValue("bytes */" + BIG);

        HttpResponse<String> first = proxy.get("/index.html");
        String etag = first.headers().firstValue("etag").orElseThrow(() -> new AssertionError("no ETag: " + first.headers()));
        HttpResponse<byte[]> notModified = bytes(request("/index.html").header("If-None-Match", etag));
        assertThat(notModified.statusCode()).isEqualTo(304);
        assertThat(notModified.body()).isEmpty();
        assertThat(notModified.headers().firstValue("etag")).hasValue(etag);

        HttpResponse<byte[]> changed = bytes(request("/index.html").header("If-None-Match", "\"something-else\""));
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(new String(changed.body(), StandardCharsets.UTF_8)).isEqualTo(INDEX);
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(proxy.uri(path));
    }

    private static HttpResponse<byte[]> bytes(HttpRequest.Builder request) {
        return ProxyProcess.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }
}
