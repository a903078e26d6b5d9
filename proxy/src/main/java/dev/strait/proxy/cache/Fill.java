package dev.strait.proxy.cache;

import dev.strait.model.HostPort;
import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.net.SocketAddress;
import java.nio.channels.FileChannel;

/**
 * One fetch for the cache, as an {@link Exchange} the reverse proxy answers into unchanged: it sends
 * upstream a GET for the key (with the stale entry's validators when revalidating, without the
 * client's own conditionals or Range), and tees the answer: to the client, if there is one, as it
 * streams, and into a body buffer when the response may be stored. At the end the entry is stored and
 * the waiting requests are woken.
 *
 * <ul>
 *   <li>a 304 to a revalidation refreshes the entry; the client gets the stored response;</li>
 *   <li>a 5xx or a failure while a stale entry is within stale-if-error: the client gets the stale one;</li>
 *   <li>an uncacheable answer, or one larger than maxBodySize, streams on and marks the key
 *       hit-for-pass; its waiters are let go upstream at once, not after the body;</li>
 *   <li>the client going away does not stop a fetch whose answer is being stored (others want it).</li>
 * </ul>
 *
 * <p>The body is copied as it arrives into one direct buffer that grows (doubling, up to the
 * Content-Length), nothing is reserved at the head: a client that does not read holds back the upstream,
 * and so what the fill holds. What all fills in flight hold together is bounded by the cache's fill
 * budget; a fill that would go past it stops capturing, and its answer passes through uncached (its
 * waiters go upstream). The stored body is exactly as long as the answer.
 *
 * <p>With a {@code null} key it only passes through, adding {@code X-Cache: PASS}.
 * Runs on the event loop of the request that started it, like the proxy call it drives.
 */
final class Fill implements Exchange {
    private static final int HEAD_PENDING = 0;
    private static final int STORE = 1;
    private static final int STREAM = 2;
    /** The client was answered some other way (a refreshed or stale entry): the upstream's answer is dropped. */
    private static final int SWALLOW = 3;
    /** The capture's first size: answers without Content-Length often are small. */
    private static final int FIRST_CAPTURE = 8192;

    private final ResponseCache cache;
    private Exchange client;
    private final CachePolicy p;
    private final Origin origin;
    private final String key;
    private final String fullKey;
    private final Entry stale;
    private final Pending pending;
    private final boolean passOnly;
    private final HttpRequest request;
    private final boolean hadAuthorization;
    private final String path;
    private final String query;
    private final String host;
    private final String scheme;
    private final SocketAddress remote;
    private final SocketAddress clientAddress;
    private final SocketAddress local;
    private final ByteBufAllocator alloc;
    private final EventLoop loop;

    private long requestTime;
    private Runnable proxyCancel;
    /** What the proxy call waits on to read the upstream again; run by us if the client leaves. */
    private Runnable writableTask;
    private int mode = HEAD_PENDING;
    /** The body so far, or {@code null} before its first byte; {@link #reserved} bytes of the fill budget. */
    private ByteBuf capture;
    private long reserved;
    /** How large the capture may grow: the Content-Length, or maxBodySize. */
    private long captureLimit;
    private int status;
    private HttpHeaders storedHeaders;
    private Freshness freshness;
    private long responseTime;
    private String[] vary;
    private boolean settled;

    /**
     * @param client  who gets the answer, or {@code null} for a background revalidation
     * @param source  the request this fetch is for (its values are copied: the client may leave)
     * @param key     the primary key; {@code null} to only pass through
     * @param fullKey the key fetched (the variant's, when known) and coalesced on
     * @param stale   the stored entry being revalidated, or {@code null}
     * @param pending the waiters' list, or {@code null} when nobody can wait on this fetch
     */
    Fill(ResponseCache cache, Exchange client, Exchange source, CachePolicy p, Origin origin, String key,
         String fullKey, Entry stale, Pending pending) {
        this.cache = cache;
        this.client = client;
        this.p = p;
        this.origin = origin;
        this.key = key;
        this.fullKey = fullKey;
        this.stale = stale;
        this.pending = pending;
        this.passOnly = key == null;
        HttpRequest r = source.request();
        this.hadAuthorization = r.headers().contains(HttpHeaderNames.AUTHORIZATION);
        if (passOnly) {
            this.request = r;
        } else {
            HttpHeaders h = r.headers().copy();
            // Our own conditional request: the client's validators are not the cache's (RFC 9111 4.3.1).
            h.remove(HttpHeaderNames.IF_NONE_MATCH);
            h.remove(HttpHeaderNames.IF_MODIFIED_SINCE);
            h.remove(HttpHeaderNames.IF_MATCH);
            h.remove(HttpHeaderNames.IF_UNMODIFIED_SINCE);
            h.remove(HttpHeaderNames.IF_RANGE);
            h.remove(HttpHeaderNames.RANGE);
            if (stale != null && stale.etag != null) {
                h.set(HttpHeaderNames.IF_NONE_MATCH, stale.etag);
            }
            if (stale != null && stale.lastModified != null) {
                h.set(HttpHeaderNames.IF_MODIFIED_SINCE, stale.lastModified);
            }
            // HEAD is fetched as GET, so the entry can answer both (RFC 9110 9.3.2).
            this.request = new DefaultHttpRequest(r.protocolVersion(), HttpMethod.GET, r.uri(), h);
        }
        this.path = source.path();
        this.query = source.query();
        this.host = source.host();
        this.scheme = source.scheme();
        this.remote = source.remoteAddress();
        this.clientAddress = source.clientAddress();
        this.local = source.localAddress();
        this.alloc = source.alloc();
        this.loop = source.eventLoop();
    }

