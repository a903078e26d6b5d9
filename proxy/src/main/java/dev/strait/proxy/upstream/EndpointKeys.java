package dev.strait.proxy.upstream;

import java.util.Arrays;

/**
 * Persistent affinity (ingress-nginx's {@code affinity-mode: persistent}): the cookie's value names the endpoint that
 * served the browser, so it goes back there for as long as the endpoint is in the upstream, whatever endpoints are
 * added meanwhile. A value is 16 hex digits of a hash of the upstream's name and the endpoint's address: the same in
 * every proxy and after restarts, and it says nothing readable about the endpoint. A value is turned back into one of
 * its endpoint's points on the hash ring, so failing over to the next endpoints while it is down works as for a
 * balanced key. Built with the upstream's spec; then only read.
 */
final class EndpointKeys {
    /** The hashes of the keys of the endpoints that have points, sorted. */
    private final long[] hashes;
    /** The ring point of the endpoint whose key hash is at the same index. */
    private final long[] points;

    EndpointKeys(String upstream, String[] addresses, HashRing ring) {
        long[][] pairs = new long[addresses.length][];
        int n = 0;
        for (int e = 0; e < addresses.length; e++) {
            if (ring.hasPoints(e)) {
                pairs[n++] = new long[] {valueHash(key(upstream, addresses[e])), ring.pointOf(e)};
            }
        }
        Arrays.sort(pairs, 0, n, (a, b) -> Long.compare(a[0], b[0]));
        hashes = new long[n];
        points = new long[n];
        for (int i = 0; i < n; i++) {
            hashes[i] = pairs[i][0];
            points[i] = pairs[i][1];
        }
    }

    /** The cookie value that names {@code address} of {@code upstream}. */
    static String key(String upstream, String address) {
        return String.format("%016x", Hashing.hash(upstream + " " + address));
    }

    /** A value's hash as {@link LoopUpstream#cookieHash} reads it from the request (never 0). */
    static long valueHash(String value) {
        long h = Hashing.hash(value);
        return h == 0 ? 1 : h;
    }

    /** Whether a cookie with this value hash names an endpoint of the upstream (one with a weight). */
    boolean names(long cookieHash) {
        return Arrays.binarySearch(hashes, cookieHash) >= 0;
    }

    /** The ring point of the endpoint a cookie names, or {@code otherwise} when it names none. */
    long point(long cookieHash, long otherwise) {
        int i = Arrays.binarySearch(hashes, cookieHash);
        return i >= 0 ? points[i] : otherwise;
    }
}
