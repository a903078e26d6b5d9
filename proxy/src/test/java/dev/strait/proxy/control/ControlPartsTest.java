package dev.strait.proxy.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.testing.TestServing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control client's small parts. The client itself is tested against the real operator server in
 * the operator module (ChannelTest: first snapshot, update, NACK, disconnect, redial, restart;
 * DeltaChannelTest: deltas, resync, reconnect, a delta that makes the config invalid).
 */
class ControlPartsTest {
    @Test
    void backoffDoublesUpToItsCapWithJitterAndResets() {
        Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofMillis(800));
        long[] upper = {100, 200, 400, 800, 800};
        for (long u : upper) {
            assertThat(b.nextMillis()).isBetween(u / 2, u);
        }
        b.reset();
        assertThat(b.nextMillis()).isBetween(50L, 100L);
    }

    @Test
    void mainsControlFlagsAreChecked() {
        assertThat(ControlStart.client("no-port", null, Map.of())).isNull();
        ControlClient c = ControlStart.client("127.0.0.1:1", null, Map.of());
        assertThat(c).isNotNull();
        c.close();
        assertThat(ControlTls.fromEnvironment(Map.of())).as("plain TCP without a CA").isNull();
        assertThat(ControlTls.tokenFromEnvironment(Map.of("STRAIT_CONTROL_TOKEN", "t")).get()).isEqualTo("t");
    }

    @Test
    void identityComesFromTheEnvironment() {
        assertThat(Identity.fromEnvironment(Map.of())).isEqualTo(Identity.ingress("strait"));
        assertThat(Identity.fromEnvironment(Map.of("STRAIT_INGRESS_CLASS", "internal"))).isEqualTo(Identity.ingress("internal"));
        assertThat(Identity.fromEnvironment(Map.of("STRAIT_POD_NAMESPACE", "shop", "STRAIT_POD_NAME", "web-0")))
                .isEqualTo(Identity.sidecar("shop", "web-0"));
    }

    @Test
    void stateDirKeepsWhatItIsGivenAndIgnoresWhatNoLongerBuilds(@TempDir Path dir) throws IOException {
        StateDir state = new StateDir(dir.resolve("state"));
        assertThat(state.load()).isNull();
        Snapshot s = TestServing.snapshot("""
                listeners: [ { name: http, address: 127.0.0.1:0 } ]
                routes: [ { name: a, hosts: [ "*" ], rules: [ { respond: { status: 204 } } ] } ]
                """);
        state.save(s.config());
        assertThat(state.load().version()).isEqualTo(s.version());
        assertThat(Files.list(state.file().getParent())).containsExactly(state.file());

        Files.writeString(state.file(), "{ not: [ a config");
        assertThat(state.load()).isNull();
    }
}
