package dev.strait.proxy.config;

import dev.strait.model.Config;
import dev.strait.model.InvalidConfigException;
import dev.strait.proxy.metrics.ProxyMetrics;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads {@code --config} when the file changes (watching its directory, so editors that replace
 * the file and Kubernetes ConfigMap symlink swaps are seen) and on SIGHUP. A new config is parsed,
 * validated and compiled off the event loops, then swapped in with one reference write; an invalid
 * one is refused with every error logged, and the last good config keeps serving.
 */
public final class ConfigReloader implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConfigReloader.class);
    private static final long DEBOUNCE_MILLIS = 100;

    private final Path file;
    /** The config the process started with: listeners, workers, transport and admin stay as it says. */
    private final Config started;
    private final Serving serving;
    private final ProxyMetrics metrics;
    private final WatchService watcher;
    private final Thread thread;
    private final Set<Path> watched = ConcurrentHashMap.newKeySet();
    /** The files whose changes are reloaded: the config and the certificates it names (absolute paths). */
    private volatile Set<Path> inputs;
    /** Batches of directory events that named none of the inputs (a log file written beside the config). */
    private final AtomicInteger ignored = new AtomicInteger();
    /** Changes that left the config empty: a write in progress, waited out rather than refused. */
    private final AtomicInteger inProgress = new AtomicInteger();

    public ConfigReloader(Path file, Serving serving, ProxyMetrics metrics) throws IOException {
        this.file = file.toAbsolutePath().normalize();
        this.serving = serving;
        this.metrics = metrics;
        this.watcher = FileSystems.getDefault().newWatchService();
        this.file.getParent().register(watcher, StandardWatchEventKinds.ENTRY_CREATE,
                StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
        watched.add(this.file.getParent());
        this.inputs = Set.of(this.file);
        this.started = serving.snapshot().config();
        watchCertificateFiles(serving.snapshot());
        this.thread = new Thread(this::watch, "strait-config-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /** Reloads now (SIGHUP does this). Returns whether a new config was applied. */
    public synchronized boolean reload(String why) {
        Snapshot current = serving.snapshot();
        Snapshot next;
        try {
            next = ConfigFiles.load(file);
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            // A bug or a config too large for this heap: refused like any bad config, never the end of
            // the watcher (or of the process) while the last good table still serves.
            metrics.reloadRejected();
            log.error("config reload ({}) refused: {}; still serving version {}", why, e.toString(), current.version(), e);
            return false;
        } catch (InvalidConfigException e) {
            metrics.reloadRejected();
            log.error("config reload ({}) refused; still serving version {}. {}", why, current.version(), e.getMessage());
            return false;
        } catch (IOException e) {
            metrics.reloadRejected();
            log.error("config reload ({}) refused: cannot read {}: {}; still serving version {}", why, file, e,
                    current.version());
            return false;
        }
        watchCertificateFiles(next);
        if (next.sameAs(current)) {
            log.info("config reload ({}): unchanged, still serving version {}", why, next.version());
            return false;
        }
        warnAboutRestartOnlySettings(current.config(), next.config());
        serving.swap(next);
        metrics.reloadAccepted();
        metrics.configVersion(next.version());
        if (next.version().equals(current.version())) {
            log.info("config reload ({}): certificates changed; still config version {}", why, next.version());
        } else {
            log.info("config reload ({}): now serving version {} (was {})", why, next.version(), current.version());
        }
        return true;
    }

    /** Certificate files may live outside the config's directory: watch theirs too (registering twice is a no-op). */
    private void watchCertificateFiles(Snapshot s) {
        Set<Path> files = new HashSet<>();
        files.add(file);
        try {
            // A config that is a link to a file elsewhere (not a ConfigMap's ..data swap, which stays in this
            // directory): that file's directory is watched too, so editing it reloads.
            Path real = file.toRealPath();
            if (!real.equals(file)) {
                files.add(real);
                watchDirectory(real.getParent());
            }
        } catch (IOException e) {
            // gone for now: the reload that follows says so
        }
        for (Path f : s.tls().files()) {
            files.add(f.toAbsolutePath().normalize());
        }
        inputs = Set.copyOf(files);
        for (Path f : s.tls().files()) {
            watchDirectory(f.getParent());
        }
    }

    private void watchDirectory(Path dir) {
        if (dir != null && watched.add(dir)) {
            try {
                dir.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                        StandardWatchEventKinds.ENTRY_DELETE);
            } catch (IOException | RuntimeException e) {
                log.warn("cannot watch {} for changes: {} (SIGHUP still reloads)", dir, e.toString());
            }
        }
    }

    /**
     * Says which settings of {@code next} wait for a restart, compared with what the process started with
     * (certificates are not among them: they apply now), and sets {@code strait_config_restart_pending}.
     */
    private void warnAboutRestartOnlySettings(Config current, Config next) {
        List<String> pending = restartOnlyChanges(started, next);
        metrics.restartPending(!pending.isEmpty());
        if (!pending.isEmpty() && !pending.equals(restartOnlyChanges(started, current))) {
            log.warn("config reload: these take effect at the next restart, not now: {}; everything else applies now",
                    String.join("; ", pending));
        }
    }

    /** What differs between the two configs in settings only a restart applies. */
    public static List<String> restartOnlyChanges(Config a, Config b) {
        List<String> changes = new ArrayList<>();
        Map<String, Config.Listener> before = new LinkedHashMap<>();
        a.listeners().forEach(l -> before.put(l.name(), l));
        for (Config.Listener l : b.listeners()) {
            Config.Listener was = before.remove(l.name());
            if (was == null) {
                changes.add("listener " + l.name() + " added (" + l.address() + ")");
            } else if (!was.address().equals(l.address())) {
                changes.add("listener " + l.name() + " address " + was.address() + " -> " + l.address());
            } else if ((was.tls() == null) != (l.tls() == null)) {
                changes.add("listener " + l.name() + (l.tls() == null ? " without TLS" : " with TLS"));
            } else if (was.maxConnections() != l.maxConnections()) {
                changes.add("listener " + l.name() + " maxConnections " + was.maxConnections() + " -> " + l.maxConnections());
            } else if (was.proxyProtocol() != l.proxyProtocol()) {
                changes.add("listener " + l.name() + " proxyProtocol " + was.proxyProtocol() + " -> " + l.proxyProtocol());
            }
        }
        before.keySet().forEach(name -> changes.add("listener " + name + " removed"));
        if (a.workers() != b.workers()) {
            changes.add("workers " + a.workers() + " -> " + b.workers());
        }
        if (a.transport() != b.transport()) {
            changes.add("transport " + a.transport() + " -> " + b.transport());
        }
        if (!Objects.equals(a.admin(), b.admin())) {
            changes.add("admin " + (a.admin() == null ? "none" : a.admin().address()) + " -> "
                    + (b.admin() == null ? "none" : b.admin().address()));
        }
        if (!a.resolver().equals(b.resolver())) {
            changes.add("resolver");
        }
        return changes;
    }

    private void watch() {
        try {
            while (true) {
                WatchKey key = watcher.take();
                // Let a burst of events (write, rename, symlink swap) settle before reading.
                Thread.sleep(DEBOUNCE_MILLIS);
                boolean ours = concernsInputs(key);
                WatchKey more;
                while ((more = watcher.poll(DEBOUNCE_MILLIS, TimeUnit.MILLISECONDS)) != null) {
                    ours |= concernsInputs(more);
                    more.reset();
                }
                key.reset();
                // Only changes to the config or a certificate: a busy file beside them (a log written into
                // the same directory) would otherwise parse and compile the whole config a few times a second.
                if (ours && beingWritten()) {
                    inProgress.incrementAndGet();
                    log.info("config reload: {} is empty, so presumably being written; waiting for it to change again"
                            + " (write a new file beside it and rename it over, for one atomic change)", file);
                } else if (ours) {
                    try {
                        reload("file changed");
                    } catch (Throwable t) {
                        log.error("config reload (file changed) failed; still watching {}", file, t);
                    }
                } else {
                    ignored.incrementAndGet();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closing
        }
    }

    /**
     * An empty config file is never a config: on a file change it is one written in place that has just
     * been truncated (a shell's {@code >}, an editor saving slowly), not a bad config to refuse and count.
     */
    private boolean beingWritten() {
        try {
            return java.nio.file.Files.size(file) == 0;
        } catch (IOException e) {
            return false; // gone: the reload says so
        }
    }

    /**
     * Whether the key's events touch an input: a config or certificate file by name, a Kubernetes
     * ConfigMap's {@code ..data} symlink swap (names starting with {@code ..}), or lost events (overflow).
     */
    private boolean concernsInputs(WatchKey key) {
        boolean ours = false;
        for (WatchEvent<?> e : key.pollEvents()) {
            if (e.kind() == StandardWatchEventKinds.OVERFLOW || !(e.context() instanceof Path name)
                    || !(key.watchable() instanceof Path dir)) {
                ours = true;
            } else {
                ours |= name.toString().startsWith("..") || inputs.contains(dir.resolve(name).toAbsolutePath().normalize());
            }
        }
        return ours;
    }

    /** For tests: changes that found the config empty and so waited for the next one. */
    int writesInProgress() {
        return inProgress.get();
    }

    /** For tests: batches of directory events that changed no input and so reloaded nothing. */
    int ignoredChanges() {
        return ignored.get();
    }

    @Override
    public void close() throws IOException {
        thread.interrupt();
        watcher.close();
    }
}
