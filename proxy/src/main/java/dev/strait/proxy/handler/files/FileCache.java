package dev.strait.proxy.handler.files;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The files a {@link FileHandler} has served, by decoded request path, shared by every event loop.
 * A hit is one {@link ConcurrentHashMap#get} (no lock); the caller then checks freshness with one
 * stat. Bounded by entries and bytes; when over, one thread at a time evicts with a second-chance
 * sweep (entries hit since the last sweep survive one more) down to 7/8 of the bounds, so sweeps
 * are rare and a burst of misses does not sweep on each one.
 */
final class FileCache {
    private final ConcurrentHashMap<String, CachedFile> map = new ConcurrentHashMap<>();
    private final int maxEntries;
    private final long maxBytes;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicBoolean evicting = new AtomicBoolean();

    FileCache(int maxEntries, long maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    CachedFile get(String key) {
        CachedFile f = map.get(key);
        if (f != null && !f.used) {
            f.used = true; // written only when it changes: a hot entry's line stays shared
        }
        return f;
    }

    /** Whether {@code f} was taken: only an entry in the cache is ever {@link CachedFile#release() released}. */
    boolean put(String key, CachedFile f) {
        if (f.weight > maxBytes / 8) {
            return false; // one entry may not push out a large part of the rest
        }
        CachedFile prev = map.put(key, f);
        bytes.addAndGet(prev == null ? f.weight : f.weight - prev.weight);
        if (prev != null && prev != f) {
            prev.release();
        }
        if (map.size() > maxEntries || bytes.get() > maxBytes) {
            evict();
        }
        return true;
    }

    /** Drops {@code f} if it is still the entry for {@code key}. */
    void remove(String key, CachedFile f) {
        if (map.remove(key, f)) {
            bytes.addAndGet(-f.weight);
            f.release();
        }
    }

    int size() {
        return map.size();
    }

    long bytes() {
        return bytes.get();
    }

    private void evict() {
        if (!evicting.compareAndSet(false, true)) {
            return; // another loop is at it; being over for a moment is fine
        }
        try {
            int entryTarget = maxEntries - maxEntries / 8;
            long byteTarget = maxBytes - maxBytes / 8;
            // Pass 0 spares (and clears) entries hit since the last sweep; pass 1 takes whatever is left.
            for (int pass = 0; pass < 2 && over(entryTarget, byteTarget); pass++) {
                for (Iterator<Map.Entry<String, CachedFile>> it = map.entrySet().iterator();
                     it.hasNext() && over(entryTarget, byteTarget); ) {
                    Map.Entry<String, CachedFile> e = it.next();
                    CachedFile f = e.getValue();
                    if (pass == 0 && f.used) {
                        f.used = false;
                    } else {
                        remove(e.getKey(), f);
                    }
                }
            }
        } finally {
            evicting.set(false);
        }
    }

    private boolean over(int entryTarget, long byteTarget) {
        return map.size() > entryTarget || bytes.get() > byteTarget;
    }
}
