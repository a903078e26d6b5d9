package dev.strait.proxy.upstream;

import java.util.Arrays;

/**
 * A consistent-hash ring (ketama style): each endpoint owns points on a 64-bit circle, in proportion
 * to its weight; a key goes to the owner of the first point at or after the key's hash. Adding or
 * removing one endpoint moves only the keys of its own points. Built once per config, then only read.
 */
final class HashRing {
    private static final int POINTS_PER_WEIGHT = 100;
    private static final int MAX_POINTS = 200_000;

    private final long[] points;
    private final int[] owners;
    /** Per endpoint, the position of its first point; -1 for one without points (weight 0). */
    private final int[] first;

    /**
     * @param names   what each endpoint is hashed as (its address), so its points survive reordering
     * @param weights each endpoint's weight; 0 gives it no points
     */
    HashRing(String[] names, int[] weights) {
        long total = 0;
        for (int w : weights) {
            total += w;
        }
        int perWeight = total == 0 ? 0 : (int) Math.max(1, Math.min(POINTS_PER_WEIGHT, MAX_POINTS / total));
        int n = (int) (total * perWeight);
        long[] keys = new long[n];
        int k = 0;
        for (int e = 0; e < names.length; e++) {
            for (int p = 0; p < weights[e] * perWeight; p++) {
                keys[k++] = (Hashing.hash(names[e] + "#" + p) & ~0xffffL) | e;
            }
        }
        // The low 16 bits carry the owner so that one sort orders both; endpoints beyond 65535 share bits,
        // which only makes their split slightly uneven.
        Arrays.sort(keys);
        points = new long[n];
        owners = new int[n];
        first = new int[names.length];
        Arrays.fill(first, -1);
        for (int i = 0; i < n; i++) {
            points[i] = keys[i];
            owners[i] = (int) (keys[i] & 0xffffL);
            if (owners[i] < first.length && first[owners[i]] < 0) {
                first[owners[i]] = i;
            }
        }
    }

    /** Whether endpoint {@code owner} has points (a weight above 0). */
    boolean hasPoints(int owner) {
        return first[owner] >= 0;
    }

    /** A point of endpoint {@code owner} (which {@link #hasPoints}): a hash whose position is that endpoint's. */
    long pointOf(int owner) {
        return points[first[owner]];
    }

    int size() {
        return points.length;
    }

    /** The ring position for a hash: the first point at or after it, wrapping around. */
    int position(long hash) {
        int i = Arrays.binarySearch(points, hash);
        if (i < 0) {
            i = -i - 1;
        }
        return i == points.length ? 0 : i;
    }

    /** The endpoint owning the point at {@code position} (mod the ring size). */
    int owner(int position) {
        return owners[position % owners.length];
    }
}
