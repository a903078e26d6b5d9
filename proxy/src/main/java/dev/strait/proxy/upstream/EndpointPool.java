package dev.strait.proxy.upstream;

import dev.strait.model.HostPort;
import dev.strait.proxy.tls.UpstreamTls;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import java.util.ArrayDeque;

/**
 * One endpoint as one event loop sees it: its idle keep-alive connections (most recently used first,
 * so the rest age out), how many requests it has in flight here (least-request reads it), and the
 * endpoint's shared health. Only its loop touches it: no locks. It outlives reloads as long as the
 * endpoint stays in its upstream; a removed endpoint's pool is retired (idle connections closed, busy
 * ones closed when their request ends).
 */
public final class EndpointPool {
    final LoopContext loop;
    final UpstreamShared upstream;
    final HostPort address;
    final EndpointHealth health;
    private final ArrayDeque<UpstreamConnection> idle = new ArrayDeque<>();
    /** Read (racily) by the metrics gauges; written only by the loop. */
    int open;
    int idleCount;
    /** Requests in flight through this loop. */
    int inflight;
    int weight = 1;
    /** Smooth weighted round-robin's running weight. */
    int currentWeight;
    /** Usable in the loop's current view (healthy, or the upstream is in panic). */
    boolean usable = true;
    private UpstreamSpec spec;
    private int index;
    int maxIdle;
    int maxRequests;
    long idleTimeoutNanos;
    private boolean retired;
    /**
     * This loop's share of the upstream's {@code maxConnections} (0: no cap). Like nginx's {@code max_conns}
     * without a shared zone, the cap is split between the loops, so no counter is shared between threads.
     */
    int maxConnections;
    /** Connections open or opening here, counted against {@link #maxConnections}. */
    int live;
    /** Requests waiting for a connection while the cap is reached, oldest first. */
    private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();

    /** Requests that may wait per loop and endpoint for a capped pool; more fail at once. */
    static final int MAX_WAITING = 1024;

    private record Waiter(UpstreamListener listener, long deadline) {}
    /** The h2c connection to this endpoint, for upstreams that speak h2c. */
    private H2Session h2;

    EndpointPool(LoopContext loop, UpstreamShared upstream, HostPort address) {
        this.loop = loop;
        this.upstream = upstream;
        this.address = address;
        this.health = upstream.health(address);
    }

    void configure(UpstreamSpec spec, int index) {
        boolean tlsChanged = this.spec != null && !UpstreamTls.same(this.spec.tls, spec.tls);
        this.spec = spec;
        this.index = index;
        this.weight = spec.weights[index];
        this.maxIdle = spec.config.pool().maxIdlePerLoop();
        this.maxRequests = spec.config.pool().maxRequestsPerConnection();
        this.idleTimeoutNanos = spec.poolIdleTimeoutNanos;
        int max = spec.config.maxConnections();
        int loops = Math.max(1, loop.context.loopCount());
        this.maxConnections = max <= 0 ? 0 : Math.max(1, (max + loops - 1) / loops);
        UpstreamConnection c;
        // Connections made with other TLS settings (trust, client certificate, name) must not serve on.
        while ((tlsChanged ? !idle.isEmpty() : idle.size() > maxIdle) && (c = idle.pollFirst()) != null) {
            idleCount--;
            c.idle = false;
            c.channel.close();
        }
    }

    public HostPort address() {
        return address;
    }

    public String upstreamName() {
        return upstream.name;
    }

    public EndpointHealth health() {
        return health;
    }

