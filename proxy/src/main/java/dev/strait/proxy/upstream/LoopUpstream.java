package dev.strait.proxy.upstream;

import dev.strait.model.HostPort;
import dev.strait.model.Upstream;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One upstream as one event loop sees it: its endpoints' pools, which of them are usable now, the
 * balancer's state and the retry budget. Only the loop touches it, so choosing an endpoint takes no
 * lock; the shared health is read through two volatile fields per endpoint, and only when it changed.
 */
public final class LoopUpstream {
    private static final EndpointPool[] NONE = new EndpointPool[0];

    final LoopContext loop;
    final UpstreamShared shared;
    UpstreamSpec spec;
    private HashMap<HostPort, EndpointPool> pools = new HashMap<>();
    private EndpointPool[] all = NONE;
    private EndpointPool[] available = NONE;
    private int cachedEpoch;
    private boolean stale = true;
    /** The earliest end of an ejection among the endpoints, when the view must be rebuilt; 0: none. */
    private long nextExpiry;
    private boolean panic;
    private int rr;
    final RetryBudget budget = new RetryBudget();

    LoopUpstream(LoopContext loop, UpstreamShared shared, UpstreamSpec spec) {
        this.loop = loop;
        this.shared = shared;
        update(spec);
    }

    public UpstreamSpec spec() {
        return spec;
    }

    public String name() {
        return shared.name;
    }

    public UpstreamMeters meters() {
        return shared.meters;
    }

    /** Follows a newer config: pools of endpoints that stay are kept (warm connections survive a reload). */
    void update(UpstreamSpec next) {
        this.spec = next;
        HashMap<HostPort, EndpointPool> keep = new HashMap<>();
        EndpointPool[] slots = new EndpointPool[next.endpoints.length];
        for (int i = 0; i < slots.length; i++) {
            HostPort hp = next.endpoints[i];
            EndpointPool p = pools.remove(hp);
            if (p == null) {
                p = new EndpointPool(loop, shared, hp);
                shared.pools.add(p);
            }
            p.configure(next, i);
            slots[i] = p;
            keep.put(hp, p);
        }
        for (EndpointPool gone : pools.values()) {
            gone.retire();
        }
        pools = keep;
        all = slots;
        stale = true;
    }

    /** The upstream left the config. */
    void retire() {
        for (EndpointPool p : pools.values()) {
            p.retire();
        }
        pools = new HashMap<>();
        all = NONE;
        available = NONE;
    }

    public boolean inPanic() {
        return panic;
    }

    /** The endpoints to choose from now: the usable ones, or all when too few are (panic). */
    EndpointPool[] available(long now) {
        int epoch = shared.epoch();
        if (stale || epoch != cachedEpoch || nextExpiry != 0 && now - nextExpiry >= 0) {
            rebuild(now, epoch);
        }
        return available;
    }

    private void rebuild(long now, int epoch) {
        stale = false;
        cachedEpoch = epoch;
        int total = 0;
        int healthy = 0;
        long expiry = 0;
        for (EndpointPool p : all) {
            if (p.weight == 0) {
                p.usable = false;
                continue;
            }
            total++;
            EndpointHealth h = p.health;
            boolean ok = h.activeHealthy;
            long until = h.ejectedUntil;
            if (until != 0 && now - until < 0) {
                ok = false;
                expiry = expiry == 0 || until - expiry < 0 ? until : expiry;
            }
            p.usable = ok;
            if (ok) {
                healthy++;
            }
        }
        nextExpiry = expiry;
        int threshold = spec.config.panicThreshold();
        panic = total > 0 && threshold > 0 && healthy * 100 < threshold * total;
        EndpointPool[] av = new EndpointPool[panic ? total : healthy];
        int k = 0;
        for (EndpointPool p : all) {
            if (p.weight == 0) {
                continue;
            }
            if (panic) {
                p.usable = true;
            }
            if (p.usable) {
                av[k++] = p;
            }
        }
        available = av;
    }

