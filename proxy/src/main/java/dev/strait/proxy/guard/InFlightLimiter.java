package dev.strait.proxy.guard;

import dev.strait.model.IpBlock;
import dev.strait.model.Route;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A rule's {@code inFlightLimit}: how many of its requests each client has under way, shared by the event
 * loops. A client holds an entry only while it has a request in flight, so the map is as large as the
 * clients being served and needs no eviction. {@code compute} keeps the count and the entry's removal one
 * step per key (the map locks that bin alone, for a few instructions).
 */
final class InFlightLimiter {
    private final int limit;
    private final List<IpBlock> exempt;
    private final ConcurrentHashMap<InetAddress, Integer> inFlight = new ConcurrentHashMap<>();

    InFlightLimiter(Route.InFlightLimit l) {
        this.limit = l.requests();
        this.exempt = l.exempt();
    }

    /**
     * Takes a place for a request of {@code client}; false when it has {@code limit} under way already. A
     * client with no address (a Unix socket) and an exempt one are not counted: {@link #release} then must
     * not be called, which {@code null} from {@link #counted} says.
     */
    boolean acquire(InetAddress client) {
        boolean[] admitted = {false};
        inFlight.compute(client, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= limit) {
                return n;
            }
            admitted[0] = true;
            return now + 1;
        });
        return admitted[0];
    }

    /** Whether requests of {@code client} are counted at all. */
    boolean counted(InetAddress client) {
        return client != null && !IpBlock.anyContains(exempt, client);
    }

    void release(InetAddress client) {
        inFlight.computeIfPresent(client, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** Clients with requests under way (for tests). */
    int clients() {
        return inFlight.size();
    }
}
