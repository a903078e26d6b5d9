package io.netty.channel.uring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The batched wait on a real ring: it must end on its timer when the batch never comes (the case
 * that would otherwise leave a loop asleep with requests waiting), and it must not happen when few
 * requests wait on upstreams.
 */
class CoalescingIoUringHandlerTest {

    @BeforeEach
    void needsIoUring() {
        assumeTrue(IoUring.isAvailable(), "io_uring is not available here");
    }

    /** A Netty upgrade that renames what the handler looks up would silently turn batching off. */
    @Test
    void thisNettyHasWhatTheBatchedWaitNeeds() {
        assertThat(CoalescingIoUringHandler.available())
                .as("Netty's io_uring loop changed: see the log line of CoalescingIoUringHandler").isTrue();
    }

    /**
     * One client, one byte at a time, and every batched wait asks for eight completions where at most
     * two can come (the next byte and its echo's send): each must end on its timer, or the echo would go
     * unanswered and the client's read time out.
     */
    @Test
    void aWaitForMoreThanCanComeEndsOnItsTimer() throws Exception {
        var settings = new CoalescingIoUringHandler.Settings(1, 0, 8, CoalescingIoUringHandler.MAX_WAIT_NANOS);
        assertThat(echoRoundTrips(() -> 1_000, settings, 300)).isPositive();
    }

    /**
     * A 1 ns timer runs out while the kernel is still handling the submission or just after it began to
     * wait. Where it ran out first, the kernel would not wake the waiter for it: the cancelled no-ops
     * linked to the timeout are what end such a wait.
     */
    @Test
    void aTimerThatRunsOutAtOnceStillEndsTheWait() throws Exception {
        var settings = new CoalescingIoUringHandler.Settings(1, 0, 8, 1);
        assertThat(echoRoundTrips(() -> 1_000, settings, 300)).isPositive();
    }

    @Test
    void aLoopWithFewRequestsWaitingOnUpstreamsWaitsAsNettyDoes() throws Exception {
        var settings = new CoalescingIoUringHandler.Settings(CoalescingIoUringHandler.MIN_WAITING, 0, 8,
                CoalescingIoUringHandler.MAX_WAIT_NANOS);
        assertThat(echoRoundTrips(() -> CoalescingIoUringHandler.MIN_WAITING - 1, settings, 100)).isZero();
    }

    /** Runs {@code n} one-byte echo round trips through a loop made with these settings; its waits. */
    private static long echoRoundTrips(IntSupplier waiting, CoalescingIoUringHandler.Settings settings, int n)
            throws Exception {
        IoHandlerFactory factory = CoalescingIoUringHandler.newFactory(waiting, settings);
        List<CoalescingIoUringHandler> made = new CopyOnWriteArrayList<>();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, executor -> {
            CoalescingIoUringHandler handler = (CoalescingIoUringHandler) factory.newHandler(executor);
            made.add(handler);
            return handler;
        });
        try {
            Channel server = new ServerBootstrap().group(group).channel(IoUringServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ctx.writeAndFlush((ByteBuf) msg);
                                }
                            });
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();
            try (Socket client = new Socket()) {
                client.connect((InetSocketAddress) server.localAddress(), 5_000);
                client.setTcpNoDelay(true);
                client.setSoTimeout(5_000);
                OutputStream out = client.getOutputStream();
                InputStream in = client.getInputStream();
                for (int i = 0; i < n; i++) {
                    out.write(i & 0x7f);
                    assertThat(in.read()).as("echo of byte %d", i).isEqualTo(i & 0x7f);
                }
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
        assertThat(made).hasSize(1);
        return made.get(0).coalescedWaits();
    }
}
