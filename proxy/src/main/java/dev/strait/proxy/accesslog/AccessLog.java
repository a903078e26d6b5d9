package dev.strait.proxy.accesslog;

import io.netty.util.internal.PlatformDependent;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * JSON-lines access log written off the event loops: a loop only puts an entry in a lock-free bounded
 * queue; one writer thread formats and writes. When the writer falls behind, entries are dropped and
 * counted rather than slowing requests down.
 */
public final class AccessLog implements AutoCloseable {
    private static final int CAPACITY = 64 * 1024;

    private final Queue<Entry> queue = PlatformDependent.newFixedMpscQueue(CAPACITY);
    private final OutputStream out;
    private final Thread writer;
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean closed;

    /** One answered request. */
    public record Entry(long epochMillis, String remote, String method, String uri, String protocol, String host,
                        int status, long bytes, long durationNanos, String route, String userAgent) {}

    public AccessLog(OutputStream out) {
        this.out = new BufferedOutputStream(out, 64 * 1024);
        this.writer = new Thread(this::drain, "strait-access-log");
        writer.setDaemon(true);
        writer.start();
    }

    public void log(Entry e) {
        if (!queue.offer(e)) {
            dropped.incrementAndGet();
        }
    }

    public long dropped() {
        return dropped.get();
    }

    private void drain() {
        StringBuilder sb = new StringBuilder(512);
        while (true) {
            Entry e = queue.poll();
            if (e == null) {
                try {
                    out.flush();
                } catch (IOException ignored) {
                    // stdout gone: nothing better to do than keep draining
                }
                if (closed) {
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                continue;
            }
            sb.setLength(0);
            format(e, sb);
            try {
                out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                dropped.incrementAndGet();
            }
        }
    }

    static void format(Entry e, StringBuilder sb) {
        sb.append("{\"time\":\"").append(Instant.ofEpochMilli(e.epochMillis())).append('"');
        field(sb, "remote", e.remote());
        field(sb, "method", e.method());
        field(sb, "uri", e.uri());
        field(sb, "protocol", e.protocol());
        field(sb, "host", e.host());
        sb.append(",\"status\":").append(e.status());
        sb.append(",\"bytes\":").append(e.bytes());
        sb.append(",\"duration_ms\":").append(e.durationNanos() / 1000 / 1000.0);
        field(sb, "route", e.route());
        field(sb, "user_agent", e.userAgent());
        sb.append("}\n");
    }

    private static void field(StringBuilder sb, String name, String value) {
        sb.append(",\"").append(name).append("\":");
        if (value == null) {
            sb.append("null");
            return;
        }
        sb.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    @Override
    public void close() {
        closed = true;
        try {
            writer.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
