package dev.strait.proxy.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A DNS server on 127.0.0.1, port 0, for tests: answers A queries for the names it was given (with their
 * TTL), NXDOMAIN for others, an empty answer for other types; or, when told to, nothing at all. Counts
 * the A queries per name.
 */
public final class TestDnsServer implements AutoCloseable {
    private record Answer(InetAddress address, int ttlSeconds) {}

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Map<String, Answer> names = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();
    private final Channel channel;
    private volatile boolean silent;

    public TestDnsServer() throws InterruptedException {
        channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(),
                                new SimpleChannelInboundHandler<DatagramDnsQuery>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery q) {
                                        answer(ctx, q);
                                    }
                                });
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    /** {@code name} now resolves to {@code ip} (a literal), cached by clients for {@code ttlSeconds}. */
    public TestDnsServer add(String name, String ip, int ttlSeconds) {
        try {
            names.put(name.toLowerCase(Locale.ROOT), new Answer(InetAddress.getByName(ip), ttlSeconds));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(ip, e);
        }
        return this;
    }

    /** Stops answering (queries are read and dropped), as a server that is down or unreachable. */
    public void silence() {
        silent = true;
    }

    /** A queries for {@code name} so far. */
    public int asked(String name) {
        AtomicInteger n = asked.get(name.toLowerCase(Locale.ROOT));
        return n == null ? 0 : n.get();
    }

    /** {@code 127.0.0.1:port}, as written in {@code resolver.nameservers}. */
    public String address() {
        return "127.0.0.1:" + ((InetSocketAddress) channel.localAddress()).getPort();
    }

    private void answer(ChannelHandlerContext ctx, DatagramDnsQuery q) {
        if (silent) {
            return;
        }
        DnsQuestion question = q.recordAt(DnsSection.QUESTION);
        String name = question.name().toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        DatagramDnsResponse r = new DatagramDnsResponse(q.recipient(), q.sender(), q.id());
        r.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(question.name(), question.type()));
        Answer a = names.get(name);
        if (a == null) {
            r.setCode(DnsResponseCode.NXDOMAIN);
        } else if (question.type() == DnsRecordType.A) {
            asked.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
            if (a.address.getAddress().length == 4) {
                r.addRecord(DnsSection.ANSWER, new DefaultDnsRawRecord(question.name(), DnsRecordType.A, a.ttlSeconds,
                        Unpooled.wrappedBuffer(a.address.getAddress())));
            }
        }
        ctx.writeAndFlush(r);
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
