package dev.strait.proxy.resolve;

import dev.strait.model.Config;
import dev.strait.model.HostPort;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.ReflectiveChannelFactory;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.dns.DefaultDnsCache;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.RoundRobinDnsAddressResolverGroup;
import io.netty.resolver.dns.SequentialDnsServerAddressStreamProvider;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;

/**
 * Looks endpoint names up without blocking an event loop: one per proxy server, shared by its loops.
 *
 * <p>Why not the JDK's lookup: {@code new InetSocketAddress(name, port)} asks the system resolver on the
 * calling thread, so once the JVM's 30 s cache expired a slow or unreachable DNS server stalled every
 * connection of that event loop for seconds. Netty's DNS client sends the queries on the loop's own
 * transport and completes a future; it reads {@code /etc/resolv.conf} (servers, search domains and
 * {@code ndots}, which Kubernetes pods depend on) and {@code /etc/hosts}, and caches each answer for its
 * records' TTL in one cache all loops share. A name with several addresses spreads new connections over
 * them (as the JDK's lookup did not). Made on the first name: a config of addresses never loads it.
 * docs/adr/0079.
 */
public final class NameResolution implements AutoCloseable {
    private final Config.Resolver settings;
    private final java.util.function.Supplier<Class<? extends DatagramChannel>> datagramChannel;
    private final Class<? extends SocketChannel> socketChannel;
    private final Search search;
    private volatile AddressResolverGroup<InetSocketAddress> group;
    /** The resolvers' UDP channels, so that closing waits for them before the loops stop. */
    private final java.util.List<Channel> channels = new java.util.concurrent.CopyOnWriteArrayList<>();
    private boolean closed;

    /**
     * @param datagramChannel the loops' UDP channel class (the queries run on the loops' transport), asked
     *                        for on the first name only
     * @param socketChannel   their TCP channel class, for answers too large for UDP
     */
    public NameResolution(Config.Resolver settings,
                          java.util.function.Supplier<Class<? extends DatagramChannel>> datagramChannel,
                          Class<? extends SocketChannel> socketChannel) {
        this(settings, datagramChannel, socketChannel, null);
    }

    /** With {@code search} instead of {@code /etc/resolv.conf}'s search domains and ndots (tests). */
    NameResolution(Config.Resolver settings, java.util.function.Supplier<Class<? extends DatagramChannel>> datagramChannel,
                   Class<? extends SocketChannel> socketChannel, Search search) {
        this.settings = settings;
        this.datagramChannel = datagramChannel;
        this.socketChannel = socketChannel;
        this.search = search;
    }

    /** Search domains, and the dots a name needs to be tried as it is first. */
    record Search(java.util.List<String> domains, int ndots) {}

    /**
     * Connects {@code ch} (registered on its loop) to {@code endpoint}: at once to {@code literal} when the
     * endpoint is an address, else once its name is found. Finding the name counts against
     * {@code timeoutMillis} like the connect itself; the channel's own connect timeout applies after it.
     *
     * @param refuseLocal fail when the address is loopback, link-local, unspecified or multicast
     */
    public ChannelFuture connect(Channel ch, HostPort endpoint, InetSocketAddress literal, boolean refuseLocal,
                                 long timeoutMillis) {
        if (literal != null) {
            if (refuseLocal && isLocal(literal.getAddress())) {
                return ch.newFailedFuture(refused(endpoint, literal.getAddress()));
            }
            return ch.connect(literal);
        }
        Future<InetSocketAddress> found = resolve(ch.eventLoop(), endpoint, refuseLocal);
        if (found.isDone()) { // a cached answer (the usual case): no timer
            return found.isSuccess() ? ch.connect(found.getNow()) : ch.newFailedFuture(found.cause());
        }
        ChannelPromise connected = ch.newPromise();
        ScheduledFuture<?> timer = ch.eventLoop().schedule(() -> {
            connected.tryFailure(new ConnectTimeoutException("looking up " + endpoint.host() + " took longer than "
                    + timeoutMillis + " ms"));
        }, timeoutMillis, TimeUnit.MILLISECONDS);
        found.addListener(f -> {
            timer.cancel(false);
            if (connected.isDone()) {
                return;
            }
            if (f.isSuccess()) {
                ch.connect((InetSocketAddress) f.getNow(), connected);
            } else {
                connected.tryFailure(f.cause());
            }
        });
        return connected;
    }

