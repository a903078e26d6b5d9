package dev.strait.proxy.fastcgi;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutorGroup;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the pool for a (event loop, endpoint). Pools outlive config reloads: a reload builds new
 * handlers, but the connections they use stay counted against the same budget, so a reload never
 * doubles the connections pinned in php-fpm. A proxy's pools go away with its event loop group.
 *
 * <p>The lookup reads concurrent maps only (no locks); a pool is made the first time its loop needs it.
 */
final class FastCgiPools {
    /** Per event loop group (one proxy), the budget per endpoint; each budget holds its loops' pools. */
    private static final ConcurrentHashMap<Object, ConcurrentHashMap<SocketAddress, FastCgiPool.Budget>> GROUPS =
            new ConcurrentHashMap<>();

    private FastCgiPools() {}

    static FastCgiPool pool(EventLoop loop, SocketAddress address, int maxConnections) {
        return pool(loop, address, maxConnections, false);
    }

    /** {@code refuseLocal}: a name may not lead to a local address (the upstream's refuseLocalAddresses). */
    static FastCgiPool pool(EventLoop loop, SocketAddress address, int maxConnections, boolean refuseLocal) {
        EventExecutorGroup group = loop.parent() != null ? loop.parent() : loop;
        ConcurrentHashMap<SocketAddress, FastCgiPool.Budget> budgets = GROUPS.get(group);
        if (budgets == null) {
            ConcurrentHashMap<SocketAddress, FastCgiPool.Budget> made = new ConcurrentHashMap<>();
            budgets = GROUPS.putIfAbsent(group, made);
            if (budgets == null) {
                budgets = made;
                group.terminationFuture().addListener(f -> GROUPS.remove(group));
            }
        }
        FastCgiPool.Budget budget = budgets.get(address);
        if (budget == null) {
            budget = budgets.computeIfAbsent(address, a -> new FastCgiPool.Budget(a, maxConnections));
        }
        budget.refuseLocal = refuseLocal;
        if (budget.max != maxConnections) {
            // A reload changed it: connections over a lower bound are closed as they are released, and
            // a higher bound lets waiting requests in.
            budget.max = maxConnections;
            budget.passOn();
        }
        FastCgiPool pool = budget.pools.get(loop);
        if (pool == null) {
            FastCgiPool.Budget b = budget;
            pool = budget.pools.computeIfAbsent(loop, l -> new FastCgiPool(l, b));
        }
        return pool;
    }

    /** Connections open (or opening) to {@code address}, over every proxy in this JVM. */
    static int openConnections(SocketAddress address) {
        int n = 0;
        for (ConcurrentHashMap<SocketAddress, FastCgiPool.Budget> budgets : GROUPS.values()) {
            FastCgiPool.Budget b = budgets.get(address);
            n += b == null ? 0 : b.used();
        }
        return n;
    }
}
