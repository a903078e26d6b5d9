package dev.strait.proxy.upstream;

import dev.strait.proxy.bodyfiles.BodyFiles;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.resolve.NameResolution;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The proxy's upstream side for one server: a {@link LoopContext} on each event loop (pools live
 * there, per loop and endpoint), the state all loops share per upstream (health, meters), and the
 * active health checkers. {@link #activate} follows a newly serving config: each loop retires on its
 * own thread what the config dropped, and keeps the pools of what stayed.
 */
public final class UpstreamContext implements AutoCloseable {
    private final EventLoopGroup loops;
    private final Class<? extends SocketChannel> channelClass;
    /** Whether the loops have io_uring's read ring for connections to use (ADR 0109). */
    private final boolean readRing;
    private final ProxyMetrics metrics;
    private final NameResolution names;
    private final BodyFiles bodyFiles;
    private final ConcurrentHashMap<String, UpstreamShared> shared = new ConcurrentHashMap<>();
    private final List<LoopContext> contexts = new ArrayList<>();
    private boolean closed;

    /** How many event loops share the upstreams (per-loop shares of a cap are cut by this). */
    int loopCount() {
        return contexts.size();
    }

    public UpstreamContext(EventLoopGroup loops, Class<? extends SocketChannel> channelClass, boolean readRing,
                           ProxyMetrics metrics, NameResolution names, BodyFiles bodyFiles) {
        this.loops = loops;
        this.channelClass = channelClass;
        this.readRing = readRing;
        this.metrics = metrics;
        this.names = names;
        this.bodyFiles = bodyFiles;
    }

    /** Where request bodies read before their upstream is asked go past memory (one budget for all loops). */
    public BodyFiles bodyFiles() {
        return bodyFiles;
    }

    /** Endpoint names are looked up here (never on the JDK's blocking resolver). */
    NameResolution names() {
        return names;
    }

    ProxyMetrics metrics() {
        return metrics;
    }

    /** Puts a context on every loop; returns when all are in place. */
    public void install() throws InterruptedException {
        List<Future<?>> done = new ArrayList<>();
        for (EventExecutor e : loops) {
            LoopContext lc = new LoopContext(this, (EventLoop) e, channelClass, readRing);
            contexts.add(lc);
            done.add(e.submit(lc::install));
        }
        for (Future<?> f : done) {
            f.sync();
        }
    }

    UpstreamShared shared(String name) {
        return shared.computeIfAbsent(name, n -> new UpstreamShared(this, n));
    }

    /** The serving config's upstreams changed (or are first set): health checkers and pools follow. */
    public synchronized void activate(Map<String, UpstreamSpec> specs) {
        if (closed) {
            return;
        }
        for (UpstreamSpec spec : specs.values()) {
            UpstreamShared s = shared(spec.name);
            s.spec = spec;
            s.meters.present(true);
            s.retain(new java.util.HashSet<>(java.util.Arrays.asList(spec.endpoints)));
            if (spec.config.healthCheck() != null) {
                if (s.checker == null) {
                    s.checker = new HealthChecker(s, loops.next(), channelClass);
                    s.checker.start();
                }
            } else if (s.checker != null) {
                s.checker.stop();
                s.checker = null;
            }
        }
        for (UpstreamShared s : shared.values()) {
            if (!specs.containsKey(s.name) && s.spec != null) {
                s.spec = null;
                s.meters.present(false);
                if (s.checker != null) {
                    s.checker.stop();
                    s.checker = null;
                }
                s.retain(java.util.Set.of());
            }
        }
        for (LoopContext lc : contexts) {
            lc.loop.execute(() -> lc.apply(specs));
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (UpstreamShared s : shared.values()) {
            if (s.checker != null) {
                s.checker.stop();
                s.checker = null;
            }
        }
        List<Future<?>> done = new ArrayList<>();
        for (LoopContext lc : contexts) {
            if (!lc.loop.isShuttingDown()) {
                done.add(lc.loop.submit(lc::closeAll));
            }
        }
        for (Future<?> f : done) {
            f.awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
    }
}
