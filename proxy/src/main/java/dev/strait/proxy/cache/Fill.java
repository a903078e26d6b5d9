package dev.strait.proxy.cache;

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
 * <p>With a {@code null} key it only passes through, adding {@code X-Cache: PASS}.
 * Runs on the event loop of the request that started it, like the proxy call it drives.
 */
final class Fill implements Exchange {
    private static final int HEAD_PENDING = 0;
    private static final int STORE = 1;
    private static final int STREAM = 2;
    /** The client was answered some other way (a refreshed or stale entry): the upstream's answer is dropped. */
    private static final int SWALLOW = 3;

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
    private final SocketAddress local;
    private final ByteBufAllocator alloc;
    private final EventLoop loop;

    private long requestTime;
    private Runnable proxyCancel;
    /** What the proxy call waits on to read the upstream again; run by us if the client leaves. */
    private Runnable writableTask;
    private int mode = HEAD_PENDING;
    private ByteBuf capture;
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
        this.local = source.localAddress();
        this.alloc = source.alloc();
        this.loop = source.eventLoop();
    }

    void start() {
        requestTime = System.currentTimeMillis();
        if (!passOnly && client != null) {
            client.onCancel(this::clientGone);
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
        if (!f.storable() || contentLength > p.maxBodySize) {
            mode = STREAM;
            if (code < 500) {
                cache.markPass(fullKey, p, f.storable() ? "larger than maxBodySize" : f.uncacheable());
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
            // Unpooled: entries live long, and pooled chunks would stay pinned by a few of them.
            capture = contentLength >= 0
                    ? Unpooled.directBuffer((int) contentLength, (int) contentLength)
                    : Unpooled.directBuffer((int) Math.min(8192, p.maxBodySize), (int) p.maxBodySize);
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
            if (capture.writerIndex() + (long) n > p.maxBodySize) {
                // A body of unknown length outgrew the limit: it streams on uncached.
                capture.release();
                capture = null;
                mode = STREAM;
                cache.markPass(fullKey, p, "larger than maxBodySize");
                settle(Pending.Outcome.GO_UPSTREAM);
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
            Entry e = new Entry(fullKey, status, storedHeaders, capture, freshness, responseTime, vary);
            capture = null;
            cache.put(key, request.headers(), e);
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
        HttpHeaders merged = stale.updatedWith(notModified);
        // Freshness from the 304's Date and Age too (Expires counts from Date); the entry keeps neither.
        HttpHeaders timed = merged.copy();
        copy(notModified, timed, HttpHeaderNames.DATE);
        copy(notModified, timed, HttpHeaderNames.AGE);
        Freshness f = Freshness.of(p, stale.status, timed, hadAuthorization, requestTime, now);
        if (!stale.acquire()) {
            // The store dropped the entry (and its body) while we asked: fetch the whole response instead.
            Exchange c = client;
            client = null;
            settle(Pending.Outcome.GO_UPSTREAM);
            if (c != null) {
                Fill again = new Fill(cache, c, this, p, origin, key, fullKey, null, null);
                loop.execute(again::start);
            }
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
        cache.put(key, request.headers(), e);
        answer(e, now, CacheLabel.REVALIDATED, cache.meters.revalidated);
        settle(new Pending.Outcome(Pending.Outcome.SERVE, e));
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
        if (capture != null) {
            capture.release();
            capture = null;
        }
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
    private void clientGone() {
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