    void start() {
        requestTime = System.currentTimeMillis();
        if (!passOnly && client != null) {
            client.onCancel(this::onClientGone);
        }
        origin.forward(this);
    }

    // ---- the answer, from the proxy call ----

    @Override
    public void startResponse(HttpResponseStatus s, HttpHeaders headers, long contentLength) {
        if (passOnly) {
            headers.set(Entry.X_CACHE, CacheLabel.PASS);
            client.startResponse(s, headers, contentLength);
            return;
        }
        long now = System.currentTimeMillis();
        int code = s.code();
        if (stale != null && code == 304) {
            revalidated(headers, now);
            return;
        }
        if (stale != null && code >= 500 && now - stale.staleIfErrorUntil < 0 && serveStale(now)) {
            return;
        }
        Freshness f = Freshness.of(p, code, headers, hadAuthorization, requestTime, now);
        String notStored = !f.storable() ? f.uncacheable()
                : contentLength > p.maxBodySize ? "larger than maxBodySize"
                : contentLength > cache.fillBudget() ? "larger than the cache's fill budget" : null;
        if (notStored != null) {
            mode = STREAM;
            if (code < 500) {
                cache.markPass(fullKey, p, notStored);
            } else if (stale != null) {
                stale.revalidating.set(false);
            }
            settle(Pending.Outcome.GO_UPSTREAM);
            if (client == null) {
                cancelFetch();
                return;
            }
        } else {
            mode = STORE;
            status = code;
            freshness = f;
            responseTime = now;
            storedHeaders = Entry.storedHeaders(headers);
            if (headers.contains(HttpHeaderNames.VARY)) {
                vary = Variants.names(headers.getAll(HttpHeaderNames.VARY));
                vary = vary.length == 0 ? null : vary;
            }
            captureLimit = contentLength >= 0 ? contentLength : p.maxBodySize;
        }
        if (client != null) {
            if (p.xCacheHeader) {
                headers.set(Entry.X_CACHE, CacheLabel.MISS);
            }
            client.startResponse(s, headers, contentLength);
        }
    }

    @Override
    public void sendBodyPart(ByteBuf data) {
        if (passOnly) {
            client.sendBodyPart(data);
            return;
        }
        if (mode == STORE) {
            int n = data.readableBytes();
            long size = (capture == null ? 0 : capture.writerIndex()) + (long) n;
            if (size > p.maxBodySize) {
                // A body of unknown length outgrew the limit: it streams on uncached.
                cache.markPass(fullKey, p, "larger than maxBodySize");
                stopCapture();
            } else if (!ensureCapture(size)) {
                // The fills in flight hold all the budget allows: this one streams on uncached. Not
                // hit-for-pass: the answer is fine, the time is not.
                stopCapture();
                cache.meters.overBudget.increment();
            } else {
                capture.writeBytes(data, data.readerIndex(), n);
            }
        }
        if (client != null && mode != SWALLOW) {
            client.sendBodyPart(data);
        } else {
            data.release();
            if (mode == STREAM) {
                cancelFetch(); // nobody to stream to and nothing to store
            }
        }
    }

    @Override
    public void endResponse(HttpHeaders trailers) {
        if (passOnly) {
            client.endResponse(trailers);
            return;
        }
        if (mode == STORE) {
            Entry e = new Entry(fullKey, status, storedHeaders, takeCapture(), freshness, responseTime, vary);
            cache.put(key, p, request.headers(), e);
            settle(vary == null ? new Pending.Outcome(Pending.Outcome.SERVE, e) : Pending.Outcome.LOOK_AGAIN);
        }
        if (client != null && mode != SWALLOW) {
            client.endResponse(trailers);
        }
        finish();
    }

