package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher ({@code proxy/bin/strait-proxy}) with its class-data archive beside a jar of the test's own: a
 * {@code --check} run, which loads only the config parser's classes, writes none (the first run to write one
 * decides what every later start maps); the first run that serves writes it when it stops, and the next start
 * uses it.
 */
class LauncherTest {
    private static final Path LAUNCHER = LocalClusterTest.ROOT.resolve("proxy/bin/strait-proxy");

    @RegisterExtension
    final StraitProcesses strait = new StraitProcesses();

    @TempDir
    Path dir;

    @Test
    void onlyARunThatServesWritesTheClassArchive() throws Exception {
        Path jar = Files.copy(StraitProcesses.jar(), dir.resolve("strait-proxy.jar"));
        Path archive = dir.resolve("strait-proxy.jsa");
        Path config = Files.writeString(dir.resolve("strait.yaml"), """
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                admin: { address: "127.0.0.1:0" }
                routes: [ { name: site, hosts: [ "*" ], rules: [ { respond: { status: 200, body: "ok" } } ] } ]
                """);
        Map<String, String> env = Map.of("STRAIT_JAR", jar.toString(), "JAVA", StraitProcesses.javaBinary());

        ProxyProcess check = strait.startProcess(List.of(LAUNCHER.toString(), "--check", config.toString()), env);
        assertThat(check.waitFor(Duration.ofSeconds(30))).isTrue();
        assertThat(check.process.exitValue()).as(check.stderr()).isZero();
        assertThat(archive).as("a --check run writes no archive").doesNotExist();

        ProxyProcess first = strait.startProcess(List.of(LAUNCHER.toString(), "--config", config.toString()), env)
                .awaitServing();
        first.close(); // SIGTERM: the JVM writes the archive as it exits
        assertThat(archive).as("the first serving run's archive").isRegularFile();
        long written = Files.getLastModifiedTime(archive).toMillis();

        ProxyProcess second = strait.startProcess(List.of(LAUNCHER.toString(), "--config", config.toString()), env)
                .awaitServing();
        second.close();
        assertThat(Files.getLastModifiedTime(archive).toMillis()).as("a later start maps it, not rewrites it")
                .isEqualTo(written);
    }
}
