package dev.strait.proxy.fastcgi;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real php-fpm (Debian package php8.2-fpm, installed by .ci/run) started by a test on a loopback port or a unix socket,
 * with its config, log and scripts in the test's temporary directory, and stopped after it.
 */
final class PhpFpm implements AutoCloseable {
    private static final List<String> CANDIDATES = List.of("/usr/sbin/php-fpm8.2", "/usr/sbin/php-fpm");

    final Path dir;
    final Path www;
    /** The loopback port it listens on, or 0 when it listens on {@link #socket}. */
    final int port;
    /** The unix socket it listens on, or null. */
    final Path socket;
    private final Process process;

    private PhpFpm(Path dir, Path www, int port, Path socket, Process process) {
        this.dir = dir;
        this.www = www;
        this.port = port;
        this.socket = socket;
        this.process = process;
    }

    /** Its address as an upstream endpoint: {@code 127.0.0.1:PORT} or {@code unix:PATH}. */
    String endpoint() {
        return socket != null ? "unix:" + socket : "127.0.0.1:" + port;
    }

    /** The php-fpm binary, if installed. */
    static Optional<Path> binary() {
        for (String c : CANDIDATES) {
            Path p = Path.of(c);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Starts php-fpm with a static pool of {@code children}, serving the scripts in {@code dir/www}, and
     * returns once it accepts connections.
     */
    static PhpFpm start(Path dir, int children) throws Exception {
        return start(dir, children, false);
    }

    /** The same, listening on a unix socket in {@code dir} (Debian's php-fpm default is one) instead of a port. */
    static PhpFpm startOnUnixSocket(Path dir, int children) throws Exception {
        return start(dir, children, true);
    }

    private static PhpFpm start(Path dir, int children, boolean unix) throws Exception {
        Path binary = binary().orElseThrow(() -> new IllegalStateException("php-fpm is not installed"));
        Path www = Files.createDirectories(dir.resolve("www"));
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = 0;
            Path socket = unix ? dir.resolve("php-fpm.sock") : null;
            if (!unix) {
                try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                    port = s.getLocalPort();
                }
            }
            Path conf = dir.resolve("php-fpm.conf");
            Files.writeString(conf, """
                    [global]
                    daemonize = no
                    error_log = %1$s/php-fpm.log
                    pid = %1$s/php-fpm.pid

                    [www]
                    listen = %2$s
                    pm = static
                    pm.max_children = %3$d
                    clear_env = yes
                    """.formatted(dir, unix ? socket : "127.0.0.1:" + port, children));
            // -n: no php.ini, so the system's settings do not leak in; -R: the tests may run as root.
            Process p = new ProcessBuilder(binary.toString(), "-n", "-R", "-F", "-y", conf.toString(),
                    "-d", "display_errors=0", "-d", "log_errors=1")
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("php-fpm.out").toFile())
                    .start();
            PhpFpm fpm = new PhpFpm(dir, www, port, socket, p);
            if (fpm.awaitAccepting(10_000)) {
                return fpm;
            }
            fpm.close();
            last = new IOException("php-fpm did not accept on " + fpm.endpoint() + ": " + fpm.log());
        }
        throw last;
    }

    private boolean awaitAccepting(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                return false;
            }
            if (socket != null) {
                try (SocketChannel s = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                    return true;
                } catch (IOException e) {
                    Thread.sleep(20);
                }
                continue;
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return true;
            } catch (IOException e) {
                Thread.sleep(20);
            }
        }
        return false;
    }

    void script(String name, String php) throws IOException {
        Path p = www.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, php);
    }

    String log() {
        StringBuilder sb = new StringBuilder();
        for (String f : List.of("php-fpm.log", "php-fpm.out")) {
            try {
                sb.append(Files.readString(dir.resolve(f)));
            } catch (IOException e) {
                // not written yet
            }
        }
        return sb.toString();
    }

    /** Kills the master and its children at once (SIGKILL), as a crash would. */
    void kill() throws InterruptedException {
        List<ProcessHandle> children;
        try (Stream<ProcessHandle> d = process.descendants()) {
            children = d.toList();
        }
        process.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        process.waitFor(5, TimeUnit.SECONDS);
        for (ProcessHandle c : children) {
            c.onExit().orTimeout(5, TimeUnit.SECONDS).exceptionally(t -> c).join();
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        List<ProcessHandle> children;
        try (Stream<ProcessHandle> d = process.descendants()) {
            children = d.toList();
        }
        process.destroy(); // SIGTERM: php-fpm stops its children and exits
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            kill();
        }
        children.forEach(c -> {
            if (c.isAlive()) {
                c.destroyForcibly();
            }
        });
    }
}
