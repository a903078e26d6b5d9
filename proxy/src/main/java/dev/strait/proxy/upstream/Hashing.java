package dev.strait.proxy.upstream;

/** 64-bit hashes for the consistent-hash ring: FNV-1a over characters, finished with murmur3's mixer. */
final class Hashing {
    private Hashing() {}

    static long hash(CharSequence s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0, n = s.length(); i < n; i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return mix(h);
    }

    static long hash(CharSequence s, int from, int to) {
        long h = 0xcbf29ce484222325L;
        for (int i = from; i < to; i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return mix(h);
    }

    /** murmur3's fmix64: spreads every input bit over the whole result. */
    static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