    /**
     * Chooses an endpoint, avoiding {@code exclude} (the one a retry failed on) when another is usable;
     * {@code null} when none is. {@code hash} is only used by consistent hashing (see {@link #hash}).
     */
    public EndpointPool pick(long hash, EndpointPool exclude) {
        return pick(hash, exclude, System.nanoTime());
    }

    /** As {@link #pick(long, EndpointPool)}, with the caller's {@code System.nanoTime()} reading. */
    public EndpointPool pick(long hash, EndpointPool exclude, long now) {
        EndpointPool[] av = available(now);
        int n = av.length;
        if (n <= 1) {
            return n == 0 ? null : av[0];
        }
        switch (spec.config.loadBalancer()) {
            case LEAST_REQUEST -> {
                // Power of two choices: two at random, the one with fewer requests in flight (per weight) wins.
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                int i = rnd.nextInt(n);
                int j = rnd.nextInt(n - 1);
                if (j >= i) {
                    j++;
                }
                EndpointPool a = av[i];
                EndpointPool b = av[j];
                if (a == exclude) {
                    return b;
                }
                if (b == exclude) {
                    return a;
                }
                long la = (long) a.inflight * b.weight;
                long lb = (long) b.inflight * a.weight;
                return la < lb || la == lb && rnd.nextBoolean() ? a : b;
            }
            case CONSISTENT_HASH -> {
                HashRing ring = spec.ring;
                int size = ring.size();
                int pos = ring.position(hash);
                for (int k = 0; k < size; k++) {
                    EndpointPool p = all[ring.owner(pos + k)];
                    if (p.usable && p != exclude) {
                        return p;
                    }
                }
                return av[0];
            }
            default -> {
                if (!spec.weighted) {
                    // A retry looks at the next turn without taking it, so the failed endpoint's share stays even.
                    int i = (exclude == null ? rr++ : rr) & Integer.MAX_VALUE;
                    EndpointPool p = av[i % n];
                    return p != exclude ? p : av[(i + 1) % n];
                }
                // Smooth weighted round-robin (nginx): spreads a weight-5 endpoint's turns among the others.
                EndpointPool best = null;
                int total = 0;
                for (EndpointPool p : av) {
                    if (p == exclude) {
                        continue;
                    }
                    p.currentWeight += p.weight;
                    total += p.weight;
                    if (best == null || p.currentWeight > best.currentWeight) {
                        best = p;
                    }
                }
                best.currentWeight -= total;
                return best;
            }
        }
    }

    /**
     * The consistent-hash key of a request; 0 when the upstream does not hash.
     *
     * @param path  the request's normalised path, without query
     * @param query its raw query string without '?', or null
     */
    public long hash(HttpRequest request, String path, String query, SocketAddress remote) {
        Upstream.HashOn on = spec.config.hashOn();
        if (on == null) {
            return 0;
        }
        long h = partHash(on.source(), on.name(), request, path, query, remote);
        if (!on.also().isEmpty()) {
            // Several parts (ingress-nginx's "$host$request_uri"): each part's hash folded in order, a missing one as 0.
            boolean any = h != 0;
            for (Upstream.HashPart part : on.also()) {
                long p = partHash(part.source(), part.name(), request, path, query, remote);
                any |= p != 0;
                h = Hashing.mix(h * 0x9E3779B97F4A7C15L + p);
            }
            return any ? h : addressHash(remote);
        }
        if (h != 0 && on.source() == Upstream.HashSource.COOKIE && spec.endpointKeys != null) {
            return spec.endpointKeys.point(h, h); // a persistent cookie names its endpoint: that endpoint's own point
        }
        // No header, cookie or parameter to hash: the client's address keeps a client on one endpoint all the same.
        return h != 0 ? h : addressHash(remote);
    }

