package dev.strait.proxy.accesslog;

import dev.strait.model.HostPort;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.time.UtcText;
import dev.strait.proxy.tracing.RequestTrace;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.internal.PlatformDependent;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>Lines dropped because the queue was full (stdout slower than the traffic) are counted
 * ({@link #dropped()}, {@code strait_access_log_dropped_total}) and the writer says so on stderr, at
 * most once every {@link #WARN_EVERY_NANOS}, naming how many.
 */
public final class AccessLog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AccessLog.class);
    private static final int CAPACITY = 64 * 1024;
    private static final long BATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final AsciiString X_REQUEST_ID = AsciiString.cached("x-request-id");
    private static final int MAX_REQUEST_ID = 128;
    /** Per event loop: the serving state of the server whose log this is (see {@link #install}). */
    private static final FastThreadLocal<Serving> LOGGED_HERE = new FastThreadLocal<>();

    // Both made by the first entry: a proxy with the log off (or no traffic yet) keeps neither the queue's
    // 256 KiB nor a thread. The writer is assigned before the queue is published.
    private volatile Queue<Entry> queue;
    private Thread writer;
    private final OutputStream out;
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean closed;
    /** The writer is parked on an empty queue and waits for an unpark. */
    private volatile boolean sleeping;
    private final LongSupplier nanoClock;
    private final long warnEveryNanos;
    private final Consumer<String> warn;
    // The writer's own: drops already reported, and when the last warning went out.
    private long reported;
    private long warnedAt;
    private boolean warned;

    /**
     * One request, answered or given up by its client. {@code method}, {@code uri} and {@code protocol}
     * are {@code null} where the request line was not read; {@code bytes} counts the body sent (nginx's
     * {@code $body_bytes_sent}); {@code requestId} is the X-Request-Id sent upstream, or the client's own;
     * {@code trace} the request's trace when tracing is on (its ids are logged, sampled or not).
     */
    public record Entry(long epochMillis, String remote, String method, String uri, String protocol, String host,
                        int status, long bytes, long durationNanos, String route, String userAgent,
                        String requestId, HostPort upstream, RequestTrace trace) {
        /** Without a trace: tracing is off. */
        public Entry(long epochMillis, String remote, String method, String uri, String protocol, String host,
                     int status, long bytes, long durationNanos, String route, String userAgent, String requestId,
                     HostPort upstream) {
            this(epochMillis, remote, method, uri, protocol, host, status, bytes, durationNanos, route, userAgent,
                    requestId, upstream, null);
        }

        /** Without an upstream endpoint: a request no upstream answered. */
        public Entry(long epochMillis, String remote, String method, String uri, String protocol, String host,
                     int status, long bytes, long durationNanos, String route, String userAgent, String requestId) {
            this(epochMillis, remote, method, uri, protocol, host, status, bytes, durationNanos, route, userAgent,
                    requestId, null);
        }
    }

    public AccessLog(OutputStream out) {
        this(out, System::nanoTime, WARN_EVERY_NANOS, log::warn);
    }

    /** With the clock and the spacing the drop warnings keep, and where they go (tests). */
    AccessLog(OutputStream out, LongSupplier nanoClock, long warnEveryNanos, Consumer<String> warn) {
        this.out = new BufferedOutputStream(out, 64 * 1024);
        this.nanoClock = nanoClock;
        this.warnEveryNanos = warnEveryNanos;
        this.warn = warn;
    }

    /**
     * Makes this log known to every loop of {@code loops} as the one their requests go to while
     * {@code serving}'s snapshot has it on, for code with no server at hand ({@link #onHere()}); returns
     * when all know it.
     */
    public void install(EventLoopGroup loops, Serving serving) throws InterruptedException {
        dev.strait.proxy.server.EveryLoop.run(loops, () -> LOGGED_HERE.set(serving));
    }

    /**
     * Whether requests served on the calling loop are logged now: the proxy keeps the request id it made
     * for the log only then (an array index and a volatile read).
     */
    public static boolean onHere() {
        Serving s = LOGGED_HERE.getIfExists();
        return s != null && s.snapshot().accessLog();
    }

    /** The {@code remote} of a line: the client's IP in RFC 5952's form ({@code 2001:db8::7}), no port. */
    public static String remote(java.net.SocketAddress a) {
        return a instanceof java.net.InetSocketAddress isa && isa.getAddress() != null
                ? io.netty.util.NetUtil.toAddressString(isa.getAddress()) : String.valueOf(a);
    }

    /** A request id worth keeping and logging: 1 to 128 of {@code A-Z a-z 0-9 - _ . : + / = @ ~}. */
    public static boolean saneRequestId(CharSequence v) {
        int n = v.length();
        if (n == 0 || n > MAX_REQUEST_ID) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = v.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || c == '-' || c == '_' || c == '.' || c == ':' || c == '+' || c == '/' || c == '=' || c == '@'
                    || c == '~';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * The request id a request's line shows: its (first) X-Request-Id when sane. A proxied request's is
     * the one sent upstream (the proxy sets it on the request when it makes one, while the log is on);
     * a request answered here shows the client's own. A lookup, no allocation, when there is none.
     */
    public static String requestId(HttpHeaders headers) {
        return headers.get(X_REQUEST_ID); // checked by the writer thread, off the event loop (format)
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
                long warnIn = warnDrops();
                if (closed) {
                    warnDropsNow();
                    return;
                }
                if (!napped) {
                    LockSupport.parkNanos(this, BATCH_NANOS);
                    napped = true;
                    continue;
                }
                sleeping = true;
                if (queue.isEmpty() && !closed) {
                    if (warnIn > 0) {
                        LockSupport.parkNanos(this, warnIn); // drops not told yet: wake to tell them
                    } else {
                        LockSupport.park(this);
                    }
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
            warnDrops(); // a queue that never empties (stdout too slow) must be told of too
        }
    }

    /**
     * Warns of lines dropped since the last warning, unless one went out less than {@link #WARN_EVERY_NANOS}
     * (10 s) ago; returns in how many nanoseconds the next may go when drops wait to be told, else 0.
     */
    private long warnDrops() {
        if (dropped.get() == reported) {
            return 0;
        }
        long now = nanoClock.getAsLong();
        long wait = warned ? warnedAt + warnEveryNanos - now : 0;
        if (wait > 0) {
            return wait;
        }
        warnedAt = now;
        warned = true;
        warnDropsNow();
        return 0;
    }

    private void warnDropsNow() {
        long total = dropped.get();
        long n = total - reported;
        if (n <= 0) {
            return;
        }
        reported = total;
        warn.accept("access log: " + n + " line(s) dropped (" + total + " in all): stdout does not take them as fast"
                + " as requests come, and requests never wait for it (" + CAPACITY + " lines wait at most)");
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
        String id = e.requestId();
        field(sb, "request_id", id != null && saneRequestId(id) ? id : null);
        field(sb, "upstream", e.upstream() == null ? null : e.upstream().toString()); // formatted here, off the loop
        if (e.trace() != null) {
            // Only with tracing on, so lines without it are as they were.
            field(sb, "trace_id", e.trace().traceId());
            field(sb, "span_id", e.trace().spanId());
        }
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
