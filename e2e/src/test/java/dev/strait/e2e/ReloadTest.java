package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --config FILE} reloads when the file changes and on SIGHUP; an invalid file is refused with
 * its field paths and the last good config keeps serving (CONTRACT.md, "Build and run"). Each refusal
 * and each applied change is counted in {@code /metrics}.
 *
 * <p>Files are replaced the way editors and ConfigMap mounts do it: written beside, then renamed over
 * the config in one step, so the watcher never reads a half-written file.
 */
class ReloadTest {
    @RegisterExtension
    final StraitProcesses strait = new StraitProcesses();

    @TempDir
    Path tmp;
    private Path conf;
    private Path staging;

    @BeforeEach
    void dirs() throws IOException {
        conf = Files.createDirectory(tmp.resolve("conf"));
        staging = Files.createDirectory(tmp.resolve("staging"));
    }

    @Test
    void aChangedFileIsServedAndAnInvalidOneIsRefused() throws Exception {
        Path file = conf.resolve("strait.yaml");
        replace(file, config("v1"));
        ProxyProcess proxy = strait.start("--config", file.toString()).awaitServing();
        assertThat(proxy.get("/").body()).isEqualTo("v1");

        replace(file, config("v2"));
        await("answer v2 after the file changed").until(() -> proxy.get("/").body(), "v2"::equals);
        proxy.awaitStderr("config reload (file changed): now serving version");

        replace(file, config("v3").replace("status: 200", "stauts: 200"));
        proxy.awaitStderr("config reload (file changed) refused");
        assertThat(proxy.stderr()).contains("routes[0].rules[0].respond.stauts: unknown field");
        assertThat(proxy.get("/").body()).isEqualTo("v2");
        assertThat(proxy.admin("/metrics").body())
                .contains("strait_config_reloads_rejected_total 1.0")
                .contains("strait_config_reloads_accepted_total 1.0");
        assertThat(proxy.admin("/readyz").statusCode()).isEqualTo(200);
    }

    /**
     * The config is a link to a link: the watcher watches the config's directory and the final target's, not the
     * middle link's, so pointing that link at another file is a change only SIGHUP can pick up (the files it
     * points at are all written before the start). The log lines prove which path applied or refused it.
     */
    @Test
    void sighupReloadsAChangeTheWatcherCannotSee() throws Exception {
        // A signal ignored when the JVM starts (nohup, some supervisors) stays ignored: the JVM will not
        // install a handler over SIG_IGN, and children inherit it.
        Assumptions.assumeFalse(sighupIgnored(), "SIGHUP is ignored in this process (nohup?), so it is in the proxy");
        Path real = Files.createDirectory(tmp.resolve("real"));
        Files.writeString(real.resolve("v1.yaml"), config("v1"));
        Files.writeString(real.resolve("v2.yaml"), config("v2"));
        Files.writeString(real.resolve("v3.yaml"), config("v3").replace("status: 200", "stauts: 200"));
        Path middle = Files.createDirectory(tmp.resolve("middle")).resolve("strait.yaml");
        Files.createSymbolicLink(middle, real.resolve("v1.yaml"));
        Path link = Files.createSymbolicLink(conf.resolve("strait.yaml"), middle);
        ProxyProcess proxy = strait.start("--config", link.toString()).awaitServing();
        assertThat(proxy.get("/").body()).isEqualTo("v1");

        relink(middle, real.resolve("v2.yaml"));
        proxy.signal("HUP");
        proxy.awaitStderr("config reload (SIGHUP): now serving version");
        assertThat(proxy.get("/").body()).isEqualTo("v2");
        assertThat(proxy.admin("/config").body()).contains("v2");

        relink(middle, real.resolve("v3.yaml"));
        proxy.signal("HUP");
        proxy.awaitStderr("config reload (SIGHUP) refused");
        assertThat(proxy.stderr()).contains("routes[0].rules[0].respond.stauts: unknown field");
        assertThat(proxy.get("/").body()).isEqualTo("v2");
        assertThat(proxy.admin("/metrics").body())
                .contains("strait_config_reloads_accepted_total 1.0")
                .contains("strait_config_reloads_rejected_total 1.0");
        assertThat(proxy.process.isAlive()).isTrue();
    }

    /** Whether SIGHUP is ignored here (Linux: bit 0 of SigIgn in /proc/self/status); false elsewhere. */
    private static boolean sighupIgnored() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return false;
        }
        return Files.readAllLines(status).stream()
                .filter(l -> l.startsWith("SigIgn:"))
                .map(l -> Long.parseUnsignedLong(l.substring("SigIgn:".length()).trim(), 16))
                .anyMatch(mask -> (mask & 1L) != 0);
    }

    private static String config(String body) {
        return """
                listeners:
                  - { name: http, address: "127.0.0.1:0" }
                admin: { address: "127.0.0.1:0" }
                routes:
                  - name: app
                    hosts: [ "*" ]
                    rules:
                      - respond: { status: 200, body: "%s" }
                """.formatted(body);
    }

    /** Points the link {@code link} at {@code target} in one step: a new link beside it, renamed over it. */
    private void relink(Path link, Path target) throws IOException {
        Path next = staging.resolve("link-" + System.nanoTime());
        Files.createSymbolicLink(next, target);
        Files.move(next, link, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Writes {@code text} beside (in staging/) and renames it over {@code file} atomically. */
    private void replace(Path file, String text) throws IOException {
        Path next = Files.writeString(Files.createTempFile(staging, "strait", ".yaml"), text);
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
