package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
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
    /** The archive beside the test's own copy of the jar, a config that serves, and the launcher's environment. */
    private Path archive;
    private Path config;
    private Map<String, String> env;

    @BeforeEach
    void jarAndConfig() throws Exception {
        Path jar = Files.copy(StraitProcesses.jar(), dir.resolve("strait-proxy.jar"));
        archive = dir.resolve("strait-proxy.jsa");
        config = Files.writeString(dir.resolve("strait.yaml"), """
                listeners: [ { name: http, address: "127.0.0.1:0" } ]
                admin: { address: "127.0.0.1:0" }
                routes: [ { name: site, hosts: [ "*" ], rules: [ { respond: { status: 200, body: "ok" } } ] } ]
                """);
        env = Map.of("STRAIT_JAR", jar.toString(), "JAVA", StraitProcesses.javaBinary());
    }

    @Test
    void onlyARunThatServesWritesTheClassArchive() throws Exception {

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

    /**
     * Two first starts at once: while one holds the archive's lock (here flock(1) itself, as a writer holds it for its
     * life), another start neither writes the archive (their writes at exit would interleave) nor maps one; once the
     * lock is free, a start writes it again.
     */
    @Test
    void aStartWhileAnotherHoldsTheArchiveLockNeitherWritesNorMapsIt() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/flock")), "no flock(1)");
        List<String> serve = List.of(LAUNCHER.toString(), "--config", config.toString());

        Process writer = holdLock(dir.resolve("strait-proxy.jsa.lock"));
        try {
            ProxyProcess second = strait.startProcess(serve, env).awaitServing();
            assertThat(commandLine(second)).doesNotContain("ArchiveClassesAtExit").doesNotContain("SharedArchiveFile");
            second.close();
            assertThat(archive).as("written by no one but the lock's holder").doesNotExist();
        } finally {
            release(writer);
        }

        ProxyProcess first = strait.startProcess(serve, env).awaitServing();
        assertThat(commandLine(first)).contains("-XX:ArchiveClassesAtExit=" + archive);
        first.close();
        assertThat(archive).isRegularFile();

        writer = holdLock(dir.resolve("strait-proxy.jsa.lock")); // as if a writer were writing it now
        try {
            ProxyProcess reader = strait.startProcess(serve, env).awaitServing();
            assertThat(commandLine(reader)).doesNotContain("SharedArchiveFile").doesNotContain("ArchiveClassesAtExit");
            reader.close();
        } finally {
            release(writer);
        }
        ProxyProcess reader = strait.startProcess(serve, env).awaitServing();
        assertThat(commandLine(reader)).contains("-XX:SharedArchiveFile=" + archive);
        reader.close();
    }

    /**
     * The JIT the launcher asks for (ADR 0110): C1 only unless {@code STRAIT_JIT=full}; anything else stops it with
     * the variable's name. Read from the JVM itself, which prints its flags' final values.
     */
    @Test
    void theLauncherCompilesWithC1OnlyUnlessFullIsAsked() throws Exception {
        assertThat(tieredStopAtLevel(Map.of())).as("default").isEqualTo("1");
        assertThat(tieredStopAtLevel(Map.of("STRAIT_JIT", "small"))).isEqualTo("1");
        assertThat(tieredStopAtLevel(Map.of("STRAIT_JIT", "full"))).as("C2 too").isEqualTo("4");

        ProxyProcess wrong = strait.startProcess(List.of(LAUNCHER.toString(), "--check", config.toString()),
                with(Map.of("STRAIT_JIT", "c2")));
        assertThat(wrong.waitFor(Duration.ofSeconds(30))).isTrue();
        assertThat(wrong.process.exitValue()).isEqualTo(2);
        assertThat(wrong.stderr()).contains("STRAIT_JIT must be small or full, not 'c2'");
    }

    /** The JVM's final TieredStopAtLevel under the launcher with {@code extra} in its environment. */
    private String tieredStopAtLevel(Map<String, String> extra) throws Exception {
        java.util.HashMap<String, String> e = with(extra);
        e.put("JAVA_OPTS", "-XX:+PrintFlagsFinal");
        ProxyProcess check = strait.startProcess(List.of(LAUNCHER.toString(), "--check", config.toString()), e);
        assertThat(check.waitFor(Duration.ofSeconds(30))).isTrue();
        assertThat(check.process.exitValue()).as(check.stderr()).isZero();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\bTieredStopAtLevel\\s+=\\s+(\\d+)")
                .matcher(check.stdout() + check.stderr());
        assertThat(m.find()).as("the JVM's flags").isTrue();
        return m.group(1);
    }

    private java.util.HashMap<String, String> with(Map<String, String> extra) {
        java.util.HashMap<String, String> e = new java.util.HashMap<>(env);
        e.putAll(extra);
        return e;
    }

    /** flock(1) holding an exclusive lock on {@code lock} until destroyed; returns once it holds it. */
    private static Process holdLock(Path lock) throws Exception {
        // -o: the lock stays with flock itself (not its child), so destroying flock frees it
        Process p = new ProcessBuilder("flock", "-o", "-x", lock.toString(), "-c", "echo locked; exec sleep 60")
                .redirectErrorStream(true).start();
        String line = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine();
        assertThat(line).isEqualTo("locked");
        return p;
    }

    private static void release(Process holder) throws InterruptedException {
        holder.descendants().forEach(ProcessHandle::destroy);
        holder.destroy();
        holder.waitFor();
    }

    /** The JVM's command line (the launcher execs java, so the process is the JVM). */
    private static String commandLine(ProxyProcess p) throws Exception {
        return Files.readString(Path.of("/proc/" + p.process.pid() + "/cmdline")).replace('\0', ' ');
    }
}
