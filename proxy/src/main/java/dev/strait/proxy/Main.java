package dev.strait.proxy;

import dev.strait.model.Flags;
import dev.strait.model.InvalidConfigException;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.admin.AdminServer;
import dev.strait.proxy.config.ConfigFiles;
import dev.strait.proxy.config.ConfigReloader;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.control.ControlClient;
import dev.strait.proxy.control.ControlStart;
import dev.strait.proxy.logging.StderrLogProvider;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.server.FatalErrors;
import dev.strait.proxy.server.ProxyServer;
import io.netty.util.ResourceLeakDetector;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * {@code java -jar strait-proxy.jar [--config FILE | --control HOST:PORT [--state-dir DIR]] [--check FILE]}: every flag may also be given as
 * an environment variable ({@code STRAIT_CONFIG}, ...). Without flags it serves the embedded default.
 */
public final class Main {
    static {
        // Before the first logger is made: our stderr binding (docs/adr/0029), unless the user picked
        // another slf4j provider. It reads STRAIT_LOG_LEVEL itself.
        if (System.getProperty("slf4j.provider") == null) {
            System.setProperty("slf4j.provider", StderrLogProvider.class.getName());
            // slf4j would announce the explicit choice on every start; its warnings still show.
            if (System.getProperty("slf4j.internal.verbosity") == null) {
                System.setProperty("slf4j.internal.verbosity", "WARN");
            }
        }
        // Netty's JFR allocator events pull in jdk.jfr at start (tens of ms, a megabyte of metaspace)
        // for something only a profiling session wants; -Dio.netty.jfr.enabled=true brings them back.
        if (System.getProperty("io.netty.jfr.enabled") == null) {
            System.setProperty("io.netty.jfr.enabled", "false");
        }
    }

    private static final Logger log = LoggerFactory.getLogger(Main.class);
    private static final String USAGE = """
            usage: java -jar strait-proxy.jar [options]
              --config FILE        serve this YAML (or JSON) config; reloaded on change and on SIGHUP
              --check FILE         validate a config, print every error with its field path, exit 0 or 1
              --control HOST:PORT  take the routing table from the operator's control channel
              --state-dir DIR      keep the last accepted snapshot here and serve it at start (with --control)
              --help               this text
            Each option may also be set in the environment: STRAIT_CONFIG, STRAIT_CHECK, STRAIT_CONTROL, STRAIT_STATE_DIR.
            With --control the proxy says who it is from STRAIT_INGRESS_CLASS (default strait), or
            STRAIT_POD_NAMESPACE and STRAIT_POD_NAME for a sidecar (see docs/control-channel.md).
            With no options the embedded default config is served: http://0.0.0.0:8080/, admin on 127.0.0.1:9901.
            """;

    private Main() {}

    public static void main(String[] args) throws Exception {
        long startNanos = System.nanoTime();
        FatalErrors.install(); // out of memory or a dead event loop: exit 3 at once, not half alive
        leakDetectionOffUnlessAsked();
        Map<String, String> opts = options(args);
        if (opts == null) {
            System.exit(2);
            return;
        }
        if (opts.containsKey("help")) {
            System.out.print(USAGE);
            return;
        }
        if (opts.containsKey("check")) {
            System.exit(check(Path.of(opts.get("check"))));
            return;
        }
        if (opts.containsKey("control")) {
            ControlClient control = ControlStart.client(opts.get("control"), opts.get("state-dir"), System.getenv());
            if (control == null || opts.containsKey("config")) {
                System.err.println(control == null ? "--control must be HOST:PORT" : "--control and --config exclude each other");
                System.exit(2);
                return;
            }
            run(ControlStart.firstSnapshot(control, opts.get("control")), null, startNanos, control);
            return;
        }
        if (opts.containsKey("state-dir")) {
            System.err.println("--state-dir keeps the control channel's snapshots; it needs --control HOST:PORT");
            System.exit(2);
            return;
        }
        Path configFile = opts.containsKey("config") ? Path.of(opts.get("config")) : null;
        Snapshot snapshot;
        try {
            snapshot = configFile == null ? ConfigFiles.loadEmbedded() : ConfigFiles.load(configFile);
        } catch (InvalidConfigException e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        } catch (java.io.IOException e) {
            System.err.println("cannot read " + configFile + ": " + e);
            System.exit(1);
            return;
        }
        run(snapshot, configFile, startNanos, null);
    }