    /** One part's hash; 0 when the request has no such header, cookie or parameter. */
    private static long partHash(Upstream.HashSource source, String name, HttpRequest request, String path, String query,
                                 SocketAddress remote) {
        switch (source) {
            case HEADER -> {
                String v = request.headers().get(name);
                return v == null ? 0 : nonZero(Hashing.hash(v));
            }
            case COOKIE -> {
                for (Iterator<String> it = request.headers().valueStringIterator(HttpHeaderNames.COOKIE); it.hasNext(); ) {
                    long h = cookieHash(it.next(), name);
                    if (h != 0) {
                        return h;
                    }
                }
                return 0;
            }
            case QUERY -> {
                return queryHash(query, name);
            }
            case URI -> {
                return nonZero(Hashing.hash(request.uri(), originFormStart(request.uri()), request.uri().length()));
            }
            case PATH -> {
                return nonZero(Hashing.hash(path));
            }
            default -> {
                return addressHash(remote);
            }
        }
    }

    private static long nonZero(long h) {
        return h == 0 ? 1 : h;
    }

    /** The consistent-hash key of a client's address (what a connection without requests can be hashed on). */
    public static long addressHash(SocketAddress remote) {
        if (remote instanceof InetSocketAddress isa && isa.getAddress() != null) {
            return Hashing.mix(isa.getAddress().hashCode() * 0x9E3779B97F4A7C15L);
        }
        return 0;
    }

    /**
     * A new affinity key when the upstream sets its hash cookie ({@code hashOn.setCookie}) and the request brings
     * none; else null. Hashed with {@link #keyHash}, it sends this request where the requests that bring the
     * cookie back will go, as long as the endpoints stay the same (ingress-nginx's "balanced" affinity). With
     * persistent affinity the key only spreads new browsers over the ring (the cookie will name the endpoint that
     * served, {@link #affinityCookie}), and a cookie naming an endpoint no longer in the upstream counts as none.
     */
    public String newAffinityKey(HttpHeaders headers) {
        Upstream.HashOn on = spec.config.hashOn();
        if (on == null || on.setCookie() == null) {
            return null;
        }
        EndpointKeys keys = spec.endpointKeys;
        for (Iterator<String> it = headers.valueStringIterator(HttpHeaderNames.COOKIE); it.hasNext(); ) {
            long h = cookieHash(it.next(), on.name());
            if (h != 0 && (keys == null || keys.names(h))) {
                return null;
            }
        }
        // 64 random bits as 16 hex digits: not guessable, so one client cannot pick another's endpoint set.
        long r = ThreadLocalRandom.current().nextLong();
        return String.format("%016x", r);
    }

    /**
     * With {@code changeOnFailure}: a new key for a browser whose request {@code served} answered although its
     * key's own endpoint is another (failed, ejected or excluded by a retry), so that it stays where it is now
     * served; else null. A random key lands on a given endpoint about once in as many tries as there are
     * endpoints; after 256 misses the browser keeps its key.
     */
    public String reissuedKey(long hash, EndpointPool served) {
        Upstream.HashOn on = spec.config.hashOn();
        if (on == null || on.setCookie() == null || !on.setCookie().changeOnFailure() || served == null
                || spec.config.loadBalancer() != Upstream.LoadBalancer.CONSISTENT_HASH) {
            return null;
        }
        HashRing ring = spec.ring;
        if (all[ring.owner(ring.position(hash))] == served) {
            return null;
        }
        if (spec.endpointKeys != null) {
            return EndpointKeys.key(spec.name, served.address.toString()); // names the endpoint that served
        }
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (int i = 0; i < 256; i++) {
            String key = String.format("%016x", rnd.nextLong());
            if (all[ring.owner(ring.position(keyHash(key)))] == served) {
                return key;
            }
        }
        return null;
    }

    /** The hash of an affinity key, as {@link #hash} reads it back from the cookie. */
    public static long keyHash(String key) {
        return Hashing.hash(key);
    }

