package dev.strait.proxy.guard;

import dev.strait.model.IpBlock;
import dev.strait.model.Route;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A rule's {@code rateLimit} (ADR 0064): per client address, the generic cell rate algorithm (a token bucket
 * kept as one number): each client has a theoretical arrival time, which every admitted request moves on by
 * one interval ({@code per / requests}); a request is admitted while that time is at most {@code burst}
 * intervals ahead of now. One {@link AtomicLong} per client, moved by CAS, shared by the event loops: no lock.
 *
 * <p>At most {@link #DEFAULT_CLIENTS} clients are tracked per rule; a full table first drops the clients
 * whose buckets are full again (their time is past), and if every one is still active a new client is
 * refused, as nginx's {@code limit_req} does when its zone is full.
 */
final class RateLimiter {
    static final int DEFAULT_CLIENTS = 100_000;

    private final long interval;
    private final long tolerance;
    private final java.util.List<IpBlock> exempt;
    private final int maxClients;
    private final Map<InetAddress, AtomicLong> clients = new ConcurrentHashMap<>();

    RateLimiter(Route.RateLimit config) {
        this(config, DEFAULT_CLIENTS);
    }

    RateLimiter(Route.RateLimit config, int maxClients) {
        this.interval = Math.max(1, config.per().toNanos() / config.requests());
        this.tolerance = interval * config.burst();
        this.exempt = config.exempt();
        this.maxClients = maxClients;
    }

    /** 0 when a request from {@code client} at {@code now} (nanos) is admitted, else the nanos until one would be. */
    long check(InetAddress client, long now) {
        if (client == null || IpBlock.anyContains(exempt, client)) {
            return 0;
        }
        AtomicLong at = clients.get(client);
        if (at == null) {
            if (clients.size() >= maxClients) {
                clients.values().removeIf(t -> t.get() - now <= 0);
                if (clients.size() >= maxClients) {
                    return interval;
                }
            }
            at = clients.computeIfAbsent(client, c -> new AtomicLong(now));
        }
        while (true) {
            long tat = at.get();
            long from = tat - now > 0 ? tat : now;
            if (from - now > tolerance) {
                return from - now - tolerance;
            }
            if (at.compareAndSet(tat, from + interval)) {
                return 0;
            }
        }
    }

    int tracked() {
        return clients.size();
    }
}
