package dev.strait.proxy.upstream;

import dev.strait.model.Config;
import dev.strait.model.HostPort;
import dev.strait.model.Upstream;
import dev.strait.proxy.server.Transport;
import dev.strait.proxy.tls.UpstreamTls;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One upstream of one config, compiled: endpoint addresses parsed, the hash ring built, durations in
 * nanoseconds. Immutable; made when a snapshot is built (no sockets, no threads), so {@code --check}
 * can build it too. The live state (pools, health, balancer cursors) is kept per event loop by
 * {@link LoopUpstream}, keyed by the upstream's name, so it survives reloads.
 */
public final class UpstreamSpec {
    private static final AtomicLong GENERATIONS = new AtomicLong();

    final Upstream config;
    final String name;
    /** Increases with every build: per-loop state moves to a newer spec, never back to an older one. */
    final long generation;
    final HostPort[] endpoints;
    /** IP literals resolved now (no DNS); {@code null} for names, looked up when connecting. */
    final InetSocketAddress[] resolved;
    /** Unix sockets ({@code unix:/path}, ADR 0103); {@code null} for network endpoints. */
    final DomainSocketAddress[] sockets;
    final int[] weights;
    final boolean weighted;
    final HashRing ring;
    /** With persistent affinity, the cookie value of each endpoint; else null. */
    final EndpointKeys endpointKeys;
    final long connectTimeoutMillis;
    /** The Host to send for a client that sent none (HTTP/1.0): the first endpoint, or localhost for a socket. */
    final String fallbackHost;
    final long poolIdleTimeoutNanos;
    /** TLS to the endpoints, or {@code null} for cleartext. */
    final UpstreamTls tls;

    private UpstreamSpec(Upstream u) {
        this(u, null);
    }

    private UpstreamSpec(Upstream u, UpstreamTls tls) {
        this.tls = tls;
        this.config = u;
        this.name = u.name();
        this.generation = GENERATIONS.incrementAndGet();
        int n = u.endpoints().size();
        endpoints = u.endpoints().toArray(new HostPort[0]);
        resolved = new InetSocketAddress[n];
        sockets = new DomainSocketAddress[n];
        weights = new int[n];
        String[] names = new String[n];
        boolean w = false;
        for (int i = 0; i < n; i++) {
            HostPort hp = endpoints[i];
            weights[i] = u.weight(hp);
            w |= weights[i] != 1;
            names[i] = hp.toString();
            if (hp.isUnixSocket()) {
                sockets[i] = new DomainSocketAddress(hp.host());
                continue;
            }
            byte[] ip = NetUtil.createByteArrayFromIpAddressString(hp.host());
            if (ip != null) {
                try {
                    resolved[i] = new InetSocketAddress(InetAddress.getByAddress(hp.host(), ip), hp.port());
                } catch (UnknownHostException e) {
                    throw new IllegalStateException(e); // cannot happen for a 4 or 16 byte address
                }
            }
        }
        weighted = w;
        ring = u.loadBalancer() == Upstream.LoadBalancer.CONSISTENT_HASH ? new HashRing(names, weights) : null;
        endpointKeys = ring != null && u.hashOn() != null && u.hashOn().setCookie() != null
                && u.hashOn().setCookie().persistent() ? new EndpointKeys(name, names, ring) : null;
        connectTimeoutMillis = Math.max(1, u.pool().connectTimeout().toMillis());
        fallbackHost = n == 0 || endpoints[0].isUnixSocket() ? "localhost" : endpoints[0].toString();
        poolIdleTimeoutNanos = u.pool().idleTimeout().toNanos();
    }

    public static UpstreamSpec of(Upstream u) {
        return new UpstreamSpec(u);
    }

    /** Every upstream of a config, by name, in config order. */
    public static Map<String, UpstreamSpec> compile(Config config) {
        return compile(config, Map.of());
    }

    /** Same, with the upstreams' TLS contexts (built and checked by the snapshot builder). */
    public static Map<String, UpstreamSpec> compile(Config config, Map<String, UpstreamTls> tls) {
        Map<String, UpstreamSpec> out = new LinkedHashMap<>();
        for (Upstream u : config.upstreams()) {
            out.put(u.name(), new UpstreamSpec(u, tls.get(u.name())));
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    public String name() {
        return name;
    }

    public Upstream config() {
        return config;
    }

    public String fallbackHost() {
        return fallbackHost;
    }

    /**
     * Connects {@code ch} to endpoint {@code i}: an address at once, a name once {@code names} has found it
     * (without blocking the loop), both within {@code timeoutMillis}.
     */
    io.netty.channel.ChannelFuture connect(io.netty.channel.Channel ch, int i, dev.strait.proxy.resolve.NameResolution names,
                                           long timeoutMillis) {
        if (sockets[i] != null) {
            return ch.connect(Transport.of(ch.eventLoop()).domainSocketAddress(sockets[i]));
        }
        return names.connect(ch, endpoints[i], resolved[i], config.refuseLocalAddresses(), timeoutMillis);
    }

    /** Whether endpoint {@code i} is a unix socket, whose channels are the transport's domain-socket ones. */
    boolean unixSocket(int i) {
        return sockets[i] != null;
    }

    /**
     * Whether {@code ch}, connected to endpoint {@code i}, may serve another request: always for an address;
     * for a name, while the name's current answer still holds the address it was connected to.
     */
    boolean stillCurrent(io.netty.channel.Channel ch, int i, dev.strait.proxy.resolve.NameResolution names) {
        if (resolved[i] != null || !(ch.remoteAddress() instanceof java.net.InetSocketAddress remote)) {
            return true;
        }
        return names.stillLeadsTo(ch.eventLoop(), endpoints[i], config.refuseLocalAddresses(), remote.getAddress());
    }

    @Override
    public String toString() {
        return "upstream " + name;
    }
}
