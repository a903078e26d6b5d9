package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One running {@code strait-proxy.jar}: its stdout (the JSON access log) and stderr (the logs) are
 * pumped into buffers, its bound ports are read from its log lines, and it is stopped with SIGTERM,
 * then SIGKILL if it does not exit. Started and always stopped by {@link StraitProcesses}.
 */
final class ProxyProcess implements AutoCloseable {
    /** A whole JVM start on a small CI machine, with room to spare. */
    static final Duration STARTUP = Duration.ofSeconds(20);
    /** {@code admin on http:///127.0.0.1:PORT/ (...)}; tolerant of the stray slash before the host. */
    private static final Pattern ADMIN = Pattern.compile("admin on http://\\S*?:(\\d+)/");
    /** Logged last at start, after the listeners, the admin listener and the SIGHUP handler. */
    static final String SERVING = "strait proxy serving config version";

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1) // no h2c upgrade attempts
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    final Process process;
    final long startNanos;
    private final StringBuffer stdout = new StringBuffer();
    private final StringBuffer stderr = new StringBuffer();
    private final Thread outPump;
    private final Thread errPump;

    ProxyProcess(Process process, long startNanos) {
        this.process = process;
        this.startNanos = startNanos;
        this.outPump = pump(process.getInputStream(), stdout, "stdout-" + process.pid());
        this.errPump = pump(process.getErrorStream(), stderr, "stderr-" + process.pid());
    }

    private static Thread pump(InputStream in, StringBuffer into, String name) {
        Thread t = new Thread(() -> {
            try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                char[] buf = new char[8192];
                int n;
                while ((n = r.read(buf)) >= 0) {
                    into.append(buf, 0, n);
                }
            } catch (IOException e) {
                // the process is gone
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    String stdout() {
        return stdout.toString();
    }

    String stderr() {
        return stderr.toString();
    }

    long pid() {
        return process.pid();
    }

    /** Waits until the proxy has logged that it serves (or exits, which fails with its output). */
    ProxyProcess awaitServing() {
        awaitStderr(SERVING);
        return this;
    }

    /** Waits for {@code text} in stderr; fails early, with the output, if the process exits first. */
    void awaitStderr(String text) {
        await("'" + text + "' in stderr").atMost(STARTUP)
                .until(() -> stderr().contains(text) || !process.isAlive());
        assertThat(stderr()).as("stderr of pid %d (alive: %s), stdout:%n%s", pid(), process.isAlive(), stdout())
                .contains(text);
    }

    private Matcher awaitLog(Pattern pattern) {
        await(pattern + " in stderr").atMost(STARTUP)
                .until(() -> pattern.matcher(stderr()).find() || !process.isAlive());
        Matcher m = pattern.matcher(stderr());
        assertThat(m.find()).as("%s in stderr:%n%s", pattern, stderr()).isTrue();
        return m;
    }

    /** The port the named listener is bound to, from its log line. */
    int port(String listener) {
        return Integer.parseInt(listenerLine(listener).group(2));
    }

    /** The bound address of the named listener as logged ({@code /127.0.0.1}, {@code /[0:0:0:0:0:0:0:0]}). */
    String host(String listener) {
        return listenerLine(listener).group(1);
    }

    /** {@code listener http on /127.0.0.1:PORT (epoll x2 sockets)}; the host may be an IPv6 literal. */
    private Matcher listenerLine(String listener) {
        return awaitLog(Pattern.compile("listener " + Pattern.quote(listener) + " on (\\S+):(\\d+) \\("));
    }

    int adminPort() {
        return Integer.parseInt(awaitLog(ADMIN).group(1));
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port("http") + path);
    }

    URI adminUri(String path) {
        return URI.create("http://127.0.0.1:" + adminPort() + path);
    }

    /** {@code GET path} on the {@code http} listener. */
    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code GET path} on the admin listener. */
    HttpResponse<String> admin(String path) {
        return send(HttpRequest.newBuilder(adminUri(path)), HttpResponse.BodyHandlers.ofString());
    }

    static <T> HttpResponse<T> send(HttpRequest.Builder request, HttpResponse.BodyHandler<T> body) {
        try {
            return CLIENT.send(request.timeout(Duration.ofSeconds(5)).build(), body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Sends a signal with {@code kill -SIG pid}: Java can only send TERM and KILL itself. */
    void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).inheritIO().start();
        assertThat(kill.waitFor(5, TimeUnit.SECONDS)).as("kill -%s finished", name).isTrue();
        assertThat(kill.exitValue()).as("kill -%s %d", name, pid()).isZero();
    }

    /** Waits for the process to exit by itself, then for its output to be read to the end. */
    boolean waitFor(Duration timeout) throws InterruptedException {
        boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (exited) {
            outPump.join(2000);
            errPump.join(2000);
        }
        return exited;
    }

    /**
     * Sends SIGTERM and keeps reading the output. Not {@link Process#destroy()}: on Linux it closes our
     * ends of the stdout and stderr pipes right after the signal, so everything the proxy writes while
     * it drains (its shutdown log, the last access log lines) would be lost.
     */
    void terminate() {
        process.toHandle().destroy();
    }

    /** SIGTERM, a few seconds to drain and exit, then SIGKILL. Safe to call more than once. */
    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                terminate();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(5, TimeUnit.SECONDS);
                }
            }
            outPump.join(2000);
            errPump.join(2000);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
