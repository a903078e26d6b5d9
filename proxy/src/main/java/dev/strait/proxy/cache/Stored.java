package dev.strait.proxy.cache;

/**
 * What the store holds under a key: a response ({@link Entry}), the header names a key's responses
 * vary on ({@link Variants}), or a note that the key is not cacheable for a while ({@link Pass}).
 */
sealed interface Stored permits Entry, Variants, Pass {
    /** Bytes this takes, roughly, for the store's bound. */
    int weight();

    /** How long the store keeps it, from now, in nanoseconds. */
    long keepNanos(long nowMillis);
}