    /**
     * The {@code Set-Cookie} value that hands {@code key} to the client: {@code Secure} on https, or always when the
     * upstream asks for it (TLS ended before a peer that is not trusted to say so). With persistent affinity the
     * value names {@code served}, the endpoint that answered, instead of the key.
     */
    public String affinityCookie(String key, EndpointPool served, boolean https) {
        Upstream.HashOn on = spec.config.hashOn();
        Upstream.SetCookie sc = on.setCookie();
        String value = spec.endpointKeys != null && served != null ? EndpointKeys.key(spec.name, served.address.toString())
                : key;
        StringBuilder b = new StringBuilder(96).append(on.name()).append('=').append(value)
                .append("; Path=").append(sc.path());
        if (sc.domain() != null) {
            b.append("; Domain=").append(sc.domain());
        }
        if (sc.maxAge() != null) {
            b.append("; Max-Age=").append(sc.maxAge().toSeconds());
        }
        b.append("; HttpOnly");
        boolean secure = https || sc.secure();
        if (secure) {
            b.append("; Secure");
        }
        String sameSite = sc.sameSite();
        // SameSite=None without Secure is dropped by browsers: a cookie that goes without Secure goes without it (Lax).
        if (sameSite != null && (secure || !sameSite.equals("None"))) {
            b.append("; SameSite=").append(sameSite);
        }
        return b.toString();
    }

    /**
     * Where the path starts in a request target: 0 in origin form ({@code /a?b}), after the authority in absolute
     * form ({@code http://host/a?b}), so that both hash alike (nginx's {@code $request_uri} leaves the scheme and
     * host out too).
     */
    static int originFormStart(String target) {
        if (target.isEmpty() || target.charAt(0) == '/') {
            return 0;
        }
        int scheme = target.indexOf("://");
        int slash = scheme < 0 ? -1 : target.indexOf('/', scheme + 3);
        return slash < 0 ? target.length() : slash;
    }

    /** The hash of parameter {@code name}'s raw value in a query string ({@code a=1&b=2}); 0 when absent. */
    static long queryHash(String query, String name) {
        if (query == null) {
            return 0;
        }
        int n = query.length();
        for (int i = 0; i < n; ) {
            int end = query.indexOf('&', i);
            if (end < 0) {
                end = n;
            }
            int eq = query.indexOf('=', i);
            int nameEnd = eq >= 0 && eq < end ? eq : end;
            if (nameEnd - i == name.length() && query.regionMatches(i, name, 0, name.length())) {
                long h = Hashing.hash(query, Math.min(nameEnd + 1, end), end);
                return h != 0 ? h : 1;
            }
            i = end + 1;
        }
        return 0;
    }

    /** The hash of cookie {@code name}'s value in a Cookie header ({@code a=1; b=2}); 0 when absent. */
    static long cookieHash(String header, String name) {
        int n = header.length();
        int i = 0;
        while (i < n) {
            while (i < n && (header.charAt(i) == ' ' || header.charAt(i) == ';')) {
                i++;
            }
            int end = header.indexOf(';', i);
            if (end < 0) {
                end = n;
            }
            int eq = header.indexOf('=', i);
            if (eq > 0 && eq < end && eq - i == name.length() && header.regionMatches(i, name, 0, name.length())) {
                int vs = eq + 1;
                int ve = end;
                while (ve > vs && header.charAt(ve - 1) == ' ') {
                    ve--;
                }
                if (ve - vs >= 2 && header.charAt(vs) == '"' && header.charAt(ve - 1) == '"') {
                    vs++;
                    ve--;
                }
                long h = Hashing.hash(header, vs, ve);
                return h == 0 ? 1 : h;
            }
            i = end + 1;
        }
        return 0;
    }

    /** A retry may go ahead: the budget has room (and then it is spent). */
    public boolean allowRetry() {
        return budget.withdraw(System.nanoTime());
    }

    /** A first try went out: it earns the budget a fraction of a retry. */
    public void firstTry() {
        budget.deposit();
    }

    /** Passive health: a try's outcome. {@code status} 0 means no answer. */
    public void outcome(EndpointPool endpoint, int status, String failure) {
        if (status > 0 && status < 500) {
            endpoint.health.success();
        } else {
            endpoint.health.failure(spec.config.outlierDetection(), System.nanoTime(),
                    failure != null ? failure : "status " + status);
        }
    }
}
