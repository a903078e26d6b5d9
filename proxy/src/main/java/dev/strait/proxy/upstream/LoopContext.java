package dev.strait.proxy.upstream;

import dev.strait.proxy.server.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.uring.ReadRing;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.FastThreadLocal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Everything upstream-related that one event loop owns: its view of each upstream (pools, balancer,
 * budget) by name, a bootstrap bound to the loop, and the request id counter. Found through a
 * {@link FastThreadLocal} (an array index on Netty's threads); only its own loop thread uses it.
 */
public final class LoopContext {
    private static final FastThreadLocal<LoopContext> CURRENT = new FastThreadLocal<>();
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    final UpstreamContext context;
    final EventLoop loop;
    final Bootstrap bootstrap;
    private final HashMap<String, LoopUpstream> upstreams = new HashMap<>();
    private final long idPrefix = ThreadLocalRandom.current().nextLong();
    /** {@link #idPrefix}'s 16 hex digits, as two {@link ByteBuf#writeLong} words. */
    private final long idPrefixHigh = hex8((int) (idPrefix >>> 32));
    private final long idPrefixLow = hex8((int) idPrefix);
    private long idCounter;
    /** Requests in flight to any upstream through this loop (the I/O loop batches its wake-ups on it). */
    int upstreamInflight;
    /** Client addresses as text, direct-mapped by hash: formatting an IP per request showed in profiles. */
    private final InetAddress[] addresses = new InetAddress[64];
    private final String[] addressTexts = new String[64];

    LoopContext(UpstreamContext context, EventLoop loop, Class<? extends SocketChannel> channelClass, boolean readRing) {
        this.context = context;
        this.loop = loop;
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        // the pool adds the rest of the pipeline itself, with the connection's own handler
                        if (readRing) {
                            ch.pipeline().addLast(ReadRing.Pause.NAME, new ReadRing.Pause());
                        }
                    }
                });
        if (readRing) {
            ReadRing.forConnections(bootstrap);
        }
    }

    /** Connections to unix-socket endpoints (made the first time one is asked for): no TCP options. */
    private Bootstrap unixBootstrap;

    /** The bootstrap for a new connection to an endpoint: a TCP socket, or a unix one ({@code unix:/path}). */
    Bootstrap bootstrap(boolean unixSocket) {
        if (!unixSocket) {
            return bootstrap;
        }
        if (unixBootstrap == null) {
            unixBootstrap = unixSocketBootstrap(loop);
        }
        return unixBootstrap;
    }

    /** A bootstrap of {@code loop}'s transport's unix-socket channels, whose pipeline the caller builds. */
    static Bootstrap unixSocketBootstrap(EventLoop loop) {
        return new Bootstrap()
                .group(loop)
                .channel(Transport.of(loop).domainSocketChannel())
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        // the pool or the health check adds the pipeline itself, as for TCP
                    }
                });
    }

    /** Where this loop looks endpoint names up. */
    public dev.strait.proxy.resolve.NameResolution names() {
        return context.names();
    }

    /** Where request bodies read before their upstream is asked go past memory. */
    public dev.strait.proxy.bodyfiles.BodyFiles bodyFiles() {
        return context.bodyFiles();
    }

    /** The proxy's meters. */
    public dev.strait.proxy.metrics.ProxyMetrics metrics() {
        return context.metrics();
    }

    /** The loop this context belongs to (for timers). */
    public EventLoop loopExecutor() {
        return loop;
    }

    /** The context of the calling event loop thread, or {@code null} when proxying is not set up on it. */
    public static LoopContext current() {
        return CURRENT.getIfExists();
    }

    void install() {
        CURRENT.set(this);
    }

    /**
     * Requests the calling loop has in flight to upstreams: 0 on a loop that has not proxied. Read by the
     * loop's I/O handler once per turn (docs/adr/0039).
     */
    public static int upstreamInflightHere() {
        LoopContext c = CURRENT.getIfExists();
        return c == null ? 0 : c.upstreamInflight;
    }

    /** This loop's state for {@code spec}'s upstream, moved to {@code spec} when that is newer. */
    public LoopUpstream upstream(UpstreamSpec spec) {
        LoopUpstream lu = upstreams.get(spec.name);
        if (lu == null) {
            lu = new LoopUpstream(this, context.shared(spec.name), spec);
            upstreams.put(spec.name, lu);
        } else if (lu.spec != spec && spec.generation > lu.spec.generation) {
            lu.update(spec);
        }
        return lu;
    }

    /** A new config is serving: follow it, retiring upstreams and endpoints it no longer has. */
    void apply(Map<String, UpstreamSpec> specs) {
        for (Iterator<Map.Entry<String, LoopUpstream>> it = upstreams.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, LoopUpstream> e = it.next();
            UpstreamSpec s = specs.get(e.getKey());
            if (s == null) {
                e.getValue().retire();
                it.remove();
            } else if (s != e.getValue().spec && s.generation > e.getValue().spec.generation) {
                e.getValue().update(s);
            }
        }
    }

    void closeAll() {
        for (LoopUpstream lu : upstreams.values()) {
            lu.retire();
        }
        upstreams.clear();
    }

    /** Writes a new request id: 32 hex digits, a random per-loop prefix and a counter (unique, no allocation). */
    public void writeRequestId(ByteBuf buf) {
        long n = ++idCounter;
        buf.ensureWritable(32);
        buf.writeLong(idPrefixHigh).writeLong(idPrefixLow).writeLong(hex8((int) (n >>> 32))).writeLong(hex8((int) n));
    }

    /** Eight hex digits of {@code v}, the first in the high byte: what writeLong puts down in reading order. */
    static long hex8(int v) {
        long out = 0;
        for (int shift = 28; shift >= 0; shift -= 4) {
            out = out << 8 | HEX[(v >>> shift) & 0xf];
        }
        return out;
    }

    /** The client's IP as text (for X-Forwarded-For), remembered per address. */
    public String addressText(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress isa) || isa.getAddress() == null) {
            return remote == null ? "unknown" : remote.toString();
        }
        InetAddress a = isa.getAddress();
        int slot = (a.hashCode() * 0x9E3779B9 >>> 26) & 63;
        InetAddress cached = addresses[slot];
        if (cached == a || a.equals(cached)) {
            return addressTexts[slot];
        }
        // RFC 5952's form (2001:db8::7), as nginx writes it and FastCGI's REMOTE_ADDR has it; no zone.
        String text = NetUtil.toAddressString(a);
        addresses[slot] = a;
        addressTexts[slot] = text;
        return text;
    }
}
