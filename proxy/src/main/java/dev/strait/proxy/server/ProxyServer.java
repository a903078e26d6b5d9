package dev.strait.proxy.server;

import dev.strait.model.Config;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.cache.ResponseCache;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.http1.Http1RequestDecoder;
import dev.strait.proxy.http1.Http1ServerHandler;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.upstream.UpstreamContext;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data plane's sockets and event loops, and the only place that builds a connection's pipeline:
 *
 * <pre>
 *   accept (one listening socket per loop with SO_REUSEPORT)
 *     -> Http1RequestDecoder   bytes to request heads and body parts, with our limits
 *     -> Http1ServerHandler    checks, route lookup, framing, ordering, keep-alive
 *     -> the rule's Handler    respond / files / backends (proxy: upstream connections on the same loop)
 * </pre>
 */
public final class ProxyServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ProxyServer.class);

    private final Config config;
    private final Serving serving;
    private final ProxyMetrics metrics;
    private final AccessLog accessLog;
    private final Transport transport;
    private final EventLoopGroup loops;
    private final UpstreamContext upstreams;
    private final ResponseCache cache;
    private final ChannelGroup listeners = new DefaultChannelGroup("listeners", GlobalEventExecutor.INSTANCE);
    private final ChannelGroup connections = new DefaultChannelGroup("connections", GlobalEventExecutor.INSTANCE);
    private final Map<String, InetSocketAddress> bound = new LinkedHashMap<>();
    private volatile boolean started;

    public ProxyServer(Config config, Serving serving, ProxyMetrics metrics, AccessLog accessLog) {
        this.config = config;
        this.serving = serving;
        this.metrics = metrics;
        this.accessLog = accessLog;
        this.transport = Transport.choose(config.transport());
        int workers = config.workers() > 0 ? config.workers() : Runtime.getRuntime().availableProcessors();
        this.loops = new MultiThreadIoEventLoopGroup(workers, new DefaultThreadFactory("strait-loop", true),
                transport.ioHandlerFactory());
        this.upstreams = new UpstreamContext(loops, transport.socketChannel(), metrics);
        this.cache = new ResponseCache(serving.snapshot().config().cache().maxBytes(),
                metrics == null ? null : metrics.registry());
    }

    /** The response cache all rules with {@code cache} share (purged through the admin server). */
    public ResponseCache cache() {
        return cache;
    }

    public Transport transport() {
        return transport;
    }

    public int workers() {
        return ((MultiThreadIoEventLoopGroup) loops).executorCount();
    }

    /** Binds every listener; throws when an address cannot be bound. */
    public ProxyServer start() throws InterruptedException {
        // Upstream pools live on the loops: set them up before the first connection can arrive.
        upstreams.install();
        upstreams.activate(serving.snapshot().upstreams());
        serving.onSwap(s -> upstreams.activate(s.upstreams()));
        cache.install(loops);
        serving.onSwap(s -> cache.resize(s.config().cache().maxBytes()));
        for (Config.Listener l : config.listeners()) {
            if (l.tls() != null) {
                throw new IllegalStateException("listeners." + l.name() + ".tls: TLS listeners are not available in"
                        + " this version yet");
            }
            InetSocketAddress want = new InetSocketAddress(l.address().host(), l.address().port());
            InetSocketAddress actual;
            if (transport.reusePort() && want.getPort() != 0) {
                // SO_REUSEPORT would let us share a port another Strait already serves: a plain bind
                // first fails when anything listens there.
                try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
                    probe.setReuseAddress(true);
                    probe.bind(want);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException("listener " + l.name() + ": cannot bind " + l.address()
                            + ": " + e.getMessage(), e);
                }
            }
            if (transport.reusePort()) {
                // One socket per loop; with port 0 the first bind picks the port and the rest share it.
                actual = null;
                for (EventExecutor e : loops) {
                    Channel ch = bind(bootstrap((EventLoop) e), actual == null ? want : actual, l);
                    listeners.add(ch);
                    actual = actual == null ? (InetSocketAddress) ch.localAddress() : actual;
                }
            } else {
                Channel ch = bind(bootstrap(loops), want, l);
                listeners.add(ch);
                actual = (InetSocketAddress) ch.localAddress();
            }
            bound.put(l.name(), actual);
            log.info("listener {} on {} ({} {})", l.name(), actual, transport.name().toLowerCase(),
                    transport.reusePort() ? "x" + workers() + " sockets" : "one socket");
        }
        started = true;
        return this;
    }

    private static Channel bind(ServerBootstrap b, InetSocketAddress address, Config.Listener l)
            throws InterruptedException {
        var f = b.bind(address).await();
        if (!f.isSuccess()) {
            throw new IllegalStateException("listener " + l.name() + ": cannot bind " + l.address() + ": "
                    + f.cause().getMessage(), f.cause());
        }
        return f.channel();
    }

    private ServerBootstrap bootstrap(EventLoopGroup group) {
        ServerBootstrap b = new ServerBootstrap()
                .group(group, group)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 4096)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        var limits = serving.snapshot().limits();
                        if (limits.maxConnections() > 0 && connections.size() >= limits.maxConnections()) {
                            // Over the cap: close before any buffer or handler is spent on it.
                            metrics.connectionRefused();
                            ch.close();
                            return;
                        }
                        connections.add(ch);
                        Http1RequestDecoder decoder = new Http1RequestDecoder(limits);
                        ch.pipeline()
                                .addLast("http1-decoder", decoder)
                                .addLast("http1", new Http1ServerHandler(serving, metrics, accessLog, decoder, true));
                    }
                });
        if (transport.reusePort()) {
            transport.setReusePort(b);
        }
        return b;
    }

    /** The address a listener is bound to (the real port when configured with port 0). */
    public InetSocketAddress address(String listener) {
        return bound.get(listener);
    }

    /** How many listening sockets are open (one per loop and listener with SO_REUSEPORT). */
    public int listenerSockets() {
        return listeners.size();
    }

    public boolean ready() {
        return started && !serving.draining();
    }

    public int openConnections() {
        return connections.size();
    }

    /**
     * Graceful stop: no new connections, idle keep-alive connections closed, busy ones closed after
     * their current response; returns when all are gone or the timeout passed.
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        serving.startDraining();
        listeners.close().await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        List<Channel> open = new ArrayList<>(connections);
        for (Channel ch : open) {
            ch.pipeline().fireUserEventTriggered(Http1ServerHandler.DrainEvent.INSTANCE);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!connections.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        boolean clean = connections.isEmpty();
        if (!clean) {
            log.warn("drain timeout {}: closing {} connection(s) with requests in flight", timeout, connections.size());
        }
        return clean;
    }

    @Override
    public void close() {
        listeners.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        upstreams.close();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        cache.close(); // after the loops: no answer is being set up from an entry any more
    }
}
