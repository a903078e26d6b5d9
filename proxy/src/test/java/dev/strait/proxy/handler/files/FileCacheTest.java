package dev.strait.proxy.handler.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

class FileCacheTest {

    @Test
    void boundedByEntries() {
        FileCache cache = new FileCache(8, 1 << 20);
        for (int i = 0; i < 50; i++) {
            cache.put("/" + i, file("/" + i, 10));
            assertThat(cache.size()).isLessThanOrEqualTo(8);
        }
        assertThat(cache.bytes()).isEqualTo(sumOfWeights(cache, 50));
    }

    @Test
    void boundedByBytes() {
        CachedFile sample = file("/x", 1000);
        FileCache cache = new FileCache(1000, sample.weight * 10L);
        for (int i = 0; i < 50; i++) {
            cache.put("/" + i, file("/" + i, 1000));
            assertThat(cache.bytes()).isLessThanOrEqualTo(sample.weight * 10L);
        }
        assertThat(cache.size()).isBetween(1, 10);
        assertThat(cache.bytes()).isEqualTo(sumOfWeights(cache, 50));
    }

    @Test
    void entryTooLargeForTheBudgetIsNotKept() {
        FileCache cache = new FileCache(8, 4096);
        cache.put("/big", file("/big", 4096));
        assertThat(cache.size()).isZero();
        assertThat(cache.bytes()).isZero();
    }

    @Test
    void entriesHitSinceTheLastSweepSurviveIt() {
        FileCache cache = new FileCache(8, 1 << 20);
        for (int i = 0; i < 8; i++) {
            cache.put("/" + i, file("/" + i, 10));
        }
        for (int round = 0; round < 5; round++) {
            assertThat(cache.get("/0")).isNotNull();
            assertThat(cache.get("/7")).isNotNull();
            cache.put("/new" + round, file("/new" + round, 10)); // over: a sweep down to 7
        }
        assertThat(cache.get("/0")).isNotNull();
        assertThat(cache.get("/7")).isNotNull();
    }

    @Test
    void replacingAndRemovingKeepTheByteCount() {
        FileCache cache = new FileCache(8, 1 << 20);
        CachedFile old = file("/a", 10);
        CachedFile fresh = file("/a", 20);
        cache.put("/a", old);
        cache.put("/a", fresh);
        assertThat(cache.bytes()).isEqualTo(fresh.weight);
        cache.remove("/a", old); // a stale entry another loop already replaced: nothing happens
        assertThat(cache.get("/a")).isSameAs(fresh);
        assertThat(cache.bytes()).isEqualTo(fresh.weight);
        cache.remove("/a", fresh);
        assertThat(cache.size()).isZero();
        assertThat(cache.bytes()).isZero();
    }

    @Test
    void concurrentLoopsKeepItConsistent() throws InterruptedException {
        int keys = 200;
        FileCache cache = new FileCache(32, 1 << 20);
        List<CachedFile> files = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            files.add(file("/" + i, i));
        }
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int n = 0; n < 50_000; n++) {
                    int k = random.nextInt(keys);
                    CachedFile f = cache.get("/" + k);
                    if (f == null) {
                        cache.put("/" + k, files.get(k));
                    } else if (random.nextInt(8) == 0) {
                        cache.remove("/" + k, f);
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(cache.bytes()).isEqualTo(sumOfWeights(cache, keys));
        assertThat(cache.size()).isLessThanOrEqualTo(32 + threads.size());
    }

    private static long sumOfWeights(FileCache cache, int keys) {
        long sum = 0;
        for (int i = 0; i < keys; i++) {
            CachedFile f = cache.get("/" + i);
            sum += f == null ? 0 : f.weight;
        }
        return sum;
    }

    private static CachedFile file(String name, int size) {
        return new CachedFile(Path.of("/srv" + name), Path.of("/srv" + name).toFile(), attrs(size),
                "text/plain; charset=utf-8", new byte[size]);
    }

    private static FileStamp attrs(long size) {
        return new FileStamp(size, FileTime.fromMillis(1_700_000_000_000L), null, null, true, false);
    }
}