    /** A 304 to our conditional request: the stored response is still good, with the 304's headers. */
    private void revalidated(HttpHeaders notModified, long now) {
        mode = SWALLOW;
        if (!stale.describedBy(notModified)) {
            // A 304 naming another entity tag is not about the response we have (a backend that only
            // looked at If-Modified-Since, or one of another version): it must not update it
            // (RFC 9111 4.3.4). Drop ours and fetch the whole response.
            cache.remove(fullKey);
            refetch();
            return;
        }
        HttpHeaders merged = stale.updatedWith(notModified);
        // Freshness from the 304's Date and Age too (Expires counts from Date); the entry keeps neither.
        HttpHeaders timed = merged.copy();
        copy(notModified, timed, HttpHeaderNames.DATE);
        copy(notModified, timed, HttpHeaderNames.AGE);
        Freshness f = Freshness.of(p, stale.status, timed, hadAuthorization, requestTime, now);
        if (!stale.acquire()) {
            // The store dropped the entry (and its body) while we asked: fetch the whole response instead.
            refetch();
            return;
        }
        Entry e;
        try {
            if (!f.storable()) {
                cache.remove(fullKey);
                answer(stale, now, CacheLabel.REVALIDATED, cache.meters.revalidated);
                settle(Pending.Outcome.GO_UPSTREAM);
                return;
            }
            e = new Entry(fullKey, stale.status, merged, stale.bodyForCopy(), f, now, stale.vary);
        } finally {
            stale.release();
        }
        cache.put(key, p, request.headers(), e);
        answer(e, now, CacheLabel.REVALIDATED, cache.meters.revalidated);
        settle(new Pending.Outcome(Pending.Outcome.SERVE, e));
    }

    /**
     * Fetches the whole response again, without validators, for this fetch's client (a background
     * revalidation just ends); the waiters go upstream.
     */
    private void refetch() {
        Exchange c = client;
        client = null;
        settle(Pending.Outcome.GO_UPSTREAM);
        if (c != null) {
            // From this fetch's request: the new one drops the validators (no stale entry to send).
            Fill again = new Fill(cache, c, this, p, origin, key, fullKey, null, null);
            loop.execute(again::start);
        }
    }

    private static void copy(HttpHeaders from, HttpHeaders to, CharSequence name) {
        String v = from.get(name);
        if (v != null) {
            to.set(name, v);
        }
    }

    private boolean serveStale(long now) {
        if (client != null && !cache.serve(client, stale, now, CacheLabel.STALE, p.xCacheHeader, cache.meters.stale)) {
            return false;
        }
        if (client == null) {
            cache.meters.stale.increment();
        }
        client = null;
        mode = SWALLOW;
        stale.revalidating.set(false);
        settle(new Pending.Outcome(Pending.Outcome.SERVE, stale));
        return true;
    }

    private void answer(Entry e, long now, String label, java.util.concurrent.atomic.LongAdder counter) {
        Exchange c = client;
        client = null;
        if (c == null) {
            counter.increment();
        } else if (!cache.serve(c, e, now, label, p.xCacheHeader, counter)) {
            c.sendError(HttpResponseStatus.SERVICE_UNAVAILABLE);
        }
    }

    @Override
    public void sendError(HttpResponseStatus s) {
        if (passOnly) {
            client.sendError(s);
            return;
        }
        long now = System.currentTimeMillis();
        if (mode == HEAD_PENDING && stale != null && now - stale.staleIfErrorUntil < 0 && serveStale(now)) {
            finish();
            return;
        }
        if (stale != null) {
            stale.revalidating.set(false);
        }
        if (client != null && mode != SWALLOW) {
            Exchange c = client;
            client = null;
            c.sendError(s);
        }
        finish();
    }

    @Override
    public void abort() {
        if (passOnly) {
            client.abort();
            return;
        }
        if (stale != null) {
            stale.revalidating.set(false);
        }
        if (client != null && mode != SWALLOW) {
            Exchange c = client;
            client = null;
            c.abort();
        }
        finish();
    }

    @Override
    public void send(HttpResponseStatus s, HttpHeaders headers, ByteBuf body) {
        startResponse(s, headers, body == null ? 0 : body.readableBytes());
        if (body != null) {
            sendBodyPart(body);
        }
        endResponse(null);
    }

    private void settle(Pending.Outcome o) {
        if (settled || pending == null) {
            settled = true;
            return;
        }
        settled = true;
        cache.done(fullKey, pending);
        pending.complete(o);
    }

    private void finish() {
        settle(Pending.Outcome.GO_UPSTREAM);
        releaseCapture();
    }

