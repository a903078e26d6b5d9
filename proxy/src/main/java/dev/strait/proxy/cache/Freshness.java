package dev.strait.proxy.cache;

import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Date;

/**
 * Whether a response may be stored, and for how long it is fresh (RFC 9111 3, 4.2), decided once
 * when it arrives. All times are wall-clock milliseconds, as {@code Date} and {@code Expires} are.
 *
 * @param uncacheable          why the response may not be stored, or {@code null} when it may
 * @param lifetime             freshness lifetime (4.2.1)
 * @param initialAge           corrected initial age at {@code responseTime} (4.2.3)
 * @param staleWhileRevalidate how long past freshness it may be served while being revalidated
 * @param staleIfError         how long past freshness it may be served when the upstream fails
 * @param noCache              stored, but every use needs a successful revalidation first
 */
record Freshness(String uncacheable, long lifetime, long initialAge, long staleWhileRevalidate,
                 long staleIfError, boolean noCache) {

    /** RFC 9110 15.1: the statuses that are "heuristically cacheable"; we store no others. */
    private static final boolean[] CACHEABLE_STATUS = new boolean[600];

    static {
        for (int s : new int[] {200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501}) {
            CACHEABLE_STATUS[s] = true;
        }
    }

    static Freshness no(String why) {
        return new Freshness(why, 0, 0, 0, 0, false);
    }

    boolean storable() {
        return uncacheable == null;
    }

    /**
     * @param requestTime  when the request went upstream
     * @param responseTime when the response head arrived
     */
    static Freshness of(CachePolicy p, int status, HttpHeaders h, boolean requestHadAuthorization,
                        long requestTime, long responseTime) {
        if (status >= CACHEABLE_STATUS.length || !CACHEABLE_STATUS[status]) {
            return no("status " + status);
        }
        if (!p.cacheSetCookie && h.contains(HttpHeaderNames.SET_COOKIE)) {
            return no("Set-Cookie");
        }
        if (varyStar(h)) {
            return no("Vary: *");
        }
        long initialAge = initialAge(h, requestTime, responseTime);
        if (p.ignoreCacheControl) {
            return new Freshness(null, p.defaultTtl, initialAge, p.staleWhileRevalidate, p.staleIfError, false);
        }
        CacheControl cc = CacheControl.of(h);
        if (cc.noStore()) {
            return no("no-store");
        }
        if (cc.isPrivate()) {
            return no("private");
        }
        if (requestHadAuthorization && !p.cacheAuthorization) {
            return no("request with Authorization");
        }
        long lifetime = lifetime(cc, h, p.defaultTtl, responseTime);
        boolean validators = h.contains(HttpHeaderNames.ETAG) || h.contains(HttpHeaderNames.LAST_MODIFIED);
        if (cc.noCache() && !validators) {
            return no("no-cache without validators");
        }
        boolean strict = cc.revalidateWhenStale();
        long swr = strict ? 0 : cc.staleWhileRevalidate() >= 0 ? cc.staleWhileRevalidate() * 1000 : p.staleWhileRevalidate;
        long sie = strict ? 0 : cc.staleIfError() >= 0 ? cc.staleIfError() * 1000 : p.staleIfError;
        if (lifetime <= 0 && !validators && swr <= 0 && sie <= 0) {
            return no("no freshness and no validators");
        }
        return new Freshness(null, Math.max(lifetime, 0), initialAge, swr, sie, cc.noCache());
    }

    /**
     * Whether any member of any {@code Vary} field is {@code *}: such a response never matches a later
     * request (RFC 9111 4.1), so it is not stored.
     */
    static boolean varyStar(HttpHeaders h) {
        for (String field : h.getAll(HttpHeaderNames.VARY)) {
            for (String member : field.split(",")) {
                if (member.trim().equals("*")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * RFC 9111 4.2.1: s-maxage, then max-age, then Expires minus Date, then the rule's default. Without a
     * Date, the time the response arrived stands in for it (RFC 9110 6.6.1).
     */
    static long lifetime(CacheControl cc, HttpHeaders h, long defaultTtl, long responseTime) {
        if (cc.sMaxAge() >= 0) {
            return cc.sMaxAge() * 1000;
        }
        if (cc.maxAge() >= 0) {
            return cc.maxAge() * 1000;
        }
        String expires = h.get(HttpHeaderNames.EXPIRES);
        if (expires != null) {
            Date e = DateFormatter.parseHttpDate(expires);
            if (e == null) {
                return 0; // an invalid Expires (often "0") means already expired (5.3)
            }
            Date d = date(h);
            return e.getTime() - (d == null ? responseTime : d.getTime());
        }
        return defaultTtl;
    }

    /** RFC 9111 4.2.3: the corrected initial age, from Date, Age and the round trip. */
    static long initialAge(HttpHeaders h, long requestTime, long responseTime) {
        Date d = date(h);
        long apparent = d == null ? 0 : Math.max(0, responseTime - d.getTime());
        String age = h.get(HttpHeaderNames.AGE);
        long ageValue = age == null ? 0 : CacheControl.seconds(age.trim()) * 1000;
        long corrected = ageValue + (responseTime - requestTime);
        return Math.max(apparent, corrected);
    }

    private static Date date(HttpHeaders h) {
        String d = h.get(HttpHeaderNames.DATE);
        return d == null ? null : DateFormatter.parseHttpDate(d);
    }
}
