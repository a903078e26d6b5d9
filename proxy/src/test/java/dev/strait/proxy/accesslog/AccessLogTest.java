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
                    1_500_000, "site", "curl/8\u0001"));
            log.log(new AccessLog.Entry(1000L, "::1", "HEAD", "/", "HTTP/1.0", "", 404, 0, 10, null, null));
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
        JsonNode second = json.readTree(lines[1]);
        assertThat(second.get("route").isNull()).isTrue();
        assertThat(second.get("method").asText()).isEqualTo("HEAD");
    }

    @Test
    void anIdleWriterSleepsWithoutTimeoutAndWakesForTheNextEntry() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (AccessLog log = new AccessLog(out)) {
            AccessLog.Entry e = new AccessLog.Entry(0L, "a", "GET", "/", "HTTP/1.1", "h", 200, 1, 1, "r", "u");
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
        log.log(new AccessLog.Entry(0L, "a", "GET", "/", "HTTP/1.1", "h", 200, 1, 1, "r", "u"));
        assertThat(log.started()).isFalse(); // closed before the first entry: it is dropped, not written
        assertThat(log.dropped()).isEqualTo(1);
        assertThat(out.size()).isZero();

        try (AccessLog second = new AccessLog(out)) {
            second.log(new AccessLog.Entry(0L, "a", "GET", "/", "HTTP/1.1", "h", 200, 1, 1, "r", "u"));
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
            AccessLog.Entry e = new AccessLog.Entry(0L, "a", "GET", "/", "HTTP/1.1", "h", 200, 1, 1, "r", "u");
            long t0 = System.nanoTime();
            for (int i = 0; i < 200_000; i++) {
                log.log(e);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            assertThat(log.dropped()).isGreaterThan(0);
            release.countDown();
        }
    }
}
