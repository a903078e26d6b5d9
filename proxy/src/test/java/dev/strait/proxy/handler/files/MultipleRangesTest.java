package dev.strait.proxy.handler.files;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestCertificates;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several ranges of a file on real sockets (ADR 0057): one {@code multipart/byteranges} answer whose
 * parts are read back by their {@code Content-Range} and compared with the file, over HTTP/1.1 on each
 * transport (the ranges of a large file as file regions), over TLS (in chunks), and over HTTP/2 with
 * TLS and h2c; the limits; and the file closed once each answer is done, however it ended.
 */
class MultipleRangesTest {
    /** In the content cache, answered from memory. */
    static final int SMALL = 5000;
    /** Over the small-file limit: sent from the file. */
    static final int LARGE = (1 << 20) + 7;
    /** Ranges of both files, out of order, one past the end; as the parts must come back. */
    static final String RANGES = "bytes=0-99, 4000-4999, 200-299, -10, 999999999-";
    static final String PARTS_SMALL = "0-99 4000-4999 200-299 4990-4999";
    static final String PARTS_LARGE = "0-99 4000-4999 200-299 1048573-1048582";

    static TestCertificates pki;
    static TestCertificates.Issued local;
    @TempDir
    static Path dir;
    static Path www;
    static byte[] small;
    static byte[] large;

    final ProxyHarness proxy = new ProxyHarness();

    @BeforeAll
    static void files() throws Exception {
        pki = new TestCertificates();
        local = pki.issue(TestCertificates.KeyType.EC, "localhost", "localhost");
        www = Files.createDirectories(dir.resolve("www"));
        Random random = new Random(57);
        small = new byte[SMALL];
        random.nextBytes(small);
        large = new byte[LARGE];
        random.nextBytes(large);
        Files.write(www.resolve("small.bin"), small);
        Files.write(www.resolve("large.bin"), large);
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
    }

    private void start(String transport) throws Exception {
        proxy.startConfig("""
                workers: 1
                transport: %s
                accessLog: { enabled: false }
                listeners:
                  - { name: http, address: "127.0.0.1:0" }
                  - name: https
                    address: "127.0.0.1:0"
                    tls: { certificates: [ { cert: %s, key: %s } ] }
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - files: { root: '%s' }
                """.formatted(transport, q(local.certPem()), q(local.keyPem()), www.toString().replace("'", "''")));
    }

    private static String q(String s) {
        return "\"" + s.replace("\n", "\\n") + "\"";
    }

    private static void assumeAvailable(String transport) {
        Assumptions.assumeTrue(!transport.equals("io_uring") || io.netty.channel.uring.IoUring.isAvailable(),
                "io_uring not available here");
        Assumptions.assumeTrue(!transport.equals("epoll") || io.netty.channel.epoll.Epoll.isAvailable(),
                "epoll not available here");
    }

    /** The parts of a multipart answer, checked against {@code file}, as "first-last ..." in the order sent. */
    static String parts(String contentType, String contentLength, byte[] body, byte[] file) {
        assertThat(contentLength).as("Content-Length").isEqualTo(String.valueOf(body.length));
        List<Multiparts.Part> parts = Multiparts.parse(contentType, body);
        for (Multiparts.Part p : parts) {
            assertThat(p.size()).isEqualTo(file.length);
            assertThat(p.headers().get("content-type")).isEqualTo("application/octet-stream");
            assertThat(p.bytes()).as("the bytes of %s", p.contentRange())
                    .isEqualTo(Arrays.copyOfRange(file, (int) p.first(), (int) p.last() + 1));
        }
        return parts.stream().map(p -> p.first() + "-" + p.last()).collect(Collectors.joining(" "));
    }

