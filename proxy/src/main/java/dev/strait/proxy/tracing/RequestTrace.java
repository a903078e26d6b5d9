package dev.strait.proxy.tracing;

import dev.strait.model.Config;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A request's place in a W3C Trace Context trace (https://www.w3.org/TR/trace-context/): the trace it
 * belongs to, the span the proxy records for it, and the span it continues (the client's), if any.
 *
 * <p>Made as the request's head is read ({@link #start}), which also puts the proxy's own
 * {@code traceparent} in the request's fields in place of the client's: every way a request leaves the
 * proxy (HTTP/1.1 and HTTP/2 upstreams, FastCGI's {@code HTTP_TRACEPARENT}, mirrors, forward-auth checks)
 * copies the request's fields, so the app's spans become children of the proxy's with no code of theirs.
 */
public final class RequestTrace {
    /** The field's name, as it goes upstream. */
    public static final AsciiString TRACEPARENT = AsciiString.cached("traceparent");
    static final AsciiString TRACESTATE = AsciiString.cached("tracestate");
    private static final int VERSION_00_LENGTH = 55;

    private final long traceHigh;
    private final long traceLow;
    private final long spanId;
    private final long parentSpanId;
    private final boolean sampled;
    /**
     * For a recorded trace, the wall clock's nanoseconds since the epoch less {@code System.nanoTime()}, read as the
     * request began: its span's and its tries' times are monotonic readings moved by it, so they share one clock.
     */
    private long epochOffset;
    /** The client's own fields, for {@link #restore}; null when it sent none. */
    private List<String> clientsParent;
    private List<String> clientsState;

    RequestTrace(long traceHigh, long traceLow, long spanId, long parentSpanId, boolean sampled) {
        this.traceHigh = traceHigh;
        this.traceLow = traceLow;
        this.spanId = spanId;
        this.parentSpanId = parentSpanId;
        this.sampled = sampled;
    }

    /**
     * Puts the client's {@code traceparent} and {@code tracestate} back in {@code h} as it sent them: for a request
     * that is handed on to be served elsewhere (an HTTP/1.1 request upgraded to h2c is served again as HTTP/2, which
     * makes its own trace), so that no span of this one is named as a parent.
     */
    public void restore(HttpHeaders h) {
        h.remove(TRACEPARENT);
        h.remove(TRACESTATE);
        if (clientsParent != null) {
            clientsParent.forEach(v -> h.add(TRACEPARENT, v));
        }
        if (clientsState != null) {
            clientsState.forEach(v -> h.add(TRACESTATE, v));
        }
    }

    /**
     * The trace of a request with fields {@code h} from {@code peer} (the connection's): the client's
     * when it sent one valid {@code traceparent} and is trusted ({@link Config.Tracing#trusts}), sampled
     * as it says; else a new trace, sampled at the configured percent, and the client's
     * {@code tracestate} (which described its own trace) dropped. Sets {@code traceparent} to the
     * proxy's span either way.
     */
    public static RequestTrace start(Config.Tracing tracing, HttpHeaders h, SocketAddress peer) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        RequestTrace parent = null;
        List<String> given = h.contains(TRACEPARENT) ? h.getAll(TRACEPARENT) : List.of();
        if (given.size() == 1 && tracing.trusts(peer instanceof InetSocketAddress a ? a.getAddress() : null)) {
            parent = parse(given.get(0));
        }
        RequestTrace trace;
        if (parent != null) {
            trace = new RequestTrace(parent.traceHigh, parent.traceLow, nonZero(random), parent.spanId, parent.sampled);
        } else {
            long high = random.nextLong();
            long low = nonZero(random);
            boolean sampled = tracing.percent() >= 100 || random.nextDouble() * 100 < tracing.percent();
            trace = new RequestTrace(high, low, nonZero(random), 0, sampled);
        }
        if (!given.isEmpty() || h.contains(TRACESTATE)) {
            trace.clientsParent = given.isEmpty() ? null : given;
            trace.clientsState = h.contains(TRACESTATE) ? h.getAll(TRACESTATE) : null;
        }
        if (parent == null) {
            h.remove(TRACESTATE); // it described the client's trace, not this one
        }
        if (trace.sampled) {
            java.time.Instant now = java.time.Instant.now();
            trace.epochOffset = now.getEpochSecond() * 1_000_000_000L + now.getNano() - System.nanoTime();
        }
        h.set(TRACEPARENT, trace.traceparent());
        return trace;
    }

    private static long nonZero(ThreadLocalRandom random) {
        long v;
        do {
            v = random.nextLong();
        } while (v == 0);
        return v;
    }

    /**
     * The span a {@code traceparent} names, as a trace whose {@link #spanId} is the sender's; null when
     * it is not one (W3C Trace Context 3.2: lower-case hex, no all-zero ids, version {@code ff} invalid,
     * a later version read by version 00's fields when what follows them starts with a dash).
     */
    static RequestTrace parse(String v) {
        int n = v.length();
        if (n < VERSION_00_LENGTH || v.charAt(2) != '-' || v.charAt(35) != '-' || v.charAt(52) != '-') {
            return null;
        }
        int version = hex(v, 0, 2);
        if (version < 0 || version == 0xff || version == 0 && n != VERSION_00_LENGTH
                || n > VERSION_00_LENGTH && v.charAt(VERSION_00_LENGTH) != '-') {
            return null;
        }
        int flags = hex(v, 53, 55);
        if (flags < 0 || !isHex(v, 3, 35) || !isHex(v, 36, 52)) {
            return null;
        }
        long high = Long.parseUnsignedLong(v, 3, 19, 16);
        long low = Long.parseUnsignedLong(v, 19, 35, 16);
        long span = Long.parseUnsignedLong(v, 36, 52, 16);
        if (high == 0 && low == 0 || span == 0) {
            return null;
        }
        return new RequestTrace(high, low, span, 0, (flags & 1) != 0);
    }

    private static boolean isHex(String v, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = v.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static int hex(String v, int from, int to) {
        return isHex(v, from, to) ? Integer.parseInt(v, from, to, 16) : -1;
    }

    /** A span of this trace whose parent is this one's span (a try of the request upstream), sampled as this one. */
    public RequestTrace child() {
        RequestTrace child = new RequestTrace(traceHigh, traceLow, nonZero(ThreadLocalRandom.current()), spanId, sampled);
        child.epochOffset = epochOffset;
        return child;
    }

    /** Nanoseconds since the epoch at {@code nanoTime}, a {@code System.nanoTime()} reading of this request's. */
    long epochNanos(long nanoTime) {
        if (epochOffset == 0) { // a trace not made by start (tests): the clock now
            java.time.Instant now = java.time.Instant.now();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano() - System.nanoTime() + nanoTime;
        }
        return epochOffset + nanoTime;
    }

    /** Recorded and exported: the trace was sampled (by its parent, or here). */
    public boolean sampled() {
        return sampled;
    }

    /** 32 lower-case hex digits. */
    public String traceId() {
        return hex16(traceHigh) + hex16(traceLow);
    }

    /** The proxy's span: 16 lower-case hex digits. */
    public String spanId() {
        return hex16(spanId);
    }

    /** The client's span this one continues, or null when the proxy started the trace. */
    public String parentSpanId() {
        return parentSpanId == 0 ? null : hex16(parentSpanId);
    }

    /** What goes upstream: version 00, the trace, the proxy's span, and whether it is sampled. */
    public String traceparent() {
        return "00-" + traceId() + "-" + spanId() + (sampled ? "-01" : "-00");
    }

    static String hex16(long v) {
        String s = Long.toHexString(v);
        return s.length() == 16 ? s : "0".repeat(16 - s.length()) + s;
    }

    @Override
    public String toString() {
        return traceparent();
    }
}
