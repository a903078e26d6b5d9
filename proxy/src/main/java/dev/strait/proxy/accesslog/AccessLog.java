package dev.strait.proxy.accesslog;

import dev.strait.proxy.time.UtcText;
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
 *
 * <p>The writer never polls an idle queue: after draining it naps {@link #BATCH_NANOS} so a busy proxy
 * wakes it about a hundred times a second with a batch each time, and when the queue is still empty
 * after the nap it parks until a loop offers the next entry (the only time a loop pays for an unpark).
 * A proxy with the log off or no traffic costs no wake-ups (it polled every 5 ms before: 200 a second,
 * seen as 3% of the CPU samples of a loaded proxy with the log off).
 */
public final class AccessLog implements AutoCloseable {
    private static final int CAPACITY = 64 * 1024;
    private static final long BATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    // Both made by the first entry: a proxy with the log off (or no traffic yet) keeps neither the queue's
    // 256 KiB nor a thread. The writer is assigned before the queue is published.
    private volatile Queue<Entry> queue;
    private Thread writer;
    private final OutputStream out;
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean closed;
    /** The writer is parked on an empty queue and waits for an unpark. */
    private volatile boolean sleeping;

    /** One answered request. */
    public record Entry(long epochMillis, String remote, String method, String uri, String protocol, String host,
                        int status, long bytes, long durationNanos, String route, String userAgent) {}

    public AccessLog(OutputStream out) {
        this.out = new BufferedOutputStream(out, 64 * 1024);
    }

    private synchronized Queue<Entry> start() {
        if (queue == null && !closed) {
            Queue<Entry> q = PlatformDependent.newFixedMpscQueue(CAPACITY);
            writer = new Thread(() -> drain(q), "strait-access-log");
            writer.setDaemon(true);
            queue = q;
            writer.start();
        }
        return queue;
    }

    public void log(Entry e) {
        Queue<Entry> queue = this.queue;
        if (queue == null && (queue = start()) == null) {
            dropped.incrementAndGet(); // closed
            return;
        }
        if (!queue.offer(e)) {
            dropped.incrementAndGet();
        } else if (sleeping) {
            // Read after the offer, as the writer reads the queue after raising the flag: one of the
            // two always sees the other, so an entry never waits for a wake-up that does not come.
            LockSupport.unpark(writer);
        }
    }

    public long dropped() {
        return dropped.get();
    }

    /** For tests: the writer is parked with no timeout (an idle log costs no wake-ups). */
    boolean idle() {
        return queue != null && sleeping && writer.getState() == Thread.State.WAITING;
    }

    /** For tests: whether an entry has come, and with it the queue and the writer thread. */
    boolean started() {
        return queue != null;
    }

    private void drain(Queue<Entry> queue) {
        StringBuilder sb = new StringBuilder(512);
        boolean napped = false;
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
                if (!napped) {
                    LockSupport.parkNanos(this, BATCH_NANOS);
                    napped = true;
                    continue;
                }
                sleeping = true;
                if (queue.isEmpty() && !closed) {
                    LockSupport.park(this);
                }
                sleeping = false;
                napped = false;
                continue;
            }
            napped = false;
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
        // Always with milliseconds (Instant.toString drops ".000"): one fixed format for parsers.
        UtcText.appendIsoInstant(sb.append("{\"time\":\""), e.epochMillis()).append('"');
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
        Thread writer;
        synchronized (this) {
            closed = true;
            writer = this.writer;
        }
        if (writer == null) {
            return;
        }
        LockSupport.unpark(writer);
        try {
            writer.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
