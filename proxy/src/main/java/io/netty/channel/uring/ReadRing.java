package io.netty.channel.uring;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A ring of provided buffers on each io_uring loop that connections receive into with multishot receives
 * (docs/adr/0109): one completion per read, where Netty's default costs a {@code POLLIN} completion, a
 * {@code recv} submission and its completion. That is 5-8% of the CPU of a fixed response.
 *
 * <p>What Netty 4.2.18 gets wrong, and {@link Pause} mends: a channel whose reads are paused (auto-read
 * off, the proxy's backpressure) goes on reading. The kernel fills the ring's buffers until it runs out
 * and ends the receive with {@code ENOBUFS}; Netty then starts a new one whatever auto-read says, and the
 * next ring's worth comes in, so a client uploading to an upstream that does not read was taken in whole.
 * {@link Pause} takes the ring from such a channel at that moment (the receive has ended, no buffer of
 * the ring is on its way): Netty's next read is then a single {@code recv} into a buffer of its own,
 * after which it honours the pause. The ring comes back with the channel's next {@code read()}. So a
 * paused channel takes in at most a ring's worth and one read more, about 170 KiB (80-96 KiB measured).
 *
 * <p>It lives in Netty's package because the ring is Netty's, and looks up the one private field it moves
 * once. Where a Netty version lacks it, or the kernel cannot consume a provided buffer in parts, {@link #available}
 * is false and connections read as Netty does by default.
 */
public final class ReadRing {
    /** The ring's buffer group id on every loop. */
    static final short GROUP = 0;
    /**
     * Buffers in the ring, a power of two. They bound what a paused channel may still take in, so they are few: with
     * sixteen, a 300 KB upload could be read past the point where a mirror that was still connecting gives its copy up
     * (mirror/MirrorExchange keeps at most 256 KiB). Eight cost no more CPU per request than sixteen.
     */
    static final short BUFFERS = 8;
    /** Each buffer's size. The kernel consumes a buffer in parts (incremental rings), so small reads share one. */
    static final int BUFFER_BYTES = 16 * 1024;

    private static final InternalLogger logger = InternalLoggerFactory.getInstance(ReadRing.class);
    private static final VarHandle CHANNEL_RING = lookUp();

    private ReadRing() {
    }

    /**
     * Whether this Netty and kernel can give connections the ring, and keep their reads paused when asked. The
     * kernel must consume buffers in parts (6.12+): where each receive took a whole buffer, a loop's eight
     * would go to eight small requests.
     */
    public static boolean available() {
        return CHANNEL_RING != null && IoUring.isRegisterBufferRingIncSupported() && IoUring.isRecvMultishotEnabled();
    }

    /**
     * A loop's configuration with the ring. Every buffer is allocated from the start (batch = ring size): the
     * ring cannot grow, so each time it runs dry the channel hears of it ({@link IoUringBufferRingExhaustedEvent}),
     * which is when {@link Pause} acts.
     */
    public static IoUringIoHandlerConfig loopConfig() {
        return new IoUringIoHandlerConfig().setBufferRingConfig(IoUringBufferRingConfig.builder()
                .bufferGroupId(GROUP)
                .bufferRingSize(BUFFERS)
                .batchSize(BUFFERS)
                .allocator(new IoUringFixedBufferRingAllocator(BUFFER_BYTES))
                .build());
    }

    /** Accepted connections receive into the loop's ring; each needs a {@link Pause} first in its pipeline. */
    public static void forAccepted(ServerBootstrap bootstrap) {
        bootstrap.childOption(IoUringChannelOption.IO_URING_BUFFER_GROUP_ID, GROUP);
    }

    /** Outgoing connections receive into the loop's ring; each needs a {@link Pause} first in its pipeline. */
    public static void forConnections(Bootstrap bootstrap) {
        bootstrap.option(IoUringChannelOption.IO_URING_BUFFER_GROUP_ID, GROUP);
    }

    /** Whether {@code channel} reads from the ring now (false while {@link Pause} has taken it away). */
    static boolean readsFromRing(Channel channel) {
        return channel instanceof AbstractIoUringStreamChannel && CHANNEL_RING.get(channel) != null;
    }

    /**
     * Keeps a paused channel from reading through the ring; one per channel, first in its pipeline, so that
     * it sees the ring's exhaustion before anyone and every {@code read()} on its way to the channel.
     */
    public static final class Pause extends ChannelDuplexHandler {
        /** Its name in pipelines. */
        public static final String NAME = "read-ring";
        private IoUringBufferRing taken;

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof IoUringBufferRingExhaustedEvent) {
                // Netty is about to start a new receive whether or not the channel wants to read.
                if (taken == null && !ctx.channel().config().isAutoRead()) {
                    taken = (IoUringBufferRing) CHANNEL_RING.get(ctx.channel());
                    CHANNEL_RING.set(ctx.channel(), null);
                }
                return; // the transport's own affair
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void read(ChannelHandlerContext ctx) {
            if (taken != null) {
                // Safe whatever is in flight: a recv into Netty's own buffer completes without a ring buffer id.
                CHANNEL_RING.set(ctx.channel(), taken);
                taken = null;
            }
            ctx.read();
        }
    }

    private static VarHandle lookUp() {
        try {
            return MethodHandles.privateLookupIn(AbstractIoUringStreamChannel.class, MethodHandles.lookup())
                    .findVarHandle(AbstractIoUringStreamChannel.class, "bufferRing", IoUringBufferRing.class);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            logger.info("io_uring: connections read as Netty does by default, this Netty's channel differs ({})",
                    e.toString());
            return null;
        }
    }
}
