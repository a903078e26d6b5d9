package dev.strait.proxy.compression;

import io.netty.util.concurrent.FastThreadLocal;

/**
 * The compressed forms of the whole bodies answered most (a small file's cached bytes, a fixed answer's), per event
 * loop, so that a page asked for again is not compressed again: nginx compresses it on every request, which is what
 * its {@code gzip_static} is for. Keyed by the identity of the head and body arrays, which the file cache and the
 * routing table keep while the file or rule stays the same (a changed file is a new array, never a stale hit).
 *
 * <p>Direct-mapped: {@link #SLOTS} entries per loop, an entry replaced by the next body that maps to its slot; no
 * lock, no allocation on a hit. At most {@link #MAX_BODY} bytes a body, so at most 2 MiB per loop, for rules with
 * {@code compression} only.
 */
final class CompressedBodies {
    static final int SLOTS = 32;
    /** Larger bodies are compressed per request (the file cache keeps files up to 64 KiB in memory). */
    static final int MAX_BODY = 64 * 1024;

    /** One body's compressed form: its head as sent, and the gzip member. */
    record Compressed(byte[] head, byte[] body) {}

    private static final FastThreadLocal<Slot[]> SLOTS_OF_LOOP = new FastThreadLocal<>() {
        @Override
        protected Slot[] initialValue() {
            return new Slot[SLOTS];
        }
    };

    private record Slot(byte[] head, byte[] body, int level, Compressed compressed) {}

    private CompressedBodies() {}

    private static int index(byte[] head, byte[] body, int level) {
        int h = System.identityHashCode(body) * 31 + System.identityHashCode(head) + level;
        return (h ^ h >>> 16) & (SLOTS - 1);
    }

    /** The compressed form kept for exactly these arrays at this level, or null. */
    static Compressed get(byte[] head, byte[] body, int level) {
        Slot s = SLOTS_OF_LOOP.get()[index(head, body, level)];
        return s != null && s.head == head && s.body == body && s.level == level ? s.compressed : null;
    }

    static void put(byte[] head, byte[] body, int level, Compressed compressed) {
        if (body.length <= MAX_BODY) {
            SLOTS_OF_LOOP.get()[index(head, body, level)] = new Slot(head, body, level, compressed);
        }
    }
}
