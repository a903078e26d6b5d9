package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the packaged proxy jar ({@code -Dstrait.proxy.jar}, set by e2e/pom.xml) as a real process and
 * stops every process it started after each test, whatever the outcome: SIGTERM, a wait with a
 * timeout, then SIGKILL. When a test fails, the processes' stderr and stdout are printed.
 *
 * <pre>
 *   &#64;RegisterExtension final StraitProcesses strait = new StraitProcesses();
 *   ProxyProcess p = strait.start("--config", file.toString()).awaitServing();
 * </pre>
 */
final class StraitProcesses implements AfterEachCallback {
    /** Processes left by a test JVM that is itself killed (surefire timeout, Ctrl-C) die with it. */
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly)));
        Awaitility.setDefaultPollDelay(Duration.ZERO);
        Awaitility.setDefaultPollInterval(Duration.ofMillis(20));
        Awaitility.setDefaultTimeout(Duration.ofSeconds(10));
    }

    private static Path jarCopy;

    private final List<ProxyProcess> started = new ArrayList<>();

    /** The outcome of a command that runs to its end ({@code --check}, a usage error). */
    record Result(int exitCode, String stdout, String stderr) {
        String output() {
            return stdout + stderr;
        }
    }

    /**
     * A private copy of the jar, made once per test run: a JVM loads classes from its jar lazily, so a
     * rebuild of proxy/target/strait-proxy.jar while a proxy runs would fail it with NoClassDefFoundError.
     */
    static synchronized Path jar() {
        if (jarCopy == null) {
            String jar = System.getProperty("strait.proxy.jar");
            assertThat(jar).as("system property strait.proxy.jar (set by e2e/pom.xml)").isNotBlank();
            Path path = Path.of(jar).toAbsolutePath().normalize();
            assertThat(path).as("the proxy jar: build it with ./mvnw -B -DskipTests package").isRegularFile();
            try {
                Path dir = Files.createTempDirectory("strait-e2e-");
                dir.toFile().deleteOnExit(); // deleted in reverse order: the jar, then its directory
                jarCopy = Files.copy(path, dir.resolve("strait-proxy.jar"));
                jarCopy.toFile().deleteOnExit();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return jarCopy;
    }

    /** The java that runs these tests, so the proxy gets the same JDK. */
    static String javaBinary() {
        return ProcessHandle.current().info().command()
                .filter(c -> Files.isExecutable(Path.of(c)))
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    ProxyProcess start(String... args) {
        return start(Map.of(), args);
    }

    /** Starts {@code java -jar strait-proxy.jar args...} with {@code env} added to a clean STRAIT_* environment. */
    ProxyProcess start(Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of(javaBinary(),
                // Netty reports a leaked buffer on stderr when it is collected; paranoid tracks every
                // buffer, and afterEach fails the test on a report.
                "-Dio.netty.leakDetection.level=paranoid",
                "-jar", jar().toString()));
        command.addAll(List.of(args));
        return startProcess(command, env);
    }

    /**
     * Starts any command (the operator jar, an upstream app) under the same care as the proxy: output
     * kept, stopped after the test, printed when it fails.
     */
    ProxyProcess startProcess(List<String> command, Map<String, String> env) {
        ProcessBuilder pb = new ProcessBuilder(command);
        // The proxy reads STRAIT_CONFIG, STRAIT_CHECK, ... and STRAIT_LOG_LEVEL: none leak in from the build.
        pb.environment().keySet().removeIf(k -> k.startsWith("STRAIT_"));
        pb.environment().putAll(env);
        try {
            long t0 = System.nanoTime();
            Process process = pb.start();
            LIVE.add(process);
            process.onExit().thenRun(() -> LIVE.remove(process));
            ProxyProcess p = new ProxyProcess(process, t0);
            started.add(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs a command that is expected to end by itself (within 20 s), with its output. */
    Result run(Map<String, String> env, String... args) throws InterruptedException {
        ProxyProcess p = start(env, args);
        assertThat(p.waitFor(Duration.ofSeconds(20))).as("%s ended; stderr:%n%s", List.of(args), p.stderr()).isTrue();
        return new Result(p.process.exitValue(), p.stdout(), p.stderr());
    }

    Result run(String... args) throws InterruptedException {
        return run(Map.of(), args);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        List<ProxyProcess> all = List.copyOf(started);
        started.clear();
        for (ProxyProcess p : all) {
            p.close();
        }
        if (context.getExecutionException().isPresent()) {
            for (ProxyProcess p : all) {
                System.err.printf("---- %s: proxy pid %d exited %s; stderr:%n%s%n---- stdout:%n%s%n",
                        context.getDisplayName(), p.pid(), p.process.isAlive() ? "(still alive)" : p.process.exitValue(),
                        p.stderr(), tail(p.stdout()));
            }
        }
        for (ProxyProcess p : all) {
            assertThat(p.stderr()).as("proxy pid %d reported a buffer leak", p.pid()).doesNotContain("LEAK:");
        }
    }

    private static String tail(String s) {
        return s.length() <= 4000 ? s : "..." + s.substring(s.length() - 4000);
    }

    /** Whether nothing listens on {@code host:port} now (a plain bind succeeds; SO_REUSEADDR never shares a listener). */
    static boolean portFree(String host, int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true); // TIME_WAIT leftovers are not listeners
            s.bind(new InetSocketAddress(host, port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
