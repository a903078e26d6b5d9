package dev.strait.proxy.cache;

import dev.strait.model.Route;

/**
 * A rule's cache settings, compiled with the table (times in milliseconds and nanoseconds) so a
 * request only reads fields.
 */
public final class CachePolicy {
    final String route;
    final long maxBodySize;
    final long defaultTtl;
    final boolean ignoreCacheControl;
    final boolean cacheSetCookie;
    final boolean cacheAuthorization;
    final boolean xCacheHeader;
    final long staleWhileRevalidate;
    final long staleIfError;
    final long hitForPassNanos;
    final long lockTimeoutNanos;

    /** 2^31 seconds, the largest delta-seconds RFC 9111 1.2.2 asks us to handle: no overflow past it. */
    static final long MAX_MILLIS = 2_147_483_648_000L;

    private CachePolicy(String route, Route.Cache c) {
        this.route = route;
        this.maxBodySize = c.maxBodySize();
        this.defaultTtl = Math.min(c.defaultTtl().toMillis(), MAX_MILLIS);
        this.ignoreCacheControl = c.ignoreCacheControl();
        this.cacheSetCookie = c.cacheSetCookie();
        this.cacheAuthorization = c.cacheAuthorization();
        this.xCacheHeader = c.xCacheHeader();
        this.staleWhileRevalidate = Math.min(c.staleWhileRevalidate().toMillis(), MAX_MILLIS);
        this.staleIfError = Math.min(c.staleIfError().toMillis(), MAX_MILLIS);
        this.hitForPassNanos = Math.min(c.hitForPass().toMillis(), MAX_MILLIS) * 1_000_000L;
        this.lockTimeoutNanos = Math.min(c.lockTimeout().toMillis(), MAX_MILLIS) * 1_000_000L;
    }

    /** The policy of a rule, or {@code null} when it has no cache or the cache is off. */
    public static CachePolicy of(String route, Route.Cache c) {
        return c == null || !c.enabled() ? null : new CachePolicy(route, c);
    }
}
