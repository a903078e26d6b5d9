package dev.strait.proxy.accesslog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AccessLogTest {
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void writesOneJsonLinePerRequestWithEscapedFields() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (AccessLog log = new AccessLog(out)) {
            log.log(new AccessLog.Entry(0L, "127.0.0.1", "GET", "/a\"b\\c", "HTTP/1.1", "example.com", 200, 130,
                    1_500_000, "site", "curl/8\u0001", "req-1"));
            log.log(new AccessLog.Entry(1000L, "::1", "HEAD", "/", "HTTP/1.0", "", 404, 0, 10, null, null, null));
            await().atMost(Duration.ofSeconds(5)).until(() -> out.toString(StandardCharsets.UTF_8).split("\n").length == 2);
        }
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        JsonNode first = json.readTree(lines[0]);
        assertThat(first.get("time").asText()).as("always with milliseconds").isEqualTo("1970-01-01T00:00:00.000Z");
        assertThat(first.get("uri").asText()).isEqualTo("/a\"b\\c");
        assertThat(first.get("status").asInt()).isEqualTo(200);
        assertThat(first.get("bytes").asLong()).isEqualTo(130);
        assertThat(first.get("duration_ms").asDouble()).isEqualTo(1.5);
        assertThat(first.get("route").asText()).isEqualTo("site");
        assertThat(first.get("user_agent").asText()).isEqualTo("curl/8\u0001");
        assertThat(first.get("request_id").asText()).isEqualTo("req-1");
        JsonNode second = json.readTree(lines[1]);
        assertThat(second.get("route").isNull()).isTrue();
        assertThat(second.get("request_id").isNull()).as("null, not absent: one set of fields on every line").isTrue();
        assertThat(second.get("method").asText()).isEqualTo("HEAD");
    }

    @Test
    void anIdleWriterSleepsWithoutTimeoutAndWakesForTheNextEntry() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (AccessLog log = new AccessLog(out)) {
            AccessLog.Entry e = new AccessLog.Entry(0L, "a", "GET", "/", "HTTP/1.1", "h", 200, 1, 1, "r", "u", null);
            for (int i = 1; i <= 30; i++) {
                // Alternate between logging to a parked writer and logging while it may be going to sleep.
                if (i % 2 == 0) {
                    await().pollInterval(Duration.ofMillis(2)).atMost(Duration.ofSeconds(5)).until(log::idle);
                } else {
                    Thread.onSpinWait();
                }
                log.log(e);
                int lines = i;
                await().pollInterval(Duration.ofMillis(2)).atMost(Duration.ofSeconds(5))
                        .until(() -> out.toString(StandardCharsets.UTF_8).split("\n").length == lines);
            }
            await().pollInterval(Duration.ofMillis(2)).atMost(Duration.ofSeconds(5)).until(log::idle);
        }
    }

    @Test
    void aLogThatGetsNoEntryKeepsNoQueueAndNoThread() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AccessLog log = new AccessLog(out);
        assertThat(log.started()).isFalse();
        assertThat(log.idle()).isFalse();
        log.close(); // returns at once: there is no writer to wait for
        log.log(new AccessLog.Entry(0L, "a", "GET", "/", "HTTP/1.1", "h", 200, 1, 1, "r", "u", null));
        assertThat(log.started()).isFalse(); // closed before the first entry: it is dropped, not written
        assertThat(log.dropped()).isEqualTo(1);
        assertThat(out.size()).isZero();

        try (AccessLog second = new AccessLog(out)) {
            second.log(new AccessLog.Entry(0L, "a", "GET", "/", "HTTP/1.1", "h", 200, 1, 1, "r", "u", null));
            assertThat(second.started()).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> out.size() > 0);
        }
    }

    @Test
    void aFullQueueDropsAndCountsInsteadOfBlocking() throws Exception {
        // A writer that never finishes its first write: the queue fills, logging stays non-blocking.
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.io.OutputStream stuck = new java.io.OutputStream() {
            @Override
            public void write(int b) throws java.io.IOException {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new java.io.IOException(e);
                }
            }
        };
        try (AccessLog log = new AccessLog(stuck)) {
            AccessLog.Entry e = new AccessLog.Entry(0L, "a", "GET", "/", "HTTP/1.1", "h", 200, 1, 1, "r", "u", null);
            long t0 = System.nanoTime();
            for (int i = 0; i < 200_000; i++) {
                log.log(e);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            assertThat(log.dropped()).isGreaterThan(0);
            release.countDown();
        }
    }

    /** A stdout whose writes wait while the test holds its gate shut; it counts the lines it took. */
    private static final class GatedOut extends java.io.OutputStream {
        final java.util.concurrent.Semaphore gate = new java.util.concurrent.Semaphore(1);
        final java.util.concurrent.atomic.AtomicLong lines = new java.util.concurrent.atomic.AtomicLong();

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            gate.acquireUninterruptibly();
            gate.release();
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n') {
                    lines.incrementAndGet();
                }
            }
        }
    }

    /**
     * Fills the queue behind a writer stuck on a shut stdout until {@code extra} entries are dropped, then
     * lets stdout go; returns how many were dropped by this call.
     */
    private static long overflow(AccessLog log, GatedOut out, int extra) throws InterruptedException {
        AccessLog.Entry e = new AccessLog.Entry(0L, "a", "GET", "/", "HTTP/1.1", "h", 200, 1, 1, "r", "u", null);
        long before = log.dropped();
        long written = out.lines.get();
        out.gate.acquire(); // shut
        log.log(e); // the writer takes it and waits in its flush
        await().atMost(Duration.ofSeconds(5)).until(() -> out.gate.hasQueuedThreads());
        while (log.dropped() - before < extra) {
            log.log(e);
        }
        long dropped = log.dropped() - before;
        out.gate.release();
        // Each entry logged is a line or a drop: wait until the writer has written every line.
        long logged = 1 + (64 * 1024) + 0L;
        await().atMost(Duration.ofSeconds(20)).until(() -> out.lines.get() - written >= logged);
        return dropped;
    }

    @Test
    void dropsAreToldOnStderrAtMostOnceEveryTenSecondsNamingHowMany() throws Exception {
        GatedOut out = new GatedOut();
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        java.util.List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (AccessLog log = new AccessLog(out, now::get, java.util.concurrent.TimeUnit.SECONDS.toNanos(10),
                warnings::add)) {
            long first = overflow(log, out, 5);
            await().atMost(Duration.ofSeconds(5)).until(() -> warnings.size() == 1);
            assertThat(warnings.get(0)).startsWith("access log: " + first + " line(s) dropped (" + first + " in all)");

            now.addAndGet(java.util.concurrent.TimeUnit.SECONDS.toNanos(9));
            long second = overflow(log, out, 7); // 9 s later: counted, not told yet
            assertThat(warnings).hasSize(1);
            assertThat(log.dropped()).isEqualTo(first + second);

            now.addAndGet(java.util.concurrent.TimeUnit.SECONDS.toNanos(1));
            log.log(new AccessLog.Entry(0L, "a", "GET", "/", "HTTP/1.1", "h", 200, 1, 1, "r", "u", null));
            await().atMost(Duration.ofSeconds(5)).until(() -> warnings.size() == 2);
            assertThat(warnings.get(1)).startsWith("access log: " + second + " line(s) dropped (" + (first + second)
                    + " in all)");
        }
    }

    @Test
    void dropsHeldBackByTheSpacingAreToldWhenItEndsWithoutNewEntries() throws Exception {
        GatedOut out = new GatedOut();
        java.util.List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (AccessLog log = new AccessLog(out, System::nanoTime, java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(300),
                warnings::add)) {
            overflow(log, out, 3);
            await().atMost(Duration.ofSeconds(5)).until(() -> warnings.size() == 1);
            long second = overflow(log, out, 4);
            // Nothing more is logged: the writer wakes for the warning it owes, once the spacing allows it.
            await().atMost(Duration.ofSeconds(5)).until(() -> warnings.size() == 2);
            assertThat(warnings.get(1)).startsWith("access log: " + second + " line(s) dropped");
            assertThat(warnings).hasSize(2);
        }
    }

    @Test
    void loopsKnowWhetherTheirRequestsAreLoggedNowAndOtherThreadsSayNo() throws Exception {
        // What RequestHead asks before it keeps a made request id for the log: with the log off, no String.
        String yaml = "listeners: [ { name: http, address: \"127.0.0.1:0\" } ]\naccessLog: { enabled: %s }\n";
        dev.strait.proxy.config.Serving serving = dev.strait.proxy.testing.TestServing.serving(yaml.formatted("true"));
        io.netty.channel.EventLoopGroup loops = new io.netty.channel.DefaultEventLoopGroup(2);
        try (AccessLog log = new AccessLog(new ByteArrayOutputStream())) {
            assertThat(loops.submit(AccessLog::onHere).get()).as("not installed").isFalse();
            log.install(loops, serving);
            for (io.netty.util.concurrent.EventExecutor loop : loops) {
                assertThat(loop.submit(AccessLog::onHere).get()).isTrue();
            }
            serving.swap(dev.strait.proxy.testing.TestServing.snapshot(yaml.formatted("false")));
            for (io.netty.util.concurrent.EventExecutor loop : loops) {
                assertThat(loop.submit(AccessLog::onHere).get()).as("follows a reload").isFalse();
            }
            assertThat(AccessLog.onHere()).as("a thread that is no loop of the server").isFalse();
        } finally {
            loops.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }
}