    /**
     * Makes room for {@code size} bytes of body in the capture: doubling, up to {@link #captureLimit}.
     * The budget counts the capture's capacity; the old buffer, alive for the copy into the grown one,
     * is not counted (one copy at a time per event loop).
     */
    private boolean ensureCapture(long size) {
        int had = capture == null ? 0 : capture.capacity();
        if (size <= had) {
            return true;
        }
        long want = Math.min(Math.max(size, Math.max(2L * had, FIRST_CAPTURE)), Math.max(captureLimit, size));
        if (!cache.reserveFill(want - had)) {
            return false;
        }
        try {
            if (capture == null) {
                // Unpooled: entries live long, and pooled chunks would stay pinned by a few of them.
                capture = Unpooled.directBuffer((int) want);
            } else {
                capture.capacity((int) want);
            }
        } catch (Throwable t) {
            cache.releaseFill(want - had); // the count stays true whatever the allocator throws
            throw t;
        }
        reserved = want;
        return true;
    }

    /** Stops storing this answer: it streams on to its client, and the waiters go upstream. */
    private void stopCapture() {
        releaseCapture();
        mode = STREAM;
        settle(Pending.Outcome.GO_UPSTREAM);
    }

    private void releaseCapture() {
        if (capture != null) {
            capture.release();
            capture = null;
        }
        cache.releaseFill(reserved);
        reserved = 0;
    }

    /**
     * The whole body for the entry, exactly as long as it is (an entry weighs what it keeps): a capture
     * that grew past the body (one without Content-Length) is copied into one of the right size.
     */
    private ByteBuf takeCapture() {
        ByteBuf body = capture;
        capture = null;
        if (body == null) {
            body = Unpooled.EMPTY_BUFFER;
        } else if (body.capacity() != body.readableBytes() && body.readableBytes() > Entry.SMALL) {
            ByteBuf exact = Unpooled.directBuffer(body.readableBytes(), body.readableBytes());
            exact.writeBytes(body);
            body.release();
            body = exact;
        }
        cache.releaseFill(reserved);
        reserved = 0;
        return body;
    }

    private void cancelFetch() {
        Runnable t = proxyCancel;
        proxyCancel = null;
        if (t != null) {
            t.run();
        }
        finish();
    }

    /** The client left: a fetch being stored goes on for the cache and the waiters; any other stops. */
    private void onClientGone() {
        client = null;
        if (mode == STREAM) {
            cancelFetch();
        } else if (writableTask != null) {
            Runnable t = writableTask;
            writableTask = null;
            loop.execute(t); // the upstream was paused for this client: read on for the cache
        }
    }

    // ---- the request, to the proxy call ----

    @Override
    public HttpRequest request() {
        return request;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String query() {
        return query;
    }

    @Override
    public boolean isHead() {
        return passOnly && client.isHead();
    }

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    @Override
    public EventLoop eventLoop() {
        return loop;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public SocketAddress clientAddress() {
        return clientAddress;
    }

    @Override
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public String scheme() {
        return scheme;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public boolean hasBody() {
        return passOnly && client.hasBody();
    }

    @Override
    public void receiveBody(BodyReceiver receiver) {
        if (passOnly) {
            client.receiveBody(receiver);
        }
    }

    @Override
    public void pauseReading() {
        if (client != null) {
            client.pauseReading();
        }
    }

    @Override
    public void resumeReading() {
        if (client != null) {
            client.resumeReading();
        }
    }

    @Override
    public boolean isWritable() {
        return client == null || client.isWritable();
    }

    @Override
    public void onWritable(Runnable task) {
        if (client != null) {
            writableTask = task;
            client.onWritable(task);
        } else {
            loop.execute(task);
        }
    }

    @Override
    public void upstream(HostPort endpoint) {
        Exchange c = client;
        if (c != null) {
            c.upstream(endpoint); // the client's log line names who answered, hit or miss
        }
    }

    @Override
    public boolean clientGone() {
        Exchange c = client;
        return passOnly && (c == null || c.clientGone()); // a fill for the cache goes on without its client
    }

    @Override
    public void onCancel(Runnable task) {
        if (passOnly) {
            client.onCancel(task);
        } else {
            proxyCancel = task;
        }
    }

    @Override
    public void holdFlush() {
        if (client != null) {
            client.holdFlush();
        }
    }

    @Override
    public void flush() {
        if (client != null) {
            client.flush();
        }
    }

    @Override
    public void switchProtocols(HttpHeaders headers, ChannelHandler tunnel) {
        if (!passOnly) {
            throw new IllegalStateException("a cache fetch is never an upgrade");
        }
        client.switchProtocols(headers, tunnel);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] body) {
        throw new UnsupportedOperationException("the proxy streams its answers");
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf body) {
        body.release();
        throw new UnsupportedOperationException("the proxy streams its answers");
    }

    @Override
    public void sendFile(byte[] head, FileChannel file, long offset, long length) {
        throw new UnsupportedOperationException("the proxy streams its answers");
    }
}