    /**
     * Gets a connection for {@code listener}: an idle pooled one at once (unless {@code fresh}), else a
     * new one when it has connected. Exactly one of {@code onConnected} and {@code onConnectFailed}
     * follows, possibly before this returns. A new connection gets the pool's connect timeout, or less
     * when {@code deadline} ({@code System.nanoTime()} based, 0 for none) comes sooner.
     */
    public void acquire(UpstreamListener listener, boolean fresh, long deadline) {
        inflight++;
        loop.upstreamInflight++;
        if (!fresh) {
            UpstreamConnection c;
            while ((c = idle.pollLast()) != null) {
                idleCount--;
                if (!c.channel.isActive()) {
                    continue;
                }
                if (!stillCurrent(c.channel)) {
                    // The endpoint's name moved: the next request goes where new connections go.
                    c.idle = false;
                    c.channel.close();
                    continue;
                }
                c.attach(listener);
                listener.onConnected(c, true);
                return;
            }
        }
        if (maxConnections > 0 && live >= maxConnections) {
            if (waiting.size() >= MAX_WAITING) {
                listener.onConnectFailed(new PoolFullException(this));
                return;
            }
            waiting.add(new Waiter(listener, deadline));
            return;
        }
        connect(listener, deadline);
    }

    /** A capped pool's queue is full: the request gets 503 rather than waiting without bound. */
    public static final class PoolFullException extends Exception {
        PoolFullException(EndpointPool p) {
            super(MAX_WAITING + " requests already wait for one of the " + p.maxConnections
                    + " connections this loop may open to " + p.address, null, false, false);
        }
    }

    /** The request {@code listener} stopped waiting (its try ended): it must not be handed a connection. */
    public void forget(UpstreamListener listener) {
        if (!waiting.isEmpty()) {
            waiting.removeIf(w -> w.listener == listener);
        }
    }

    /** A connection was freed or closed under the cap: the oldest waiter gets it, or a new one. */
    private void serveWaiting(UpstreamConnection freed) {
        Waiter w = waiting.poll();
        if (w == null) {
            return;
        }
        if (freed != null) {
            freed.attach(w.listener);
            w.listener.onConnected(freed, true);
        } else {
            connect(w.listener, w.deadline);
        }
    }