    private static String get(String path, String... headers) {
        StringBuilder sb = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\nHost: a\r\n");
        for (String h : headers) {
            sb.append(h).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    /** HTTP/1.1 on each transport: pipelined on one connection, then the whole file on it again. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void cleartextHttp11OnEachTransport(String transport) throws Exception {
        assumeAvailable(transport);
        start(transport);
        try (RawClient c = new RawClient(proxy.server.address("http"))) {
            c.send(get("/small.bin", "Range: " + RANGES) + get("/large.bin", "Range: " + RANGES)
                    + get("/large.bin", "Range: " + RANGES) + get("/large.bin"));
            RawClient.Response s = c.read();
            assertThat(s.status()).isEqualTo(206);
            assertThat(parts(s.header("content-type"), s.header("content-length"), s.body(), small)).isEqualTo(PARTS_SMALL);
            for (int i = 0; i < 2; i++) { // a miss, then a hit
                RawClient.Response l = c.read();
                assertThat(l.status()).isEqualTo(206);
                assertThat(parts(l.header("content-type"), l.header("content-length"), l.body(), large))
                        .isEqualTo(PARTS_LARGE);
            }
            assertThat(c.read().body()).isEqualTo(large);
        }
        awaitClosed(www.resolve("large.bin"));
    }

    /** HTTP/1.1 over TLS (the ranges read in chunks), HTTP/2 over TLS and h2c (by Upgrade, then streams). */
    @Test
    void tlsAndHttp2() throws Exception {
        start("auto");
        String tls = "https://localhost:" + proxy.server.address("https").getPort();
        String clear = "http://127.0.0.1:" + proxy.server.address("http").getPort();
        record Way(HttpClient.Version version, String base) {}
        for (Way way : List.of(new Way(HttpClient.Version.HTTP_1_1, tls), new Way(HttpClient.Version.HTTP_2, tls),
                new Way(HttpClient.Version.HTTP_2, clear))) {
            HttpClient client = HttpClient.newBuilder().version(way.version).sslContext(pki.clientContext())
                    .connectTimeout(Duration.ofSeconds(5)).build();
            for (int i = 0; i < 2; i++) {
                for (String name : new String[] {"small.bin", "large.bin"}) {
                    HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(way.base + "/" + name))
                            .header("Range", RANGES).timeout(Duration.ofSeconds(10)).build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    assertThat(r.version()).as(way.toString()).isEqualTo(way.version);
                    assertThat(r.statusCode()).isEqualTo(206);
                    assertThat(parts(r.headers().firstValue("content-type").orElse(null),
                            r.headers().firstValue("content-length").orElse(null), r.body(),
                            name.equals("small.bin") ? small : large))
                            .as("%s %s", way, name).isEqualTo(name.equals("small.bin") ? PARTS_SMALL : PARTS_LARGE);
                }
            }
            HttpResponse<byte[]> head = client.send(HttpRequest.newBuilder(URI.create(way.base + "/large.bin"))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).header("Range", RANGES)
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(head.statusCode()).as("HEAD ignores Range").isEqualTo(200);
            assertThat(head.headers().firstValue("content-length")).hasValue(String.valueOf(LARGE));
        }
        awaitClosed(www.resolve("large.bin"));
    }

    /** The limits: more than 16 ranges or more bytes than the file get the whole file; none within it, 416. */
    @Test
    void limits() throws Exception {
        start("auto");
        String sixteen = IntStream.range(0, 16).mapToObj(i -> 1000 * i + "-" + (1000 * i + 9)).collect(Collectors.joining(","));
        try (RawClient c = new RawClient(proxy.server.address("http"))) {
            RawClient.Response r = c.send(get("/large.bin", "Range: bytes=" + sixteen)).read();
            assertThat(r.status()).isEqualTo(206);
            assertThat(parts(r.header("content-type"), r.header("content-length"), r.body(), large).split(" ")).hasSize(16);

            for (String abusive : new String[] {"bytes=" + sixteen + ",20000-20009", "bytes=0-,0-", "bytes=0-1,0-,5-9",
                    "bytes=" + Stream.generate(() -> "0-0").limit(17).collect(Collectors.joining(","))}) {
                r = c.send(get("/large.bin", "Range: " + abusive)).read();
                assertThat(r.status()).as(abusive).isEqualTo(200);
                assertThat(r.body()).isEqualTo(large);
            }

            r = c.send(get("/large.bin", "Range: bytes=" + LARGE + "-, 2000000-2000001")).read();
            assertThat(r.status()).isEqualTo(416);
            assertThat(r.header("content-range")).isEqualTo("bytes */" + LARGE);

            r = c.send(get("/large.bin", "Range: bytes=10-19,20-29", "If-Range: \"not-this-one\"")).read();
            assertThat(r.status()).as("If-Range that does not hold").isEqualTo(200);
            r = c.send(get("/large.bin", "Range: bytes=10-19,20-29")).read();
            assertThat(r.status()).as("touching ranges merged").isEqualTo(206);
            assertThat(r.header("content-range")).isEqualTo("bytes 10-29/" + LARGE);
            String etag = r.header("etag");
            r = c.send(get("/large.bin", "Range: bytes=10-19,30-39", "If-Range: " + etag)).read();
            assertThat(r.status()).isEqualTo(206);
            assertThat(parts(r.header("content-type"), r.header("content-length"), r.body(), large)).isEqualTo("10-19 30-39");
        }
    }

    /**
     * A client that leaves halfway through a large multipart answer, on each transport and over TLS: the
     * connection goes, the file is closed (and no buffer leaks, LeakCheck), and the proxy goes on serving.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void aClientThatLeavesHalfwayLeavesNothingOpen(String transport) throws Exception {
        assumeAvailable(transport);
        start(transport);
        try (RawClient leaver = new RawClient(proxy.server.address("http"), 4096)) {
            leaver.send(get("/large.bin", "Range: bytes=0-299999,400000-699999,800000-"));
            assertThat(leaver.input().readNBytes(4096)).hasSize(4096);
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(pki.clientContext()).build();
        HttpResponse<java.io.InputStream> r = client.send(HttpRequest.newBuilder(URI.create(
                "https://localhost:" + proxy.server.address("https").getPort() + "/large.bin"))
                .header("Range", "bytes=0-299999,400000-699999,800000-").build(), HttpResponse.BodyHandlers.ofInputStream());
        try (java.io.InputStream in = r.body()) {
            assertThat(in.readNBytes(4096)).hasSize(4096);
        }
        awaitClosed(www.resolve("large.bin"));
        try (RawClient c = new RawClient(proxy.server.address("http"))) {
            assertThat(c.send(get("/large.bin")).read().body()).isEqualTo(large);
        }
    }

    /**
     * Ranges past 2 and 4 GiB of a sparse 5 GiB file in one answer: on io_uring, whose file regions keep
     * offsets in an int, such parts go in chunks (as a single range does); each part must carry its marker.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void rangesPastTwoAndFourGiBCarryTheirOwnBytes(String transport) throws Exception {
        assumeAvailable(transport);
        long size = 5L << 30;
        long[] at = {0, (2L << 30) - 3, 3L << 30, 4L << 30, size - 4};
        Path huge = dir.resolve("huge");
        Files.createDirectories(huge);
        try (RandomAccessFile f = new RandomAccessFile(huge.resolve("huge.bin").toFile(), "rw")) {
            f.setLength(size);
            for (int i = 0; i < at.length; i++) {
                f.seek(at[i]);
                f.write(("M" + i + "!!").getBytes(US_ASCII));
            }
        }
        try {
            proxy.startConfig("""
                    workers: 1
                    transport: %s
                    accessLog: { enabled: false }
                    listeners: [ { name: http, address: "127.0.0.1:0" } ]
                    routes:
                      - name: site
                        hosts: [ "*" ]
                        rules:
                          - files: { root: '%s' }
                    """.formatted(transport, huge));
            String ranges = Arrays.stream(at).mapToObj(a -> a + "-" + (a + 3)).collect(Collectors.joining(","));
            try (RawClient c = new RawClient(proxy.server.address("http"))) {
                RawClient.Response r = c.send(get("/huge.bin", "Range: bytes=" + ranges)).read();
                assertThat(r.status()).isEqualTo(206);
                List<Multiparts.Part> parts = Multiparts.parse(r.header("content-type"), r.body());
                assertThat(parts).hasSize(at.length);
                for (int i = 0; i < at.length; i++) {
                    assertThat(parts.get(i).contentRange()).isEqualTo("bytes " + at[i] + "-" + (at[i] + 3) + "/" + size);
                    assertThat(new String(parts.get(i).bytes(), US_ASCII)).isEqualTo("M" + i + "!!");
                }
            }
        } finally {
            Files.delete(huge.resolve("huge.bin"));
        }
    }

    /** Waits until no descriptor of this process is open on {@code file}: every answer gave its file back. */
    static void awaitClosed(Path file) throws IOException {
        Path proc = Path.of("/proc/self/fd");
        Assumptions.assumeTrue(Files.isDirectory(proc), "no /proc here");
        Path real = file.toRealPath();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(openOn(proc, real)).isZero());
    }

    private static long openOn(Path proc, Path real) throws IOException {
        try (Stream<Path> fds = Files.list(proc)) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(real);
                } catch (IOException | UnsupportedOperationException e) {
                    return false; // closed meanwhile, or not a link
                }
            }).count();
        }
    }
}
