package dev.strait.proxy.control;

import dev.strait.model.HostPort;
import dev.strait.proxy.config.Snapshot;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How {@code Main} starts with {@code --control}: the client from flags and environment, then the first table. */
public final class ControlStart {
    private static final Logger log = LoggerFactory.getLogger(ControlStart.class);

    private ControlStart() {}

    /** The client for {@code --control HOST:PORT [--state-dir DIR]}, or null when the address is not HOST:PORT. */
    public static ControlClient client(String control, String stateDir, Map<String, String> env) {
        HostPort operator;
        try {
            operator = HostPort.parse(control);
        } catch (IllegalArgumentException e) {
            return null;
        }
        StateDir state = stateDir == null || stateDir.isBlank() ? null : new StateDir(Path.of(stateDir));
        return new ControlClient(operator, Identity.fromEnvironment(env), state, Backoff.STANDARD,
                ControlTls.fromEnvironment(env), ControlTls.tokenFromEnvironment(env));
    }

    /**
     * Starts the client and returns what to serve first: the kept snapshot when the state directory has
     * a good one, else the operator's first accepted snapshot (waiting for it as long as it takes).
     */
    public static Snapshot firstSnapshot(ControlClient client, String control) throws InterruptedException {
        Snapshot kept = client.start();
        if (kept != null) {
            return kept;
        }
        log.info("waiting for the first snapshot from the operator at {}", control);
        try {
            return client.firstSnapshot().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }
}
