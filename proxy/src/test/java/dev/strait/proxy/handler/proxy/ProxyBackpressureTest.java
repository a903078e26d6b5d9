package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.testing.ProxyHarness;
import dev.strait.proxy.testing.RawClient;
import dev.strait.proxy.testing.TestUpstream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Slow readers on either side: the proxy must stop reading from the fast side instead of buffering.
 * Each test moves 32 MiB over loopback and checks that the fast side stalls well before that (what
 * remains in flight is the sockets' kernel buffers), then that everything arrives once the slow
 * side reads.
 */
class ProxyBackpressureTest {
    private static final int BODY = 32 << 20;
    /** Kernel socket buffers on loopback (send and receive, both hops) hold a few MiB; the body is far more. */
    private static final int MAX_IN_FLIGHT = 20 << 20;
    private final ProxyHarness h = new ProxyHarness();

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    private static String config(String endpoint) {
        return """
                workers: 1
                upstreams: [ { name: app, endpoints: [ "%s" ] } ]
                routes:
                  - name: site
                    hosts: [ "*" ]
                    rules:
                      - backends: [ { upstream: app } ]
                        timeouts: { idle: 30s }
                """.formatted(endpoint);
    }

    /** Waits until {@code value} stops moving (sampled every 200 ms) and returns where it stopped. */
    private static long plateau(AtomicLong value) {
        long[] last = {-1};
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
            long now = value.get();
            boolean still = now == last[0];
            last[0] = now;
            return still;
        });
        return last[0];
    }

    @ChannelHandler.Sharable
    static final class SlowReader extends ChannelInboundHandlerAdapter {
        final AtomicReference<Channel> channel = new AtomicReference<>();
        /** Body bytes received (after the head). */
        final AtomicLong received = new AtomicLong();
        final long expected;

        SlowReader(long expected) {
            this.expected = expected;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.channel().config().setAutoRead(false);
            ctx.channel().config().setOption(ChannelOption.SO_RCVBUF, 64 * 1024);
            channel.set(ctx.channel());
        }

        private final StringBuilder head = new StringBuilder();
        private boolean inBody;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            while (!inBody && b.isReadable()) {
                head.append((char) b.readByte());
                inBody = head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n");
            }
            long total = received.addAndGet(b.readableBytes());
            b.release();
            if (inBody && total >= expected) {
                ctx.writeAndFlush(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                        StandardCharsets.US_ASCII));
            }
        }
    }

    @Test
    void slowUpstreamReaderStallsTheClientUpload() throws Exception {
        String head = "PUT /up HTTP/1.1\r\nHost: a\r\nContent-Length: " + BODY + "\r\n\r\n";
        SlowReader reader = new SlowReader(BODY);
        TestUpstream up = h.add(TestUpstream.raw(reader));
        h.start(config(up.endpoint()));
        RawClient c = h.client();
        AtomicLong sent = new AtomicLong();
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = c.output();
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                byte[] chunk = new byte[64 * 1024];
                for (int i = 0; i < BODY / chunk.length; i++) {
                    out.write(chunk);
                    sent.addAndGet(chunk.length);
                }
                out.flush();
            } catch (Exception e) {
                // the test fails on its assertions
            }
        });
        writer.setDaemon(true);
        writer.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> reader.channel.get() != null);
        long stalled = plateau(sent);
        System.out.println("upload stalled at " + stalled + " bytes");
        assertThat(stalled).as("the client is held back, not buffered").isLessThan(MAX_IN_FLIGHT);
        // Now the upstream reads: everything arrives, and it answers.
        Channel upstreamSide = reader.channel.get();
        upstreamSide.config().setAutoRead(true);
        upstreamSide.read();
        c.setTimeout(20_000);
        RawClient.Response r = c.read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(reader.received.get()).as("body bytes the upstream got").isEqualTo(BODY);
        writer.join(5000);
    }

    @Test
    void slowClientReaderStallsTheUpstreamDownload() throws Exception {
        AtomicReference<Channel> upstreamChannel = new AtomicReference<>();
        AtomicLong written = new AtomicLong();
        @ChannelHandler.Sharable
        class BigAnswer extends ChannelInboundHandlerAdapter {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((ByteBuf) msg).release();
                if (upstreamChannel.getAndSet(ctx.channel()) != null) {
                    return;
                }
                ctx.write(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: " + BODY + "\r\n\r\n",
                        StandardCharsets.US_ASCII));
                byte[] chunk = new byte[64 * 1024];
                for (int i = 0; i < BODY / chunk.length; i++) {
                    ctx.write(Unpooled.wrappedBuffer(chunk)).addListener(f -> written.addAndGet(chunk.length));
                }
                ctx.flush();
            }
        }
        TestUpstream up = h.add(TestUpstream.raw(new BigAnswer()));
        h.start(config(up.endpoint()));
        RawClient c = h.add(new RawClient(h.address(), 64 * 1024));
        c.send("GET /down HTTP/1.1\r\nHost: a\r\n\r\n");
        await().atMost(Duration.ofSeconds(10)).until(() -> written.get() > 0);
        long stalled = plateau(written);
        System.out.println("download stalled at " + stalled + " bytes");
        assertThat(stalled).as("the upstream is held back, not buffered").isLessThan(MAX_IN_FLIGHT);
        c.setTimeout(20_000);
        RawClient.Response r = c.read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body().length).isEqualTo(BODY);
    }
}
