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

    private CachePolicy(String route, Route.Cache c) {
        this.route = route;
        this.maxBodySize = c.maxBodySize();
        this.defaultTtl = c.defaultTtl().toMillis();
        this.ignoreCacheControl = c.ignoreCacheControl();
        this.cacheSetCookie = c.cacheSetCookie();
        this.cacheAuthorization = c.cacheAuthorization();
        this.xCacheHeader = c.xCacheHeader();
        this.staleWhileRevalidate = c.staleWhileRevalidate().toMillis();
        this.staleIfError = c.staleIfError().toMillis();
        this.hitForPassNanos = c.hitForPass().toNanos();
        this.lockTimeoutNanos = c.lockTimeout().toNanos();
    }

    /** The policy of a rule, or {@code null} when it has no cache or the cache is off. */
    public static CachePolicy of(String route, Route.Cache c) {
        return c == null || !c.enabled() ? null : new CachePolicy(route, c);
    }
}
