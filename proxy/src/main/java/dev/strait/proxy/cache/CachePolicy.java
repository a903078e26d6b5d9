package dev.strait.proxy.cache;

import dev.strait.model.Route;
import java.util.List;

/**
 * A rule's cache settings, compiled with the table (times in milliseconds and nanoseconds) so a
 * request only reads fields.
 */
public final class CachePolicy {
    final String route;
    /**
     * Which rule this is, as part of every key: two rules that take the same URL (one picked by a header,
     * say, and sent to a canary) answer differently, so they must not share entries. The route's name and
     * the rule's position, plus a hash of its matches so that a reload that moves rules around does not
     * hand one rule's entries to another.
     */
    final String rule;
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

    private CachePolicy(String route, String rule, Route.Cache c) {
        this.route = route;
        this.rule = rule;
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

    /** The policy of rule {@code index} of {@code route}, or {@code null} when it has no cache or the cache is off. */
    public static CachePolicy of(String route, int index, Route.Rule rule) {
        Route.Cache c = rule.cache();
        return c == null || !c.enabled() ? null : new CachePolicy(route, tag(route, index, rule.matches()), c);
    }

    /** The policy of a route's only rule (that matches everything), or {@code null}; for tests. */
    static CachePolicy of(String route, Route.Cache c) {
        return c == null || !c.enabled() ? null : new CachePolicy(route, tag(route, 0, List.of()), c);
    }

    /** {@code site#1:5f3a9c21}: never a space, so it cannot be confused with the URL before it in a key. */
    static String tag(String route, int index, List<Route.Match> matches) {
        return route + '#' + index + ':' + Integer.toHexString(matches.toString().hashCode());
    }
}
