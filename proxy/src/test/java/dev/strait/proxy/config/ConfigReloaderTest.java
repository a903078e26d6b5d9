package dev.strait.proxy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.ProxyServer;
import dev.strait.proxy.testing.RawClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reloading --config: a good file swaps in whole, a bad one is refused and the last good one serves. */
class ConfigReloaderTest {
    @TempDir
    Path dir;

    private ProxyServer server;
    private ConfigReloader reloader;

    @AfterEach
    void stop() throws Exception {
        if (reloader != null) {
            reloader.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static String config(String body) {
        return """
                accessLog: { enabled: false }
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - respond: { body: "%s" }
                """.formatted(body);
    }

    /** Serves {@code file}'s config and watches it (no listener: these tests look at the swaps). */
    private Serving watch(Path file) throws Exception {
        Serving serving = new Serving(ConfigFiles.load(file));
        reloader = new ConfigReloader(file, serving, new ProxyMetrics());
        return serving;
    }

    private String get(RawClient c) throws Exception {
        return c.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n").read().text();
    }

    @Test
    void fileChangesSwapTheTableAndBadFilesAreRefused() throws Exception {
        Path file = dir.resolve("strait.yaml");
        Files.writeString(file, config("v1"));
        Serving serving = new Serving(ConfigFiles.load(file));
        ProxyMetrics metrics = new ProxyMetrics();
        server = new ProxyServer(serving.snapshot().config(), serving, metrics, null).start();
        reloader = new ConfigReloader(file, serving, metrics);
        try (RawClient c = new RawClient(server.address("http"))) {
            assertThat(get(c)).isEqualTo("v1");

            // Written as editors and ConfigMaps do it: a new file renamed over the old one.
            Path tmp = dir.resolve("strait.yaml.tmp");
            Files.writeString(tmp, config("v2"));
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            await().atMost(Duration.ofSeconds(10)).until(() -> serving.swaps() == 1);
            assertThat(get(c)).as("same connection, new table").isEqualTo("v2");

            Files.writeString(file, config("v3").replace("respond", "respnd"));
            await().atMost(Duration.ofSeconds(10)).until(() -> metrics.scrape()
                    .contains("strait_config_reloads_rejected_total 1.0"));
            assertThat(serving.swaps()).isEqualTo(1);
            assertThat(get(c)).isEqualTo("v2");

            Files.writeString(file, config("v4"));
            assertThat(reloader.reload("test")).isTrue();
            assertThat(get(c)).isEqualTo("v4");
            assertThat(metrics.scrape()).contains("strait_config_serving{version=\"" + serving.snapshot().version() + "\"}");
        }
    }

    /** A shell's {@code >} or a slow editor truncates first: that empty moment is not a bad config to count. */
    @Test
    void anEmptyFileIsAWriteInProgressNotARefusedReload() throws Exception {
        Path file = dir.resolve("strait.yaml");
        Files.writeString(file, config("v1"));
        Serving serving = new Serving(ConfigFiles.load(file));
        ProxyMetrics metrics = new ProxyMetrics();
        reloader = new ConfigReloader(file, serving, metrics);
        Files.writeString(file, "");
        await().atMost(Duration.ofSeconds(10)).until(() -> reloader.writesInProgress() > 0);
        Files.writeString(file, config("v2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> serving.swaps() == 1);
        assertThat(metrics.scrape()).contains("strait_config_reloads_rejected_total 0.0");
        assertThat(reloader.reload("SIGHUP")).isFalse();
        Files.writeString(file, "");
        assertThat(reloader.reload("SIGHUP")).as("asked for: refused and counted").isFalse();
        assertThat(metrics.scrape()).contains("strait_config_reloads_rejected_total 1.0");
    }

    /** A config that is a link into another directory: editing the file it points to reloads. */
    @Test
    void aConfigLinkedFromElsewhereIsWatchedWhereItLives() throws Exception {
        Path real = Files.createDirectory(dir.resolve("real")).resolve("strait.yaml");
        Files.writeString(real, config("v1"));
        Path link = Files.createDirectory(dir.resolve("etc")).resolve("strait.yaml");
        Files.createSymbolicLink(link, real);
        Serving serving = watch(link);
        Files.writeString(real, config("v2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> serving.swaps() == 1);
    }

    @Test
    void restartOnlyChangesAreNamedAndCertificatesAreNotAmongThem() throws Exception {
        dev.strait.model.Config a = dev.strait.model.ConfigParser.parse("""
                listeners:
                  - { name: http, address: "127.0.0.1:8080" }
                  - { name: https, address: "127.0.0.1:8443", tls: { certificates: [ { cert: /a.crt, key: /a.key } ] } }
                admin: { address: "127.0.0.1:9901" }
                """, "a");
        dev.strait.model.Config certs = dev.strait.model.ConfigParser.parse("""
                listeners:
                  - { name: http, address: "127.0.0.1:8080" }
                  - { name: https, address: "127.0.0.1:8443", tls: { certificates: [ { cert: /b.crt, key: /b.key } ] } }
                admin: { address: "127.0.0.1:9901" }
                """, "b");
        dev.strait.model.Config moved = dev.strait.model.ConfigParser.parse("""
                listeners:
                  - { name: http, address: "127.0.0.1:8081" }
                  - { name: extra, address: "127.0.0.1:8082" }
                workers: 3
                resolver: { nameservers: [ "10.96.0.10:53" ] }
                """, "c");
        dev.strait.model.Config balanced = dev.strait.model.ConfigParser.parse("""
                listeners:
                  - { name: http, address: "127.0.0.1:8080", proxyProtocol: true }
                  - { name: https, address: "127.0.0.1:8443", tls: { certificates: [ { cert: /a.crt, key: /a.key } ] } }
                admin: { address: "127.0.0.1:9901" }
                """, "d");
        assertThat(ConfigReloader.restartOnlyChanges(a, balanced)).containsExactly("listener http proxyProtocol false -> true");
        assertThat(ConfigReloader.restartOnlyChanges(a, certs)).isEmpty();
        assertThat(ConfigReloader.restartOnlyChanges(a, moved)).containsExactly(
                "listener http address 127.0.0.1:8080 -> 127.0.0.1:8081", "listener extra added (127.0.0.1:8082)",
                "listener https removed", "workers 0 -> 3", "admin 127.0.0.1:9901 -> none", "resolver");
    }

    @Test
    void aConfigThatIsNotUtf8IsRefusedAtItsLineAndColumn() {
        byte[] text = "listeners: []\n# caf\u00e9 in Latin-1\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConfigFiles.utf8(text, "bad.yaml"))
                .isInstanceOf(dev.strait.model.InvalidConfigException.class)
                .hasMessageContaining("not valid UTF-8 at line 2, column 6 (byte 0xE9)");
    }

    @Test
    void aFileWrittenBesideTheConfigReloadsNothing() throws Exception {
        Path file = dir.resolve("strait.yaml");
        Files.writeString(file, config("v1"));
        Serving serving = watch(file);
        // A log written into the config's directory: before, each burst parsed and compiled the config.
        for (int i = 0; i < 20; i++) {
            Files.writeString(dir.resolve("strait.log"), "line " + i + "\n", java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> reloader.ignoredChanges() > 0);

        Files.writeString(file, config("v2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> serving.swaps() == 1);
    }

    @Test
    void aConfigMapSwapOfItsDataLinkReloads() throws Exception {
        // How the kubelet updates a mounted ConfigMap: the file is a link through "..data", and "..data"
        // is switched atomically to a new timestamped directory.
        Path v1 = Files.createDirectory(dir.resolve("..2026_12_01_v1"));
        Files.writeString(v1.resolve("strait.yaml"), config("v1"));
        Files.createSymbolicLink(dir.resolve("..data"), v1.getFileName());
        Path file = dir.resolve("strait.yaml");
        Files.createSymbolicLink(file, Path.of("..data/strait.yaml"));
        Serving serving = watch(file);

        Path v2 = Files.createDirectory(dir.resolve("..2026_12_01_v2"));
        Files.writeString(v2.resolve("strait.yaml"), config("v2"));
        Path tmp = dir.resolve("..data_tmp");
        Files.createSymbolicLink(tmp, v2.getFileName());
        Files.move(tmp, dir.resolve("..data"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        await().atMost(Duration.ofSeconds(10)).until(() -> serving.swaps() == 1);
    }

    @Test
    void reloadWithUnchangedContentDoesNotSwap() throws Exception {
        Path file = dir.resolve("strait.yaml");
        Files.writeString(file, config("same"));
        Serving serving = watch(file);
        Files.writeString(file, "# a comment changes the bytes, not the config\n" + config("same"));
        assertThat(reloader.reload("test")).isFalse();
        assertThat(serving.swaps()).isZero();
    }

    @Test
    void proxyOnlyChecksAreReportedWithTheirFieldPath() throws Exception {
        // The model accepts any root; only the proxy, building its table, finds the directory missing.
        Path file = dir.resolve("strait.yaml");
        Files.writeString(file, """
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - files: { root: /no/such/dir }
                """);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConfigFiles.load(file))
                .isInstanceOf(dev.strait.model.InvalidConfigException.class)
                .hasMessageContaining("routes[0].rules[0].files")
                .hasMessageContaining("/no/such/dir");
    }
}
