package dev.strait.proxy.compression;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Where the native libraries cannot be unpacked (no writable temporary directory, as in a container with a read-only
 * root and no {@code /tmp} volume), zstd and brotli are reported once and left out, and a rule answers in gzip. Run
 * in a JVM of its own: a library's availability is the process's.
 */
class CodingAvailabilityTest {
    /** What a process with no usable temporary directory makes of the codings. */
    public static void main(String[] args) {
        for (Coding c : Coding.values()) {
            System.out.println("available " + c.token + " " + c.available());
        }
        System.out.println("rule [zstd, br, gzip] " + Arrays.toString(CompressionHandler.usable(List.of("zstd", "br", "gzip"))));
        System.out.println("rule [br, zstd] " + Arrays.toString(CompressionHandler.usable(List.of("br", "zstd"))));
    }

    @Test
    void librariesThatCannotLoadAreReportedAndLeftOut() throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // /proc takes no new directory, whoever runs the test (root included).
        Process p = new ProcessBuilder(java, "-Djava.io.tmpdir=/proc/strait-no-tmp", "-cp",
                System.getProperty("java.class.path"), CodingAvailabilityTest.class.getName()).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(out).contains("available zstd false", "available br false", "available gzip true",
                    "rule [zstd, br, gzip] [GZIP]", "rule [br, zstd] [GZIP]",
                    "compression: zstd is not available on this machine", "compression: br is not available on this machine");
        } finally {
            p.destroyForcibly();
        }
    }

    /** A killed proxy's unpacked brotli library does not stay in a pod's /tmp; one being unpacked now is left. */
    @Test
    void brotlisUnpackedCopiesAreRemoved(@org.junit.jupiter.api.io.TempDir Path tmp) throws IOException {
        Path stale = java.nio.file.Files.createDirectories(tmp.resolve("com_aayushatharva_brotli4j_123"));
        java.nio.file.Files.write(stale.resolve("libbrotli.so"), new byte[1000]);
        java.nio.file.Files.setLastModifiedTime(stale, java.nio.file.attribute.FileTime.fromMillis(
                System.currentTimeMillis() - 120_000));
        Path fresh = java.nio.file.Files.createDirectories(tmp.resolve("com_aayushatharva_brotli4j_456"));
        java.nio.file.Files.write(fresh.resolve("libbrotli.so"), new byte[1000]);
        Path other = java.nio.file.Files.createDirectories(tmp.resolve("netty-keep"));
        Coding.removeUnpackedCopies(tmp);
        assertThat(stale).doesNotExist();
        assertThat(fresh.resolve("libbrotli.so")).as("another process may be about to load it").exists();
        assertThat(other).exists();
        assertThat(Coding.BROTLI.available()).isTrue();
        assertThat(CompressionHandler.usable(List.of("br"))).containsExactly(Coding.BROTLI);
    }

    @Test
    void hereEveryCodingLoadsAndARuleKeepsItsOrder() {
        assertThat(CompressionHandler.usable(List.of("br", "gzip", "zstd")))
                .containsExactly(Coding.BROTLI, Coding.GZIP, Coding.ZSTD);
    }
}
