package dev.strait.proxy.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.strait.proxy.http.Exchange;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.internal.PlatformDependent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The proxy's response cache (RFC 9111, a shared cache) for rules with {@code cache}: one store per
 * process, bounded in bytes, read by every event loop.
 *
 * <p>A request for a key goes one of these ways:
 * <ol>
 *   <li><b>hit</b>: a fresh entry answers with its pre-encoded head plus {@code Age} (and {@code X-Cache}),
 *       and a duplicate of its body; nothing else happens;</li>
 *   <li><b>stale-while-revalidate</b>: a stale entry within that window answers, and one background
 *       request revalidates it;</li>
 *   <li><b>pass</b>: requests that must not use the cache (other methods, Authorization, Range, bodies,
 *       upgrades) and keys recently found uncacheable (hit-for-pass) go straight upstream;</li>
 *   <li><b>miss or revalidation</b>: the first request for a key becomes its fetch ({@link Fill}, with
 *       the stored validators when there is a stale entry); concurrent requests for the key wait for it
 *       in {@link Pending} (coalescing) and are woken on their own event loop when it ends.</li>
 * </ol>
 *
 * <p>The store is Caffeine, weighted by bytes (W-TinyLFU eviction). The in-flight map is a
 * {@link ConcurrentHashMap}: one bin lock per key while joining, no global lock. Bodies being fetched
 * are held outside the store, within a budget of their own ({@link #reserveFill}, docs/adr/0043).
 *
 * <p>A key is the URL and the rule ({@code http://example.com/a?x=1 site#0:1f2e3d4c}): each rule that
 * caches a URL has its own entries. Purging a URL and invalidating it (unsafe methods) reach every rule's.
 */
public final class ResponseCache implements AutoCloseable {
    private static final FastThreadLocal<ResponseCache> CURRENT = new FastThreadLocal<>();

    // Made by the first request a caching rule sends here: a proxy whose rules never cache does not load
    // Caffeine at all (about 90 classes: 0.8 MiB of RSS per process, docs/adr/0038; a sidecar runs in every pod).
    private volatile Cache<String, Stored> store;
    private long maxBytes; // guarded by this, with the store's creation
    private final ConcurrentHashMap<String, Pending> pending = new ConcurrentHashMap<>();
    /** The rules ({@link CachePolicy#rule}) that have stored something: a URL's keys are the URL plus one of these. */
    private final Set<String> rules = ConcurrentHashMap.newKeySet();
    /** Bytes the bodies of fills in flight hold now, and the most they may ({@link #fillBudget(long)}). */
    private final AtomicLong filling = new AtomicLong();
    private volatile long fillBudget;
    final CacheMetrics meters;

    public ResponseCache(long maxBytes, MeterRegistry registry) {
        this.maxBytes = maxBytes;
        this.fillBudget = fillBudget(maxBytes);
        this.meters = new CacheMetrics(registry, this);
    }

    /**
     * How many bytes the bodies being fetched for the cache may hold together: half of {@code cache.maxBytes},
     * and at most a quarter of the direct memory the JVM may use (the sidecar runs with 32 MiB), so that
     * clients that ask for many keys and read nothing cannot make the process run out of it.
     */
    static long fillBudget(long maxBytes) {
        long direct = PlatformDependent.maxDirectMemory();
        return Math.min(maxBytes / 2, direct > 0 ? direct / 4 : Long.MAX_VALUE);
    }

    long fillBudget() {
        return fillBudget;
    }

    /** Bytes that fills in flight hold now. */
    long fillingBytes() {
        return filling.get();
    }

    /**
     * Takes {@code n} bytes of the fill budget (lock-free); {@code false} when the fills in flight hold too
     * much already: the caller then stores nothing and lets its answer pass through.
     */
    boolean reserveFill(long n) {
        long budget = fillBudget;
        for (;;) {
            long held = filling.get();
            if (held + n > budget) {
                return false;
            }
            if (filling.compareAndSet(held, held + n)) {
                return true;
            }
        }
    }

    void releaseFill(long n) {
        filling.addAndGet(-n);
    }

    /** The store, made on first use; the one lock is taken once, by whichever loop gets here first. */
    private Cache<String, Stored> store() {
        Cache<String, Stored> s = store;
        return s != null ? s : makeStore();
    }

    private synchronized Cache<String, Stored> makeStore() {
        if (store == null) {
            store = Store.build(maxBytes, meters.evictions);
        }
        return store;
    }

    /** The Caffeine builder, in its own class so that loading {@code ResponseCache} does not load Caffeine. */
    private static final class Store {
        static Cache<String, Stored> build(long maxBytes, LongAdder evictions) {
            return Caffeine.newBuilder()
                    .maximumWeight(maxBytes)
                    .weigher((String k, Stored v) -> v.weight())
                    .expireAfter(new Expiry<String, Stored>() {
                        @Override
                        public long expireAfterCreate(String key, Stored value, long currentTime) {
                            return value.keepNanos(System.currentTimeMillis());
                        }

                        @Override
                        public long expireAfterUpdate(String key, Stored value, long currentTime, long currentDuration) {
                            return value.keepNanos(System.currentTimeMillis());
                        }

                        @Override
                        public long expireAfterRead(String key, Stored value, long currentTime, long currentDuration) {
                            return currentDuration;
                        }
                    })
                    // Removal work runs on the thread that caused it: bodies are released at once, no pool thread.
                    .executor(Runnable::run)
                    .removalListener((String k, Stored v, RemovalCause cause) -> {
                        if (v instanceof Entry e) {
                            e.release();
                        }
                        if (cause == RemovalCause.SIZE) {
                            evictions.increment();
                        }
                    })
                    .build();
        }
    }

    /** Makes this the cache of every loop of {@code loops}; returns when all know it. */
    public void install(EventLoopGroup loops) throws InterruptedException {
        dev.strait.proxy.server.EveryLoop.run(loops, () -> CURRENT.set(this));
    }

    /** The cache of the calling event loop, or {@code null}. */
    public static ResponseCache current() {
        return CURRENT.getIfExists();
    }

    /** Follows a new {@code cache.maxBytes}; evicts at once when it shrank. */
    public synchronized void resize(long maxBytes) {
        this.maxBytes = maxBytes;
        this.fillBudget = fillBudget(maxBytes);
        if (store == null) {
            return;
        }
        store.policy().eviction().ifPresent(e -> {
            if (e.getMaximum() != maxBytes) {
                e.setMaximum(maxBytes);
            }
        });
    }

    long weightedSize() {
        Cache<String, Stored> store = this.store;
        return store == null ? 0 : store.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    /** For tests: whether a caching rule has seen a request yet. */
    boolean storeMade() {
        return store != null;
    }

    /** For tests: the store's bound in bytes. */
    long maximumBytes() {
        return store().policy().eviction().map(e -> e.getMaximum()).orElse(-1L);
    }

    long size() {
        Cache<String, Stored> store = this.store;
        return store == null ? 0 : store.estimatedSize();
    }

    /**
     * Removes a URL's responses (or Vary markers, and so all their variants) under every rule that stored
     * it; returns how many keys went.
     */
    public int purge(String url) {
        int n = removeUrl(url);
        meters.purged.add(n);
        return n;
    }

    /** Removes the keys of {@code url}: one map removal per rule that has stored anything. */
    private int removeUrl(String url) {
        Cache<String, Stored> store = this.store;
        if (store == null) {
            return 0;
        }
        int n = store.asMap().remove(url) != null ? 1 : 0; // a whole key, rule and all
        for (String rule : rules) {
            if (store.asMap().remove(url + ' ' + rule) != null) {
                n++;
            }
        }
        return n;
    }

    /** Removes every key that starts with {@code prefix} (a scan of the keys: an admin operation). */
    public int purgePrefix(String prefix) {
        Cache<String, Stored> store = this.store;
        int n = 0;
        for (String k : store == null ? List.<String>of() : new ArrayList<>(store.asMap().keySet())) {
            if (k.startsWith(prefix) && store.asMap().remove(k) != null) {
                n++;
            }
        }
        meters.purged.add(n);
        return n;
    }

    /** The URL of a request as keys and purges name it: scheme, host (lower case, no port), normalised path and query. */
    static String url(Exchange ex) {
        return url(ex, null);
    }

    /** The key of a request on a rule: its URL, a space and the rule ({@link CachePolicy#rule}). */
    static String key(Exchange ex, CachePolicy p) {
        return url(ex, p.rule);
    }

    private static String url(Exchange ex, String rule) {
        String q = ex.query();
        String host = ex.host() == null ? "" : ex.host();
        StringBuilder sb = new StringBuilder(ex.scheme().length() + 3 + host.length() + ex.path().length()
                + (q == null ? 0 : q.length() + 1) + (rule == null ? 0 : rule.length() + 1));
        sb.append(ex.scheme()).append("://").append(host).append(ex.path());
        if (q != null) {
            sb.append('?').append(q);
        }
        if (rule != null) {
            sb.append(' ').append(rule);
        }
        return sb.toString();
    }

    // ---- the request path ----

    /** Answers {@code ex} from the cache, or sends it on to {@code origin} as the cache sees fit. */
    public void handle(Exchange ex, CachePolicy p, Origin origin) {
        HttpRequest req = ex.request();
        HttpMethod m = req.method();
        HttpHeaders h = req.headers();
        if (m != HttpMethod.GET && m != HttpMethod.HEAD) {
            if (m != HttpMethod.OPTIONS && m != HttpMethod.TRACE) {
                // An unsafe method may change the resource: drop what we have for it, whichever rule
                // stored it (RFC 9111 4.4).
                removeUrl(url(ex));
            }
            pass(ex, p, origin);
            return;
        }
        if (ex.hasBody() || h.contains(HttpHeaderNames.RANGE) || h.contains(HttpHeaderNames.UPGRADE)
                || !p.cacheAuthorization && h.contains(HttpHeaderNames.AUTHORIZATION)) {
            pass(ex, p, origin);
            return;
        }
        lookup(ex, p, origin, key(ex, p));
    }

    void lookup(Exchange ex, CachePolicy p, Origin origin, String key) {
        Stored s = store().getIfPresent(key);
        String fullKey = key;
        if (s instanceof Variants v) {
            fullKey = v.key(key, ex.request().headers());
            s = store().getIfPresent(fullKey);
        }
        if (s instanceof Pass pass) {
            if (pass.active()) {
                pass(ex, p, origin);
                return;
            }
            s = null;
        }
        Entry e = (Entry) s;
        if (e != null && !e.noCache) {
            long now = System.currentTimeMillis();
            if (now - e.freshUntil < 0) {
                if (serve(ex, e, now, CacheLabel.HIT, p.xCacheHeader, meters.hits)) {
                    return;
                }
                e = null; // dropped by the store just now: fetch
            } else if (now - e.staleWhileRevalidateUntil < 0) {
                // Made before answering: it copies what it needs from the request while that is current.
                Fill revalidation = e.revalidating.compareAndSet(false, true)
                        ? new Fill(this, null, ex, p, origin, key, fullKey, e, null) : null;
                if (serve(ex, e, now, CacheLabel.STALE, p.xCacheHeader, meters.stale)) {
                    if (revalidation != null) {
                        revalidation.start();
                    }
                    return;
                }
                e = null;
            }
        }
        Pending mine = new Pending();
        for (int tries = 0; tries < 3; tries++) {
            Pending other = pending.putIfAbsent(fullKey, mine);
            if (other == null) {
                meters.misses.increment();
                new Fill(this, ex, ex, p, origin, key, fullKey, e, mine).start();
                return;
            }
            if (other.join(this, ex, p, origin, key)) {
                meters.coalesced.increment();
                return;
            }
            // that fetch ended just now: what it left is in the store
            pending.remove(fullKey, other);
        }
        pass(ex, p, origin);
    }

    /** Around the cache, with X-Cache: PASS when the rule wants the header. */
    void pass(Exchange ex, CachePolicy p, Origin origin) {
        meters.passes.increment();
        origin.forward(p.xCacheHeader ? new Fill(this, ex, ex, p, origin, null, null, null, null) : ex);
    }

    /** Answers from an entry; {@code false} when the store let go of it meanwhile. */
    boolean serve(Exchange ex, Entry e, long now, String label, boolean xCache, LongAdder counter) {
        if (!e.acquire()) {
            return false;
        }
        counter.increment(); // before the answer leaves: whoever reads it may read the metrics next
        if (e.status == 200 && (e.etag != null || e.lastModified != null) && e.notModifiedFor(ex.request().headers())) {
            // The client's own conditional GET, answered from the entry (RFC 9110 13.2.2).
            e.release();
            ex.sendPreEncoded(e.notModifiedHead(), e.extraLines(now, label, xCache), Unpooled.EMPTY_BUFFER);
            return true;
        }
        ByteBuf body;
        try {
            body = e.bodyForAnswer();
        } finally {
            e.release();
        }
        ex.sendPreEncoded(e.head, e.extraLines(now, label, xCache), body);
        return true;
    }

    // ---- what fills use ----

    /**
     * Stores a response under its key, with a Vary marker under the primary key when it varies (a marker
     * with other names replaces the old one, whose variants then cannot be found any more).
     */
    void put(String primary, CachePolicy p, HttpHeaders requestHeaders, Entry e) {
        rules.add(p.rule); // read (a hash lookup) every time, written once per rule
        if (e.vary == null) {
            store().put(primary, e);
        } else {
            Stored s = store().getIfPresent(primary);
            Variants v = s instanceof Variants old && old.sameNames(e.vary) ? old : new Variants(e.vary);
            store().put(primary, v);
            store().put(v.key(primary, requestHeaders), e);
        }
        meters.stored.increment();
    }

    void markPass(String key, CachePolicy p, String why) {
        if (p.hitForPassNanos > 0) {
            store().put(key, new Pass(System.nanoTime() + p.hitForPassNanos, why));
        }
    }

    void remove(String key) {
        store().asMap().remove(key);
    }

    void done(String fullKey, Pending p) {
        pending.remove(fullKey, p);
    }

    /** Drops every entry (their bodies are released); the server calls it when it stops. */
    @Override
    public void close() {
        Cache<String, Stored> store = this.store;
        if (store != null) {
            store.invalidateAll();
            store.cleanUp();
        }
    }

    /** For tests: waits for nothing, but runs the store's pending maintenance (evictions) now. */
    void cleanUp() {
        store().cleanUp();
    }
}
