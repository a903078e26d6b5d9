package dev.strait.proxy.server;

import dev.strait.model.Config;
import dev.strait.proxy.upstream.LoopContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.util.internal.PlatformDependent;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.CoalescingIoUringHandler;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.netty.channel.uring.ReadRing;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.uring.IoUringDomainSocketChannel;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;

/**
 * The I/O transport: io_uring, epoll or NIO. The native ones can give each event loop its own
 * listening socket (SO_REUSEPORT), so the kernel spreads accepts over loops and a connection stays
 * on the loop that accepted it. See docs/adr/0001-transport.md.
 */
public enum Transport {
    IO_URING, EPOLL, NIO;

    /**
     * The transport to use for a config setting: {@code auto} takes the first that works here, io_uring
     * (one system call per loop turn, ADR 0035), then epoll, then NIO. Where Netty runs without
     * {@code sun.misc.Unsafe} (JDK 24+ by default) {@code auto} skips io_uring: that path of Netty's io_uring
     * leaked a read buffer in our tests on JDK 25, where epoll's is the one years of use have proven.
     * {@code io_uring} asked for by name still works there.
     */
    public static Transport choose(Config.Transport wanted) {
        return switch (wanted) {
            case IO_URING -> require(IoUring.isAvailable(), IO_URING, IoUring.unavailabilityCause());
            case EPOLL -> require(Epoll.isAvailable(), EPOLL, Epoll.unavailabilityCause());
            case NIO -> NIO;
            case AUTO -> IoUring.isAvailable() && PlatformDependent.hasUnsafe() ? IO_URING : fallback();
        };
    }

    /** What {@code auto} takes without io_uring: epoll where it works, else NIO. */
    static Transport fallback() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /**
     * Why {@code auto} did not take io_uring, for the start-up log: container runtimes' default seccomp
     * profiles refuse {@code io_uring_setup}, and kernels may have it switched off.
     */
    static String whyNotIoUring() {
        Throwable cause = IoUring.unavailabilityCause();
        return cause == null ? "unknown" : cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }

    private static Transport require(boolean ok, Transport t, Throwable cause) {
        if (!ok) {
            throw new IllegalStateException("transport " + t.name().toLowerCase() + " is not available here: " + cause);
        }
        return t;
    }

    public IoHandlerFactory ioHandlerFactory() {
        return switch (this) {
            case IO_URING -> {
                IoUringIoHandlerConfig config = readRing() ? ReadRing.loopConfig() : new IoUringIoHandlerConfig();
                yield Boolean.parseBoolean(System.getProperty("strait.uring.batchWaits", "true"))
                    ? CoalescingIoUringHandler.newFactory(LoopContext::upstreamInflightHere, config)
                    : IoUringIoHandler.newFactory(config);
            }
            case EPOLL -> EpollIoHandler.newFactory();
            case NIO -> NioIoHandler.newFactory();
        };
    }

    /**
     * Whether connections receive into a ring of buffers on their loop (io_uring's provided buffers with
     * multishot receives, ADR 0109); {@code -Dstrait.uring.readRing=false} turns it off.
     */
    public boolean readRing() {
        return this == IO_URING && ReadRingChoice.ON;
    }

    /** Apart, so that epoll and NIO never load io_uring's classes for it. */
    private static final class ReadRingChoice {
        static final boolean ON = Boolean.parseBoolean(System.getProperty("strait.uring.readRing", "true"))
            && ReadRing.available();
    }

    public Class<? extends ServerChannel> serverChannel() {
        return switch (this) {
            case IO_URING -> IoUringServerSocketChannel.class;
            case EPOLL -> EpollServerSocketChannel.class;
            case NIO -> NioServerSocketChannel.class;
        };
    }

    /** The client socket class, for connections to upstreams. */
    public Class<? extends SocketChannel> socketChannel() {
        return switch (this) {
            case IO_URING -> IoUringSocketChannel.class;
            case EPOLL -> EpollSocketChannel.class;
            case NIO -> NioSocketChannel.class;
        };
    }

    /** The unix-socket class, for connections to endpoints written {@code unix:/path} (ADR 0103). */
    public Class<? extends DuplexChannel> domainSocketChannel() {
        return switch (this) {
            case IO_URING -> IoUringDomainSocketChannel.class;
            case EPOLL -> EpollDomainSocketChannel.class;
            case NIO -> NioDomainSocketChannel.class;
        };
    }

    /** What this transport's unix-socket channels connect to: Netty's address, or for NIO the JDK's. */
    public SocketAddress domainSocketAddress(DomainSocketAddress socket) {
        return this == NIO ? UnixDomainSocketAddress.of(socket.path()) : socket;
    }

    /** The transport {@code loop} runs. */
    public static Transport of(EventLoop loop) {
        if (loop instanceof IoEventLoop io) {
            if (io.isIoType(EpollIoHandler.class)) {
                return EPOLL;
            }
            if (io.isIoType(IoUringIoHandler.class) || io.isIoType(CoalescingIoUringHandler.class)) {
                return IO_URING;
            }
        }
        return NIO;
    }

    /** The UDP socket class, for DNS queries (dev.strait.proxy.resolve). */
    public Class<? extends DatagramChannel> datagramChannel() {
        return switch (this) {
            case IO_URING -> IoUringDatagramChannel.class;
            case EPOLL -> EpollDatagramChannel.class;
            case NIO -> NioDatagramChannel.class;
        };
    }

    /** Whether one listening socket per loop is possible. */
    public boolean reusePort() {
        return this != NIO;
    }

    void setReusePort(ServerBootstrap b) {
        switch (this) {
            case IO_URING -> b.option(IoUringChannelOption.SO_REUSEPORT, true);
            case EPOLL -> b.option(EpollChannelOption.SO_REUSEPORT, true);
            case NIO -> { }
        }
    }
}
