package dev.strait.proxy.cache;

/** The values of the optional {@code X-Cache} header (compared by identity). */
final class CacheLabel {
    static final String HIT = "HIT";
    static final String MISS = "MISS";
    static final String STALE = "STALE";
    static final String PASS = "PASS";
    static final String REVALIDATED = "REVALIDATED";

    private CacheLabel() {}
}