    /**
     * Whether a connection made to {@code address} for the name {@code endpoint} may still be used: false only
     * when the name's answer is at hand (cached) and no longer holds that address, so a pooled keep-alive
     * connection follows a moved name as new connections do. An answer not at hand (its TTL ran out) is
     * asked for without waiting, and until it comes the connection serves on.
     */
    public boolean stillLeadsTo(EventLoop loop, HostPort endpoint, boolean refuseLocal, InetAddress address) {
        Future<java.util.List<InetSocketAddress>> all;
        try {
            all = group().getResolver(loop).resolveAll(
                    InetSocketAddress.createUnresolved(lookupName(endpoint, refuseLocal), endpoint.port()));
        } catch (IllegalStateException e) {
            return true; // closed, or the loop is shutting down: nothing better to offer
        }
        if (!all.isDone() || !all.isSuccess()) {
            return true;
        }
        for (InetSocketAddress a : all.getNow()) {
            if (address.equals(a.getAddress())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The name as looked up. One that may not lead anywhere local is taken as absolute, as Kubernetes takes
     * an ExternalName (a CNAME target): with the pod's search domains, "api.identity" would become the
     * Service api.identity.svc.cluster.local, or "db-0.db.payments" a pod, past the consent of ADR 0078.
     */
    private static String lookupName(HostPort endpoint, boolean refuseLocal) {
        return refuseLocal && !endpoint.host().endsWith(".") ? endpoint.host() + "." : endpoint.host();
    }

    /** The address to connect to for a name, on {@code loop}; failed with the reason when there is none. */
    public Future<InetSocketAddress> resolve(EventLoop loop, HostPort endpoint, boolean refuseLocal) {
        AddressResolver<InetSocketAddress> resolver;
        try {
            resolver = group().getResolver(loop);
        } catch (IllegalStateException e) {
            return loop.newFailedFuture(e); // closed, or the loop is shutting down
        }
        Promise<InetSocketAddress> out = loop.newPromise();
        String name = lookupName(endpoint, refuseLocal);
        resolver.resolve(InetSocketAddress.createUnresolved(name, endpoint.port())).addListener(f -> {
            if (!f.isSuccess()) {
                UnknownHostException e = new UnknownHostException("cannot resolve " + endpoint.host() + ": "
                        + (f.cause().getMessage() != null ? f.cause().getMessage() : f.cause().toString()));
                e.initCause(f.cause());
                out.tryFailure(e);
                return;
            }
            InetSocketAddress a = (InetSocketAddress) f.getNow();
            if (refuseLocal && isLocal(a.getAddress())) {
                out.tryFailure(refused(endpoint, a.getAddress()));
            } else {
                out.trySuccess(a);
            }
        });
        return out;
    }

    /**
     * Addresses an ExternalName Service must not lead to: the proxy's own host (its admin port), link-local
     * ones (the cloud metadata service at 169.254.169.254), "any" and multicast.
     */
    public static boolean isLocal(InetAddress a) {
        return a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isAnyLocalAddress() || a.isMulticastAddress();
    }

    private static ConnectException refused(HostPort endpoint, InetAddress a) {
        return new ConnectException(endpoint.host() + " resolves to " + a.getHostAddress()
                + ", a local address this upstream may not connect to (refuseLocalAddresses)");
    }

    private AddressResolverGroup<InetSocketAddress> group() {
        AddressResolverGroup<InetSocketAddress> g = group;
        if (g == null) {
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("closed");
                }
                g = group;
                if (g == null) {
                    group = g = Dns.group(settings, datagramChannel.get(), socketChannel, channels, search);
                }
            }
        }
        return g;
    }

    /**
     * Netty's DNS client, built here so that the verifier of {@link NameResolution} loads none of its
     * classes: a config without names never does.
     */
    private static final class Dns {
        static AddressResolverGroup<InetSocketAddress> group(Config.Resolver settings,
                                                             Class<? extends DatagramChannel> datagramChannel,
                                                             Class<? extends SocketChannel> socketChannel,
                                                             java.util.List<Channel> channels, Search search) {
            ReflectiveChannelFactory<? extends DatagramChannel> udp = new ReflectiveChannelFactory<>(datagramChannel);
            DnsNameResolverBuilder b = new DnsNameResolverBuilder()
                    .datagramChannelFactory(() -> {
                        DatagramChannel ch = udp.newChannel();
                        channels.add(ch);
                        return ch;
                    })
                    .socketChannelType(socketChannel)
                    // One cache for all loops: a name is asked for once, not once per loop. The records' TTL
                    // holds (no floor, no ceiling); a failed lookup is asked again after 1 s.
                    .resolveCache(new DefaultDnsCache(0, Integer.MAX_VALUE, 1));
            if (!settings.nameservers().isEmpty()) {
                b.nameServerProvider(new SequentialDnsServerAddressStreamProvider(settings.nameservers().stream()
                        .map(hp -> new InetSocketAddress(ipLiteral(hp.host()), hp.port()))
                        .toArray(InetSocketAddress[]::new)));
            }
            if (settings.timeout() != null) {
                b.queryTimeoutMillis(Math.max(1, settings.timeout().toMillis()));
            }
            if (search != null) {
                b.searchDomains(search.domains()).ndots(search.ndots());
            }
            return new RoundRobinDnsAddressResolverGroup(b);
        }
    }

    /** A name server's address: the config allows IP literals only, so this never looks anything up. */
    private static InetAddress ipLiteral(String host) {
        byte[] ip = io.netty.util.NetUtil.createByteArrayFromIpAddressString(host);
        try {
            return InetAddress.getByAddress(ip);
        } catch (UnknownHostException | NullPointerException e) {
            throw new IllegalArgumentException("not an IP address: " + host, e);
        }
    }

    /** Closes the resolvers and waits (up to 2 s) for their sockets: a loop must not stop with one closing. */
    @Override
    public synchronized void close() {
        closed = true;
        if (group != null) {
            group.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            for (Channel ch : channels) {
                ch.closeFuture().awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        }
    }
}