    private void connect(UpstreamListener listener, long deadline) {
        live++;
        ChannelFuture reg = loop.bootstrap(spec.unixSocket(index)).register();
        Channel ch = reg.channel();
        if (reg.isDone() && !reg.isSuccess()) {
            live--;
            listener.onConnectFailed(reg.cause());
            return;
        }
        UpstreamConnection c = new UpstreamConnection(this, ch);
        c.tls = spec.tls;
        if (spec.tls != null) {
            // Requests written before the handshake ends wait in the SslHandler.
            ch.pipeline().addLast("tls", spec.tls.newHandler(ch.alloc(), spec.endpoints[index].host(),
                    spec.endpoints[index].port()));
        }
        ch.pipeline().addLast("http1-decoder", c.decoder).addLast("upstream", c);
        long timeout = spec.connectTimeoutMillis;
        if (deadline != 0) {
            timeout = Math.max(1, Math.min(timeout, (deadline - System.nanoTime()) / 1_000_000));
        }
        ch.config().setOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout));
        c.attach(listener);
        spec.connect(ch, index, loop.context.names(), timeout).addListener(f -> {
            if (f.isSuccess()) {
                if (c.listenerIs(listener)) {
                    listener.onConnected(c, false);
                }
            } else {
                live--;
                ch.close();
                if (!waiting.isEmpty()) {
                    serveWaiting(null); // the next one tries for itself (and fails on its own if down)
                }
                if (c.listenerIs(listener)) {
                    c.close();
                    listener.onConnectFailed(f.cause());
                }
            }
        });
    }

    /**
     * A new connection that carries bytes as they are (TLS passthrough): not pooled, no HTTP codec, {@code relay}
     * its one handler. It connects within the pool's connect timeout, to where the endpoint's name leads now, and
     * counts as a request in flight here while it is open, so that least-request weighs it.
     */
    public ChannelFuture connectRaw(io.netty.channel.ChannelHandler relay) {
        ChannelFuture reg = loop.bootstrap(spec.unixSocket(index)).register();
        if (reg.isDone() && !reg.isSuccess()) {
            return reg;
        }
        Channel ch = reg.channel();
        inflight++; // not the loop's upstreamInflight: a quiet tunnel must not make the loop wait for batches
        ch.closeFuture().addListener(f -> inflight--);
        ch.pipeline().addLast("relay", relay);
        long timeout = spec.connectTimeoutMillis;
        ch.config().setOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout));
        return spec.connect(ch, index, loop.context.names(), timeout);
    }

    /**
     * Opens an HTTP/2 stream to this endpoint with {@code handler} in its pipeline, on this loop's h2c
     * connection (made when there is none, or the last one went away). Counts as in flight like
     * {@link #acquire}; call {@link #done()} once when the request is over.
     */
    public void openH2Stream(io.netty.channel.ChannelHandler handler, H2Session.Opener opener, long deadline) {
        inflight++;
        loop.upstreamInflight++;
        if (h2 != null && h2.usable() && !h2.stillCurrent()) {
            h2.leave(); // the endpoint's name moved: new streams go where a new connection goes
            h2 = null;
        }
        if (h2 == null || !h2.usable()) {
            h2 = H2Session.connect(this, deadline);
        }
        h2.open(handler, opener);
    }

    /** Whether {@code ch}, connected here, still goes where the endpoint leads (a name may have moved). */
    boolean stillCurrent(Channel ch) {
        return spec.stillCurrent(ch, index, loop.context.names());
    }

    /** Whether this endpoint is a unix socket. */
    boolean unixSocket() {
        return spec.unixSocket(index);
    }

    dev.strait.proxy.tls.UpstreamTls tls() {
        return spec.tls;
    }

    long connectTimeoutMillis() {
        return spec.connectTimeoutMillis;
    }

    /** Connects an HTTP/2 session's channel to this endpoint (see {@link UpstreamSpec#connect}). */
    io.netty.channel.ChannelFuture connect(Channel ch, long timeoutMillis) {
        return spec.connect(ch, index, loop.context.names(), timeoutMillis);
    }

    void h2ChannelClosed(H2Session s) {
        open--;
        h2Retired(s);
    }

    void h2Retired(H2Session s) {
        if (h2 == s) {
            h2 = null;
        }
    }

    /** The request no longer counts as in flight here (called once per acquire). */
    public void done() {
        inflight--;
        loop.upstreamInflight--;
    }

    void release(UpstreamConnection c, boolean reusable) {
        boolean sameTls = UpstreamTls.same(c.tls, spec.tls);
        if (reusable && !retired && sameTls && !waiting.isEmpty() && (maxRequests == 0 || c.requests < maxRequests)) {
            serveWaiting(c);
            return;
        }
        if (reusable && !retired && sameTls && idle.size() < maxIdle && (maxRequests == 0 || c.requests < maxRequests)) {
            c.idle = true;
            c.idleSince = System.nanoTime();
            idle.addLast(c);
            idleCount++;
            c.armTimer(c.idleSince + idleTimeoutNanos);
        } else {
            c.channel.close();
        }
    }

    void opened() {
        open++;
    }

    void closed(UpstreamConnection c) {
        open--;
        live--;
        if (!waiting.isEmpty() && !retired) {
            serveWaiting(null);
        }
        if (c.idle && idle.remove(c)) {
            idleCount--;
        }
        c.idle = false;
    }

    /** The endpoint left the config: close what is idle; busy connections close when their request ends. */
    void retire() {
        retired = true;
        Waiter w;
        while ((w = waiting.poll()) != null) {
            w.listener.onConnectFailed(new java.nio.channels.ClosedChannelException());
        }
        if (h2 != null) {
            h2.retireQuietly();
            h2 = null;
        }
        UpstreamConnection c;
        while ((c = idle.pollFirst()) != null) {
            idleCount--;
            c.idle = false;
            c.channel.close();
        }
        upstream.pools.remove(this);
    }

    @Override
    public String toString() {
        return upstream.name + " " + address;
    }
}
