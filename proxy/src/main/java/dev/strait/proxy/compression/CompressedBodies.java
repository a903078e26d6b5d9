package dev.strait.proxy.compression;

import io.netty.util.concurrent.FastThreadLocal;

/**
 * The compressed forms of the whole bodies answered most (a small file's cached bytes, a fixed answer's, a response
 * cache entry's), per event loop, so that a page asked for again is not compressed again: nginx compresses it on
 * every request, which is what its {@code gzip_static} is for. Keyed by the identity of the head array (and of the
 * body array where there is one), which the file cache, the routing table and the response cache keep while the
 * file, rule or entry stays the same (a changed file or a refreshed entry is a new array, never a stale hit): a head
 * array names one body.
 *
 * <p>Direct-mapped: {@link #SLOTS} entries per loop, an entry replaced by the next body that maps to its slot; no
 * lock, no allocation on a hit. At most {@link #MAX_BODY} bytes a body, so at most 2 MiB per loop, for rules with
 * {@code compression} only.
 */
final class CompressedBodies {
    static final int SLOTS = 32;
    /** Larger bodies are compressed per request (the file cache keeps files up to 64 KiB in memory). */
    static final int MAX_BODY = 64 * 1024;

    /** One body's compressed form: its head as sent, and the compressed body. */
    record Compressed(byte[] head, byte[] body) {}

    private static final FastThreadLocal<Slot[]> SLOTS_OF_LOOP = new FastThreadLocal<>() {
        @Override
        protected Slot[] initialValue() {
            return new Slot[SLOTS];
        }
    };

    /** {@code body}: the body's array, or null where the body came as a buffer (then its length is checked too). */
    private record Slot(byte[] head, byte[] body, int length, int variant, Compressed compressed) {}

    private CompressedBodies() {}

    private static int index(byte[] head, byte[] body, int variant) {
        int h = System.identityHashCode(body) * 31 + System.identityHashCode(head) + variant;
        return (h ^ h >>> 16) & (SLOTS - 1);
    }

    /**
     * The compressed form kept for exactly these arrays in this variant (coding and level), or null; {@code body} null
     * for a body that came as a buffer of {@code length} bytes.
     */
    static Compressed get(byte[] head, byte[] body, int length, int variant) {
        Slot s = SLOTS_OF_LOOP.get()[index(head, body, variant)];
        return s != null && s.head == head && s.body == body && s.length == length && s.variant == variant ? s.compressed
                : null;
    }

    static void put(byte[] head, byte[] body, int length, int variant, Compressed compressed) {
        if (length <= MAX_BODY) {
            SLOTS_OF_LOOP.get()[index(head, body, variant)] = new Slot(head, body, length, variant, compressed);
        }
    }
}
