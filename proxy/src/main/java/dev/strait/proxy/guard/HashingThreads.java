package dev.strait.proxy.guard;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that work out slow password hashes (bcrypt, SHA-crypt) for every rule, so that an event loop
 * never stops for one: a bcrypt cost 10 check takes ~90 ms, cost 12 ~370 ms, which on the loop would hold
 * up every connection it serves. Half the cores (at least one), so proxying keeps the rest; a bounded
 * queue, so a flood of guesses is refused (429) instead of queued without end. Idle threads end after a
 * minute: a proxy without such logins keeps none.
 */
final class HashingThreads {
    /** Checks waiting for a thread, over all rules, beyond which a new one is refused. */
    static final int QUEUE = 256;

    private static final ThreadPoolExecutor POOL = pool();

    private HashingThreads() {}

    private static ThreadPoolExecutor pool() {
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUE), r -> {
                    Thread t = new Thread(r, "strait-hashing-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Runs {@code task} on a hashing thread; false when the queue is full. */
    static boolean submit(Runnable task) {
        try {
            POOL.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }
}
