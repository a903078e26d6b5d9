package dev.strait.proxy.cache;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * The cache's counters: plain {@link LongAdder}s that Prometheus reads when scraped, so a hit adds one
 * uncontended cell and builds nothing.
 */
final class CacheMetrics {
    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();
    final LongAdder passes = new LongAdder();
    final LongAdder stale = new LongAdder();
    final LongAdder revalidated = new LongAdder();
    final LongAdder coalesced = new LongAdder();
    final LongAdder stored = new LongAdder();
    final LongAdder evictions = new LongAdder();
    final LongAdder purged = new LongAdder();
    final LongAdder overBudget = new LongAdder();

    CacheMetrics(MeterRegistry registry, ResponseCache cache) {
        if (registry == null) {
            return;
        }
        counter(registry, "strait_cache_hits", "Answers from the cache without going upstream", hits);
        counter(registry, "strait_cache_misses", "Requests that fetched from upstream for the cache", misses);
        counter(registry, "strait_cache_passes", "Requests sent upstream around the cache (uncacheable)", passes);
        counter(registry, "strait_cache_stale", "Stale answers (stale-while-revalidate, stale-if-error)", stale);
        counter(registry, "strait_cache_revalidated", "Entries refreshed by a 304 from upstream", revalidated);
        counter(registry, "strait_cache_coalesced", "Requests that waited for another's fetch of the same key",
                coalesced);
        counter(registry, "strait_cache_stored", "Responses stored", stored);
        counter(registry, "strait_cache_evictions", "Entries evicted to stay within cache.maxBytes", evictions);
        counter(registry, "strait_cache_purged", "Entries removed through the admin purge", purged);
        counter(registry, "strait_cache_fills_over_budget",
                "Fetches that stopped storing because the fetches in flight held the whole fill budget", overBudget);
        gauge(registry, "strait_cache_bytes", "Bytes the stored responses take", cache, c -> c.weightedSize());
        gauge(registry, "strait_cache_fill_bytes", "Bytes held by bodies being fetched for the cache", cache,
                c -> c.fillingBytes());
        gauge(registry, "strait_cache_entries", "Keys in the store (responses, Vary markers, hit-for-pass)", cache,
                c -> c.size());
    }

    private static void counter(MeterRegistry r, String name, String help, LongAdder a) {
        FunctionCounter.builder(name, a, LongAdder::doubleValue).description(help).register(r);
    }

    private static void gauge(MeterRegistry r, String name, String help, ResponseCache c,
                              ToDoubleFunction<ResponseCache> f) {
        Gauge.builder(name, c, f).description(help).register(r);
    }
}
