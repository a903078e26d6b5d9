package io.netty.channel.uring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reads from the loop's ring on real sockets: a connection whose reads are paused must stop taking data in
 * (the proxy's backpressure rests on it), and must read on, from the ring again, once resumed.
 */
class ReadRingTest {
    private static final long UPLOAD = 32L << 20;
    /** Netty's pause lets one read loop finish; the ring adds at most its buffers. */
    private static final long MOST_AFTER_PAUSE = (long) ReadRing.BUFFERS * ReadRing.BUFFER_BYTES + (256 << 10);

    private MultiThreadIoEventLoopGroup loop;
    private Channel server;
    private Socket client;

    @BeforeEach
    void needsTheRing() {
        assumeTrue(IoUring.isAvailable(), "io_uring is not available here");
        assumeTrue(IoUring.isRegisterBufferRingIncSupported(), "this kernel has no incremental provided-buffer rings");
    }

    @AfterEach
    void close() throws Exception {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close().sync();
        }
        if (loop != null) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** A Netty upgrade that renames the field Pause moves would turn the ring off (and say so in the log). */
    @Test
    void thisNettyHasWhatTheRingNeeds() {
        assertThat(ReadRing.available())
                .as("Netty's io_uring channel changed: see the log line of ReadRing").isTrue();
    }

    @Test
    void aPausedConnectionStopsReadingAndReadsEverythingOnceResumed() throws Exception {
        Receiver receiver = serve(true, 64 << 10);
        long taken = receiver.pausedIntake();
        assertThat(taken).as("bytes taken in while paused").isLessThanOrEqualTo(MOST_AFTER_PAUSE);
        assertThat(receiver.sender.isDone()).as("the client is still blocked on its upload").isFalse();
        Channel ch = receiver.channel.get(5, TimeUnit.SECONDS);
        assertThat(ch.eventLoop().submit(() -> ReadRing.readsFromRing(ch)).get())
                .as("the ring ran dry while paused, and Pause took it").isFalse();

        ch.eventLoop().submit(() -> ch.config().setAutoRead(true)).sync();
        receiver.sender.get(20, TimeUnit.SECONDS);
        receiver.awaitTotal(UPLOAD);
        assertThat(ch.eventLoop().submit(() -> ReadRing.readsFromRing(ch)).get())
                .as("reads come from the ring again").isTrue();
    }

    @Test
    void aConnectionThatNeverPausesReadsFromTheRingThroughout() throws Exception {
        Receiver receiver = serve(true, Long.MAX_VALUE);
        Channel ch = receiver.channel.get(5, TimeUnit.SECONDS);
        receiver.sender.get(20, TimeUnit.SECONDS);
        receiver.awaitTotal(UPLOAD);
        assertThat(ch.eventLoop().submit(() -> ReadRing.readsFromRing(ch)).get()).isTrue();
    }

    /**
     * What Pause is for: without it, Netty 4.2.18 reads a paused connection through the ring to the end. When
     * this fails, Netty honours the pause by itself, and Pause may go (docs/adr/0109).
     */
    @Test
    void withoutPauseNettyReadsAPausedConnectionOn() throws Exception {
        Receiver receiver = serve(false, 64 << 10);
        assertThat(receiver.pausedIntake()).isGreaterThan(MOST_AFTER_PAUSE);
    }

    private Receiver serve(boolean pause, long pauseAt) throws Exception {
        assumeTrue(ReadRing.available(), "the ring is off here");
        loop = new MultiThreadIoEventLoopGroup(1, IoUringIoHandler.newFactory(ReadRing.loopConfig()));
        Receiver receiver = new Receiver(pauseAt);
        ServerBootstrap b = new ServerBootstrap().group(loop).channel(IoUringServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (pause) {
                            ch.pipeline().addLast(new ReadRing.Pause());
                        }
                        ch.pipeline().addLast(receiver);
                    }
                });
        ReadRing.forAccepted(b);
        // The first read finds megabytes waiting: the kernel fills the whole ring at once, as it does for any
        // client that sends faster than the proxy reads, and runs it dry while the receiver pauses.
        b.childOption(ChannelOption.AUTO_READ, false);
        server = b.bind("127.0.0.1", 0).sync().channel();
        client = new Socket("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort());
        receiver.sender = CompletableFuture.runAsync(() -> {
            try {
                OutputStream out = client.getOutputStream();
                byte[] chunk = new byte[16 * 1024];
                while (receiver.sent.get() < UPLOAD) {
                    out.write(chunk);
                    receiver.sent.addAndGet(chunk.length);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        receiver.awaitSenderBlocked();
        Channel ch = receiver.channel.get(5, TimeUnit.SECONDS);
        ch.eventLoop().execute(() -> ch.config().setAutoRead(true));
        return receiver;
    }

    /** Counts what arrives; pauses reads once {@code pauseAt} bytes came. */
    private static final class Receiver extends ChannelInboundHandlerAdapter {
        final CompletableFuture<Channel> channel = new CompletableFuture<>();
        final AtomicLong beforePause = new AtomicLong();
        final AtomicLong afterPause = new AtomicLong();
        final AtomicLong sent = new AtomicLong();
        final CompletableFuture<Void> allIn = new CompletableFuture<>();
        final long pauseAt;
        CompletableFuture<Void> sender;
        private boolean paused;

        Receiver(long pauseAt) {
            this.pauseAt = pauseAt;
        }

        @Override
        public boolean isSharable() {
            return true;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel.complete(ctx.channel());
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            int n = buf.readableBytes();
            buf.release();
            if (paused) {
                afterPause.addAndGet(n);
            } else if (beforePause.addAndGet(n) >= pauseAt) {
                paused = true;
                ctx.channel().config().setAutoRead(false);
            }
            if (beforePause.get() + afterPause.get() >= UPLOAD) {
                allIn.complete(null);
            }
        }

        /** What came in after the pause, once nothing more comes for a while (or the upload ended). */
        long pausedIntake() throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            long last = -1;
            int still = 0;
            while (still < 5 && !sender.isDone() && System.nanoTime() < deadline) {
                long now = afterPause.get();
                still = now == last && paused() ? still + 1 : 0;
                last = now;
                try {
                    sender.get(100, TimeUnit.MILLISECONDS);
                } catch (TimeoutException stillSending) {
                    // the upload goes on, or the client is blocked: look again
                }
            }
            return afterPause.get();
        }

        private boolean paused() throws Exception {
            Channel ch = channel.get(5, TimeUnit.SECONDS);
            return ch.eventLoop().submit(() -> paused).get();
        }

        /** Until the client's writes block: the socket's buffers on both ends are full. */
        void awaitSenderBlocked() throws Exception {
            long last = -1;
            for (int still = 0; still < 3; ) {
                long now = sent.get();
                still = now == last ? still + 1 : 0;
                last = now;
                try {
                    sender.get(50, TimeUnit.MILLISECONDS);
                } catch (TimeoutException blocked) {
                    // look again
                }
            }
        }

        void awaitTotal(long total) throws Exception {
            allIn.get(20, TimeUnit.SECONDS);
            assertThat(beforePause.get() + afterPause.get()).isEqualTo(total);
        }
    }
}
