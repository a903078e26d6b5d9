package dev.strait.proxy.fastcgi;

import dev.strait.model.HostPort;
import dev.strait.proxy.server.Transport;
import dev.strait.proxy.upstream.LoopContext;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.unix.DomainSocketAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The kept FastCGI connections to one endpoint on one event loop, and the requests waiting for one.
 * Everything here runs on that loop: no locks. See docs/adr/0006-fastcgi-pools.md.
 *
 * <p>Each kept connection pins one php-fpm child for as long as it is open, so the number of open
 * connections to an endpoint is bounded by the upstream's {@code maxConnections} for the whole proxy,
 * counted in a {@link Budget} the loops of one proxy share (one atomic counter, touched only when a
 * connection opens or closes). A request that finds no idle connection and no room for a new one waits
 * in a FIFO queue until a connection is released, instead of opening more connections than the
 * application can serve (which would leave them stuck in its accept queue until a child frees up).
 *
 * <p>The budget follows the load: a loop whose requests wait and that cannot open a connection
 * registers as <em>hungry</em>; other loops then close idle connections, and close a released one
 * instead of keeping it when they have more than the hungry loop, so that the connections end up
 * where the requests are, and every loop with waiting requests gets at least one.
 */
final class FastCgiPool {
    /** Requests that may wait per loop and endpoint; more get 503. */
    static final int MAX_WAITING = 1024;
    static final long DEFAULT_IDLE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** A request that wants a connection. Called on the pool's loop. */
    interface Waiter {
        /** A connection for this request: new ({@code reused} false) or kept from an earlier request. */
        void onConnection(FastCgiConnection connection, boolean reused);

        void onConnectFailure(Throwable cause);

        /** Too many requests wait already. */
        void onQueueFull();

        int connectTimeoutMillis();
    }

    final EventLoop loop;
    final Budget budget;
    private final Transport transport;
    private final Class<? extends Channel> channelType;
    private final ArrayDeque<FastCgiConnection> idle = new ArrayDeque<>();
    private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
    /** Connections this loop has open or opening; written on the loop only, read by other loops as a hint. */
    private volatile int open;
    private boolean hungry;
    private boolean sweepScheduled;
    long idleTimeoutNanos = DEFAULT_IDLE_TIMEOUT_NANOS;

    FastCgiPool(EventLoop loop, Budget budget) {
        this.loop = loop;
        this.budget = budget;
        this.transport = Transport.of(loop);
        this.channelType = budget.address instanceof DomainSocketAddress ? transport.domainSocketChannel()
                : transport.socketChannel();
    }

    String label() {
        return budget.address.toString();
    }

    /** Gives {@code w} a connection now, or queues it. */
    void acquire(Waiter w) {
        if (waiting.isEmpty()) {
            FastCgiConnection c = idle.pollLast(); // the most recently used: warm, and the old ones can time out
            if (c != null) {
                w.onConnection(c, true);
                return;
            }
            if (budget.tryAcquire()) {
                connect(w);
                return;
            }
        }
        if (waiting.size() >= MAX_WAITING) {
            w.onQueueFull();
            return;
        }
        waiting.addLast(w);
        wantMore();
    }

    /** A waiting request gave up (timeout, client gone). */
    void cancel(Waiter w) {
        waiting.remove(w);
        satisfied();
    }

    /** The request on {@code c} ended cleanly: the connection serves the next one, waits idle, or goes. */
    void release(FastCgiConnection c) {
        c.listener = null;
        if (!c.channel.isActive()) {
            return; // closed() accounts for it
        }
        c.channel.config().setAutoRead(true);
        if (budget.overLimit()) {
            c.channel.close(); // maxConnections was lowered by a reload
            return;
        }
        FastCgiPool other = budget.hungryOtherThan(this);
        if (other != null && (waiting.isEmpty() || other.open == 0 || other.open + 1 < open)) {
            // Another loop's requests wait and it has none, or fewer than this loop: give it this
            // connection's place (with a bound below the number of loops they take turns).
            c.channel.close();
            return;
        }
        Waiter w = waiting.pollFirst();
        if (w != null) {
            satisfied();
            w.onConnection(c, true);
            return;
        }
        c.idleSince = System.nanoTime();
        idle.addLast(c);
        scheduleSweep();
    }

    /** Another loop is hungry: close an idle connection unless requests wait here. */
    private void shed() {
        if (waiting.isEmpty()) {
            FastCgiConnection c = idle.pollFirst();
            if (c != null) {
                c.channel.close();
            }
        }
    }

