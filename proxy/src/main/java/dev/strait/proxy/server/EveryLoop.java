package dev.strait.proxy.server;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a task on each event loop of a group and waits for all: how a server's per-loop state (its access log, cache,
 * span exporter) is made known to every loop before the first connection arrives, with no lock on the hot path.
 */
public final class EveryLoop {
    private EveryLoop() {}

    /** Runs {@code task} once on each loop of {@code loops}; returns when every loop has run it. */
    public static void run(EventLoopGroup loops, Runnable task) throws InterruptedException {
        List<Future<?>> done = new ArrayList<>();
        for (EventExecutor e : loops) {
            done.add(e.submit(task));
        }
        for (Future<?> f : done) {
            f.sync();
        }
    }
}
