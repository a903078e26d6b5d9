package dev.strait.proxy.cache;

import dev.strait.proxy.http.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stored response: its head pre-encoded (status line and headers with Content-Length, no Date or
 * Age: those vary per answer) and its body, shared by every event loop. A small body (up to
 * {@link #SMALL} bytes, which the server copies into the head's buffer anyway) is a byte array: a hit
 * then touches no shared counter at all. A larger one is one direct buffer; a hit hands out a retained
 * duplicate, so the store may drop the entry while answers are still being written.
 */
final class Entry implements Stored {
    static final AsciiString X_CACHE = AsciiString.cached("x-cache");
    /** Kept a while past staleness when it has validators: a revalidation costs less than a fetch. */
    private static final long KEEP_FOR_REVALIDATION = 600_000;

    final String key;
    final int status;
    /** The stored end-to-end headers (for a 304's update, RFC 9111 4.3.4); not sent as such. */
    final HttpHeaders headers;
    final byte[] head;
    static final int SMALL = 1024;
    /** The body when larger than {@link #SMALL}, else {@code null}. */
    private final ByteBuf body;
    /** The body when up to {@link #SMALL} bytes, else {@code null}. */
    private final byte[] small;
    final long responseTime;
    final long initialAge;
    final long freshUntil;
    final long staleWhileRevalidateUntil;
    final long staleIfErrorUntil;
    final boolean noCache;
    final String etag;
    final String lastModified;
    /** The Vary names this response was stored with, or {@code null}. */
    final String[] vary;
    /** One background revalidation at a time (stale-while-revalidate). */
    final AtomicBoolean revalidating = new AtomicBoolean();
    /** The store's reference plus one per hit being set up; the body is released when it reaches 0. */
    private final AtomicInteger refs = new AtomicInteger(1);
    private volatile AgeLine hitLine;
    private volatile byte[] notModifiedHead;

    private record AgeLine(long age, boolean xCache, byte[] bytes) {}

    /**
     * @param headers end-to-end response headers (hop-by-hop already removed); this entry keeps them
     * @param body    the whole body; this entry takes the reference
     */
    Entry(String key, int status, HttpHeaders headers, ByteBuf body, Freshness f, long responseTime, String[] vary) {
        this.key = key;
        this.status = status;
        this.headers = headers;
        int length = body.readableBytes();
        if (length <= SMALL) {
            this.small = io.netty.buffer.ByteBufUtil.getBytes(body);
            this.body = null;
            body.release();
        } else {
            this.small = null;
            this.body = body;
        }
        this.responseTime = responseTime;
        this.initialAge = f.initialAge();
        this.freshUntil = responseTime + f.lifetime() - f.initialAge();
        this.staleWhileRevalidateUntil = freshUntil + f.staleWhileRevalidate();
        this.staleIfErrorUntil = freshUntil + f.staleIfError();
        this.noCache = f.noCache();
        this.etag = headers.get(HttpHeaderNames.ETAG);
        this.lastModified = headers.get(HttpHeaderNames.LAST_MODIFIED);
        this.vary = vary;
        ResponseHead rh = ResponseHead.status(status);
        for (Iterator<Map.Entry<String, String>> it = headers.iteratorAsString(); it.hasNext(); ) {
            Map.Entry<String, String> h = it.next();
            rh.header(h.getKey(), h.getValue());
        }
        if (status != 204) {
            rh.header("Content-Length", length);
        }
        this.head = rh.encode();
    }

    /**
     * The headers worth storing from a response's: all but framing, Date and Age (written per answer),
     * our own X-Cache, and Set-Cookie (a cookie is for the client that caused the fetch only).
     */
    static HttpHeaders storedHeaders(HttpHeaders in) {
        HttpHeaders out = new DefaultHttpHeaders();
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = in.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            CharSequence n = h.getKey();
            if (HttpHeaderNames.DATE.contentEqualsIgnoreCase(n) || HttpHeaderNames.AGE.contentEqualsIgnoreCase(n)
                    || HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(n)
                    || HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(n)
                    || HttpHeaderNames.CONNECTION.contentEqualsIgnoreCase(n)
                    || HttpHeaderNames.KEEP_ALIVE.contentEqualsIgnoreCase(n)
                    || HttpHeaderNames.SET_COOKIE.contentEqualsIgnoreCase(n) || X_CACHE.contentEqualsIgnoreCase(n)) {
                continue;
            }
            out.add(n.toString(), h.getValue().toString());
        }
        return out;
    }

    /** The stored headers updated with a 304's (RFC 9111 4.3.4), for a refreshed entry. */
    HttpHeaders updatedWith(HttpHeaders notModified) {
        HttpHeaders merged = headers.copy();
        HttpHeaders fresh = storedHeaders(notModified);
        for (String name : fresh.names()) {
            merged.set(name, fresh.getAll(name));
        }
        return merged;
    }

    /**
     * Whether a client's conditional GET is satisfied by this entry (RFC 9110 13.1.2, 13.1.3): If-None-Match
     * by weak comparison, else If-Modified-Since against Last-Modified.
     */
    boolean notModifiedFor(HttpHeaders request) {
        String inm = request.get(HttpHeaderNames.IF_NONE_MATCH);
        if (inm != null) {
            return etag != null && etagMatches(inm, etag);
        }
        String ims = etag == null && lastModified == null ? null : request.get(HttpHeaderNames.IF_MODIFIED_SINCE);
        if (ims == null || lastModified == null) {
            return false;
        }
        java.util.Date since = io.netty.handler.codec.DateFormatter.parseHttpDate(ims);
        java.util.Date modified = io.netty.handler.codec.DateFormatter.parseHttpDate(lastModified);
        return since != null && modified != null && !modified.after(since);
    }

    /**
     * Whether a 304 to our revalidation may update this entry (RFC 9111 4.3.4): when it has an entity tag,
     * ours must be the same (compared strongly when the 304's is strong, weakly when it is weak). A 304
     * without one contradicts nothing.
     */
    boolean describedBy(HttpHeaders notModified) {
        String tag = notModified.get(HttpHeaderNames.ETAG);
        if (tag == null) {
            return true;
        }
        tag = tag.trim();
        if (etag == null) {
            return false;
        }
        String ours = etag.trim();
        return tag.startsWith("W/") ? opaque(tag).equals(opaque(ours)) : !ours.startsWith("W/") && tag.equals(ours);
    }

    static boolean etagMatches(String ifNoneMatch, String etag) {
        String want = opaque(etag);
        for (String t : ifNoneMatch.split(",")) {
            String tag = t.trim();
            if (tag.equals("*") || opaque(tag).equals(want)) {
                return true;
            }
        }
        return false;
    }

    private static String opaque(String tag) {
        return tag.startsWith("W/") ? tag.substring(2) : tag;
    }

    /** The head of a 304 for this entry: the headers RFC 9110 15.4.5 asks to repeat. */
    byte[] notModifiedHead() {
        byte[] h = notModifiedHead;
        if (h == null) {
            ResponseHead rh = ResponseHead.status(304);
            for (String name : new String[] {"cache-control", "content-location", "etag", "expires", "vary",
                    "last-modified"}) {
                for (String v : headers.getAll(name)) {
                    rh.header(name, v);
                }
            }
            h = rh.encode();
            notModifiedHead = h;
        }
        return h;
    }

    /** The body for one answer (the caller owns it); only between {@link #acquire()} and {@link #release()}. */
    ByteBuf bodyForAnswer() {
        return small != null ? io.netty.buffer.Unpooled.wrappedBuffer(small) : body.retainedDuplicate();
    }

    /** The body for a refreshed copy of this entry; only between {@link #acquire()} and {@link #release()}. */
    ByteBuf bodyForCopy() {
        return small != null ? io.netty.buffer.Unpooled.wrappedBuffer(small) : body.retain();
    }

    /** Takes a reference for setting up an answer; {@code false} when the store already let go. */
    boolean acquire() {
        if (small != null) {
            return true; // nothing to free: the garbage collector keeps the array while it is used
        }
        for (;;) {
            int r = refs.get();
            if (r == 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    void release() {
        if (body != null && refs.decrementAndGet() == 0) {
            body.release();
        }
    }

    /** Current age in seconds (RFC 9111 4.2.3). */
    long ageSeconds(long now) {
        return Math.max(0, initialAge + now - responseTime) / 1000;
    }

    /** {@code Age} and, when asked, {@code X-Cache} lines; the common (HIT) case is formatted once a second. */
    byte[] extraLines(long now, String label, boolean xCache) {
        long age = ageSeconds(now);
        if (xCache && label != CacheLabel.HIT) {
            return lines(age, label);
        }
        AgeLine l = hitLine;
        if (l != null && l.age == age && l.xCache == xCache) {
            return l.bytes;
        }
        byte[] b = lines(age, xCache ? label : null);
        hitLine = new AgeLine(age, xCache, b);
        return b;
    }

    private static byte[] lines(long age, String label) {
        String s = "Age: " + age + "\r\n" + (label == null ? "" : "X-Cache: " + label + "\r\n");
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Override
    public int weight() {
        long w = 256L + key.length() * 2L + head.length * 3L + (small != null ? small.length : body.readableBytes());
        return (int) Math.min(Integer.MAX_VALUE, w);
    }

    @Override
    public long keepNanos(long now) {
        long until = Math.max(staleWhileRevalidateUntil, staleIfErrorUntil);
        if (etag != null || lastModified != null) {
            until = Math.max(until, freshUntil + KEEP_FOR_REVALIDATION);
        }
        return Math.min(Math.max(1, until - now), CachePolicy.MAX_MILLIS) * 1_000_000L;
    }
}