    /**
     * Netty's default leak detection samples one buffer in 128 and takes a stack trace for each: a
     * steady cost on every response (1% of a TLS file server's CPU here) for a check the tests make at
     * the paranoid level. A proxy runs without it unless {@code -Dio.netty.leakDetection.level} asks.
     */
    private static void leakDetectionOffUnlessAsked() {
        if (System.getProperty("io.netty.leakDetection.level") == null
                && System.getProperty("io.netty.leakDetectionLevel") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }

    private static void run(Snapshot snapshot, Path configFile, long startNanos, ControlClient control) throws Exception {
        Serving serving = new Serving(snapshot);
        ProxyMetrics metrics = new ProxyMetrics();
        metrics.configVersion(snapshot.version());
        AccessLog accessLog = new AccessLog(new FileOutputStream(FileDescriptor.out));
        ProxyServer server;
        try {
            server = new ProxyServer(snapshot.config(), serving, metrics, accessLog).start();
        } catch (Exception e) {
            log.error("cannot start: {}", ProxyServer.describe(e));
            System.exit(1);
            return;
        }
        AdminServer admin = null;
        if (snapshot.config().admin() != null) {
            var address = snapshot.config().admin().address();
            try {
                admin = new AdminServer(serving, metrics, server::ready).cache(server.cache()).start(address);
            } catch (Exception e) {
                log.error("cannot start: admin.address {}: {}", address, e.getMessage());
                server.close();
                System.exit(1);
                return;
            }
            log.info("admin on http://{}:{}/ (healthz, readyz, metrics, config, cache/purge)",
                    admin.address().getAddress().getHostAddress(), admin.address().getPort());
        }
        if (control != null) {
            control.attach(serving, metrics);
        }
        ConfigReloader reloader = configFile == null ? null : new ConfigReloader(configFile, serving, metrics);
        // SIGHUP's default action ends the process: without a file to reload (the embedded config, the
        // control channel) it is logged and otherwise ignored, as nginx's master does with nothing to reload.
        var previous = Signal.handle(new Signal("HUP"), reloader != null ? s -> reloader.reload("SIGHUP")
                : s -> log.info("SIGHUP: nothing to reload ({})", control != null
                        ? "the routing table comes from the control channel" : "serving the embedded config"));
        if (previous == sun.misc.SignalHandler.SIG_IGN && reloader != null) {
            // Started with SIGHUP ignored (nohup): the JVM keeps it ignored, so say so.
            log.warn("SIGHUP is ignored by this process (started under nohup?): reload by editing {}", configFile);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        AdminServer adminServer = admin;
        java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable stop = () -> {
            if (!stopping.compareAndSet(false, true)) {
                return;
            }
            String drain = dev.strait.model.Durations.format(serving.snapshot().limits().drainTimeout());
            log.info("stopping: draining connections (up to {})", drain);
            long t0 = System.nanoTime();
            try {
                server.drain(serving.snapshot().limits().drainTimeout());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server.close();
            if (control != null) {
                control.close();
            }
            if (adminServer != null) {
                adminServer.close();
            }
            log.info("stopped after {} ms of draining", (System.nanoTime() - t0) / 1_000_000);
            accessLog.close();
            stopped.countDown();
        };
        // Ctrl-C, System.exit: the JVM's hooks.
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "strait-shutdown"));
        // SIGTERM: the same drain, then exit 0, a clean stop as nginx and Envoy report it (the JVM's own
        // handling exits 143). A second SIGTERM while draining changes nothing; SIGKILL ends it at once.
        Signal.handle(new Signal("TERM"), s -> {
            if (stopping.get()) {
                log.info("SIGTERM: already stopping");
                return;
            }
            Thread t = new Thread(() -> {
                stop.run();
                System.exit(0);
            }, "strait-sigterm");
            t.start();
        });
        // Time since main(); the JVM's own start comes before (ManagementFactory would tell it, at ~30 ms
        // of class loading on every start: bench/run.sh measures launch to first answer from outside).
        log.info("strait proxy serving config version {} ({}) with {} worker(s) on {}; started in {} ms",
                snapshot.version(), control != null ? "control channel" : configFile == null ? ConfigFiles.EMBEDDED : configFile,
                server.workers(),
                server.transport().name().toLowerCase(Locale.ROOT) + (server.transport().readRing() ? " (read ring)" : ""),
                (System.nanoTime() - startNanos) / 1_000_000);
        stopped.await();
    }

    private static int check(Path file) {
        if (!Files.isReadable(file)) {
            System.err.println(file + ": cannot read the file");
            return 1;
        }
        try {
            Snapshot s = ConfigFiles.load(file);
            List<String> warnings = s.tls().warnings();
            System.out.println(file + ": ok (version " + s.version() + ", " + s.config().routes().size() + " route(s), "
                    + s.config().upstreams().size() + " upstream(s)" + (warnings.isEmpty() ? ""
                    : ", " + warnings.size() + " warning(s)") + ")");
            warnings.forEach(w -> System.out.println("  warning: " + w));
            return 0;
        } catch (InvalidConfigException e) {
            System.err.println(e.getMessage());
            return 1;
        } catch (java.io.IOException e) {
            System.err.println(file + ": " + e);
            return 1;
        }
    }

    /** Flags, then environment variables for flags not given; {@code null} after printing a usage error. */
    static Map<String, String> options(String[] args) {
        return Flags.parse(args, List.of("config", "check", "control", "state-dir"), USAGE);
    }
}