    private void connect(Waiter w) {
        open++;
        FastCgiConnection conn = new FastCgiConnection(this);
        Bootstrap b = new Bootstrap()
                .group(loop)
                .channel(channelType)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, w.connectTimeoutMillis())
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("fastcgi-decoder", new FastCgiRecordDecoder()).addLast("fastcgi", conn);
                    }
                });
        SocketAddress to = budget.address;
        if (to instanceof DomainSocketAddress unix) {
            to = transport.domainSocketAddress(unix);
        } else {
            b.option(ChannelOption.TCP_NODELAY, true);
        }
        ChannelFuture f = to instanceof InetSocketAddress isa && isa.isUnresolved()
                ? connectByName(b, isa, w.connectTimeoutMillis()) : b.connect(to);
        conn.channel = f.channel();
        // Bootstrap closes the channel when the connect fails, so this accounts for every connection once.
        f.channel().closeFuture().addListener(x -> closed(conn));
        f.addListener(x -> {
            if (x.isSuccess()) {
                w.onConnection(conn, false);
            } else {
                w.onConnectFailure(x.cause());
            }
        });
    }

    /**
     * A name is looked up first, on this loop and without blocking it (the bootstrap's own resolver would
     * ask the JDK's, which blocks); failing that, the registered channel is closed as a failed connect's is.
     */
    private ChannelFuture connectByName(Bootstrap b, InetSocketAddress name, int timeoutMillis) {
        ChannelFuture reg = b.register();
        Channel ch = reg.channel();
        LoopContext here = LoopContext.current();
        if (here == null) {
            ch.close();
            return ch.newFailedFuture(new IllegalStateException("no resolver on this loop for " + name.getHostString()));
        }
        ChannelFuture f = here.names().connect(ch, new HostPort(name.getHostString(), name.getPort()), null,
                budget.refuseLocal, timeoutMillis);
        f.addListener(x -> {
            if (!x.isSuccess()) {
                ch.close();
            }
        });
        return f;
    }

    private void closed(FastCgiConnection c) {
        open--;
        idle.remove(c);
        budget.release();
    }

    /** Requests wait here: ask for a connection's place from the budget and from the other loops. */
    private void wantMore() {
        if (hungry || waiting.isEmpty()) {
            return;
        }
        hungry = true;
        budget.hungry.add(this);
        budget.askOthersToShed(this);
        if (budget.hasFree()) {
            loop.execute(this::onPermitFreed); // freed before we registered: nobody would wake us
        }
    }

    /** Nothing waits here any more: other loops need not give up connections for this one. */
    private void satisfied() {
        if (hungry && waiting.isEmpty()) {
            hungry = false;
            budget.hungry.remove(this);
        }
    }

    /** A place in the budget may be free: open connections for waiting requests. */
    void onPermitFreed() {
        if (hungry) {
            hungry = false;
            budget.hungry.remove(this);
        }
        while (!waiting.isEmpty()) {
            FastCgiConnection c = idle.pollLast();
            if (c != null) {
                waiting.pollFirst().onConnection(c, true);
            } else if (budget.tryAcquire()) {
                connect(waiting.pollFirst());
            } else {
                break;
            }
        }
        wantMore();
        budget.passOn(); // a place this loop did not need goes to the next hungry one
    }

    private void scheduleSweep() {
        if (!sweepScheduled) {
            sweepScheduled = true;
            loop.schedule(this::sweep, idleTimeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Closes connections idle for the idle timeout; the oldest are at the head of the idle deque. */
    private void sweep() {
        sweepScheduled = false;
        long now = System.nanoTime();
        FastCgiConnection c;
        while ((c = idle.peekFirst()) != null && now - c.idleSince >= idleTimeoutNanos) {
            idle.pollFirst();
            c.channel.close();
        }
        if (c != null) {
            sweepScheduled = true;
            loop.schedule(this::sweep, c.idleSince + idleTimeoutNanos - now, TimeUnit.NANOSECONDS);
        }
    }

    // ---- for tests and metrics: read on the loop ----

    int openConnections() {
        return open;
    }

    int idleConnections() {
        return idle.size();
    }

    int waitingRequests() {
        return waiting.size();
    }

    /**
     * The connections one proxy (one event loop group) may open to one endpoint, shared by its loops'
     * pools. Touched when a connection opens or closes and when a loop's requests must wait, never
     * per request otherwise.
     */
    static final class Budget {
        final SocketAddress address;
        volatile int max;
        /** The last config's refuseLocalAddresses for this endpoint (checked when a name is looked up). */
        volatile boolean refuseLocal;
        private final AtomicInteger used = new AtomicInteger();
        /** Loops with waiting requests that could not open a connection, in the order they asked. */
        final ConcurrentLinkedQueue<FastCgiPool> hungry = new ConcurrentLinkedQueue<>();
        final ConcurrentHashMap<EventLoop, FastCgiPool> pools = new ConcurrentHashMap<>();

        Budget(SocketAddress address, int max) {
            this.address = address;
            this.max = max;
        }

        boolean tryAcquire() {
            while (true) {
                int u = used.get();
                if (u >= max) {
                    return false;
                }
                if (used.compareAndSet(u, u + 1)) {
                    return true;
                }
            }
        }

        boolean hasFree() {
            return used.get() < max;
        }

        boolean overLimit() {
            return used.get() > max;
        }

        int used() {
            return used.get();
        }

        void release() {
            used.decrementAndGet();
            passOn();
        }

        /** Wakes the longest-waiting hungry loop when a place is free. */
        void passOn() {
            if (hasFree()) {
                FastCgiPool p = hungry.poll();
                if (p != null) {
                    p.loop.execute(p::onPermitFreed);
                }
            }
        }

        FastCgiPool hungryOtherThan(FastCgiPool self) {
            if (hungry.isEmpty()) {
                return null;
            }
            for (FastCgiPool p : hungry) {
                if (p != self) {
                    return p;
                }
            }
            return null;
        }

        void askOthersToShed(FastCgiPool self) {
            for (FastCgiPool p : pools.values()) {
                if (p != self) {
                    p.loop.execute(p::shed);
                }
            }
        }
    }
}
